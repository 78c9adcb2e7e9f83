"""Numba kernels: deal, legal moves, play a card, play a round, play a game, play a batch.

njit only; no I/O. Rule switches arrive as the int64 rule vector (codes.R_*), cards as type ids
(cards.py), seat policies as codes.POLICY_* and behaviour as a float64 [seats, N_BEHAVIOUR] array.
docs/engine.md is the specification; engine/referee.py checks traces against it independently.

Mutable per-round state lives in a few preallocated arrays:
  hand[s, t]  copies of card type t held by seat s
  hcol[s, c]  cards of colour c held (c = 4 counts black cards), hsize[s] cards held
  piles       piles[DRAW_PILE, :npile] is the draw pile, piles[DISCARDS, :ndisc] the discard
              pile (its top card last); uint8 card types (see _TYPE_COLOUR)
  st          scalar slots (ST_*) and the round's counters (codes.C_* at ST_COUNTERS)
The random state is a value, not an array (see _rng.py): functions that draw take it and return
the next state. Drawing takes a uniformly random card from the pile: the same distribution as
shuffling first, and cheaper.

The turn loop in ``_play_games`` is the hot path: read the note on reference counts before
changing the shape of the code.
"""

import numpy as np
from numba import njit, prange

from .. import cards as K
from .. import codes as C
from ._rng import bounded, seed_stream, uniform

# Scalar state slots in ``st``.
ST_NPILE = 0
ST_NDISC = 1
ST_TPOS = 2  # next free trace row
ST_TRACE = 3  # 1 when tracing
ST_STACKED = 4  # 1 when the deck order is scripted (tests): draws take the top card
ST_COUNTERS = 5
N_ST = ST_COUNTERS + C.N_COUNTERS

# Rows of ``piles``.
DRAW_PILE = 0
DISCARDS = 1

# Columns of the round output (followed by the counters).
RO_GAME = 0
RO_ROUND = 1
RO_DEALER = 2
RO_FIRST = 3
RO_WINNER = 4
RO_WINNER_POS = 5
RO_ENDED_BY = 6
RO_POINTS = 7
RO_COUNTERS = 8
N_RO = RO_COUNTERS + C.N_COUNTERS

# Columns of the round-seat output [round, seat, col].
RS_POSITION = 0
RS_CARDS_LEFT = 1
RS_HAND_POINTS = 2
RS_SCORE_AFTER = 3
N_RS = 4

# Columns of the game output.
GO_GAME = 0
GO_ROUNDS = 1
GO_TURNS = 2
GO_FIRST = 3
GO_WINNER = 4
GO_MARGIN = 5
GO_ENDED_BY = 6
N_GO = 7

# Columns of the game-seat output [game, seat, col].
GS_FINAL_SCORE = 0
GS_RANK = 1
N_GS = 2

NT = K.N_TYPES
FIRST_BLACK = K.FIRST_BLACK
WD4 = K.WILD_DRAW_FOUR
BLACK = K.NO_COLOUR


# ---------------------------------------------------------------- small pure helpers


# Colour (BLACK for black cards) and rank of each card type, as uint8 tables: a lookup is
# cheaper than dividing by 13, and LLVM knows a uint8 is not negative, so arrays indexed with
# colours and ranks (and with card types from the uint8 piles) skip Numba's checks for negative
# indices.
_TYPE_COLOUR = K.TYPE_COLOUR.astype(np.uint8)
_TYPE_RANK = K.TYPE_RANK.astype(np.uint8)


@njit(cache=True, inline="always")
def _colour_of(t):
    return _TYPE_COLOUR[t]


@njit(cache=True, inline="always")
def _rank_of(t):
    return _TYPE_RANK[t]


@njit(cache=True, inline="always")
def _is_legal(t, col, rank):
    """P1 matching, before any black-card restriction."""
    return t >= FIRST_BLACK or _colour_of(t) == col or _rank_of(t) == rank


@njit(cache=True, inline="always")
def _step(seat, direction, n):
    q = seat + direction
    if q >= n:
        return q - n
    if q < 0:
        return q + n
    return q


@njit(cache=True, inline="always")
def _next_in_cycle(col, direction):
    """P7 colour_cycle: the colour after ``col`` on the cards' cycle in the direction of play;
    clockwise red -> blue -> green -> yellow -> red, i.e. one colour index down (mod 4)."""
    return (col - direction) & 3


@njit(cache=True, inline="always")
def _holds_colour(hcol, s, col):
    """P2/P4: does seat s hold a card of colour ``col``? No colour is current (col 4) after a
    black first card that stays, and then nobody does."""
    return (hcol[s, col] > 0) & (col < BLACK)  # no branch: see the note on reference counts


