"""Card types as small integers, their colour/rank/points lookup arrays, and deck builders.

A card *type* is an int in ``0..N_TYPES-1``; a deck or hand is an array of copies per type.
Coloured types are ``colour * 13 + rank`` (ranks 0-9 numbers, then Skip, Reverse, Draw Two);
black types follow from 52. Strings never reach the kernels: ``card_to_str`` is for traces and
error messages only.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

COLOURS = ("red", "yellow", "green", "blue")
N_COLOURS = 4
NO_COLOUR = 4  # colour slot of black cards (and "no colour chosen yet")

# Ranks. Coloured: 0-9, SKIP, REVERSE, DRAW_TWO. Black ranks have one type each.
SKIP, REVERSE, DRAW_TWO = 10, 11, 12
WILD_RANK, WILD_DRAW_FOUR_RANK = 13, 14
BLANK_RANK, HIT_ALL_ONE_RANK, HIT_ALL_TWO_RANK, SWAP_HANDS_RANK, CUSTOM_WILD_RANK = 15, 16, 17, 18, 19
N_RANKS = 20
N_COLOURED_RANKS = 13

# Black card types.
WILD = 52
WILD_DRAW_FOUR = 53
BLANK = 54
HIT_ALL_ONE = 55
HIT_ALL_TWO = 56
SWAP_HANDS = 57
CUSTOM_WILD = 58
N_TYPES = 59
FIRST_BLACK = WILD

RANK_NAMES = (
    "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "skip", "reverse", "+2",
    "wild", "+4", "blank", "hit+1", "hit+2", "swap-hands", "custom-wild",
)
_COLOUR_LETTERS = "RYGB"


def _build_tables() -> tuple[np.ndarray, np.ndarray]:
    colour = np.empty(N_TYPES, dtype=np.int64)
    rank = np.empty(N_TYPES, dtype=np.int64)
    for t in range(N_TYPES):
        if t < FIRST_BLACK:
            colour[t], rank[t] = divmod(t, N_COLOURED_RANKS)
        else:
            colour[t], rank[t] = NO_COLOUR, WILD_RANK + (t - WILD)
    colour.flags.writeable = False
    rank.flags.writeable = False
    return colour, rank


TYPE_COLOUR, TYPE_RANK = _build_tables()


def card_type(colour: int, rank: int) -> int:
    """Type id of a coloured card (rank 0..12)."""
    return colour * N_COLOURED_RANKS + rank


def is_black(t: int) -> bool:
    return t >= FIRST_BLACK


def is_number(t: int) -> bool:
    return t < FIRST_BLACK and TYPE_RANK[t] <= 9


def card_to_str(t: int) -> str:
    """Short display name: 'R5', 'Y-skip', 'G+2', 'wild', '+4'. For traces and errors only."""
    if not 0 <= t < N_TYPES:
        return f"<card {t}>"
    if t >= FIRST_BLACK:
        return RANK_NAMES[TYPE_RANK[t]]
    letter = _COLOUR_LETTERS[TYPE_COLOUR[t]]
    r = TYPE_RANK[t]
    return f"{letter}{r}" if r <= 9 else f"{letter}-{RANK_NAMES[r]}" if r != DRAW_TWO else f"{letter}+2"


def colour_to_str(c: int) -> str:
    return COLOURS[c] if 0 <= c < N_COLOURS else "none"


# D1/D3-D6: deck composition keys (the `deck` rule key, docs/rules.md) and their standard counts.
# Per-colour keys give copies per colour (numbers: copies of each of 1-9 per colour);
# the others are totals.
DECK_KEYS: dict[str, int] = {
    "zero": 1,
    "numbers": 2,
    "skip": 2,
    "reverse": 2,
    "draw_two": 2,
    "wild": 4,
    "wild_draw_four": 4,
    "blank": 0,
    "hit_all_one": 0,
    "hit_all_two": 0,
    "swap_hands": 0,
    "custom_wild": 0,
}
PER_COLOUR_DECK_KEYS = ("zero", "numbers", "skip", "reverse", "draw_two")
_BLACK_KEY_TYPE = {
    "wild": WILD,
    "wild_draw_four": WILD_DRAW_FOUR,
    "blank": BLANK,
    "hit_all_one": HIT_ALL_ONE,
    "hit_all_two": HIT_ALL_TWO,
    "swap_hands": SWAP_HANDS,
    "custom_wild": CUSTOM_WILD,
}


def deck_counts(overrides: Mapping[str, int] | None = None) -> np.ndarray:
    """Copies per card type for the standard deck with ``overrides`` applied (keys of DECK_KEYS)."""
    spec = dict(DECK_KEYS)
    if overrides:
        unknown = set(overrides) - set(spec)
        if unknown:
            raise KeyError(f"unknown deck keys {sorted(unknown)}; allowed: {sorted(spec)}")
        spec.update(overrides)
    counts = np.zeros(N_TYPES, dtype=np.int64)
    for c in range(N_COLOURS):
        counts[card_type(c, 0)] = spec["zero"]
        for r in range(1, 10):
            counts[card_type(c, r)] = spec["numbers"]
        counts[card_type(c, SKIP)] = spec["skip"]
        counts[card_type(c, REVERSE)] = spec["reverse"]
        counts[card_type(c, DRAW_TWO)] = spec["draw_two"]
    for key, t in _BLACK_KEY_TYPE.items():
        counts[t] = spec[key]
    return counts


def card_points(action_value: int = 20, black_value: int = 50) -> np.ndarray:
    """D2 scoring values per type: numbers face value, coloured actions 20, black cards 50."""
    pts = np.empty(N_TYPES, dtype=np.int64)
    for t in range(N_TYPES):
        if t >= FIRST_BLACK:
            pts[t] = black_value
        elif TYPE_RANK[t] <= 9:
            pts[t] = TYPE_RANK[t]
        else:
            pts[t] = action_value
    return pts
