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
# Turn variants (docs/engine.md): state carried from turn to turn, reset every round.
ST_PENDING = 5  # cards owed by the seat that acts next (A3-A6), 0 if none
ST_PENDING_REASON = 6  # the pending chain's kind: DRAW_DRAW_TWO or DRAW_DRAW_FOUR
ST_ESCALATION = 7  # value of the open +2/Reverse sequence (A6 extreme), 0 when closed
ST_SKIP_RUN = 8  # players the last Skip skipped, for the turn right after it (A7)
# The table as ``_play_games`` hands it to the turn-variant functions (``_share_table``).
ST_COL = 9  # current colour
ST_RANK = 10  # rank of the top card
ST_DIR = 11  # direction of play
ST_WINNER = 12  # the seat that went out, else -1
# The last jump-in of a turn: its card, whether its player held the colour it covered (P4), and
# that colour.
ST_JUMP_CARD = 13
ST_JUMP_GUILTY = 14
ST_JUMP_COLOUR = 15
# N5: the seat whose next turn ends a seven/two silence, the colour whose change ends a black
# one (-1: none holds).
ST_SILENCE_OWNER = 16
ST_SILENCE_COLOUR = 17
ST_COVER = 18  # N6: 1 when the seat _effect returned must now cover its 8
ST_HANDS = 19  # R10: hands each seat has emptied this round (one slot per seat, up to 10)
ST_PLACE = ST_HANDS + 10  # R9: each seat's finishing place (0: not finished), one slot per seat
ST_BONUS = ST_PLACE + 10  # R8: what each seat's hand-emptying card takes off its score
ST_OUT = ST_BONUS + 10  # R9: bit mask of the seats that have finished (left the round)
ST_LEFT = ST_OUT + 1  # R9: seats in the round
ST_COUNTERS = ST_LEFT + 1
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
RO_LOSER = 8  # R6 lazy, R9 to_the_last: the round's loser (-1: none)
RO_COUNTERS = 9
N_RO = RO_COUNTERS + C.N_COUNTERS

# Columns of the round-seat output [round, seat, col].
RS_POSITION = 0
RS_CARDS_LEFT = 1
RS_HAND_POINTS = 2
RS_SCORE_AFTER = 3
RS_HANDS_EMPTIED = 4
RS_FINISH_PLACE = 5  # R9: 1.. in finishing order; 1 for the winner of other modes; 0: none
N_RS = 6

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
GS_IS_LOSER = 2
N_GS = 3

NT = K.N_TYPES
ALL_TYPES = (1 << NT) - 1  # card-type sets are bit masks (NT < 64)
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
def _next(seat, direction, n, st):
    """next(seat): the next seat in the round in the direction of play (R9: the seats that have
    finished have left it). Every rule naming "the next seat" means this one."""
    q = _step(seat, direction, n)
    out = st[ST_OUT]
    while (out >> q) & 1:
        q = _step(q, direction, n)
    return q


@njit(cache=True, inline="always")
def _in_round(st, seat):
    """R9: 1 while the seat is in the round, 0 once it has finished."""
    return 1 - ((st[ST_OUT] >> seat) & 1)


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
    # N6 cover draws are drawn to play, not a penalty; R10 refills are neither.
    normal = reason == C.DRAW_NORMAL or reason == C.DRAW_COVER
    st[ST_COUNTERS + (C.C_NORMAL_DRAWS if normal else C.C_PENALTY_CARDS)] += reason != C.DRAW_REFILL
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
    return _next(s, direction, n, st)


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
def _if_playable(card, s, col, rank, wd4_restricted, wild_restricted, hcol, behaviour, state):
    """A drawn card (or -1) if seat s may play it now (P1, P2/P3 with a bluff), else -1."""
    holds_colour = _holds_colour(hcol, s, col)  # arrays first: see the note on reference counts
    bluff_rate = behaviour[s, C.B_BLUFF]
    if card >= 0 and not _is_legal(card, col, rank):
        return -1, state
    restricted = (card == WD4 and wd4_restricted) or (card == K.WILD and wild_restricted)
    if restricted and holds_colour:
        bluff, state = _bluffs(bluff_rate, state)
        if not bluff:
            return -1, state
    return card, state


@njit(cache=True)
def _draw_turn(draw_rule, s, col, rank, wd4_restricted, wild_restricted, policy, points, threat,
               behaviour, hand, hcol, hsize, piles, st, trace, state):
    """P5: seat s has no legal card and draws as ``draw_rule`` says. Returns (the drawn card it
    plays, or -1 to pass, state).

    one_may_play plays the drawn card if legal, one_then_pass never does, until_playable draws
    until a legal card comes or the piles run out; two draws two cards and plays one of them if
    it can (the policy's preference, a fair coin between equals).
    """
    if draw_rule == C.DRAW_TWO_CARDS:
        first, state = _draw(s, 1, C.DRAW_NORMAL, hand, hcol, hsize, piles, st, trace, state)
        second, state = _draw(s, 1 if first >= 0 else 0, C.DRAW_NORMAL, hand, hcol, hsize, piles,
                              st, trace, state)
        if first < 0:
            second = -1
        first, state = _if_playable(first, s, col, rank, wd4_restricted, wild_restricted, hcol,
                                    behaviour, state)
        second, state = _if_playable(second, s, col, rank, wd4_restricted, wild_restricted, hcol,
                                     behaviour, state)
        if first < 0 or second < 0:
            return max(first, second), state
        a = _priority(policy, first, col, rank, points, threat, hcol[s, _colour_of(first)])
        b = _priority(policy, second, col, rank, points, threat, hcol[s, _colour_of(second)])
        if a == b and policy != C.POLICY_FIRST_LEGAL:
            coin, state = bounded(state, 2)
            return (first if coin == 0 else second), state
        return (first if a >= b else second), state
    card = -1
    drawn = 0
    while card < 0 and drawn >= 0:
        drawn, state = _draw(s, 1, C.DRAW_NORMAL, hand, hcol, hsize, piles, st, trace, state)
        if draw_rule != C.DRAW_ONE_THEN_PASS:
            card, state = _if_playable(drawn, s, col, rank, wd4_restricted, wild_restricted, hcol,
                                       behaviour, state)
        if draw_rule != C.DRAW_UNTIL_PLAYABLE:
            break
    return card, state


@njit(cache=True, forceinline=True)
def _pick_random(hand, hcol, s, col, rank, allow_wd4, allow_wild, state):
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
    if not allow_wild:
        nblack -= hand[s, K.WILD]
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
        if (t == WD4 and not allow_wd4) or (t == K.WILD and not allow_wild):
            continue
        if k < hand[s, t]:
            return t, state
        k -= hand[s, t]
    return -1, state  # unreachable: the counts above add up


@njit(cache=True, inline="always")
def _priority(policy, t, col, rank, points, threat, held):
    """Preference of ``policy`` for legal card type t; the highest class is played (B2).
    ``threat``: the next seat holds two cards or fewer (the strategist attacks it); ``held``:
    cards of t's colour in the player's hand (the strategist stays in its longest colour)."""
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
    if policy == C.POLICY_STRATEGIST:
        if threat and (t == WD4 or _rank_of(t) == K.DRAW_TWO):
            return 300
        if threat and not black and _rank_of(t) >= K.SKIP:
            return 200
        if black:
            return 0  # kept for the end: played only when nothing else is legal
        # Stay in (or move to) the colour held most, shedding high numbers first and keeping
        # actions for an attack.
        return 100 + 20 * held + (points[t] if number else 0)
    return 0


@njit(cache=True)
def _pick_by_priority(policy, hand, hcol, s, col, rank, allowed, legal_only, points, threat,
                      state):
    """Uniform over the instances, in the policy's most preferred class, of the card types in
    the bit mask ``allowed`` (and legal, if ``legal_only``); -1 if none. Returns (card, state).
    """
    best = -(1 << 40)
    n_best = 0
    for t in range(NT):
        m = hand[s, t]
        if m == 0 or not (allowed >> t) & 1 or (legal_only and not _is_legal(t, col, rank)):
            continue
        p = _priority(policy, t, col, rank, points, threat, hcol[s, _colour_of(t)])
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
        if m == 0 or not (allowed >> t) & 1 or (legal_only and not _is_legal(t, col, rank)):
            continue
        if _priority(policy, t, col, rank, points, threat, hcol[s, _colour_of(t)]) == best:
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
    return first_card == C.FIRST_CARD_EXTREME or t < FIRST_BLACK or t == K.WILD


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
def _first_card_effect(top, first_card, n, dealer, f, hand, hcol, hsize, piles, st, trace, state):
    """S2 official and extreme: the effect of an action or black card turned up first, on the
    first player f (the dealer's left, or R6 lazy's previous winner).

    Returns (first seat to act, direction, current colour, state).
    """
    rank = _rank_of(top)
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
        # f misses its turn; with two players Reverse acts as Skip (A1).
        if st[ST_TRACE]:
            _ev(st, trace, C.EV_SKIP, f, -1, -1)
        return _skip(f, 1, n, st), 1, col, state
    if rank == K.REVERSE:
        st[ST_COUNTERS + C.C_DIRECTION_CHANGES] += 1
        if st[ST_TRACE]:
            _ev(st, trace, C.EV_DIRECTION, -1, -1, -1)
        return _step(f, -1, n), -1, col, state  # the seat before f (the dealer, but lazy)
    return f, 1, col, state