@njit(cache=True, inline="always")
def _position(s, first, direction, n):
    """How many seats after ``first`` seat ``s`` plays, in the given direction of play."""
    d = (s - first) * direction
    return d + n if d < 0 else d


# ---------------------------------------------------------------- reference counts


# Numba counts references to arrays with atomic operations, and an LLVM pass removes the pairs it
# can match. Left in a loop, the survivors cost more than the rest of a turn (and contend between
# threads on shared arrays), so the kernels are shaped to leave none per turn or per round:
#   - Calling a jitted function that LLVM does not inline counts its array arguments, and lets
#     its exceptions leave the caller, which keeps the counts of the caller's arrays. So the
#     loops over games, rounds and turns share one function, ``_play_games``, whose arrays live
#     for the whole call; what it calls per round or per turn calls nothing that is not inlined.
#   - A helper's parameter is a new array variable, and its pair is matched only when Numba
#     releases it at one place, after its last use: avoid a last use inside an ``if`` (inside a
#     loop is fine), ``break`` and early ``return`` in helpers that take arrays. Comments that
#     point here mark code written that way (an event recorded with one call, a draw of zero
#     cards, a loop run zero times).
#   - Helpers used at several places, or with several returns, are compiled once on their own
#     and inlined by LLVM (``forceinline=True``) rather than by Numba (``inline="always"``).
#   - The random state is a tuple of scalars, not an array (_rng.py).
# To check a change: compile with an empty NUMBA_CACHE_DIR, then count ``NRT_incref`` and
# ``NRT_decref`` per function in ``_play_games.inspect_llvm(_play_games.signatures[0])``: only
# ``_play_games``' own arguments and arrays (on entry and exit) and rare functions may have any.


# ---------------------------------------------------------------- trace


@njit(cache=True, inline="always")
def _ev(st, trace, kind, seat, a, b):
    """Record one event (callers check ``st[ST_TRACE]`` first).

    Once ``trace`` is full, the last row is overwritten rather than skipped (no ``if``: see the
    note on reference counts); the caller discards the trace and retries with more room.
    """
    pos = st[ST_TPOS]
    row = min(pos, trace.shape[0] - 1)
    trace[row, 0] = kind
    trace[row, 1] = seat
    trace[row, 2] = a
    trace[row, 3] = b
    st[ST_TPOS] = pos + 1  # counts past the end so the caller can retry with more room


@njit(cache=True, inline="always")
def _trace_draw(st, trace, s, card, moved, reason):
    """The events of one draw: the reshuffle before it, then the draw or, for card -1, its
    failure (one call: see the note on reference counts)."""
    if moved > 0:
        _ev(st, trace, C.EV_RESHUFFLE, -1, moved, -1)
    _ev(st, trace, C.EV_DRAW if card >= 0 else C.EV_DRAW_FAIL, s, card, reason)


@njit(cache=True)
def _trace_round_end(n, winner, round_points, scores, round_seat_out, row, st, trace):
    """R1/R2 events: the round's end, then each seat's hand points and score."""
    _ev(st, trace, C.EV_ROUND_END, winner,
        C.ROUND_END_WIN if winner >= 0 else C.ROUND_END_CAP, round_points)
    for s in range(n):
        _ev(st, trace, C.EV_SCORE, s, round_seat_out[row, s, RS_HAND_POINTS], scores[s])


# ---------------------------------------------------------------- cards moving


@njit(cache=True, inline="always")
def _add(hand, hcol, hsize, s, t):
    hand[s, t] += 1
    hcol[s, _colour_of(t)] += 1
    hsize[s] += 1


@njit(cache=True, inline="always")
def _remove(hand, hcol, hsize, s, t):
    hand[s, t] -= 1
    hcol[s, _colour_of(t)] -= 1
    hsize[s] -= 1


@njit(cache=True, inline="always")
def _discard(piles, st, t):
    n = st[ST_NDISC]
    piles[DISCARDS, n] = t
    st[ST_NDISC] = n + 1


@njit(cache=True, inline="always")
def _pop(piles, n, stacked, state):
    """Take a card from the draw pile of ``n`` > 0 cards; its last card fills the emptied slot.

    The card is uniformly random, or the top one when the deck is scripted (``stacked``, tests),
    and the random number is drawn either way. Returns (card, state).
    """
    j, state = bounded(state, n)
    if stacked:
        j = n - 1
    t = piles[DRAW_PILE, j]
    piles[DRAW_PILE, j] = piles[DRAW_PILE, n - 1]
    return t, state


@njit(cache=True, inline="always")
def _reshuffle(piles, st):
    """P6: the discard pile except its top card becomes the draw pile; returns the cards moved."""
    moved = st[ST_NDISC] - 1
    for i in range(moved):
        piles[DRAW_PILE, i] = piles[DISCARDS, i]
    piles[DISCARDS, 0] = piles[DISCARDS, moved]
    st[ST_NDISC] = 1
    st[ST_NPILE] = moved
    st[ST_COUNTERS + C.C_RESHUFFLES] += 1
    return moved


