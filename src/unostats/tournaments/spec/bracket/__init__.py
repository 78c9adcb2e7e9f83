"""Championships (docs/rules.md section 9, TOUR): the bracket, the draw by lot, who advances.

A tournament scenario (``tournament:`` in a scenario file, validated by ``scenario``) names the
entrant profiles (a play policy and behaviour each), one or more *fields* (how many entrants of
each profile), the table size and the stages. One tournament of a field goes:

1. Stage by stage, the stage's players are drawn by lot onto ``ceil(players / table_size)``
   tables whose sizes differ by at most one (seat order = draw order). Every table plays one game
   of the variant (to its target score, 500 under TOUR).
2. The best ``advance`` players of each table go on to the next stage. ``advance`` is a number or
   a rule by the bracket's number of entrants (TOUR: "the best 2 of each table, or 3, depending on
   the number of entrants"). When a stage's players fit at one table, that table is the final and
   the stages in between are skipped. The final's best player is the champion.
3. With ``consolation``, the players knocked out in the first stage play a consolation tournament
   with the same stages and rules (TOUR T3), its advance rule evaluated with its own entrant count.

Final places (competition ranking, per bracket): players who reached a later stage are better;
within the stage they were knocked out in, the better finish at their table (1st, 2nd, ...) is
better; equal stage and finish share a place (two semifinal runners-up are both 3rd of a final of
two). Exactly one champion per bracket.

Randomness: tournament ``t`` of a field is a pure function of (scenario, engine version, seed, t).
The variant is not in its seeds: the same field under two variants gets the same draws (common
random numbers make the variants' comparison sharper).

The package is pure Python and numpy with an injectable table player, so the bracket logic is
tested on hand-made games; ``tournaments.driver`` plugs in the engine. Its modules:

- ``spec``: the specification (stages, advance rules, fields) and the plan of a bracket's stages.
- ``seeds``: every draw, lot and table game's seed, one SeedSequence key each.
- ``ranking``: a table's game as the bracket reads it, and who is better at a table.
- ``bracket``: the tournaments of a batch played side by side (``play_batch``).

This package's names are the bracket's interface.
"""

from .bracket import PlayColumns, PlayedTournaments, PlayTables, StageRecord, play_batch
from .ranking import DECIDED_BY, TableGame, TableGames
from .spec import (
    BRACKETS,
    CONSOLATION,
    DEFAULT_TABLE_SIZE,
    ENTRANTS_RANGE,
    MAIN,
    TABLE_SIZE_RANGE,
    AdvanceRule,
    Field,
    PlanError,
    Stage,
    StagePlan,
    TournamentSpec,
    balanced_tables,
    consolation_entrants,
    plan_bracket,
)

__all__ = [
    "BRACKETS", "CONSOLATION", "DECIDED_BY", "DEFAULT_TABLE_SIZE", "ENTRANTS_RANGE", "MAIN",
    "TABLE_SIZE_RANGE", "AdvanceRule", "Field", "PlanError", "PlayColumns", "PlayTables",
    "PlayedTournaments", "Stage", "StagePlan", "StageRecord", "TableGame", "TableGames",
    "TournamentSpec", "balanced_tables", "consolation_entrants", "plan_bracket", "play_batch",
]