@njit(cache=True)
def _slap(n, starter, kind, count, behaviour, hand, hcol, hsize, piles, st, trace, state):
    """N4: the seats in the round other than ``starter`` race to slap; the slowest (probability
    in proportion to 1 / reaction; a reaction of 0 is slowest for certain) draws ``count``.
    Returns the state."""
    zeros = 0
    total = 0.0
    last = -1  # the last racer
    for s in range(n):
        if s != starter and _in_round(st, s):
            last = s
            r = behaviour[s, C.B_REACTION]
            if r <= 0:
                zeros += 1
            else:
                total += 1.0 / r
    slowest = -1
    if zeros > 0:
        k, state = bounded(state, zeros)
        for s in range(n):
            if s != starter and _in_round(st, s) and behaviour[s, C.B_REACTION] <= 0:
                if k == 0:
                    slowest = s
                k -= 1
    else:
        u, state = uniform(state)
        x = u * total
        for s in range(n):
            if s != starter and _in_round(st, s) and slowest < 0:
                x -= 1.0 / behaviour[s, C.B_REACTION]
                if x < 0:
                    slowest = s
        if slowest < 0:  # rounding
            slowest = last
    st[ST_COUNTERS + C.C_SLAPS] += 1
    if st[ST_TRACE]:
        _ev(st, trace, C.EV_SLAP, slowest, starter, kind)
    _, state = _draw(slowest, count, C.DRAW_SLAP, hand, hcol, hsize, piles, st, trace, state)
    return state


@njit(cache=True, inline="always")
def _colour_changed(st, col):
    """N5 black: the silence ends once the colour named is no longer current. (No branch: see
    the note on reference counts.)"""
    held = st[ST_SILENCE_COLOUR]
    st[ST_SILENCE_COLOUR] = held if held == col else -1


@njit(cache=True, inline="always")
def _starts_silence(rule, t):
    """N5: does card t start (or renew) a silence?"""
    if rule == C.SILENCE_SEVEN:
        return t < FIRST_BLACK and _rank_of(t) == 7
    if rule == C.SILENCE_TWO:
        return t < FIRST_BLACK and _rank_of(t) == 2
    return rule == C.SILENCE_BLACK and t >= FIRST_BLACK


@njit(cache=True)
def _move_marks(n, s, t, rules, behaviour, hand, hcol, hsize, piles, st, trace, state):
    """After seat s's move of card t: the N4 zero slap, then the N5 silence it starts or renews
    (unless s has just finished, R9). Returns the state."""
    if rules[C.R_ZERO_SLAP] > 0 and t < FIRST_BLACK and _rank_of(t) == 0:
        state = _slap(n, s, C.SLAP_ZERO, rules[C.R_ZERO_SLAP], behaviour, hand, hcol, hsize,
                      piles, st, trace, state)
    if _starts_silence(rules[C.R_SILENCE], t) and _in_round(st, s):
        if t >= FIRST_BLACK:
            st[ST_SILENCE_COLOUR] = st[ST_COL]
        else:
            st[ST_SILENCE_OWNER] = s
    return state


@njit(cache=True)
def _turn_start(n, p, direction, rules, behaviour, hand, hcol, hsize, piles, st, trace, state):
    """N5: the owner's turn ends its silence; a silence that holds may be broken by the seats
    asked in playing order from p, the first that breaks it drawing its penalty. U2: p may make
    a mistake and draw mistake_penalty. Returns the state."""
    if st[ST_SILENCE_OWNER] == p:
        st[ST_SILENCE_OWNER] = -1
    if st[ST_SILENCE_OWNER] >= 0 or st[ST_SILENCE_COLOUR] >= 0:
        breaker = -1
        s = p
        asked = 0
        while asked < st[ST_LEFT] and breaker < 0:
            u, state = uniform(state)
            if u < behaviour[s, C.B_SILENCE_BREAK]:
                breaker = s
            s = _next(s, direction, n, st)
            asked += 1
        if breaker >= 0:
            penalty = 4 if rules[C.R_SILENCE] == C.SILENCE_SEVEN else 2
            st[ST_SILENCE_OWNER] = -1
            st[ST_SILENCE_COLOUR] = -1
            st[ST_COUNTERS + C.C_SILENCE_BREAKS] += 1
            if st[ST_TRACE]:
                _ev(st, trace, C.EV_SILENCE_BREAK, breaker, penalty, -1)
            _, state = _draw(breaker, penalty, C.DRAW_SILENCE, hand, hcol, hsize, piles, st,
                             trace, state)
    penalty = rules[C.R_MISTAKE_PENALTY]
    if penalty > 0:
        u, state = uniform(state)
        if u < behaviour[p, C.B_MISTAKE]:
            st[ST_COUNTERS + C.C_MISTAKES] += 1
            if st[ST_TRACE]:
                _ev(st, trace, C.EV_MISTAKE, p, penalty, -1)
            _, state = _draw(p, penalty, C.DRAW_MISTAKE, hand, hcol, hsize, piles, st, trace,
                             state)
    return state


@njit(cache=True)
def _uno_call(p, direction, n, penalty, uno_slap, behaviour, hand, hcol, hsize, piles, st, trace,
              state):
    """U1: a player down to one card calls UNO (N4: then the UNO slap), or forgets and may be
    caught. Returns the state."""
    u, state = uniform(state)
    forgot = u < behaviour[p, C.B_FORGET_UNO]
    # If p forgot, the others are asked in playing order from the next player until one catches
    # it, and p draws the penalty. (A loop run zero times and a draw of zero cards when p called
    # UNO: see the note on reference counts.)
    catcher = -1
    asked = 0
    q = p
    while asked < (st[ST_LEFT] - 1 if forgot else 0) and catcher < 0:
        q = _next(q, direction, n, st)
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
    if uno_slap > 0 and not forgot:
        state = _slap(n, p, C.SLAP_UNO, uno_slap, behaviour, hand, hcol, hsize, piles, st, trace,
                      state)
    return state


@njit(cache=True)
def _finish_round(n, g, r, dealer, winner, first, start_direction, turns, hand, hsize, points,
                  piles, rules, st, scores, lost, round_out, round_seat_out, row):
    """R1, R7 hand points; R2, R3/R4, R5 or R6 scoring, R8; the round's records (row ``row`` of
    the round outputs). Returns the points of the round: what it added to all scores.
    """
    lone_zero = rules[C.R_LONE_ZERO_VALUE]
    card_count = rules[C.R_SCORING] == C.SCORING_CARD_COUNT
    own_points = _own_points(rules[C.R_SCORING])
    round_points = 0
    for s in range(n):
        hp = 0
        for t in range(NT):
            hp += hand[s, t] * points[t]
        zeros = hand[s, 0] + hand[s, 13] + hand[s, 26] + hand[s, 39]
        if lone_zero > 0 and hsize[s] == 1 and zeros == 1:  # R7: a lone 0
            hp = lone_zero
        round_seat_out[row, s, RS_HAND_POINTS] = hp
        round_seat_out[row, s, RS_CARDS_LEFT] = hsize[s]
        round_seat_out[row, s, RS_HANDS_EMPTIED] = st[ST_HANDS + s]
        round_seat_out[row, s, RS_POSITION] = _position(s, first, start_direction, n)
        if own_points:  # R3/R4: every seat adds its own hand
            round_points += hp
            scores[s] += hp if winner >= 0 else 0
        elif s != winner:
            round_points += hsize[s] if card_count else hp  # R5: cards, R2: points
    to_the_last = rules[C.R_ROUND_END] == C.ROUND_END_TO_THE_LAST
    loser = -1
    if to_the_last and winner >= 0:  # R9: the seat left last
        for s in range(n):
            if _in_round(st, s):
                loser = s
    elif rules[C.R_SCORING] == C.SCORING_LAZY and winner >= 0:
        # R6: the loser holds the most points, then the most cards (ties: the lowest seat).
        for s in range(n):
            hp = round_seat_out[row, s, RS_HAND_POINTS]
            if loser < 0 or hp > round_seat_out[row, loser, RS_HAND_POINTS] or (
                    hp == round_seat_out[row, loser, RS_HAND_POINTS] and hsize[s] > hsize[loser]):
                loser = s
    if loser >= 0:
        lost[loser] += 1
    if rules[C.R_SCORING] == C.SCORING_LAZY:  # R6: the winner scores a round won
        round_points = 1
    if winner >= 0 and not own_points:
        scores[winner] += round_points
    if winner >= 0 and rules[C.R_H2O_BONUS] != 0:  # R8: emptying a hand with a hit-all
        for s in range(n):
            scores[s] -= st[ST_BONUS + s]
            round_points -= st[ST_BONUS + s]
    if winner < 0:
        round_points = 0
    for s in range(n):
        round_seat_out[row, s, RS_SCORE_AFTER] = scores[s]
        place = st[ST_PLACE + s]
        if s == winner:
            place = 1
        elif to_the_last and s == loser:
            place = n
        round_seat_out[row, s, RS_FINISH_PLACE] = place
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
    round_out[row, RO_LOSER] = loser
    for i in range(C.N_COUNTERS):
        round_out[row, RO_COUNTERS + i] = st[ST_COUNTERS + i]
    return round_points


