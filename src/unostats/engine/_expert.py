"""The expert's search (njit): the parts of a choice of card taken by playing the candidates out.

At a choice of card with more than one candidate (a card type, and with ``colours: search`` a
black card's colour), the expert (seats.SearchPolicy) samples ``budget`` deals of the cards it
cannot see, plays every candidate out to the end of the round once in each deal, every seat
playing its playout policy, and plays the candidate worth most in total if it beats its playout
policy's own choice clearly (``best``), else that choice. Its deals respect what the other
seats showed of their hands: a seat that drew for want of a legal card held none of the cards
then legal (``shown_void``, ``deal_unseen``). Here: the candidates, the copy of the round a
playout plays on, the deal of the unseen cards, what a playout's end is worth, the policy's
choice, the choice among candidates and the search stream. The loop that calls the playouts is
``_turns.search_card`` (a playout is a round loop compiled without the search, so the call graph
has no cycle). docs/guide/seats.md "The expert" is the specification.
"""

import numpy as np

from .. import codes as C
from .. import rules as R
from ._jit import kernel
from ._layout import DISCARDS, DRAW_PILE, SHOWN
from ._policies import choose_card, choose_colour
from ._rng import bounded, seed_stream, side_key
from ._table import FIRST_BLACK, NT, colour_of, holds_colour, is_legal, is_restricted

# How clearly another candidate must beat the playout policy's own choice to be played: by more
# than KEEP standard errors of their paired differences over the deals (docs/performance.md
# "The expert": at 6 players, where one choice moves a round's outcome little, the plain best
# total played worse than the policy).
KEEP = 1.0


@kernel(inline=True)
def colours_of(st, opt, p, t):
    """The colours seat p searches with card type t: the four for a black card when it searches
    colours (a candidate is a card and the colour it names) and P7's colour cycle does not name
    it; else 1 (a coloured card, or the colour its playout policy names)."""
    return 4 if st.colour_search[p] and t >= FIRST_BLACK and opt.colour_cycle == 0 else 1


@kernel
def candidates(st, opt, p):
    """The card types seat p may play now without a bluff (the turn's choices of
    ``_policies.choose_card``, but a restricted black card held with the colour), as a bit mask,
    and how many candidates they make (a black card one per colour it may name)."""
    mask = 0
    count = 0
    for t in range(NT):
        if st.hand[p, t] > 0 and is_legal(t, st.col, st.rank) \
                and not (is_restricted(opt, t) and holds_colour(st, p, st.col)):
            mask |= 1 << t
            count += colours_of(st, opt, p, t)
    return mask, count


@kernel
def forget_shown(st):
    """A new round: no seat has shown anything of its hand."""
    for q in range(st.n):
        st.shown[q] = 0


@kernel
def shown_void(st, q):
    """Seat q has shown it holds no card legal on the table now (it drew instead of playing, and
    then held none either: every policy plays a legal card when it holds one, and plays a
    drawn one unless its ``keep_drawn`` keeps it, which only a black card may be): remember the
    card types legal now and its intake, dropping its oldest showing past ``SHOWN``. Every card
    it holds now, and still holds later, is none of them; a card it takes later may be."""
    keeps = st.behaviour[q, C.B_KEEP_DRAWN] > 0
    mask = 0
    for t in range(NT):
        if is_legal(t, st.col, st.rank) and not (keeps and t >= FIRST_BLACK):
            mask |= 1 << t
    for k in range(SHOWN - 1, 0, -1):
        st.shown_mask[q, k] = st.shown_mask[q, k - 1]
        st.shown_intake[q, k] = st.shown_intake[q, k - 1]
    st.shown_mask[q, 0] = mask
    st.shown_intake[q, 0] = st.intake[q]
    st.shown[q] = min(st.shown[q] + 1, SHOWN)


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
    dst.named = 0
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


@kernel(inline=True)
def _take(st, n, barred):
    """The draw pile's last card among its first ``n`` that is no type of the bit mask
    ``barred``, moved to position n - 1 (the pile is shuffled: the last is a uniform choice);
    the last card if none is. Returns the card."""
    j = n - 1
    while j >= 0 and (barred >> np.int64(st.piles[DRAW_PILE, j])) & 1:
        j -= 1
    if j < 0:
        j = n - 1
    t = st.piles[DRAW_PILE, j]
    st.piles[DRAW_PILE, j] = st.piles[DRAW_PILE, n - 1]
    st.piles[DRAW_PILE, n - 1] = t
    return t


