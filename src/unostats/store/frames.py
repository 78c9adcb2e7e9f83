"""The engine's four frames as the store types them: their columns (``FRAME_COLUMNS``), the
logical keys of the results tables (``RESULT_KEYS``) and the names a named column codes
(``NAMES``). The stored tables (``games``), their packing (``packing``) and the Parquet store all
follow these."""

from __future__ import annotations

from .. import codes
from ..codes import COUNTER_NAMES

# Columns of the engine's frames: (name, DuckDB type, nullable). Compact types where the rule
# table's bounds allow (seats <= 10); INTEGER/BIGINT where caps reach millions (max_turns,
# max_rounds). Frames may use any narrower dtype: inserts CAST, and overflow fails the batch.
FRAME_COLUMNS: dict[str, tuple[tuple[str, str, bool], ...]] = {
    "games": (
        ("game", "INTEGER", False),
        ("rounds", "INTEGER", False),
        ("turns", "BIGINT", False),
        ("first_seat", "SMALLINT", False),
        ("winner_seat", "SMALLINT", True),
        ("margin", "INTEGER", True),
        ("ended_by", "VARCHAR", False),
    ),
    "game_seats": (
        ("game", "INTEGER", False),
        ("seat", "SMALLINT", False),
        ("policy", "VARCHAR", False),
        ("final_score", "INTEGER", False),
        ("rank", "SMALLINT", False),
        ("is_winner", "BOOLEAN", False),
        ("is_loser", "BOOLEAN", False),
    ),
    "rounds": (
        ("game", "INTEGER", False),
        ("round", "INTEGER", False),
        ("dealer_seat", "SMALLINT", False),
        ("first_seat", "SMALLINT", False),
        ("winner_seat", "SMALLINT", True),
        ("winner_position", "SMALLINT", True),
        *((name, "INTEGER", False) for name in COUNTER_NAMES),
        ("points", "INTEGER", False),
        ("ended_by", "VARCHAR", False),
        ("loser_seat", "SMALLINT", True),
        ("largest_penalty", "INTEGER", False),
        # How the round played (engine/_measures.py; docs/guide/how-it-plays.md): NULL in a
        # run that did not count it (the scenario's how_it_plays).
        ("hand_leader_changes", "INTEGER", True),
        ("winner_largest_deficit", "INTEGER", True),
        ("decision_turns", "INTEGER", True),
        ("legal_cards_on_decisions", "INTEGER", True),
        ("uno_stops", "INTEGER", True),
        ("uno_stops_still_won", "INTEGER", True),
    ),
    "round_seats": (
        ("game", "INTEGER", False),
        ("round", "INTEGER", False),
        ("seat", "SMALLINT", False),
        ("position", "SMALLINT", False),
        ("cards_left", "INTEGER", False),
        ("hand_points", "INTEGER", False),
        ("score_after", "INTEGER", False),
        ("hands_emptied", "SMALLINT", False),
        ("finish_place", "SMALLINT", True),
    ),
}

# Logical keys of the results tables (documented and checked by tests, not indexed).
RESULT_KEYS = {
    "games": ("run_id", "variant", "players", "game"),
    "game_seats": ("run_id", "variant", "players", "game", "seat"),
    "rounds": ("run_id", "variant", "players", "game", "round"),
    "round_seats": ("run_id", "variant", "players", "game", "round", "seat"),
}

# The columns that hold one of a few names: each name stored as its index here.
NAMES = {("games", "ended_by"): codes.GAME_END_NAMES, ("rounds", "ended_by"): codes.ROUND_END_NAMES}