# ---------------------------------------------------------------- turn variants


# The turn variants of docs/engine.md follow the referee's order within the turn loop of
# ``_play_games``: the turn's plays (A2, N3), UNO and a win, the jump-ins (J1-J4), then the effects
# (A1 and its variants, P4). The loop plays number cards and the plain effects of action cards
# itself and calls the functions below only when they are needed (a pending penalty, extras
# held, a card whose effect a rule changes or that may be challenged, a jump-in race won, the
# round's last card), so a turn without a variant costs what a standard turn costs. They share
# the table through ``st`` (ST_COL, ST_RANK, ST_DIR, ST_WINNER).


@njit(cache=True, inline="always")
def _draw_two_pends(rules):
    """A3, A6 back: a Draw Two waits for an answer instead of being drawn at once."""
    return (rules[C.R_STACK_DRAW_TWO] != C.STACK_NONE
            or rules[C.R_REVERSE_DEFLECTS] == C.DEFLECT_BACK)


@njit(cache=True, inline="always")
def _draw_four_pends(rules):
    """A4, A5, A6 back: a Wild Draw Four waits for an answer."""
    return (rules[C.R_STACK_DRAW_FOUR] != C.STACK_NONE or rules[C.R_DRAW_TWO_ON_DRAW_FOUR] != 0
            or rules[C.R_REVERSE_DEFLECTS] == C.DEFLECT_BACK)


@njit(cache=True, inline="always")
def _answers(rules, reason, col):
    """A3-A6: the card types (a bit mask) that answer a pending chain of kind ``reason``."""
    mask = 0
    if rules[C.R_REVERSE_DEFLECTS] == C.DEFLECT_BACK and col < BLACK:
        mask |= 1 << (col * 13 + K.REVERSE)  # A6 back: a Reverse of the current colour
    if reason == C.DRAW_DRAW_TWO:
        if rules[C.R_STACK_DRAW_TWO] != C.STACK_NONE:  # A3: a Draw Two of any colour
            for c in range(4):
                mask |= 1 << (c * 13 + K.DRAW_TWO)
    else:
        if rules[C.R_STACK_DRAW_FOUR] != C.STACK_NONE:  # A4
            mask |= 1 << WD4
        if rules[C.R_DRAW_TWO_ON_DRAW_FOUR] != 0 and col < BLACK:  # A5: the named colour
            mask |= 1 << (col * 13 + K.DRAW_TWO)
    return mask


@njit(cache=True, inline="always")
def _chain_after(is_draw_two, count, total, reason, rules):
    """A3-A5: the pending chain (total, reason; total 0 for none) once ``count`` Draw Twos (or
    Wild Draw Fours) are put on it."""
    for _ in range(count):
        if is_draw_two:
            if total == 0 or reason == C.DRAW_DRAW_FOUR:
                total, reason = 2, C.DRAW_DRAW_TWO  # a new chain; A5 cancels the +4
            elif rules[C.R_STACK_DRAW_TWO] != C.STACK_PASS_ON:
                total += 2
        elif total == 0:
            total, reason = 4, C.DRAW_DRAW_FOUR
        elif rules[C.R_STACK_DRAW_FOUR] != C.STACK_PASS_ON:
            total += 4
    return total, reason


@njit(cache=True, inline="always")
def _jumpable(mode, t):
    """J1: may a card identical to the top card t be played on it out of turn?"""
    if mode == C.JUMP_IN_NUMBERS:
        return _rank_of(t) <= 9
    if mode == C.JUMP_IN_ALL_BUT_DRAW_FOUR:
        return t < FIRST_BLACK or t == K.WILD  # plain Wilds, not the D3-D5 black cards
    return mode == C.JUMP_IN_EXTREME and t < FIRST_BLACK


@njit(cache=True, inline="always")
def _lay_down(s, t, kind, tag, colour_cycle, hand, hcol, hsize, piles, st, trace):
    """Seat s plays card t (``kind``: EV_PLAY, or EV_JUMP_IN out of turn with ``tag`` 1 for an
    A8 escape, else -1); a black card names the colour (P7)."""
    _remove(hand, hcol, hsize, s, t)
    _discard(piles, st, t)
    st[ST_COUNTERS + C.C_CARDS_PLAYED] += 1
    if st[ST_TRACE]:
        _ev(st, trace, kind, s, t, tag)
    col = _colour_of(t)
    if t >= FIRST_BLACK:
        col = st[ST_COL]
        if colour_cycle and col < BLACK:
            col = _next_in_cycle(col, st[ST_DIR])
        else:
            col = _choose_colour(hcol, s)
        if st[ST_TRACE]:
            _ev(st, trace, C.EV_COLOUR, s, col, -1)
    st[ST_COL] = col
    _colour_changed(st, col)
    st[ST_RANK] = _rank_of(t)


@njit(cache=True, inline="always")
def _h2o_bonus(t):
    """R8: what emptying a hand with card t takes off the seat's score (if the rule is on)."""
    return 20 if t == K.HIT_ALL_ONE else (40 if t == K.HIT_ALL_TWO else 0)


@njit(cache=True)
def _last_card(n, s, t, count, rules, hand, hcol, hsize, piles, st, trace, state):
    """Seat s has gone out with the move of ``count`` cards ``t`` (its first card): the draws
    it makes others do still happen before counting (a Draw Two / Wild Draw Four: the total its
    chain or +2/Reverse sequence would have reached; D3-D5 draws). Records the winner (R9: the
    first seat to finish) and s's R8 bonus; returns the state."""
    winner = s
    for q in range(n):
        if st[ST_PLACE + q] == 1:
            winner = q
    st[ST_WINNER] = winner
    st[ST_BONUS + s] = _h2o_bonus(piles[DISCARDS, st[ST_NDISC] - 1])
    total, reason = 0, C.DRAW_DRAW_TWO
    if _rank_of(t) == K.DRAW_TWO:
        if _draw_two_pends(rules) or st[ST_PENDING] > 0:
            total, reason = _chain_after(True, count, st[ST_PENDING], st[ST_PENDING_REASON],
                                         rules)
        elif rules[C.R_REVERSE_DEFLECTS] == C.DEFLECT_EXTREME:
            total = st[ST_ESCALATION] + 2 * count
        else:
            total = 2 * count
        reason = C.DRAW_DRAW_TWO
    elif t == WD4:
        total, _ = _chain_after(False, count, st[ST_PENDING], st[ST_PENDING_REASON], rules)
        reason = C.DRAW_DRAW_FOUR
    elif t == K.BLANK and rules[C.R_BLANK_EFFECT] == C.BLANK_DRAW_TEN:  # D3
        total, reason = 10, C.DRAW_BLANK
    elif t == K.HIT_ALL_ONE or t == K.HIT_ALL_TWO:  # D4
        state = _everyone_draws(n, s, 1 if t == K.HIT_ALL_ONE else 2, C.DRAW_HIT_ALL, False,
                                hand, hcol, hsize, piles, st, trace, state)
    elif t == K.CUSTOM_WILD and rules[C.R_CUSTOM_WILD_EFFECT] == C.CUSTOM_WILD_EVERYONE_DRAWS_TWO:
        state = _everyone_draws(n, s, 2, C.DRAW_CUSTOM_WILD, False, hand, hcol, hsize, piles, st,
                                trace, state)  # D5: not the player, who has gone out
    _, state = _draw(_next(s, st[ST_DIR], n, st), total, reason, hand, hcol, hsize, piles, st,
                     trace, state)
    return state


@njit(cache=True)
def _end_of_move(n, s, t, count, rules, behaviour, hand, hcol, hsize, piles, st, trace, state):
    """U1, a win (or R9 finish, R10 new hand), N4 and N5 at the end of seat s's move (``count``
    cards t). Returns the state."""
    if rules[C.R_UNO_PENALTY] > 0 and hsize[s] == 1:
        state = _uno_call(s, st[ST_DIR], n, rules[C.R_UNO_PENALTY], rules[C.R_UNO_SLAP],
                          behaviour, hand, hcol, hsize, piles, st, trace, state)
    out = False
    if hsize[s] == 0:
        out, state = _hand_emptied(n, s, rules, hand, hcol, hsize, piles, st, trace, state)
    if out:
        state = _last_card(n, s, t, count, rules, hand, hcol, hsize, piles, st, trace, state)
    else:
        state = _move_marks(n, s, t, rules, behaviour, hand, hcol, hsize, piles, st, trace,
                            state)
    return state


