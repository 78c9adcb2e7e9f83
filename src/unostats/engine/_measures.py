"""How a round plays, counted as it is played (njit): the hand leader, decisions, UNO stops.

Counting only, no rule: the game loop (_turns) calls ``start_measures`` before each deal,
``sample_hands`` at the start of every turn, ``count_decision`` before a seat chooses the card
of its turn, and ``write_measures`` when the round is over; _table's ``uno_stop`` counts a seat
on one card skipped or made to draw a penalty. docs/guide/how-it-plays.md defines each
measure; engine/referee recomputes them from the trace.
"""

from ._jit import kernel
from ._layout import (
    RO_DECISION_TURNS, RO_HAND_LEADER_CHANGES, RO_LEGAL_CARDS_ON_DECISIONS, RO_UNO_STOPS,
    RO_UNO_STOPS_STILL_WON, RO_WINNER_LARGEST_DEFICIT,
)
from ._table import BLACK, FIRST_BLACK, NT, holds_colour, is_restricted


@kernel(inline=True)
def start_measures(st):
    """A round's measures before its deal: no hand leader yet, nothing counted."""
    st.leader = -1
    st.leader_changes = 0
    st.decision_turns = 0
    st.legal_on_decisions = 0
    for s in range(st.n):
        st.deficit[s] = 0
        st.stops[s] = 0


@kernel(inline=True)
def sample_hands(st):
    """At a turn's start: the hand leader is the seat in the round that alone holds the fewest
    cards (a tie leaves the lead where it was); a new leader after the first is a change. Each
    seat in the round keeps its largest deficit to the fewest held."""
    fewest = 1 << 40
    holder = -1
    for s in range(st.n):
        h = st.hsize[s]
        if (st.out >> s) & 1 == 0:
            if h < fewest:
                fewest = h
                holder = s
            elif h == fewest:
                holder = -1
    if holder >= 0 and holder != st.leader:
        st.leader_changes += st.leader >= 0
        st.leader = holder
    for s in range(st.n):
        d = st.hsize[s] - fewest
        if (st.out >> s) & 1 == 0 and d > st.deficit[s]:
            st.deficit[s] = d


@kernel(inline=True)
def count_decision(st, opt, p):
    """Before seat p chooses the card of its turn: the distinct card types it may play (P1 with
    the P2/P3 restrictions, no bluff; 13 ranks per colour, black types last); more than one
    makes the turn a decision."""
    col = st.col
    rank = st.rank
    n = 0
    if col < BLACK:
        for r in range(13):
            n += st.hand[p, col * 13 + r] > 0
    if rank < 13:
        for c in range(4):
            n += (c != col) & (st.hand[p, c * 13 + rank] > 0)
    free = not holds_colour(st, p, col)
    for t in range(FIRST_BLACK, NT):
        n += (st.hand[p, t] > 0) & (free or not is_restricted(opt, t))
    if n > 1:
        st.decision_turns += 1
        st.legal_on_decisions += n


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

