"""The expert's search (njit): the parts of a choice of card taken by playing the candidates out.

At a choice of card with more than one candidate, the expert (seats.SearchPolicy) samples
``budget`` deals of the cards it cannot see, plays every candidate out to the end of the round
once in each deal, every seat playing its playout policy, and plays the candidate worth most in
total (ties: its playout policy's card). Here: the candidates, the copy of the round a playout
plays on, the deal of the unseen cards, what a playout's end is worth, the policy's card and
the search stream. The loop that calls the playouts is
``_turns.search_card`` (a playout is a round loop compiled without the search, so the call graph
has no cycle). docs/seats.md "The expert" is the specification.
"""

import numpy as np

from .. import rules as R
from ._jit import kernel
from ._layout import DISCARDS, DRAW_PILE
from ._policies import choose_card
from ._rng import bounded, seed_stream, side_key
from ._table import NT, colour_of, holds_colour, is_legal, is_restricted


@kernel
def candidates(st, opt, p):
    """The card types seat p may play now without a bluff (the turn's choices of
    ``_policies.choose_card``, but a restricted black card held with the colour), as a bit mask,
    and how many."""
    mask = 0
    count = 0
    for t in range(NT):
        if st.hand[p, t] > 0 and is_legal(t, st.col, st.rank) \
                and not (is_restricted(opt, t) and holds_colour(st, p, st.col)):
            mask |= 1 << t
            count += 1
    return mask, count


@kernel
def search_stream(state):
    """The key of a search's deals and playouts, and the game's next state: one draw of the
    game's stream per search, so a game replays the same whatever the thread count."""
    key, state = bounded(state, 1 << 31)
    return np.uint64(key), state


@kernel
def copy_round(src, dst):
    """The round as ``src`` holds it, into ``dst``: every field a round's turns read or write
    but the policies (``prepare`` sets them) and the trace and the deck before the deal (a
    playout ends with its round); ``dst`` is untraced and searches nothing."""
    dst.n = src.n
    dst.tracing = 0
    dst.stacked = src.stacked
    dst.ring_n = 0
    dst.tpos = 0
    for s in range(src.n):
        dst.budget[s] = 0
        dst.sees_all[s] = 0
        dst.scores[s] = src.scores[s]
        dst.lost[s] = src.lost[s]
        dst.hsize[s] = src.hsize[s]
        dst.hands[s] = src.hands[s]
        dst.place[s] = src.place[s]
        dst.bonus[s] = src.bonus[s]
    dst.behaviour[:, :] = src.behaviour
    dst.hand[:, :] = src.hand
    dst.hcol[:, :] = src.hcol
    dst.points[:] = src.points
    dst.counters[:] = src.counters
    dst.jumpers[:] = src.jumpers
    dst.resume = -1
    dst.side_key = src.side_key
    dst.side_n = src.side_n
    dst.ncards = src.ncards
    dst.acceptable = src.acceptable
    dst.npile = src.npile
    dst.ndisc = src.ndisc
    for i in range(src.npile):
        dst.piles[DRAW_PILE, i] = src.piles[DRAW_PILE, i]
    for i in range(src.ndisc):
        dst.piles[DISCARDS, i] = src.piles[DISCARDS, i]
    dst.col = src.col
    dst.rank = src.rank
    dst.dir = src.dir
    dst.winner = src.winner
    dst.pending = src.pending
    dst.pending_reason = src.pending_reason
    dst.escalation = src.escalation
    dst.skip_run = src.skip_run
    dst.jump_card = src.jump_card
    dst.jump_guilty = src.jump_guilty
    dst.jump_colour = src.jump_colour
    dst.silence_owner = src.silence_owner
    dst.silence_colour = src.silence_colour
    dst.cover = src.cover
    dst.out = src.out
    dst.left = src.left
    dst.largest_penalty = src.largest_penalty


@kernel
def deal_unseen(st, p, state):
    """A deal of the cards seat p cannot see that agrees with what it sees: its hand, the
    discards and every hand's size stay; the other hands and the draw pile are dealt afresh
    from what they hold together. Returns the state."""
    n = st.npile
    for q in range(st.n):
        if q == p:
            continue
        for t in range(NT):
            for _ in range(st.hand[q, t]):
                st.piles[DRAW_PILE, n] = t
                n += 1
            st.hand[q, t] = 0
        for c in range(st.hcol.shape[1]):
            st.hcol[q, c] = 0
    for i in range(n - 1, 0, -1):  # Fisher-Yates
        j, state = bounded(state, i + 1)
        t = st.piles[DRAW_PILE, i]
        st.piles[DRAW_PILE, i] = st.piles[DRAW_PILE, j]
        st.piles[DRAW_PILE, j] = t
    for q in range(st.n):
        if q == p:
            continue
        for _ in range(st.hsize[q]):
            n -= 1
            t = st.piles[DRAW_PILE, n]
            st.hand[q, t] += 1
            st.hcol[q, colour_of(t)] += 1
    st.npile = n
    return state


@kernel
def prepare(src, dst, opt, p, card, key, deal):
    """The playout of ``card`` by seat p in deal number ``deal`` of the search ``key``: the round
    copied into ``dst`` (its unseen cards dealt afresh unless p sees every hand), its first
    card ``card``. Every candidate of a deal is played out on the same deal and from the same
    stream (common random numbers: the comparison is between candidates, not deals). Returns
    the playout's stream."""
    copy_round(src, dst)
    state = seed_stream(key, deal)
    if src.sees_all[p] == 0:
        state = deal_unseen(dst, p, state)
    for s in range(src.n):  # every seat plays p's playout policy: p knows no other policy
        dst.policy[s] = src.policy[p]
        dst.colour_random[s] = src.colour_random[p]
        dst.ties_first[s] = src.ties_first[p]
        dst.weights[s, :] = src.weights[p, :]
    dst.side_key = side_key(state)  # random colours of the playout's own
    dst.side_n = 0
    dst.resume = card
    return state


@kernel
def worth(st, opt, p, rounds):
    """What the end of a playout is worth to seat p: 1 for a round won with the goal
    ``rounds`` or under a scoring that counts rounds (lazy); else the points it scores in the
    round (winner_takes_all: the others' hand points, card_count: their cards, when it won;
    own_points_*: minus its hand's points); 0 for a round capped. Higher is better."""
    if st.winner < 0:
        return 0.0
    if rounds:
        return 1.0 if st.winner == p else 0.0
    own = opt.scoring == R.SCORING_OWN_POINTS_LOW_WINS or opt.scoring == R.SCORING_OWN_POINTS_LOSE_AT
    if own:
        points = 0
        for t in range(NT):
            points += st.hand[p, t] * st.points[t]
        return -float(points)
    if st.winner != p:
        return 0.0
    if opt.scoring == R.SCORING_LAZY:
        return 1.0
    total = 0
    for q in range(st.n):
        if q == p:
            continue
        if opt.scoring == R.SCORING_CARD_COUNT:
            total += st.hsize[q]
        else:
            for t in range(NT):
                total += st.hand[q, t] * st.points[t]
    return float(total)


@kernel
def policy_card(st, scratch, opt, p, key):
    """The card seat p's playout policy would play now, which the search plays when another
    candidate does no better (drawn from the search's stream, on the ``scratch`` table: the
    game's stream and table stay as they are); -1 if none."""
    state = prepare(st, scratch, opt, p, -1, key, st.budget[p])  # a deal no playout plays
    card, _, _ = choose_card(scratch, opt, p, state)
    return card