@njit(cache=True)
def _hand_emptied(n, s, rules, hand, hcol, hsize, piles, st, trace, state):
    """Seat s has emptied its hand. R10 seven_rounds: unless it was its last hand it takes a new
    one of one card fewer (``new_hand``, then refill draws) and stays in the round. R9
    to_the_last: s finishes and leaves the round (a silence it owns ends), which goes on while
    two seats or more are left in it. Returns (whether the round is over, state)."""
    st[ST_HANDS + s] += 1
    if rules[C.R_ROUND_END] == C.ROUND_END_TO_THE_LAST:
        place = n - st[ST_LEFT] + 1
        st[ST_PLACE + s] = place
        st[ST_BONUS + s] = _h2o_bonus(piles[DISCARDS, st[ST_NDISC] - 1])
        st[ST_OUT] |= 1 << s
        st[ST_LEFT] -= 1
        if st[ST_SILENCE_OWNER] == s:
            st[ST_SILENCE_OWNER] = -1
        if st[ST_TRACE]:
            _ev(st, trace, C.EV_FINISH, s, place, -1)
        return st[ST_LEFT] == 1, state
    done = st[ST_HANDS + s]
    new = rules[C.R_HAND_SIZE] - done
    if rules[C.R_ROUND_END] != C.ROUND_END_SEVEN_ROUNDS or new <= 0:
        return True, state
    if st[ST_TRACE]:
        _ev(st, trace, C.EV_NEW_HAND, s, done, new)
    _, state = _draw(s, new, C.DRAW_REFILL, hand, hcol, hsize, piles, st, trace, state)
    return False, state


@njit(cache=True, inline="always")
def _owes_cover(rules, t):
    """N6: a move of an 8 waits for its cover (its end of move comes with the cover's)."""
    return rules[C.R_EIGHT_COVER] != 0 and t < FIRST_BLACK and _rank_of(t) == 8


@njit(cache=True)
def _after_plays(n, s, t, rules, behaviour, hand, hcol, hsize, piles, st, trace, state):
    """The end of a move of one card t played out of turn (J1, A8), unless it owes a cover (N6).
    Returns the state."""
    if not _owes_cover(rules, t):
        state = _end_of_move(n, s, t, 1, rules, behaviour, hand, hcol, hsize, piles, st, trace,
                             state)
    return state


@njit(cache=True)
def _draw_cover(n, s, rules, behaviour, hand, hcol, hsize, piles, st, trace, state):
    """N6: seat s holds no card to cover its 8 with: it draws one card at a time until one is
    legal (a restricted black card only without a card of the colour). Returns (that card, or
    -1 when the piles ran out: then the duty has lapsed and the 8's move has ended, state)."""
    col = st[ST_COL]
    rank = st[ST_RANK]
    eight = np.int64(piles[DISCARDS, st[ST_NDISC] - 1])
    wd4_restricted = rules[C.R_WILD_DRAW_FOUR] == C.WD4_NO_MATCHING_COLOUR
    wild_restricted = rules[C.R_WILD] == C.WILD_NO_MATCHING_COLOUR
    card = -1
    drawn = 0
    while card < 0 and drawn >= 0:
        drawn, state = _draw(s, 1, C.DRAW_COVER, hand, hcol, hsize, piles, st, trace, state)
        restricted = (drawn == WD4 and wd4_restricted) or (drawn == K.WILD and wild_restricted)
        if drawn >= 0 and _is_legal(drawn, col, rank) and not (
                restricted and _holds_colour(hcol, s, col)):
            card = drawn
    if card < 0:
        state = _end_of_move(n, s, eight, 1, rules, behaviour, hand, hcol, hsize, piles, st,
                             trace, state)
    return card, state


@njit(cache=True, inline="always")
def _race(n, mover, t, direction, hand, behaviour, st, state):
    """J4: the seat that jumps in on card t just played by ``mover``, or -1.

    Each seat holding a card identical to t is willing with its ``jump_in`` probability; the
    willing seats race with the seat due to act next, each winning in proportion to its
    ``reaction`` weight. If the seat due to act wins without being willing, nobody jumps in.
    Returns (seat, state). (One return: see the note on reference counts.)
    """
    due = _next(mover, direction, n, st)
    willing = 0
    weight = 0.0
    for s in range(n):
        if hand[s, t] > 0:
            u, state = uniform(state)
            if u < behaviour[s, C.B_JUMP_IN]:
                willing |= 1 << s
                weight += behaviour[s, C.B_REACTION]
    fastest = -1
    if willing != 0:
        if not (willing >> due) & 1:
            weight += behaviour[due, C.B_REACTION]
        u, state = uniform(state)
        x = u * weight
        for s in range(n):
            if fastest < 0 and ((willing >> s) & 1 or s == due):
                w = behaviour[s, C.B_REACTION]
                if x < w:
                    fastest = s
                x -= w
        if fastest >= 0 and not (willing >> fastest) & 1:
            fastest = -1
    return fastest, state


@njit(cache=True, inline="always")
def _reverse(st, trace):
    """The direction of play flips."""
    st[ST_DIR] = -st[ST_DIR]
    st[ST_COUNTERS + C.C_DIRECTION_CHANGES] += 1
    if st[ST_TRACE]:
        _ev(st, trace, C.EV_DIRECTION, -1, st[ST_DIR], -1)


@njit(cache=True, inline="always")
def _skip_seat(s, n, st, trace):
    """Seat s misses its turn; returns the seat after it."""
    if st[ST_TRACE]:
        _ev(st, trace, C.EV_SKIP, s, -1, -1)
    return _skip(s, st[ST_DIR], n, st)


@njit(cache=True)
def _skip_players(n, player, k, t, rules, behaviour, hand, hcol, hsize, piles, st, trace, state):
    """A1/A2/A7: the k seats after the player miss their turns (round the table if need be).
    A8: a seat about to be skipped that holds the identical Skip t escapes with it (``jump_in``
    probability), and the skip moves on. Returns (the seat that acts next, state)."""
    s = _next(player, st[ST_DIR], n, st)
    while k > 0:
        escapes = False
        if rules[C.R_SKIP_ESCAPE] != 0 and hand[s, t] > 0:
            u, state = uniform(state)
            escapes = u < behaviour[s, C.B_JUMP_IN]
        if escapes:
            _lay_down(s, t, C.EV_JUMP_IN, 1, False, hand, hcol, hsize, piles, st, trace)
            st[ST_COUNTERS + C.C_JUMP_INS] += 1
            state = _after_plays(n, s, t, rules, behaviour, hand, hcol, hsize, piles, st,
                                 trace, state)
            if st[ST_WINNER] >= 0:
                return s, state
            s = _next(s, st[ST_DIR], n, st)
        else:
            s = _skip_seat(s, n, st, trace)
            k -= 1
    return s, state


@njit(cache=True)
def _escalate(n, player, t, count, jumper, hand, hcol, hsize, piles, st, trace, state):
    """A6 extreme: a Draw Two opens or continues the +2/Reverse sequence, a Reverse continues it
    (with 2 seats in the round it only skips); the next seat draws the value, 2 more with each card (A2: a
    double Draw Two adds 4), and is skipped (a jumper draws nothing for a card aimed at itself).
    Returns (next seat, state)."""
    if _rank_of(t) == K.REVERSE and st[ST_LEFT] > 2:
        _reverse(st, trace)
    victim = _next(player, st[ST_DIR], n, st)
    st[ST_ESCALATION] += 2 * count
    _, state = _draw(victim, st[ST_ESCALATION] if victim != jumper else 0, C.DRAW_DRAW_TWO, hand,
                     hcol, hsize, piles, st, trace, state)
    return _skip_seat(victim, n, st, trace), state


@njit(cache=True)
def _challenge(n, player, t, guilty, colour_before, rules, hand, hcol, hsize, piles, st, trace,
               state):
    """P4: the next seat challenges the restricted black card t; penalties by ``challenge``.
    Returns (the seat that acts next, state)."""
    victim = _next(player, st[ST_DIR], n, st)
    st[ST_COUNTERS + C.C_CHALLENGES] += 1
    st[ST_COUNTERS + C.C_CHALLENGES_WON] += guilty
    if st[ST_TRACE]:
        _ev(st, trace, C.EV_CHALLENGE, victim, player, 1 if guilty else 0)
    rule = rules[C.R_CHALLENGE]
    if guilty:
        if rule != C.CHALLENGE_OFFICIAL:
            _take_back(player, t, colour_before, hand, hcol, hsize, piles, st, trace)
        _, state = _draw(player, 4, C.DRAW_CHALLENGE, hand, hcol, hsize, piles, st, trace, state)
        return victim, state
    count = 8 if rule == C.CHALLENGE_EXTREME else (6 if t == WD4 else 2)
    _, state = _draw(victim, count, C.DRAW_CHALLENGE, hand, hcol, hsize, piles, st, trace, state)
    if t == WD4:
        return _skip_seat(victim, n, st, trace), state
    return victim, state


