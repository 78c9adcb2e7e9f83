"""Each game's totals over its rounds, counted from the kernel's round rows as a step of games
is played (one GIL-free pass a step), for a run that keeps games or summary: it stores these
and no round rows (``simulate_arrow(totals=...)``; the store derives the rest,
``store.keep.game_totals``). The columns are ``TOTAL_SUMS``, then each measure's count of
non-null rounds. No rule lives here: the standings read ``RuleSet.standings_sign``."""

from __future__ import annotations

from .. import codes
from . import _layout as L
from ._jit import kernel

# A game's sums over its rounds, in the pass's column order: its first round's dealer; its
# rounds, those won, those capped; turns and points (of rounds won) with their squares; rounds
# won by the seat in position 0; each round measure (``codes.MEASURE_NAMES``; the first two
# with their squares); then from the standings after each round: lead changes, whether the
# game's winner stood alone at the bottom (2), another seat did (1) or none (0), the winner's
# largest deficit to the leader, and the last round after which the winner did not lead.
TOTAL_SUMS = ("dealer", "rounds", "won", "capped", "turns", "turns_sq", "points", "points_sq",
              "p0", "hand_leader_changes", "hand_leader_changes_sq", "winner_deficit",
              "winner_deficit_sq", "decision_turns", "legal_cards_on_decisions", "uno_stops",
              "uno_stops_still_won", "lead_changes", "comeback", "drama", "not_led")
COUNTED = tuple(f"{name}__counted" for name in codes.MEASURE_NAMES)
COLUMNS = (*TOTAL_SUMS, *COUNTED)
_N_SUMS = len(TOTAL_SUMS)
# the measures' round columns, in ``codes.MEASURE_NAMES``' order (the pass reads them so)
assert L.RO_UNO_STOPS_STILL_WON - L.RO_HAND_LEADER_CHANGES + 1 == len(codes.MEASURE_NAMES) == 6
TURNS = L.RO_COUNTERS + codes.COUNTER_NAMES.index("turns")  # a round row's turns
_WON, _CAPPED = codes.ROUND_END_NAMES.index("win"), codes.ROUND_END_NAMES.index("cap")


@kernel(entry=True)
def add_rounds(rounds, seats, games, lo, sign, out):
    """Add each round of ``rounds`` (kernel round rows of whole games, each game's rounds in
    order; ``seats`` their round-seat rows) to its game's row of ``out`` (row game - ``lo``,
    ``COLUMNS``; cleared before a game's first round is added). ``games``: the games' kernel
    rows, row game - ``lo`` (its winner). ``sign``: 1 where the highest total leads, -1 where
    the lowest does. A measure's null (-1: not counted, or no winner) adds nothing and is not
    counted."""
    players = seats.shape[1]
    last = -1
    leader_before = -1
    for i in range(rounds.shape[0]):
        g = rounds[i, L.RO_GAME] - lo
        if g != last:
            out[g, :] = 0.0
            out[g, 0] = rounds[i, L.RO_DEALER]
            leader_before = -1
            last = g
        out[g, 1] += 1
        t = rounds[i, TURNS]
        out[g, 4] += t
        out[g, 5] += float(t) * t
        ended = rounds[i, L.RO_ENDED_BY]
        if ended == _WON:
            out[g, 2] += 1
            p = rounds[i, L.RO_POINTS]
            out[g, 6] += p
            out[g, 7] += float(p) * p
            if rounds[i, L.RO_WINNER_POS] == 0:
                out[g, 8] += 1
        elif ended == _CAPPED:
            out[g, 3] += 1
        col = 9
        for k in range(6):  # the measures, the first two with their squares
            v = rounds[i, L.RO_HAND_LEADER_CHANGES + k]
            if v != -1:
                out[g, _N_SUMS + k] += 1
                out[g, col] += v
                if k < 2:
                    out[g, col + 1] += float(v) * v
            col += 2 if k < 2 else 1
        # the standings after the round: the seat alone at the top leads, the seat alone at
        # the bottom is last (a tie: nobody)
        best = worst = sign * seats[i, 0, L.RS_SCORE_AFTER]
        leader, bottom, n_best, n_worst = 0, 0, 1, 1
        for j in range(1, players):
            v = sign * seats[i, j, L.RS_SCORE_AFTER]
            if v > best:
                best, leader, n_best = v, j, 1
            elif v == best:
                n_best += 1
            if v < worst:
                worst, bottom, n_worst = v, j, 1
            elif v == worst:
                n_worst += 1
        if n_best > 1:
            leader = -1
        if n_worst > 1:
            bottom = -1
        if leader >= 0:
            if leader_before >= 0 and leader != leader_before:
                out[g, 17] += 1
            leader_before = leader
        w = games[g, L.GO_WINNER]
        if w >= 0:
            deficit = best - sign * seats[i, w, L.RS_SCORE_AFTER]
            if deficit > out[g, 19]:
                out[g, 19] = deficit
            if bottom == w:
                out[g, 18] = 2
            elif bottom >= 0 and out[g, 18] == 0:
                out[g, 18] = 1
            if leader != w:
                out[g, 20] = rounds[i, L.RO_ROUND]