@njit(cache=True, inline="always")
def _draw_one(s, reason, hand, hcol, hsize, piles, st, state):
    """Seat ``s`` draws a card, reshuffling first if the pile is empty (the caller has checked
    that one of the piles can give a card). Returns (card, cards reshuffled, state)."""
    moved = 0
    if st[ST_NPILE] == 0:
        moved = _reshuffle(piles, st)
    npile = st[ST_NPILE]
    t, state = _pop(piles, npile, st[ST_STACKED], state)
    st[ST_NPILE] = npile - 1
    _add(hand, hcol, hsize, s, t)
    st[ST_COUNTERS + C.C_CARDS_DRAWN] += 1
    st[ST_COUNTERS + (C.C_NORMAL_DRAWS if reason == C.DRAW_NORMAL else C.C_PENALTY_CARDS)] += 1
    return t, moved, state


@njit(cache=True, forceinline=True)
def _draw(s, count, reason, hand, hcol, hsize, piles, st, trace, state):
    """Seat ``s`` draws ``count`` cards, stopping if both piles run out (``draw_fail``).

    Returns (the last card drawn, or -1 if the piles ran out, state).
    """
    card = 0
    drawn = 0
    while drawn < count and card >= 0:
        card, moved = -1, 0
        if st[ST_NPILE] > 0 or st[ST_NDISC] > 1:
            card, moved, state = _draw_one(s, reason, hand, hcol, hsize, piles, st, state)
        if st[ST_TRACE]:
            _trace_draw(st, trace, s, card, moved, reason)
        drawn += 1
    return card, state


@njit(cache=True, inline="always")
def _penalty(rank):
    """(cards, draw reason) of the player after a Draw Two or a Wild Draw Four."""
    if rank == K.DRAW_TWO:
        return 2, C.DRAW_DRAW_TWO
    return 4, C.DRAW_DRAW_FOUR


@njit(cache=True, inline="always")
def _skip(s, direction, n, st):
    """A1: seat ``s`` misses its turn; returns the seat after it. (Callers record the event.)"""
    st[ST_COUNTERS + C.C_SKIPS] += 1
    return _step(s, direction, n)


# ---------------------------------------------------------------- choosing


@njit(cache=True, inline="always")
def _choose_colour(hcol, s):
    """P7 by policy: the colour held most, ties to the lowest colour index."""
    best = 0
    for c in range(1, 4):
        if hcol[s, c] > hcol[s, best]:
            best = c
    return best


@njit(cache=True, inline="always")
def _bluffs(bluff_rate, state):
    """Whether a player plays a restricted Wild Draw Four anyway (P2), given its ``bluff``
    probability; returns (bool, state)."""
    u, state = uniform(state)
    return u < bluff_rate, state


@njit(cache=True, inline="always")
def _if_playable(card, s, col, rank, wd4_restricted, hcol, behaviour, state):
    """A drawn card (or -1) if seat s may play it now (P1, P2 with its bluff), else -1."""
    holds_colour = _holds_colour(hcol, s, col)  # arrays first: see the note on reference counts
    bluff_rate = behaviour[s, C.B_BLUFF]
    if card >= 0 and not _is_legal(card, col, rank):
        return -1, state
    if card == WD4 and wd4_restricted and holds_colour:
        bluff, state = _bluffs(bluff_rate, state)
        if not bluff:
            return -1, state
    return card, state


@njit(cache=True)
def _draw_two(s, col, rank, wd4_restricted, policy, points, behaviour, hand, hcol, hsize, piles,
              st, trace, state):
    """P5 two: seat s draws two cards and plays one of them if it can (the policy's preference,
    a fair coin between equals). Returns (the card played or -1, state).

    The arrays are done with before the first return (see the note on reference counts): a
    draw of zero cards when the piles ran out, priorities computed even for unplayable (-1)
    cards.
    """
    first, state = _draw(s, 1, C.DRAW_NORMAL, hand, hcol, hsize, piles, st, trace, state)
    second, state = _draw(s, 1 if first >= 0 else 0, C.DRAW_NORMAL, hand, hcol, hsize, piles, st,
                          trace, state)
    if first < 0:
        second = -1
    first, state = _if_playable(first, s, col, rank, wd4_restricted, hcol, behaviour, state)
    second, state = _if_playable(second, s, col, rank, wd4_restricted, hcol, behaviour, state)
    a = _priority(policy, first, col, rank, points)
    b = _priority(policy, second, col, rank, points)
    if first < 0 or second < 0:
        return max(first, second), state
    if a == b and policy != C.POLICY_FIRST_LEGAL:
        coin, state = bounded(state, 2)
        return (first if coin == 0 else second), state
    return (first if a >= b else second), state