@njit(cache=True)
def _take_back(player, t, colour_before, hand, hcol, hsize, piles, st, trace):
    """P4 house/extreme: the guilty player's card goes back to its hand; if it was on top, the
    previous top card and colour are current again. Nothing is taken back once a reshuffle has
    taken the cards below it (docs/engine.md)."""
    nd = st[ST_NDISC]
    i = nd - 1
    while i >= 0 and piles[DISCARDS, i] != t:
        i -= 1
    if i < 0 or nd == 1:
        return
    if st[ST_TRACE]:
        _ev(st, trace, C.EV_TAKE_BACK, player, t, -1)
    for k in range(i, nd - 1):
        piles[DISCARDS, k] = piles[DISCARDS, k + 1]
    st[ST_NDISC] = nd - 1
    _add(hand, hcol, hsize, player, t)
    if i == nd - 1:
        st[ST_COL] = colour_before
        _colour_changed(st, colour_before)
        st[ST_RANK] = _rank_of(piles[DISCARDS, nd - 2])


@njit(cache=True)
def _effect(n, player, t, count, in_turn, guilty, colour_before, jumper, rules, policy, points,
            behaviour, hand, hcol, hsize, piles, st, trace, state):
    """A1 and its variants: the effect of a move (``count`` cards t by ``player``; ``in_turn``:
    played in its turn, not out of turn; ``jumper``: the seat that jumped in on it under
    jump_in extreme, else -1). Returns (the seat that acts next, state)."""
    rank = _rank_of(t)
    victim = _next(player, st[ST_DIR], n, st)
    if rank != K.SKIP:
        st[ST_SKIP_RUN] = 0  # A7: any other play ends a Skip run
    if rank != K.DRAW_TWO and rank != K.REVERSE:
        st[ST_ESCALATION] = 0  # A6 extreme: any other play closes the sequence
    pending = st[ST_PENDING] > 0
    if rank == K.SKIP:
        run = st[ST_SKIP_RUN] if rules[C.R_STACK_SKIP] != 0 and in_turn else 0
        st[ST_SKIP_RUN] = run + count
        return _skip_players(n, player, run + count, t, rules, behaviour, hand, hcol, hsize,
                             piles, st, trace, state)
    if rank == K.REVERSE:
        if count == 2:
            return victim, state  # A2: two Reverses cancel
        if pending:  # A6 back: the penalty is now owed by the next seat in the new direction
            _reverse(st, trace)
            return _next(player, st[ST_DIR], n, st), state
        if st[ST_ESCALATION] > 0:
            return _escalate(n, player, t, count, jumper, hand, hcol, hsize, piles, st, trace,
                             state)
        if st[ST_LEFT] == 2:  # A1: with two players (in the round) a Reverse acts as a Skip
            return _skip_seat(victim, n, st, trace), state
        _reverse(st, trace)
        return _next(player, st[ST_DIR], n, st), state
    if rank == K.DRAW_TWO:
        if _draw_two_pends(rules) or pending:
            st[ST_PENDING], st[ST_PENDING_REASON] = _chain_after(
                True, count, st[ST_PENDING], st[ST_PENDING_REASON], rules)
            return victim, state
        if rules[C.R_REVERSE_DEFLECTS] == C.DEFLECT_EXTREME:
            return _escalate(n, player, t, count, jumper, hand, hcol, hsize, piles, st, trace,
                             state)
        _, state = _draw(victim, 2 * count if victim != jumper else 0, C.DRAW_DRAW_TWO, hand,
                         hcol, hsize, piles, st, trace, state)
        return _skip_seat(victim, n, st, trace), state
    if _owes_cover(rules, t) and jumper < 0:  # N6: its player covers it next (no turn)
        st[ST_COVER] = 1
        return player, state
    challenged = False
    if (t == WD4 and not pending and rules[C.R_WILD_DRAW_FOUR] == C.WD4_NO_MATCHING_COLOUR) or (
            t == K.WILD and rules[C.R_WILD] == C.WILD_NO_MATCHING_COLOUR):
        u, state = uniform(state)
        challenged = u < behaviour[victim, C.B_CHALLENGE]
    if challenged:
        return _challenge(n, player, t, guilty, colour_before, rules, hand, hcol, hsize, piles,
                          st, trace, state)
    if t == WD4:
        if _draw_four_pends(rules) or pending:
            st[ST_PENDING], st[ST_PENDING_REASON] = _chain_after(
                False, count, st[ST_PENDING], st[ST_PENDING_REASON], rules)
            return victim, state
        _, state = _draw(victim, 4, C.DRAW_DRAW_FOUR, hand, hcol, hsize, piles, st, trace, state)
        return _skip_seat(victim, n, st, trace), state
    if t < FIRST_BLACK:  # N1, N2: numbers
        if rules[C.R_SEVEN_ZERO] != 0 and rank == 0:
            _pass_hands(n, player, hand, hcol, hsize, st, trace)
        elif rules[C.R_SEVEN_ZERO] != 0 and rank == 7:
            _swap_hands(n, player, hand, hcol, hsize, st, trace)
        elif rules[C.R_FIVE_SWAP] != 0 and rank == 5:
            state = _swap_one(player, _fewest_cards_seat(n, player, hsize, st), policy, points,
                              hand, hcol, hsize, st, trace, state)
        return victim, state
    if t == K.BLANK and rules[C.R_BLANK_EFFECT] == C.BLANK_DRAW_TEN:  # D3
        _, state = _draw(victim, 10, C.DRAW_BLANK, hand, hcol, hsize, piles, st, trace, state)
        return _skip_seat(victim, n, st, trace), state
    if t == K.HIT_ALL_ONE or t == K.HIT_ALL_TWO:  # D4: every other seat, in playing order
        state = _everyone_draws(n, player, 1 if t == K.HIT_ALL_ONE else 2, C.DRAW_HIT_ALL, False,
                                hand, hcol, hsize, piles, st, trace, state)
    elif t == K.SWAP_HANDS:  # D5
        _swap_hands(n, player, hand, hcol, hsize, st, trace)
    elif t == K.CUSTOM_WILD and rules[C.R_CUSTOM_WILD_EFFECT] == C.CUSTOM_WILD_EVERYONE_DRAWS_TWO:
        state = _everyone_draws(n, player, 2, C.DRAW_CUSTOM_WILD, True, hand, hcol, hsize, piles,
                                st, trace, state)
    elif t == K.CUSTOM_WILD:
        state = _swap_one(player, victim, policy, points, hand, hcol, hsize, st, trace, state)
    return victim, state


# ---------------------------------------------------------------- hands that move (N1, N2, D5)


@njit(cache=True)
def _everyone_draws(n, player, count, reason, player_too, hand, hcol, hsize, piles, st, trace,
                    state):
    """D4, D5: every other seat in the round draws ``count`` in playing order from the player
    (the player last, if ``player_too`` and it is still in the round). Returns the state."""
    inside = _in_round(st, player)
    s = player
    for _ in range(st[ST_LEFT] - inside + (inside if player_too else 0)):
        s = _next(s, st[ST_DIR], n, st)
        _, state = _draw(s, count, reason, hand, hcol, hsize, piles, st, trace, state)
    return state


@njit(cache=True)
def _fewest_cards_seat(n, player, hsize, st):
    """The other seat in the round holding the fewest cards; ties to the first in playing
    order."""
    best = -1
    s = player
    for _ in range(st[ST_LEFT] - _in_round(st, player)):
        s = _next(s, st[ST_DIR], n, st)
        if best < 0 or hsize[s] < hsize[best]:
            best = s
    return best


@njit(cache=True)
def _exchange_hands(a, b, hand, hcol, hsize):
    """Seats a and b exchange their whole hands."""
    for t in range(NT):
        hand[a, t], hand[b, t] = hand[b, t], hand[a, t]
    for c in range(5):
        hcol[a, c], hcol[b, c] = hcol[b, c], hcol[a, c]
    hsize[a], hsize[b] = hsize[b], hsize[a]


@njit(cache=True)
def _pass_hands(n, player, hand, hcol, hsize, st, trace):
    """N1 0: every hand in the round moves on to the next seat in the direction of play."""
    direction = st[ST_DIR]
    if st[ST_TRACE]:
        _ev(st, trace, C.EV_PASS_HANDS, player, direction, -1)
    st[ST_COUNTERS + C.C_HAND_SWAPS] += 1
    # Exchanges of one seat's hand with each other seat's in playing order rotate every hand
    # one seat on.
    pivot = _next(player, direction, n, st)
    s = pivot
    for _ in range(st[ST_LEFT] - 1):
        s = _next(s, direction, n, st)
        _exchange_hands(pivot, s, hand, hcol, hsize)


