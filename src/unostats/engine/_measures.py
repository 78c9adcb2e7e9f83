"""How a round plays, counted as it is played (njit): the hand leader, decisions, UNO stops.

Counting only, no rule: the game loop (_turns) calls ``start_measures`` before each deal,
``sample_hands`` at the start of every turn, ``count_decision`` before a seat chooses the card
of its turn, and ``write_measures`` when the round is over; _table's ``uno_stop`` counts a seat
on one card skipped or made to draw a penalty. Only the loops compiled to count call them: the
others write ``no_measures``. docs/guide/how-it-plays.md defines each measure; engine/referee
recomputes them from the trace.
"""

import numpy as np
from numba import types
from numba.extending import intrinsic

from .. import cards
from .. import cards as K
from .. import rules as R
from ._jit import kernel
from ._layout import (
    RO_DECISION_TURNS, RO_HAND_LEADER_CHANGES, RO_LEGAL_CARDS_ON_DECISIONS, RO_UNO_STOPS,
    RO_UNO_STOPS_STILL_WON, RO_WINNER_LARGEST_DEFICIT,
)
from ._table import FIRST_BLACK, NT, WD4, holds_colour


@kernel(inline=True)
def start_measures(st):
    """A round's measures before its deal: no hand leader yet, nothing counted."""
    st.leader = -1
    st.leader_changes = 0
    st.decision_turns = 0
    st.legal_on_decisions = 0
    for s in range(st.n):
        st.held[s] = 0  # the hands are empty (finish_round emptied the last round's)
        st.deficit[s] = 0
        st.stops[s] = 0


@intrinsic
def _popcount(typingctx, x):
    """The bits set in int64 ``x`` (LLVM's ctpop: one instruction)."""
    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])
    return types.int64(types.int64), codegen


def _legal_masks() -> np.ndarray:
    """LEGAL[colour, rank]: the bit mask of the card types P1 lets a seat play on that colour
    (4: none) and rank, as ``_table.is_legal`` says (every black type, the colour's, the
    rank's)."""
    colour, rank = cards.TYPE_COLOUR, cards.TYPE_RANK
    out = np.zeros((cards.N_COLOURS + 1, int(rank.max()) + 1), dtype=np.int64)
    for c in range(out.shape[0]):
        for r in range(out.shape[1]):
            for t in range(NT):
                if t >= FIRST_BLACK or colour[t] == c or rank[t] == r:
                    out[c, r] |= 1 << t
    return out


_LEGAL = _legal_masks()


@kernel(inline=True)
def sample_hands(st, p):
    """At the start of seat p's turn: the hand leader is the seat in the round that alone holds
    the fewest cards (a tie leaves the lead where it was); a new leader after the first is a
    change; seat p's deficit to the fewest held. One pass over the seats and no branch (a
    seat that has finished, R9, counts as holding 2**20 cards; a change of leader, hard to
    foresee, is a select, not a jump). Keeping the fewest up to date as cards move instead (in
    ``_cards.add`` and ``remove``) cost as much, and so did holding the counts in the round
    loop's locals (docs/performance.md)."""
    fewest = 1 << 20
    holders = 0
    holder = 0
    for s in range(st.n):
        h = st.hsize[s] + (((st.out >> s) & 1) << 20)
        below = h < fewest
        holders = 1 if below else holders + (h == fewest)
        holder = s if below else holder
        fewest = min(fewest, h)
    st.deficit[p] = max(st.deficit[p], st.hsize[p] - fewest)
    leader = st.leader
    change = (holders == 1) & (holder != leader)
    st.leader_changes += change & (leader >= 0)
    st.leader = holder if change else leader


@kernel(inline=True)
def count_decision(st, opt, p):
    """Before seat p chooses the card of its turn: the distinct card types it may play (P1 with
    the P2/P3 restrictions, no bluff), from the types it holds (``st.held``); more than one
    makes the turn a decision."""
    legal = st.held[p] & _LEGAL[st.col, st.rank]
    barred = 0
    if opt.wild_draw_four == R.WILD_DRAW_FOUR_NO_MATCHING_COLOUR:
        barred |= 1 << WD4
    if opt.wild == R.WILD_NO_MATCHING_COLOUR:
        barred |= 1 << K.WILD
    legal &= ~(barred * holds_colour(st, p, st.col))
    k = _popcount(legal)
    many = k > 1
    st.decision_turns += many
    st.legal_on_decisions += k * many


@kernel(inline=True)
def write_measures(st, round_out, row):
    """The round's measures into its output row, once the round is over: the winner, if any,
    ends as the hand leader (a change if another seat led), its largest deficit (-1: no
    winner), the decisions, and the UNO stops of every seat and of the winner."""
    w = st.winner
    if w >= 0 and st.leader >= 0 and st.leader != w:
        st.leader_changes += 1
    stops = 0
    for s in range(st.n):
        stops += st.stops[s]
    round_out[row, RO_HAND_LEADER_CHANGES] = st.leader_changes
    round_out[row, RO_WINNER_LARGEST_DEFICIT] = st.deficit[w] if w >= 0 else -1
    round_out[row, RO_DECISION_TURNS] = st.decision_turns
    round_out[row, RO_LEGAL_CARDS_ON_DECISIONS] = st.legal_on_decisions
    round_out[row, RO_UNO_STOPS] = stops
    round_out[row, RO_UNO_STOPS_STILL_WON] = st.stops[w] if w >= 0 else 0


@kernel(inline=True)
def no_measures(round_out, row):
    """A round not counted: its measures' columns hold -1, which its table reads as null."""
    for c in range(RO_HAND_LEADER_CHANGES, RO_UNO_STOPS_STILL_WON + 1):
        round_out[row, c] = -1