@njit(cache=True, forceinline=True)
def _pick_random(hand, hcol, s, col, rank, allow_wd4, state):
    """Uniform over the legal card instances in hand; -1 if none (the C yardstick's policy).

    Returns (card, state).
    """
    ncol = hcol[s, col]
    nblack = hcol[s, BLACK]
    nrank = 0
    if rank < 13:
        for c in range(4):
            nrank += hand[s, c * 13 + rank]
        nrank -= hand[s, col * 13 + rank]  # counted in ncol
    if not allow_wd4:
        nblack -= hand[s, WD4]
    total = ncol + nrank + nblack
    if total == 0:
        return -1, state
    k, state = bounded(state, total)
    if k < ncol:
        t = col * 13
        while k >= hand[s, t]:
            k -= hand[s, t]
            t += 1
        return t, state
    k -= ncol
    if k < nrank:
        for c in range(4):
            if c != col:
                m = hand[s, c * 13 + rank]
                if k < m:
                    return c * 13 + rank, state
                k -= m
    k -= nrank
    for t in range(FIRST_BLACK, NT):
        if t == WD4 and not allow_wd4:
            continue
        if k < hand[s, t]:
            return t, state
        k -= hand[s, t]
    return -1, state  # unreachable: the counts above add up


@njit(cache=True, inline="always")
def _priority(policy, t, col, rank, points):
    """Preference of ``policy`` for legal card type t; the highest class is played (B2)."""
    black = t >= FIRST_BLACK
    colour_match = (not black) and _colour_of(t) == col
    number = (not black) and _rank_of(t) <= 9
    if policy == C.POLICY_FIRST_LEGAL:
        return -t
    if policy == C.POLICY_COLOUR_FIRST:
        return 2 if colour_match else (0 if black else 1)
    if policy == C.POLICY_NUMBER_FIRST:
        return 0 if black else (1 if colour_match and _rank_of(t) != rank else 2)
    if policy == C.POLICY_ACTIONS_FIRST:
        return 1 if black else (0 if number else 2)
    if policy == C.POLICY_SAVE_ACTIONS:
        return 0 if black else (2 if number else 1)
    if policy == C.POLICY_HIGH_VALUE_FIRST:
        return points[t]
    if policy == C.POLICY_WILD_LAST:
        return 0 if black else 1
    return 0


@njit(cache=True)
def _pick_by_priority(policy, hand, s, col, rank, allow_wd4, points, state):
    """Uniform over the legal instances in the policy's most preferred class; -1 if none.

    Returns (card, state).
    """
    best = -(1 << 40)
    n_best = 0
    for t in range(NT):
        m = hand[s, t]
        if m == 0 or not _is_legal(t, col, rank) or (t == WD4 and not allow_wd4):
            continue
        p = _priority(policy, t, col, rank, points)
        if p > best:
            best = p
            n_best = m
        elif p == best:
            n_best += m
    if n_best == 0:
        return -1, state
    k = 0
    if policy != C.POLICY_FIRST_LEGAL:
        k, state = bounded(state, n_best)
    for t in range(NT):
        m = hand[s, t]
        if m == 0 or not _is_legal(t, col, rank) or (t == WD4 and not allow_wd4):
            continue
        if _priority(policy, t, col, rank, points) == best:
            if k < m:
                return t, state
            k -= m
    return -1, state  # unreachable


# ---------------------------------------------------------------- rounds


@njit(cache=True, inline="always")
def _stays_first(t, first_card):
    """S2: may card type t stay as the first discard? (extreme: every card stays)"""
    if first_card == C.FIRST_CARD_NUMBER_ONLY:
        return _rank_of(t) <= 9
    return first_card == C.FIRST_CARD_EXTREME or t != WD4


@njit(cache=True)
def _full_pile(deck, stack):
    """The draw pile before a deal: the scripted deck order ``stack`` (tests; stack[0] is dealt
    first, and the top of the pile is its end), or else the deck in card-type order."""
    pile = np.empty(deck.sum(), dtype=np.uint8)
    if stack.shape[0] > 0:
        pile[:] = stack[::-1]
    else:
        i = 0
        for t in range(NT):
            for _ in range(deck[t]):
                pile[i] = t
                i += 1
    return pile


