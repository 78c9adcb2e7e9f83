"""Play policies (njit): which card a seat plays, which colour it names, what it gives away,
whether it keeps a drawn card.

Rules here: B2 policies: policies written as data (weights of the card features codes.F_*), which
the bundled policies are presets of (seats.PRESETS), and the strategist, coded here
(seats.CODED says why); P7 colour choice by policy, P2/P3 bluffs (B1 ``bluff``) and the N2/D5
choice of the card given away. docs/engine.md "Policies as data".
"""

from .. import cards as K
from .. import codes as C
from .. import rules as R
from ..seats import card_kind_features
from ._jit import kernel
from ._rng import bounded, side_quarter, uniform
from ._table import (
    ALL_TYPES, BLACK, FIRST_BLACK, NT, WD4, colour_of, holds_colour, is_legal, is_number,
    is_restricted, next_seat, rank_of,
)


_KIND_FEATURE = card_kind_features()  # the kind feature of each card type


@kernel(inline=True)
def _flag(condition):
    return 1.0 if condition else 0.0


@kernel
def score(st, s, t, col, rank, threat):
    """A weighted policy's score of card type t in seat s's hand on ``col``/``rank``: the sum of
    its weights times the card's features (codes.F_*; docs/engine.md "Policies as data").
    ``threat``: the next seat holds two cards or fewer."""
    black = t >= FIRST_BLACK
    r = rank_of(t)
    copies = st.hand[s, t]
    same_rank = copies  # a black card's symbol is its type
    if not black:
        same_rank = 0
        for c in range(4):
            same_rank += st.hand[s, c * 13 + r]
    colour_held = st.hcol[s, colour_of(t)] - 1
    rank_held = same_rank - 1
    attack = threat and (t == WD4 or (not black and r >= K.SKIP))
    return (st.weights[s, _KIND_FEATURE[t]]
            + st.weights[s, C.F_POINTS] * st.points[t]
            + st.weights[s, C.F_COLOUR_MATCH] * _flag(not black and colour_of(t) == col)
            + st.weights[s, C.F_RANK_MATCH] * _flag(r == rank)
            + st.weights[s, C.F_COLOUR_HELD] * colour_held
            + st.weights[s, C.F_RANK_HELD] * rank_held
            + st.weights[s, C.F_LINKS] * (colour_held + rank_held - (copies - 1))
            + st.weights[s, C.F_ATTACK] * _flag(attack))


@kernel
def value(st, s, t, col, rank, threat):
    """Seat s's preference for card type t on ``col``/``rank`` (the highest is played): its
    weighted score, 0 for weights that are all 0 (none computed), or the strategist's class."""
    policy = st.policy[s]
    if policy == C.POLICY_UNIFORM:
        return 0.0
    if policy == C.POLICY_STRATEGIST:
        return _strategist_class(st, s, t, threat)
    return score(st, s, t, col, rank, threat)


@kernel
def pick_by_score(st, s, col, rank, allowed, legal_only, threat, state):
    """Seat s's card: the best ``value`` of the card types in the bit mask ``allowed`` in its hand
    (legal on ``col``/``rank``, if ``legal_only``); ties to the lowest card id (``ties_first``)
    or uniform over the tied card instances; -1 if none. Returns (card, state)."""
    best = 0.0
    first = -1
    n_best = 0
    for t in range(NT):
        m = st.hand[s, t]
        if m == 0 or not (allowed >> t) & 1 or (legal_only and not is_legal(t, col, rank)):
            continue
        v = value(st, s, t, col, rank, threat)
        if first < 0 or v > best:
            best = v
            first = t
            n_best = m
        elif v == best:
            n_best += m
    if first < 0 or st.ties_first[s]:
        return first, state
    k, state = bounded(state, n_best)
    for t in range(first, NT):
        m = st.hand[s, t]
        if m == 0 or not (allowed >> t) & 1 or (legal_only and not is_legal(t, col, rank)):
            continue
        if value(st, s, t, col, rank, threat) == best:
            if k < m:
                return t, state
            k -= m
    return -1, state  # unreachable