@njit(cache=True)
def _swap_hands(n, player, hand, hcol, hsize, st, trace):
    """N1 7, D5 Wild Swap Hands: the player swaps hands with the seat holding the fewest cards
    (nothing when the player holds none)."""
    if hsize[player] == 0:
        return
    partner = _fewest_cards_seat(n, player, hsize, st)
    if st[ST_TRACE]:
        _ev(st, trace, C.EV_SWAP_HANDS, player, partner, -1)
    st[ST_COUNTERS + C.C_HAND_SWAPS] += 1
    _exchange_hands(player, partner, hand, hcol, hsize)


@njit(cache=True)
def _least_useful(pol, hand, hsize, s, points, state):
    """N2, D5: the card seat s gives away. random: any card instance; high_value_first: the most
    points; other policies: numbers before coloured actions before black cards, then the most
    points. Ties to the lowest card id. Returns (card, state)."""
    if pol == C.POLICY_RANDOM:
        k, state = bounded(state, hsize[s])
        t = 0
        while k >= hand[s, t]:
            k -= hand[s, t]
            t += 1
        return t, state
    best = -1
    best_key = 0
    for t in range(NT):
        if hand[s, t] > 0:
            if pol == C.POLICY_HIGH_VALUE_FIRST:
                key = -points[t]
            else:
                kind = 2 if t >= FIRST_BLACK else (0 if _rank_of(t) <= 9 else 1)
                key = kind * 1000 - points[t]
            if best < 0 or key < best_key:
                best, best_key = t, key
    return best, state


@njit(cache=True)
def _swap_one(player, partner, policy, points, hand, hcol, hsize, st, trace, state):
    """N2 five_swap, D5 swap one: each side gives its least useful card, both chosen from the
    hands as they are. Returns the state."""
    if hsize[player] == 0 or hsize[partner] == 0:
        return state
    mine, state = _least_useful(policy[player], hand, hsize, player, points, state)
    theirs, state = _least_useful(policy[partner], hand, hsize, partner, points, state)
    if st[ST_TRACE]:
        _ev(st, trace, C.EV_GIVE, player, mine, partner)
        _ev(st, trace, C.EV_GIVE, partner, theirs, player)
    st[ST_COUNTERS + C.C_CARD_SWAPS] += 1
    _remove(hand, hcol, hsize, player, mine)
    _add(hand, hcol, hsize, partner, mine)
    _remove(hand, hcol, hsize, partner, theirs)
    _add(hand, hcol, hsize, player, theirs)
    return state


@njit(cache=True, inline="always")
def _may_add(rule, hand, hcol, p, first, start_col, start_rank):
    """N3: might seat p add a number card after ``first``? (A cheap test before _extras: a card
    of the number for same_rank; for two_matching a card of the colour the turn started with,
    or of its number.)"""
    r = _rank_of(first)
    same = 0
    if r <= 9:
        for c in range(4):
            same += hand[p, c * 13 + r]
    by_rank = 0
    if start_rank <= 9:
        for c in range(4):
            by_rank += hand[p, c * 13 + start_rank]
    by_colour = (hcol[p, start_col] > 0) & (start_col < BLACK)
    if rule == C.MULTI_PLAY_SAME_RANK:
        return same > 0
    return by_colour or by_rank > 0


@njit(cache=True, inline="always")
def _pick_matching_number(hand, p, start_col, start_rank, state):
    """N3 two_matching for the random policy: uniform over the number cards in p's hand of the
    colour or number the turn started with; -1 if none. Returns (card, state). (One return:
    see the note on reference counts.)"""
    # The candidates: the colour's ten numbers (none when no colour is current), then the
    # number in the other colours (none after an action or black card).
    n_col = 10 if start_col < BLACK else 0
    n_rank = 4 if start_rank <= 9 else 0
    total = 0
    for i in range(n_col + n_rank):
        t = start_col * 13 + i if i < n_col else (i - n_col) * 13 + start_rank
        if i < n_col or _colour_of(t) != start_col:
            total += hand[p, t]
    k = 0
    if total > 0:
        k, state = bounded(state, total)
    card = -1
    for i in range(n_col + n_rank):
        t = start_col * 13 + i if i < n_col else (i - n_col) * 13 + start_rank
        if card < 0 and (i < n_col or _colour_of(t) != start_col):
            if k < hand[p, t]:
                card = t
            k -= hand[p, t]
    return card, state


@njit(cache=True)
def _extras(p, first, start_col, start_rank, rules, policy, points, hand, hcol, hsize, piles, st,
            trace, state):
    """N3: the number cards a turn adds after its first card. Returns the state."""
    colour_cycle = rules[C.R_COLOUR_CYCLE] != 0
    if rules[C.R_MULTI_PLAY] == C.MULTI_PLAY_SAME_RANK:
        r = _rank_of(first)
        if r <= 9:  # every other card of the number, in card-id order
            for c in range(4):
                while hand[p, c * 13 + r] > 0:
                    _lay_down(p, c * 13 + r, C.EV_PLAY, -1, colour_cycle, hand, hcol, hsize, piles,
                              st, trace)
        return state
    # two_matching: one more number card matching the top card as the turn started.
    mask = 0
    for t in range(FIRST_BLACK):
        if _rank_of(t) <= 9 and (_colour_of(t) == start_col or _rank_of(t) == start_rank):
            mask |= 1 << t
    t, state = _pick_by_priority(policy, hand, hcol, p, start_col, start_rank, mask, False,
                                 points, False, state)
    if t >= 0:
        _lay_down(p, t, C.EV_PLAY, -1, colour_cycle, hand, hcol, hsize, piles, st, trace)
    return state


@njit(cache=True)
def _pending(n, p, policy, points, rules, hand, hcol, hsize, piles, st, trace, state):
    """A3-A6: seat p owes the pending penalty. Returns (the card it answers with, p, state), or
    (-1, the seat that acts next, state) when it cannot answer: then it draws the whole penalty
    and is skipped, without a turn."""
    col = st[ST_COL]
    answers = _answers(rules, st[ST_PENDING_REASON], col)
    threat = hsize[_next(p, st[ST_DIR], n, st)] <= 2
    answer, state = _pick_by_priority(policy[p], hand, hcol, p, col, st[ST_RANK], answers, False,
                                      points, threat, state)
    if answer >= 0:
        return answer, p, state
    _, state = _draw(p, st[ST_PENDING], st[ST_PENDING_REASON], hand, hcol, hsize, piles, st, trace,
                     state)
    st[ST_PENDING] = 0
    st[ST_ESCALATION] = 0
    st[ST_SKIP_RUN] = 0
    return -1, _skip_seat(p, n, st, trace), state


@njit(cache=True)
def _jump_ins(n, p, j, top, rules, behaviour, hand, hcol, hsize, piles, st, trace, jumpers,
              state):
    """J1-J4: seat j has won the race to jump in on the top card p played; then the jump-ins
    after it, each on the one before, until nobody jumps in (or a jumper goes out). The jumpers
    go to ``jumpers``; the last jump-in's card, guilt and covered colour to st. N6: a jump-in on
    an 8 takes the cover duty over and ends the previous move. Returns (the number of jump-ins,
    state)."""
    colour_cycle = rules[C.R_COLOUR_CYCLE] != 0
    jumps = 0
    mover = p
    st[ST_JUMP_CARD] = top
    while j >= 0:
        st[ST_JUMP_COLOUR] = st[ST_COL]
        st[ST_JUMP_GUILTY] = _holds_colour(hcol, j, st[ST_COL])
        _lay_down(j, top, C.EV_JUMP_IN, -1, colour_cycle, hand, hcol, hsize, piles, st, trace)
        st[ST_COUNTERS + C.C_JUMP_INS] += 1
        state = _after_plays(n, j, top, rules, behaviour, hand, hcol, hsize, piles, st, trace,
                             state)
        if _owes_cover(rules, top) and j != mover:  # N6: j took the duty over, so the
            # previous move ends (a seat jumping in on its own 8 owes the new 8's cover)
            state = _end_of_move(n, mover, top, 1, rules, behaviour, hand, hcol, hsize, piles, st,
                                 trace, state)
        mover = j
        jumpers[jumps] = j
        jumps += 1
        if st[ST_WINNER] >= 0:
            break
        j, state = _race(n, j, top, st[ST_DIR], hand, behaviour, st, state)
    return jumps, state