@njit(cache=True)
def _deal_and_flip(n, dealer, hand_size, full_pile, first_card, acceptable_left, hand, hcol,
                   hsize, piles, st, trace, state):
    """Deal (S1) from ``full_pile`` to empty hands and turn up the first discard (S2).

    ``acceptable_left`` counts the cards of the pile that may stay as the first discard.
    Returns (the first discard, state).
    """
    tr = st[ST_TRACE]
    stacked = st[ST_STACKED]
    npile = full_pile.shape[0]
    for i in range(npile):
        piles[DRAW_PILE, i] = full_pile[i]
    for _ in range(hand_size):
        s = dealer
        for _ in range(n):
            s = _step(s, 1, n)
            t, state = _pop(piles, npile, stacked, state)
            npile -= 1
            _add(hand, hcol, hsize, s, t)
            if tr:
                _ev(st, trace, C.EV_DEAL, s, t, -1)
            acceptable_left -= _stays_first(t, first_card)
    while True:
        t, state = _pop(piles, npile, stacked, state)
        npile -= 1
        if tr:
            _ev(st, trace, C.EV_FLIP, -1, t, -1)
        if _stays_first(t, first_card) or acceptable_left == 0:
            break
        if stacked:  # back under a scripted deck, so the next card is flipped
            for i in range(npile, 0, -1):
                piles[DRAW_PILE, i] = piles[DRAW_PILE, i - 1]
            piles[DRAW_PILE, 0] = t
        else:
            piles[DRAW_PILE, npile] = t
        npile += 1
        if tr:
            _ev(st, trace, C.EV_FLIP_RETURN, -1, t, -1)
    st[ST_NPILE] = npile
    st[ST_NDISC] = 0
    _discard(piles, st, t)
    return t, state


@njit(cache=True)
def _first_card_effect(top, first_card, n, dealer, hand, hcol, hsize, piles, st, trace, state):
    """S2 official and extreme: the effect of an action or black card turned up first.

    Returns (first seat to act, direction, current colour, state).
    """
    rank = _rank_of(top)
    f = _step(dealer, 1, n)
    col = _colour_of(top)
    if top >= FIRST_BLACK:
        if first_card == C.FIRST_CARD_EXTREME:
            # f draws 4 and misses the turn; the dealer names a colour without looking.
            _, state = _draw(f, 4, C.DRAW_DRAW_FOUR, hand, hcol, hsize, piles, st, trace, state)
            if st[ST_TRACE]:
                _ev(st, trace, C.EV_SKIP, f, -1, -1)
            first = _skip(f, 1, n, st)
            col, state = bounded(state, 4)
            if st[ST_TRACE]:
                _ev(st, trace, C.EV_COLOUR, dealer, col, -1)
            return first, 1, col, state
        if top == K.WILD:  # official: the first player names the colour
            col = _choose_colour(hcol, f)
            if st[ST_TRACE]:
                _ev(st, trace, C.EV_COLOUR, f, col, -1)
        return f, 1, col, state
    if rank == K.DRAW_TWO:
        _, state = _draw(f, 2, C.DRAW_DRAW_TWO, hand, hcol, hsize, piles, st, trace, state)
    if rank == K.SKIP or rank == K.DRAW_TWO or (rank == K.REVERSE and n == 2):
        # f misses its turn; with two players Reverse acts as Skip (A1), so the dealer acts.
        if st[ST_TRACE]:
            _ev(st, trace, C.EV_SKIP, f, -1, -1)
        return _skip(f, 1, n, st), 1, col, state
    if rank == K.REVERSE:
        st[ST_COUNTERS + C.C_DIRECTION_CHANGES] += 1
        if st[ST_TRACE]:
            _ev(st, trace, C.EV_DIRECTION, -1, -1, -1)
        return dealer, -1, col, state
    return f, 1, col, state


@njit(cache=True)
def _uno_call(p, direction, n, penalty, behaviour, hand, hcol, hsize, piles, st, trace, state):
    """U1: a player down to one card calls UNO, or forgets and may be caught. Returns the state."""
    u, state = uniform(state)
    forgot = u < behaviour[p, C.B_FORGET_UNO]
    # If p forgot, the others are asked in playing order from the next player until one catches
    # it, and p draws the penalty. (A loop run zero times and a draw of zero cards when p called
    # UNO: see the note on reference counts.)
    catcher = -1
    asked = 0
    q = p
    while asked < (n - 1 if forgot else 0) and catcher < 0:
        q = _step(q, direction, n)
        u, state = uniform(state)
        if u < behaviour[q, C.B_CATCH_UNO]:
            catcher = q
        asked += 1
    if st[ST_TRACE]:
        _ev(st, trace, C.EV_UNO_MISS if forgot else C.EV_UNO_CALL, p, catcher if forgot else -1,
            -1)
    caught = catcher >= 0
    st[ST_COUNTERS + C.C_UNO_PENALTIES] += caught
    _, state = _draw(p, penalty if caught else 0, C.DRAW_UNO, hand, hcol, hsize, piles, st, trace,
                     state)
    return state