@kernel
def deal_unseen(st, known, p, state):
    """A deal of the cards seat p cannot see that agrees with what it sees: its hand, the
    discards and every hand's size stay; the other hands and the draw pile are dealt afresh
    from what they hold together, each seat's hand as far as the cards allow none of the types
    its showings (``known``, the table searched: ``shown_void``) rule out: of the cards a seat
    holds, at least hsize - (its intake since a showing) were held then, so that many are none
    of the types of that showing and of every later one. Returns the state."""
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
        dealt = 0
        for k in range(known.shown[q] - 1, -1, -1):  # the oldest showing rules out the most
            barred = 0
            for i in range(k + 1):
                barred |= known.shown_mask[q, i]
            held = st.hsize[q] - (known.intake[q] - known.shown_intake[q, k])
            for _ in range(held - dealt):
                t = _take(st, n, barred)
                n -= 1
                st.hand[q, t] += 1
                st.hcol[q, colour_of(t)] += 1
                dealt += 1
        for _ in range(st.hsize[q] - dealt):
            n -= 1
            t = st.piles[DRAW_PILE, n]
            st.hand[q, t] += 1
            st.hcol[q, colour_of(t)] += 1
    st.npile = n
    return state


@kernel
def prepare(src, dst, opt, p, card, named, key, deal):
    """The playout of ``card`` by seat p in deal number ``deal`` of the search ``key``: the round
    copied into ``dst`` (its unseen cards dealt afresh unless p sees every hand), its first
    card ``card``, naming ``named`` (1 + a colour; 0: the policy's). Every candidate of a deal is
    played out on the same deal and from the same stream (common random numbers: the comparison
    is between candidates, not deals). Returns the playout's stream."""
    copy_round(src, dst)
    state = seed_stream(key, deal)
    if src.sees_all[p] == 0:
        state = deal_unseen(dst, src, p, state)
    for s in range(src.n):  # every seat plays p's playout policy: p knows no other policy
        dst.policy[s] = src.policy[p]
        dst.colour_random[s] = src.colour_random[p]
        dst.ties_first[s] = src.ties_first[p]
        dst.weights[s, :] = src.weights[p, :]
    dst.side_key = side_key(state)  # random colours of the playout's own
    dst.side_n = 0
    dst.resume = card
    dst.named = named
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
    """The card seat p's playout policy would play now and the colour it would name with a black
    one (drawn from the search's stream, on the ``scratch`` table: the game's stream and table
    stay as they are); (-1, 0) if none."""
    state = prepare(st, scratch, opt, p, -1, 0, key, st.budget[p])  # a deal no playout plays
    card, _, _ = choose_card(scratch, opt, p, state)
    return card, choose_colour(scratch, p)


@kernel
def candidate_list(st, scratch, opt, p, mask, count, key):
    """The ``count`` candidates of the card types in ``mask``: their card types, the colour each
    names (1 + colour; 0: the playout policy's), and which is the playout policy's own choice
    (its card and colour; the first candidate if its card is none of them: a bluff)."""
    policy, policy_colour = policy_card(st, scratch, opt, p, key)
    cards = np.empty(count, dtype=np.int64)
    names = np.zeros(count, dtype=np.int64)
    mine = 0
    i = 0
    for t in range(NT):
        if (mask >> t) & 1:
            colours = colours_of(st, opt, p, t)
            for c in range(colours):
                cards[i] = t
                if colours > 1:
                    names[i] = c + 1
                if t == policy and (colours == 1 or c == policy_colour):
                    mine = i
                i += 1
    return cards, names, mine


@kernel
def best(totals, squares, mine, deals):
    """The candidate to play: the highest total worth over the ``deals`` (ties: the lowest
    index), if it beats the playout policy's candidate ``mine`` by more than ``KEEP`` standard
    errors of their paired differences (``squares``: their sums of squares), else ``mine``."""
    top = 0
    for i in range(totals.shape[0]):
        if totals[i] > totals[top]:
            top = i
    if top == mine or totals[top] == totals[mine]:
        return mine
    mean = (totals[top] - totals[mine]) / deals
    variance = max(squares[top] / deals - mean * mean, 0.0)
    return top if mean > KEEP * np.sqrt(variance / deals) else mine