@njit(cache=True)
def _effects_after_jump_ins(n, p, card, count, guilty, colour_before, jumps, rules, policy,
                            points, behaviour, hand, hcol, hsize, piles, st, trace, jumpers,
                            state):
    """The effects once someone jumped in: of the last card only (a jump-in cancels the card it
    jumped on), or under jump_in extreme of every card in turn, the last deciding who acts next.
    Returns (the seat that acts next, state)."""
    top = st[ST_JUMP_CARD]
    if rules[C.R_JUMP_IN] != C.JUMP_IN_EXTREME:
        return _effect(n, jumpers[jumps - 1], top, 1, False, st[ST_JUMP_GUILTY] != 0,
                       st[ST_JUMP_COLOUR], -1, rules, policy, points, behaviour, hand, hcol,
                       hsize, piles, st, trace, state)
    nxt, state = _effect(n, p, card, count, True, guilty, colour_before, jumpers[0], rules,
                         policy, points, behaviour, hand, hcol, hsize, piles, st, trace, state)
    i = 0
    while i < jumps and st[ST_WINNER] < 0:
        after = jumpers[i + 1] if i + 1 < jumps else -1
        nxt, state = _effect(n, jumpers[i], top, 1, False, False, BLACK, after, rules, policy,
                             points, behaviour, hand, hcol, hsize, piles, st, trace, state)
        i += 1
    return nxt, state


@njit(cache=True, inline="always")
def _share_table(st, col, rank, direction):
    """Hand the turn's colour, top rank and direction to the variant functions (ST_*)."""
    st[ST_COL] = col
    st[ST_RANK] = rank
    st[ST_DIR] = direction
    st[ST_WINNER] = -1


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
    lost = np.zeros(n, dtype=np.int64)  # R6 lazy: rounds each seat lost
    lazy = rules[C.R_SCORING] == C.SCORING_LAZY
    tr = tracing
    hand_size = rules[C.R_HAND_SIZE]
    first_card = rules[C.R_FIRST_CARD]
    acceptable = 0  # cards that may stay as the first discard
    for t in range(NT):
        if _stays_first(t, first_card):
            acceptable += deck[t]
    wd4_restricted = rules[C.R_WILD_DRAW_FOUR] == C.WD4_NO_MATCHING_COLOUR
    wild_restricted = rules[C.R_WILD] == C.WILD_NO_MATCHING_COLOUR
    # Cards whose effect a rule changes (A3-A8, P3, P4), and restricted black cards (a challenge
    # may follow): played, they go to _effect.
    special_skip = rules[C.R_STACK_SKIP] != 0 or rules[C.R_SKIP_ESCAPE] != 0
    special_reverse = rules[C.R_REVERSE_DEFLECTS] != C.DEFLECT_NONE
    special_draw_two = _draw_two_pends(rules) or special_reverse
    special_draw_four = _draw_four_pends(rules) or rules[C.R_CHALLENGE] != C.CHALLENGE_OFFICIAL
    double_action = rules[C.R_DOUBLE_ACTION] != 0
    multi_play_rule = rules[C.R_MULTI_PLAY]
    multi_play = multi_play_rule != C.MULTI_PLAY_NONE
    jump_in = rules[C.R_JUMP_IN]
    jumpers = np.zeros(deck.max() + 1, dtype=np.int64)  # J1: seats of a turn's jump-ins
    uno_penalty = rules[C.R_UNO_PENALTY]
    uno_slap = rules[C.R_UNO_SLAP]
    zero_slap = rules[C.R_ZERO_SLAP]
    silence = rules[C.R_SILENCE]
    eight_cover = rules[C.R_EIGHT_COVER] != 0
    seven_zero = rules[C.R_SEVEN_ZERO] != 0
    round_modes = rules[C.R_ROUND_END] != C.ROUND_END_FIRST_OUT  # R9, R10
    five_swap = rules[C.R_FIVE_SWAP] != 0
    turn_start = silence != C.SILENCE_NONE or rules[C.R_MISTAKE_PENALTY] > 0
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
        lost[:] = 0
        dealer, state = bounded(state, n)
        if first_dealer >= 0:
            dealer = first_dealer
        first_player = _step(dealer, 1, n)
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
            st[ST_PENDING:] = 0
            st[ST_LEFT] = n
            st[ST_SILENCE_OWNER] = -1
            st[ST_SILENCE_COLOUR] = -1
            top, state = _deal_and_flip(n, dealer, hand_size, full_pile, first_card, acceptable,
                                        hand, hcol, hsize, piles, st, trace, state)
            col = _colour_of(top)
            rank = _rank_of(top)
            p = first_player
            direction = 1
            if first_card != C.FIRST_CARD_NUMBER_ONLY and rank >= K.SKIP:  # an action card
                p, direction, col, state = _first_card_effect(top, first_card, n, dealer, p, hand,
                                                              hcol, hsize, piles, st, trace,
                                                              state)
            first = p
            start_direction = direction

            # ---- turns
            winner = -1
            turns = 0
            covering = False  # N6: p covers its 8 (a play of the same turn, or of a jump-in)
            in_turn = True  # the move is p's turn (not a jump-in's cover)
            while turns < max_turns or covering:
                answer = -1
                if not covering:
                    in_turn = True
                    if st[ST_PENDING] > 0:  # A3-A6: answer the pending penalty, or pay it
                        _share_table(st, col, rank, direction)
                        answer, p, state = _pending(n, p, policy, points, rules, hand, hcol,
                                                    hsize, piles, st, trace, state)
                        if answer < 0:
                            continue  # paid, without a turn
                    turns += 1
                    if tr:
                        _ev(st, trace, C.EV_TURN, p, -1, -1)
                    if turn_start:  # N5 silence, U2 mistake
                        state = _turn_start(n, p, direction, rules, behaviour, hand, hcol, hsize,
                                            piles, st, trace, state)
                card = answer
                if answer < 0:
                    # P2/P3: a restricted black card is legal without a card of the colour, or
                    # as a bluff (one draw per turn covers both kinds).
                    allow = True
                    if ((wd4_restricted and hand[p, WD4] > 0)
                            or (wild_restricted and hand[p, K.WILD] > 0)) \
                            and _holds_colour(hcol, p, col):
                        allow, state = _bluffs(behaviour[p, C.B_BLUFF], state)
                    allow_wd4 = allow or not wd4_restricted
                    allow_wild = allow or not wild_restricted
                    threat = False
                    if policy[p] == C.POLICY_RANDOM:
                        card, state = _pick_random(hand, hcol, p, col, rank, allow_wd4,
                                                   allow_wild, state)
                    else:
                        threat = hsize[_next(p, direction, n, st)] <= 2
                        allowed = ALL_TYPES
                        if not allow_wd4:
                            allowed ^= 1 << WD4
                        if not allow_wild:
                            allowed ^= 1 << K.WILD
                        card, state = _pick_by_priority(policy[p], hand, hcol, p, col, rank,
                                                        allowed, True, points, threat, state)
                    if card < 0 and covering:  # N6: draw until it can cover
                        _share_table(st, col, rank, direction)
                        card, state = _draw_cover(n, p, rules, behaviour, hand, hcol, hsize,
                                                  piles, st, trace, state)
                        if card < 0:  # the duty lapsed and the 8's move ended
                            winner = st[ST_WINNER]
                            if winner >= 0:
                                break
                            covering = False
                            p = _next(p, direction, n, st)
                            continue
                    if card < 0:
                        st[ST_ESCALATION] = 0  # a draw ends a +2/Reverse sequence (A6 extreme)
                        st[ST_SKIP_RUN] = 0  # and a Skip run (A7)
                    if card < 0 and draw_rule == C.DRAW_ONE_MAY_PLAY:
                        # P5: draw a card, play it if legal (other draw rules: _draw_turn).
                        drawn, state = _draw(p, 1, C.DRAW_NORMAL, hand, hcol, hsize, piles, st,
                                             trace, state)
                        card, state = _if_playable(drawn, p, col, rank, wd4_restricted,
                                                   wild_restricted, hcol, behaviour, state)
                    elif card < 0:
                        card, state = _draw_turn(draw_rule, p, col, rank, wd4_restricted,
                                                 wild_restricted, policy[p], points, threat,
                                                 behaviour, hand, hcol, hsize, piles, st, trace,
                                                 state)
                    if card < 0:
                        if tr:
                            _ev(st, trace, C.EV_PASS, p, -1, -1)
                        p = _next(p, direction, n, st)
                        continue

                # P4 judges a black card on the hand it was played from (before any UNO
                # penalty).
                guilty = _holds_colour(hcol, p, col)
                colour_before = col
                start_rank = rank
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
                if silence == C.SILENCE_BLACK:  # N5 (only then: a store per turn costs)
                    _colour_changed(st, col)
                count = 1
                cover = covering  # A2 and N3 add no card to a cover
                covering = False
                extras = answer < 0 and not cover  # N3: nor to an answer
                if double_action and not cover and rank >= K.SKIP and card < FIRST_BLACK \
                        and hand[p, card] > 0:  # A2: its twin too
                    _lay_down(p, card, C.EV_PLAY, -1, False, hand, hcol, hsize, piles, st, trace)
                    count = 2
                if multi_play_rule == C.MULTI_PLAY_TWO_MATCHING and policy[p] == C.POLICY_RANDOM \
                        and extras and count == 1:  # N3, random policy: inline
                    extra, state = _pick_matching_number(hand, p, colour_before, start_rank,
                                                         state)
                    if extra >= 0:
                        _lay_down(p, extra, C.EV_PLAY, -1, False, hand, hcol, hsize, piles, st,
                                  trace)
                        col = _colour_of(extra)
                        rank = _rank_of(extra)
                elif multi_play and extras and count == 1 \
                        and _may_add(multi_play_rule, hand, hcol, p, card, colour_before,
                                     start_rank):  # N3: number cards after it
                    _share_table(st, col, rank, direction)
                    state = _extras(p, card, colour_before, start_rank, rules, policy[p], points,
                                    hand, hcol, hsize, piles, st, trace, state)
                    col = st[ST_COL]
                    rank = st[ST_RANK]

                # The end of the move (an 8 under N6: with its cover's, or a jump-in's).
                move_rank = _rank_of(card)
                nxt = _next(p, direction, n, st)
                eight = eight_cover and move_rank == 8
                if uno_penalty > 0 and hsize[p] == 1 and not eight:
                    state = _uno_call(p, direction, n, uno_penalty, uno_slap, behaviour, hand,
                                      hcol, hsize, piles, st, trace, state)
                out = hsize[p] == 0 and not eight
                if out and round_modes:  # R10: a new hand, unless it was the last; R9: finish
                    _share_table(st, col, rank, direction)
                    out, state = _hand_emptied(n, p, rules, hand, hcol, hsize, piles, st, trace,
                                               state)
                elif out:
                    st[ST_HANDS + p] += 1
                if out:
                    _share_table(st, col, rank, direction)
                    state = _last_card(n, p, card, count, rules, hand, hcol, hsize, piles, st,
                                       trace, state)
                    winner = st[ST_WINNER]
                    break
                if (zero_slap > 0 and move_rank == 0) or (silence != C.SILENCE_NONE
                                                          and _starts_silence(silence, card)):
                    _share_table(st, col, rank, direction)
                    state = _move_marks(n, p, card, rules, behaviour, hand, hcol, hsize, piles,
                                        st, trace, state)

                # J1-J4: jump-ins on the top card (the race only when someone holds its twin).
                jumps = 0
                if jump_in != C.JUMP_IN_NONE:
                    top = np.int64(piles[DISCARDS, st[ST_NDISC] - 1])
                    jumper = -1
                    if _jumpable(jump_in, top):
                        jumper, state = _race(n, p, top, direction, hand, behaviour, st, state)
                    if jumper >= 0:
                        _share_table(st, col, rank, direction)
                        jumps, state = _jump_ins(n, p, jumper, top, rules, behaviour, hand,
                                                 hcol, hsize, piles, st, trace, jumpers, state)
                        col = st[ST_COL]
                        rank = st[ST_RANK]
                        winner = st[ST_WINNER]
                        if winner >= 0:
                            break

                # A1: the card's effect; play passes to the next seat that is not skipped.
                numbered = (seven_zero and (move_rank == 0 or move_rank == 7)) \
                    or (five_swap and move_rank == 5)  # N1, N2
                if jumps == 0 and move_rank <= 9 and not numbered:
                    # a number card: no effect (N6: an 8's cover)
                    st[ST_SKIP_RUN] = 0  # it ends a Skip run (A7) and a +2/Reverse sequence
                    st[ST_ESCALATION] = 0
                    covering = eight
                    p = p if eight else nxt
                    continue
                if jumps > 0 or count == 2 or st[ST_PENDING] > 0 or numbered or card > WD4 \
                        or (move_rank == K.SKIP and special_skip) \
                        or (move_rank == K.REVERSE and special_reverse) \
                        or (move_rank == K.DRAW_TWO and special_draw_two) \
                        or (card == WD4 and (special_draw_four or wd4_restricted)) \
                        or (card == K.WILD and wild_restricted):
                    _share_table(st, col, rank, direction)
                    if jumps == 0:
                        p, state = _effect(n, p, card, count, in_turn, guilty, colour_before,
                                           -1, rules, policy, points, behaviour, hand, hcol,
                                           hsize, piles, st, trace, state)
                    else:
                        p, state = _effects_after_jump_ins(n, p, card, count, guilty,
                                                           colour_before, jumps, rules, policy,
                                                           points, behaviour, hand, hcol, hsize,
                                                           piles, st, trace, jumpers, state)
                    col = st[ST_COL]
                    rank = st[ST_RANK]
                    direction = st[ST_DIR]
                    winner = st[ST_WINNER]
                    if winner >= 0:
                        break
                    if st[ST_COVER]:  # N6: a jumper covers the 8 it jumped in with
                        st[ST_COVER] = 0
                        covering = True
                        in_turn = False
                    continue
                st[ST_SKIP_RUN] = 0  # a card without a variant effect ends a Skip run (A7)
                st[ST_ESCALATION] = 0  # and a +2/Reverse sequence (A6 extreme)
                skipped = False
                if move_rank == K.SKIP:
                    skipped = True
                elif move_rank == K.REVERSE:
                    if st[ST_LEFT] == 2:  # A1: with two players (in the round) a Skip
                        skipped = True
                    else:
                        direction = -direction
                        st[ST_COUNTERS + C.C_DIRECTION_CHANGES] += 1
                        if tr:
                            _ev(st, trace, C.EV_DIRECTION, -1, direction, -1)
                        nxt = _next(p, direction, n, st)
                elif move_rank == K.DRAW_TWO or move_rank == K.WILD_DRAW_FOUR_RANK:
                    penalty, reason = _penalty(move_rank)
                    _, state = _draw(nxt, penalty, reason, hand, hcol, hsize, piles, st, trace,
                                     state)
                    skipped = True
                if skipped:
                    if tr:
                        _ev(st, trace, C.EV_SKIP, nxt, -1, -1)
                    nxt = _skip(nxt, direction, n, st)
                p = nxt

            # ---- end of round
            round_points = _finish_round(n, g, r, dealer, winner, first, start_direction, turns,
                                         hand, hsize, points, piles, rules, st, scores, lost,
                                         round_out, round_seat_out, r_pos)
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
            if lazy and winner >= 0:  # R6: the round's loser deals, its winner starts
                dealer = round_out[r_pos - 1, RO_LOSER]
                first_player = winner
            else:
                dealer = _step(dealer, 1, n)
                first_player = _step(dealer, 1, n)
        winner = _finish_game(n, g, r, total_turns, first_seat, ended_by, rules[C.R_SCORING],
                              target, scores, lost, game_out, game_seat_out, gi)
        if tr:
            _ev(st, trace, C.EV_GAME_END, winner, ended_by, -1)
    return game_hi - game_lo, r_pos, st[ST_TPOS]