@kernel(inline=True)
def threatens(st, s):
    """The next seat after s holds two cards or fewer (the strategist's and ``attack``'s cue)."""
    return st.hsize[next_seat(st, s)] <= 2


@kernel(inline=True)
def choose_colour(st, s):
    """P7 by policy: the colour held most, ties to the lowest colour index; a weighted policy
    with ``colour: random`` draws it from the game's side stream (_rng.side_quarter), which
    leaves the draws of the game's own stream as they are. An expert's search may have chosen
    it (``st.named``: 1 + the colour, for the card it plays next)."""
    if st.named > 0:
        colour = st.named - 1
        st.named = 0
        return colour
    if st.colour_random[s]:
        st.side_n += 1
        return side_quarter(st.side_key, st.side_n)
    best = 0
    for c in range(1, 4):
        if st.hcol[s, c] > st.hcol[s, best]:
            best = c
    return best


@kernel(inline=True)
def bluffs(st, s, state):
    """Whether seat s plays a restricted black card anyway (P2/P3), by its ``bluff``
    probability; returns (bool, state)."""
    u, state = uniform(state)
    return u < st.behaviour[s, C.B_BLUFF], state


@kernel
def if_playable(st, opt, card, s, state):
    """A drawn card (or -1) if seat s may play it now (P1, P2/P3 with a bluff), else -1."""
    if card >= 0 and not is_legal(card, st.col, st.rank):
        return -1, state
    if is_restricted(opt, card) and holds_colour(st, s, st.col):
        bluff, state = bluffs(st, s, state)
        if not bluff:
            return -1, state
    return card, state


@kernel(inline=True)
def keeps_drawn(st, s, card):
    """P5 one_may_play ("it may be played"): whether seat s keeps the drawn card it may play,
    by its ``keep_drawn`` behaviour: a black card while its hand, the card included, holds more
    cards than that (0: never kept)."""
    keep = st.behaviour[s, C.B_KEEP_DRAWN]
    return card >= FIRST_BLACK and keep > 0 and st.hsize[s] > keep


@kernel(inline=True)
def _kth_type(st, s, first, stride, n, k, excluded):
    """The card type holding seat s's k-th card (k below their total) among the n types first,
    first + stride, ..., but those in the bit mask ``excluded``. Branch-free: where the k-th
    card lies is random, and a loop that stops there mispredicts its exit; so is the type left
    out (the top's number in the current colour), whose count a conditional expression loaded
    on a branch (the product: 1.5-2.4% more rounds/s)."""
    before = 0
    seen = 0
    for i in range(n - 1):  # the k-th card is past every type whose running total is <= k
        t = first + i * stride
        seen += st.hand[s, t] * (((excluded >> t) & 1) ^ 1)  # a product, not a branch either
        before += seen <= k
    return first + before * stride


@kernel(inline=True)
def pick_uniform(st, s, allow_wd4, allow_wild, state):
    """The card of a seat whose weights are all 0 with random ties (``random``): uniform over
    the legal card instances in hand, as ``pick_by_score`` chooses among equal scores, from
    counts per colour instead of a value per card type (the C yardstick's policy, the
    benchmarks' hot path). It enumerates the instances in its own order (the current colour's,
    then the top's number or symbol in the other colours, then black): the same distribution,
    other draws than the general path's card-id order, which costs 7% of the kernel's time per
    turn here. -1 if none. Returns (card, state)."""
    col = st.col
    rank = st.rank
    ncol = st.hcol[s, col]
    nblack = st.hcol[s, BLACK]
    nrank = 0
    if rank < 13:
        for c in range(4):
            nrank += st.hand[s, c * 13 + rank]
        nrank -= st.hand[s, col * 13 + rank]  # counted in ncol
    barred = 0  # black card types not allowed
    if not allow_wd4:
        nblack -= st.hand[s, WD4]
        barred |= 1 << WD4
    if not allow_wild:
        nblack -= st.hand[s, K.WILD]
        barred |= 1 << K.WILD
    total = ncol + nrank + nblack
    if total == 0:
        return -1, state
    k, state = bounded(state, total)
    if k < ncol:
        return _kth_type(st, s, col * 13, 1, 13, k, 0), state
    k -= ncol
    if k < nrank:
        return _kth_type(st, s, rank, 13, 4, k, 1 << (col * 13 + rank)), state
    return _kth_type(st, s, FIRST_BLACK, 1, NT - FIRST_BLACK, k - nrank, barred), state