@njit(cache=True)
def _challengeable_draw_four(p, victim, guilty, behaviour, hand, hcol, hsize, piles, st, trace,
                             state):
    """A1 and P4 (official penalties) for a restricted Wild Draw Four.

    Returns (whether the victim misses its turn, state).
    """
    u, state = uniform(state)
    challenged = u < behaviour[victim, C.B_CHALLENGE]
    if challenged:
        st[ST_COUNTERS + C.C_CHALLENGES] += 1
        st[ST_COUNTERS + C.C_CHALLENGES_WON] += guilty
        if st[ST_TRACE]:
            _ev(st, trace, C.EV_CHALLENGE, victim, p, 1 if guilty else 0)
    # Guilty: the player draws 4 and the victim plays. Innocent: the victim draws 6. Unchallenged:
    # the victim draws 4. Either way but the first, the victim misses its turn.
    drawer = p if challenged and guilty else victim
    count = 6 if challenged and not guilty else 4
    reason = C.DRAW_CHALLENGE if challenged else C.DRAW_DRAW_FOUR
    _, state = _draw(drawer, count, reason, hand, hcol, hsize, piles, st, trace, state)
    return not (challenged and guilty), state


@njit(cache=True)
def _finish_round(n, g, r, dealer, winner, first, start_direction, turns, hand, hsize, points, st,
                  scores, round_out, round_seat_out, row):
    """R1/R2 scoring and the round's records (row ``row`` of the round outputs).

    Returns the points of the round.
    """
    round_points = 0
    for s in range(n):
        hp = 0
        for t in range(NT):
            hp += hand[s, t] * points[t]
        round_seat_out[row, s, RS_HAND_POINTS] = hp
        round_seat_out[row, s, RS_CARDS_LEFT] = hsize[s]
        round_seat_out[row, s, RS_POSITION] = _position(s, first, start_direction, n)
        if s != winner:
            round_points += hp
    if winner >= 0:
        scores[winner] += round_points
    else:
        round_points = 0
    for s in range(n):
        round_seat_out[row, s, RS_SCORE_AFTER] = scores[s]
    st[ST_COUNTERS + C.C_TURNS] = turns
    round_out[row, RO_GAME] = g
    round_out[row, RO_ROUND] = r
    round_out[row, RO_DEALER] = dealer
    round_out[row, RO_FIRST] = first
    round_out[row, RO_WINNER] = winner
    round_out[row, RO_WINNER_POS] = (_position(winner, first, start_direction, n) if winner >= 0
                                     else -1)
    round_out[row, RO_ENDED_BY] = C.ROUND_END_WIN if winner >= 0 else C.ROUND_END_CAP
    round_out[row, RO_POINTS] = round_points
    for i in range(C.N_COUNTERS):
        round_out[row, RO_COUNTERS + i] = st[ST_COUNTERS + i]
    return round_points


# ---------------------------------------------------------------- games and batches