@njit(cache=True, inline="always")
def _own_points(scoring):
    """R3/R4: every seat keeps its own points and the lowest total is best."""
    return scoring == C.SCORING_OWN_POINTS_LOW_WINS or scoring == C.SCORING_OWN_POINTS_LOSE_AT


@njit(cache=True)
def _finish_game(n, g, rounds, turns, first_seat, ended_by, scoring, target, scores, lost,
                 game_out, game_seat_out, gi):
    """The best total wins (R2, R5: the highest; R3/R4: the lowest; ties: lowest seat); margin
    over the next best; ranks (equal totals share the better); the losers by the scoring mode
    (none when the game was capped).

    Fills row ``gi`` of the game outputs; returns the winner (-1 if the game was capped).
    """
    sign = -1 if _own_points(scoring) else 1  # compare sign * score: higher is better
    best = 0
    worst = 0
    for s in range(1, n):
        if sign * scores[s] > sign * scores[best]:
            best = s
        if sign * scores[s] < sign * scores[worst]:
            worst = s
    runner_up = -(1 << 40)
    for s in range(n):
        if s != best and sign * scores[s] > runner_up:
            runner_up = sign * scores[s]
        better = 0
        for q in range(n):
            if sign * scores[q] > sign * scores[s]:
                better += 1
        game_seat_out[gi, s, GS_FINAL_SCORE] = scores[s]
        game_seat_out[gi, s, GS_RANK] = better + 1
        if scoring == C.SCORING_OWN_POINTS_LOSE_AT:  # R4: every seat that reached the target
            loser = scores[s] >= target
        elif scoring == C.SCORING_LAZY:  # R6: every seat that lost the most rounds
            loser = lost[s] == lost.max()
        else:
            loser = scores[s] == scores[worst]
        game_seat_out[gi, s, GS_IS_LOSER] = loser and ended_by == C.GAME_END_TARGET
    winner = best if ended_by == C.GAME_END_TARGET else -1
    game_out[gi, GO_GAME] = g
    game_out[gi, GO_ROUNDS] = rounds
    game_out[gi, GO_TURNS] = turns
    game_out[gi, GO_FIRST] = first_seat
    game_out[gi, GO_WINNER] = winner
    game_out[gi, GO_MARGIN] = sign * scores[best] - runner_up
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