@kernel
def _strategist_class(st, s, t, threat):
    """The strategist's preference for card type t in seat s's hand: an attack on a next seat
    holding two cards or fewer first (a Draw Two or Wild Draw Four, then a Skip or Reverse),
    then coloured cards of the colour held most (high numbers first, actions kept), black
    cards last (seats.CODED: why weights cannot say this)."""
    black = t >= FIRST_BLACK
    if threat and (t == WD4 or rank_of(t) == K.DRAW_TWO):
        return 300.0
    if threat and not black and rank_of(t) >= K.SKIP:
        return 200.0
    if black:
        return 0.0  # kept for the end: played only when nothing else is legal
    # Stay in (or move to) the colour held most, shedding high numbers first and keeping
    # actions for an attack.
    return 100.0 + 20 * st.hcol[s, colour_of(t)] + (st.points[t] if is_number(t) else 0)


@kernel
def prefer(st, s, first, second, threat, state):
    """P5 two: of two legal drawn cards, the one seat s prefers (the better ``value``; equals:
    the lower id with ``ties_first``, else a fair coin). Returns (card, state)."""
    a = value(st, s, first, st.col, st.rank, threat)
    b = value(st, s, second, st.col, st.rank, threat)
    if a == b:
        if st.ties_first[s]:
            return min(first, second), state
        coin, state = bounded(state, 2)
        return (first if coin == 0 else second), state
    return (first if a > b else second), state


@kernel
def least_useful(st, s, state):
    """N2, D5: the card seat s gives away: the one it scores best, the one it would most like to
    be rid of (ties as its ``ties``); the strategist: numbers before coloured actions before
    black cards, then the most points, ties to the lowest card id. Returns (card, state)."""
    if st.policy[s] != C.POLICY_STRATEGIST:
        return pick_by_score(st, s, st.col, st.rank, ALL_TYPES, False, threatens(st, s), state)
    best = -1
    best_key = 0
    for t in range(NT):
        if st.hand[s, t] > 0:
            kind = 2 if t >= FIRST_BLACK else (0 if rank_of(t) <= 9 else 1)
            key = kind * 1000 - st.points[t]
            if best < 0 or key < best_key:
                best, best_key = t, key
    return best, state


@kernel(inline=True)
def choose_card(st, opt, p, state):
    """B2: the card seat p plays in its turn, or -1 if it holds no legal card. P2/P3: a
    restricted black card is legal without a card of the colour, or as a bluff (one draw per
    turn covers both kinds). Returns (card, threat, state); ``threat``: the next seat holds two
    cards or fewer (the strategist's and ``attack``'s cue; False for weights that are all 0,
    which ignore it)."""
    wd4_restricted = opt.wild_draw_four == R.WILD_DRAW_FOUR_NO_MATCHING_COLOUR
    wild_restricted = opt.wild == R.WILD_NO_MATCHING_COLOUR
    allow = True
    if ((wd4_restricted and st.hand[p, WD4] > 0) or (wild_restricted and st.hand[p, K.WILD] > 0)) \
            and holds_colour(st, p, st.col):
        allow, state = bluffs(st, p, state)
    allow_wd4 = allow or not wd4_restricted
    allow_wild = allow or not wild_restricted
    if st.policy[p] == C.POLICY_UNIFORM and not st.ties_first[p]:
        card, state = pick_uniform(st, p, allow_wd4, allow_wild, state)
        return card, False, state
    threat = threatens(st, p)
    allowed = ALL_TYPES
    if not allow_wd4:
        allowed ^= 1 << WD4
    if not allow_wild:
        allowed ^= 1 << K.WILD
    card, state = pick_by_score(st, p, st.col, st.rank, allowed, True, threat, state)
    return card, threat, state