@njit(cache=True, nogil=True)
def _play_games(n, rules, deck, points, policy, behaviour, seed, game_lo, game_hi, game_out,
                game_seat_out, round_out, round_seat_out, trace, tracing, stack, first_dealer):
    """Play games [game_lo, game_hi) into the outputs (rows from 0).

    Tests may script a game: ``stack`` (non-empty) fixes the deck order of every round and
    ``first_dealer`` (>= 0) replaces the draw by lot.

    Returns (games completed, rounds written, trace rows needed). A game whose rounds would not
    fit in ``round_out`` is not started, so the caller can play the rest again with more room;
    results are the same because every game seeds its own stream.

    The loops over games, rounds and turns share this function, which owns the round state
    (see the note on reference counts). The common turn (choose, play, draw, colour, Skip,
    Reverse) is written in the loop; rarer work is in ordinary functions.
    """
    full_pile = _full_pile(deck, stack)
    hand = np.zeros((n, NT), dtype=np.int64)
    hcol = np.zeros((n, 5), dtype=np.int64)
    hsize = np.zeros(n, dtype=np.int64)
    piles = np.zeros((2, full_pile.shape[0]), dtype=np.uint8)
    st = np.zeros(N_ST, dtype=np.int64)
    st[ST_TRACE] = tracing
    st[ST_STACKED] = 1 if stack.shape[0] > 0 else 0
    scores = np.zeros(n, dtype=np.int64)
    tr = tracing
    hand_size = rules[C.R_HAND_SIZE]
    first_card = rules[C.R_FIRST_CARD]
    acceptable = 0  # cards that may stay as the first discard
    for t in range(NT):
        if _stays_first(t, first_card):
            acceptable += deck[t]
    wd4_restricted = rules[C.R_WILD_DRAW_FOUR] == C.WD4_NO_MATCHING_COLOUR
    uno_penalty = rules[C.R_UNO_PENALTY]
    colour_cycle = rules[C.R_COLOUR_CYCLE] != 0
    draw_rule = rules[C.R_DRAW]
    max_turns = rules[C.R_MAX_TURNS]
    max_rounds = rules[C.R_MAX_ROUNDS]
    target = rules[C.R_TARGET_SCORE]
    capacity = round_out.shape[0]
    r_pos = 0
    for g in range(game_lo, game_hi):
        gi = g - game_lo
        g_start = r_pos
        state = seed_stream(seed, g)
        scores[:] = 0
        dealer, state = bounded(state, n)
        if first_dealer >= 0:
            dealer = first_dealer
        total_turns = 0
        ended_by = C.GAME_END_CAP
        first_seat = -1
        for r in range(1, max_rounds + 1):
            if r_pos >= capacity:
                return gi, g_start, st[ST_TPOS]
            if tr:
                _ev(st, trace, C.EV_ROUND_START, dealer, r, -1)

            # ---- a round: deal and first card
            hand[:, :] = 0
            hcol[:, :] = 0
            hsize[:] = 0
            st[ST_COUNTERS:] = 0
            top, state = _deal_and_flip(n, dealer, hand_size, full_pile, first_card, acceptable,
                                        hand, hcol, hsize, piles, st, trace, state)
            col = _colour_of(top)
            rank = _rank_of(top)
            p = _step(dealer, 1, n)
            direction = 1
            if first_card != C.FIRST_CARD_NUMBER_ONLY and rank >= K.SKIP:  # an action card
                p, direction, col, state = _first_card_effect(top, first_card, n, dealer, hand,
                                                              hcol, hsize, piles, st, trace,
                                                              state)
            first = p
            start_direction = direction

            # ---- turns
            winner = -1
            turns = 0
            while turns < max_turns:
                turns += 1
                if tr:
                    _ev(st, trace, C.EV_TURN, p, -1, -1)
                # P2: a restricted Wild Draw Four is legal without a card of the colour, or as
                # a bluff.
                allow_wd4 = True
                if wd4_restricted and hand[p, WD4] > 0 and _holds_colour(hcol, p, col):
                    allow_wd4, state = _bluffs(behaviour[p, C.B_BLUFF], state)
                if policy[p] == C.POLICY_RANDOM:
                    card, state = _pick_random(hand, hcol, p, col, rank, allow_wd4, state)
                else:
                    card, state = _pick_by_priority(policy[p], hand, p, col, rank, allow_wd4,
                                                    points, state)
                if card < 0 and draw_rule == C.DRAW_TWO_CARDS:
                    card, state = _draw_two(p, col, rank, wd4_restricted, policy[p], points,
                                            behaviour, hand, hcol, hsize, piles, st, trace, state)
                elif card < 0:
                    # P5 one_may_play: draw a card, play it if legal. one_then_pass never plays
                    # it; until_playable draws until one is playable or the piles run out.
                    drawn = 0
                    while card < 0 and drawn >= 0:
                        drawn, state = _draw(p, 1, C.DRAW_NORMAL, hand, hcol, hsize, piles, st,
                                             trace, state)
                        if draw_rule != C.DRAW_ONE_THEN_PASS:
                            card, state = _if_playable(drawn, p, col, rank, wd4_restricted, hcol,
                                                       behaviour, state)
                        if draw_rule != C.DRAW_UNTIL_PLAYABLE:
                            break
                if card < 0:
                    if tr:
                        _ev(st, trace, C.EV_PASS, p, -1, -1)
                    p = _step(p, direction, n)
                    continue

                # P4 judges a Wild Draw Four on the hand it was played from (before any UNO
                # penalty).
                guilty = card == WD4 and _holds_colour(hcol, p, col)
                _remove(hand, hcol, hsize, p, card)
                _discard(piles, st, card)
                st[ST_COUNTERS + C.C_CARDS_PLAYED] += 1
                if tr:
                    _ev(st, trace, C.EV_PLAY, p, card, -1)
                rank = _rank_of(card)
                if card >= FIRST_BLACK:
                    if colour_cycle and col < BLACK:  # P7: the cycle's next colour
                        col = _next_in_cycle(col, direction)
                    else:
                        col = _choose_colour(hcol, p)
                    if tr:
                        _ev(st, trace, C.EV_COLOUR, p, col, -1)
                else:
                    col = _colour_of(card)

                if uno_penalty > 0 and hsize[p] == 1:
                    state = _uno_call(p, direction, n, uno_penalty, behaviour, hand, hcol, hsize,
                                      piles, st, trace, state)

                nxt = _step(p, direction, n)
                if hsize[p] == 0:
                    winner = p
                    # Official scoring: a final Draw Two / Wild Draw Four is drawn before
                    # counting.
                    if rank == K.DRAW_TWO or rank == K.WILD_DRAW_FOUR_RANK:
                        count, reason = _penalty(rank)
                        _, state = _draw(nxt, count, reason, hand, hcol, hsize, piles, st, trace,
                                         state)
                    break

                # A1: the card's effect; play passes to the next seat that is not skipped.
                skipped = False
                if rank == K.SKIP:
                    skipped = True
                elif rank == K.REVERSE:
                    if n == 2:  # A1: with two players Reverse acts as Skip
                        skipped = True
                    else:
                        direction = -direction
                        st[ST_COUNTERS + C.C_DIRECTION_CHANGES] += 1
                        if tr:
                            _ev(st, trace, C.EV_DIRECTION, -1, direction, -1)
                        nxt = _step(p, direction, n)
                elif rank == K.DRAW_TWO or (rank == K.WILD_DRAW_FOUR_RANK and not wd4_restricted):
                    count, reason = _penalty(rank)
                    _, state = _draw(nxt, count, reason, hand, hcol, hsize, piles, st, trace,
                                     state)
                    skipped = True
                elif rank == K.WILD_DRAW_FOUR_RANK:  # restricted: it may be challenged (P4)
                    skipped, state = _challengeable_draw_four(p, nxt, guilty, behaviour, hand,
                                                              hcol, hsize, piles, st, trace, state)
                if skipped:
                    if tr:
                        _ev(st, trace, C.EV_SKIP, nxt, -1, -1)
                    nxt = _skip(nxt, direction, n, st)
                p = nxt

            # ---- end of round
            round_points = _finish_round(n, g, r, dealer, winner, first, start_direction, turns,
                                         hand, hsize, points, st, scores, round_out,
                                         round_seat_out, r_pos)
            if tr:
                _trace_round_end(n, winner, round_points, scores, round_seat_out, r_pos, st,
                                 trace)
            if r == 1:
                first_seat = first
            total_turns += turns
            r_pos += 1
            reached = False
            for s in range(n):
                if scores[s] >= target:
                    reached = True
            if reached:
                ended_by = C.GAME_END_TARGET
                break
            dealer = _step(dealer, 1, n)
        winner = _finish_game(n, g, r, total_turns, first_seat, ended_by, scores, game_out,
                              game_seat_out, gi)
        if tr:
            _ev(st, trace, C.EV_GAME_END, winner, ended_by, -1)
    return game_hi - game_lo, r_pos, st[ST_TPOS]


@njit(cache=True)
def _finish_game(n, g, rounds, turns, first_seat, ended_by, scores, game_out, game_seat_out, gi):
    """R2: the highest score wins (ties: lowest seat); margin over the runner-up; ranks.

    Fills row ``gi`` of the game outputs; returns the winner (-1 if the game was capped).
    """
    best = 0
    for s in range(1, n):
        if scores[s] > scores[best]:
            best = s
    runner_up = -(1 << 40)
    for s in range(n):
        if s != best and scores[s] > runner_up:
            runner_up = scores[s]
        higher = 0
        for q in range(n):
            if scores[q] > scores[s]:
                higher += 1
        game_seat_out[gi, s, GS_FINAL_SCORE] = scores[s]
        game_seat_out[gi, s, GS_RANK] = higher + 1
    winner = best if ended_by == C.GAME_END_TARGET else -1
    game_out[gi, GO_GAME] = g
    game_out[gi, GO_ROUNDS] = rounds
    game_out[gi, GO_TURNS] = turns
    game_out[gi, GO_FIRST] = first_seat
    game_out[gi, GO_WINNER] = winner
    game_out[gi, GO_MARGIN] = scores[best] - runner_up
    game_out[gi, GO_ENDED_BY] = ended_by
    return winner


@njit(cache=True, parallel=True, nogil=True)
def _play_batch(n, rules, deck, points, policy, behaviour, seed, chunk_lo, chunk_hi, round_cap,
                game_out, game_seat_out, round_out, round_seat_out, games_done, rounds_done):
    """Chunks of games in parallel; chunk c writes rounds from row c * round_cap of round_out."""
    dummy_trace = np.zeros((1, 4), dtype=np.int64)
    no_stack = np.zeros(0, dtype=np.int64)
    for c in prange(chunk_lo.shape[0]):
        lo = chunk_lo[c]
        hi = chunk_hi[c]
        g0 = lo - chunk_lo[0]
        r0 = c * round_cap
        done, rounds, _ = _play_games(n, rules, deck, points, policy, behaviour, seed, lo, hi,
                                   game_out[g0:g0 + hi - lo], game_seat_out[g0:g0 + hi - lo],
                                   round_out[r0:r0 + round_cap],
                                   round_seat_out[r0:r0 + round_cap], dummy_trace, 0,
                                   no_stack, -1)
        games_done[c] = done
        rounds_done[c] = rounds
