"""Numba kernels: deal, legal moves, play a card, play a round, play a game, play a batch.

njit only; no I/O. Rule switches arrive as the int64 rule vector (codes.R_*), cards as type ids
(cards.py), seat policies as codes.POLICY_* and behaviour as a float64 [seats, N_BEHAVIOUR] array.
docs/engine.md is the specification; engine/referee.py checks traces against it independently.

Mutable per-round state lives in a few preallocated arrays:
  hand[s, t]  copies of card type t held by seat s
  hcol[s, c]  cards of colour c held (c = 4 counts black cards), hsize[s] cards held
  pile, disc  draw and discard piles (disc[ndisc - 1] is the top card)
  st          scalar slots (ST_*) and the round's counters (codes.C_* at ST_COUNTERS)
Drawing takes a uniformly random card from the pile: the same distribution as shuffling first,
and cheaper.
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


@njit(cache=True, inline="always")
def _colour_of(t):
    return t // 13  # black types 52..58 give 4 == BLACK


@njit(cache=True, inline="always")
def _rank_of(t):
    return t % 13 if t < FIRST_BLACK else K.WILD_RANK + (t - FIRST_BLACK)


@njit(cache=True, inline="always")
def _is_legal(t, col, rank):
    """P1 matching, before any black-card restriction."""
    return t >= FIRST_BLACK or t // 13 == col or t % 13 == rank


@njit(cache=True, inline="always")
def _step(seat, direction, n):
    q = seat + direction
    if q >= n:
        return q - n
    if q < 0:
        return q + n
    return q


# ---------------------------------------------------------------- trace


# Reference counts: Numba keeps atomic reference-count operations in the per-turn loop when an
# inlined helper that takes arrays contains a branch and is reached through another inlined
# helper. So: inlined helpers that take arrays are called only from the round's own loop (one
# level deep); rare work (penalties, challenges, UNO, reshuffles) is in ordinary functions; and
# tracing is an ordinary function that callers guard with the scalar ``tr``, costing nothing when
# off.


@njit(cache=True)
def _ev(st, trace, kind, seat, a, b):
    pos = st[ST_TPOS]
    if pos < trace.shape[0]:
        trace[pos, 0] = kind
        trace[pos, 1] = seat
        trace[pos, 2] = a
        trace[pos, 3] = b
    st[ST_TPOS] = pos + 1  # counts past the end so the caller can retry with more room


# ---------------------------------------------------------------- cards moving


@njit(cache=True, inline="always")
def _take(hand, hcol, hsize, s, t):
    hand[s, t] += 1
    hcol[s, _colour_of(t)] += 1
    hsize[s] += 1


@njit(cache=True, inline="always")
def _remove(hand, hcol, hsize, s, t):
    hand[s, t] -= 1
    hcol[s, _colour_of(t)] -= 1
    hsize[s] -= 1


@njit(cache=True)
def _reshuffle(pile, disc, st, trace):
    """P6: the discard pile except its top card becomes the draw pile."""
    moved = st[ST_NDISC] - 1
    for i in range(moved):
        pile[i] = disc[i]
    disc[0] = disc[moved]
    st[ST_NDISC] = 1
    st[ST_NPILE] = moved
    st[ST_COUNTERS + C.C_RESHUFFLES] += 1
    if st[ST_TRACE]:
        _ev(st, trace, C.EV_RESHUFFLE, -1, moved, -1)


@njit(cache=True, inline="always")
def _pop_pile(pile, st, rng):
    n = st[ST_NPILE]
    j = bounded(rng, n)
    j += (n - 1 - j) * st[ST_STACKED]  # a scripted deck is drawn from the top (no branch here)
    t = pile[j]
    pile[j] = pile[n - 1]
    st[ST_NPILE] = n - 1
    return t


@njit(cache=True, inline="always")
def _draw(s, reason, hand, hcol, hsize, pile, disc, st, rng, trace, tr):
    """Seat ``s`` draws one card; returns it, or -1 when both piles are exhausted."""
    if st[ST_NPILE] == 0:
        if st[ST_NDISC] <= 1:
            if tr:
                _ev(st, trace, C.EV_DRAW_FAIL, s, -1, reason)
            return -1
        _reshuffle(pile, disc, st, trace)
    t = _pop_pile(pile, st, rng)
    _take(hand, hcol, hsize, s, t)
    st[ST_COUNTERS + C.C_CARDS_DRAWN] += 1
    st[ST_COUNTERS + (C.C_NORMAL_DRAWS if reason == C.DRAW_NORMAL else C.C_PENALTY_CARDS)] += 1
    if tr:
        _ev(st, trace, C.EV_DRAW, s, t, reason)
    return t


@njit(cache=True)
def _draw_many(s, count, reason, hand, hcol, hsize, pile, disc, st, rng, trace):
    tr = st[ST_TRACE]
    for _ in range(count):
        if _draw(s, reason, hand, hcol, hsize, pile, disc, st, rng, trace, tr) < 0:
            return


@njit(cache=True, inline="always")
def _skip(s, st, trace, tr):
    st[ST_COUNTERS + C.C_SKIPS] += 1
    if tr:
        _ev(st, trace, C.EV_SKIP, s, -1, -1)


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
def _pick_random(hand, hcol, s, col, rank, allow_wd4, rng):
    """Uniform over the legal card instances in hand; -1 if none (the C yardstick's policy)."""
    ncol = hcol[s, col]
    nrank = 0
    if rank < 13:
        for c in range(4):
            if c != col:
                nrank += hand[s, c * 13 + rank]
    nblack = hcol[s, BLACK]
    if not allow_wd4:
        nblack -= hand[s, WD4]
    total = ncol + nrank + nblack
    if total == 0:
        return -1
    k = bounded(rng, total)
    if k < ncol:
        t = col * 13
        while k >= hand[s, t]:
            k -= hand[s, t]
            t += 1
        return t
    k -= ncol
    if k < nrank:
        for c in range(4):
            if c != col:
                m = hand[s, c * 13 + rank]
                if k < m:
                    return c * 13 + rank
                k -= m
    k -= nrank
    for t in range(FIRST_BLACK, NT):
        if t == WD4 and not allow_wd4:
            continue
        if k < hand[s, t]:
            return t
        k -= hand[s, t]
    return -1  # unreachable: the counts above add up


@njit(cache=True, inline="always")
def _priority(policy, t, col, rank, points):
    """Preference of ``policy`` for legal card type t; the highest class is played (B2)."""
    black = t >= FIRST_BLACK
    colour_match = (not black) and t // 13 == col
    number = (not black) and t % 13 <= 9
    if policy == C.POLICY_FIRST_LEGAL:
        return -t
    if policy == C.POLICY_COLOUR_FIRST:
        return 2 if colour_match else (0 if black else 1)
    if policy == C.POLICY_NUMBER_FIRST:
        return 0 if black else (1 if colour_match and t % 13 != rank else 2)
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
def _pick_by_priority(policy, hand, s, col, rank, allow_wd4, points, rng):
    """Uniform over the legal instances in the policy's most preferred class; -1 if none."""
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
        return -1
    k = 0 if policy == C.POLICY_FIRST_LEGAL else bounded(rng, n_best)
    for t in range(NT):
        m = hand[s, t]
        if m == 0 or not _is_legal(t, col, rank) or (t == WD4 and not allow_wd4):
            continue
        if _priority(policy, t, col, rank, points) == best:
            if k < m:
                return t
            k -= m
    return -1  # unreachable


# ---------------------------------------------------------------- a round


@njit(cache=True, inline="always")
def _stays_first(t, number_only):
    """S2: may card type t stay as the first discard?"""
    return (t < FIRST_BLACK and t % 13 <= 9) if number_only else t != WD4


@njit(cache=True)
def _deal_and_flip(n, dealer, hand_size, first_card, deck, stack, hand, hcol, hsize, pile, disc,
                   st, rng, trace):
    """Deal (S1) and turn up the first discard (S2); returns the first discard.

    ``stack`` is empty, or a scripted deck order (tests): stack[0] is the first card dealt.
    """
    tr = st[ST_TRACE]
    npile = 0
    if st[ST_STACKED]:
        for i in range(stack.shape[0]):
            pile[i] = stack[stack.shape[0] - 1 - i]  # the top of the pile is its end
        npile = stack.shape[0]
    else:
        for t in range(NT):
            for _ in range(deck[t]):
                pile[npile] = t
                npile += 1
    st[ST_NPILE] = npile
    st[ST_NDISC] = 0
    number_only = first_card == C.FIRST_CARD_NUMBER_ONLY
    acceptable_left = 0  # cards in the pile that may stay as the first discard
    for t in range(NT):
        if _stays_first(t, number_only):
            acceptable_left += deck[t]
    for _ in range(hand_size):
        for k in range(1, n + 1):
            s = (dealer + k) % n
            t = _pop_pile(pile, st, rng)
            _take(hand, hcol, hsize, s, t)
            if tr:
                _ev(st, trace, C.EV_DEAL, s, t, -1)
            if _stays_first(t, number_only):
                acceptable_left -= 1
    while True:
        t = _pop_pile(pile, st, rng)
        if tr:
            _ev(st, trace, C.EV_FLIP, -1, t, -1)
        if _stays_first(t, number_only) or acceptable_left == 0:
            break
        if st[ST_STACKED]:  # back under a scripted deck, so the next card is flipped
            for i in range(st[ST_NPILE], 0, -1):
                pile[i] = pile[i - 1]
            pile[0] = t
        else:
            pile[st[ST_NPILE]] = t
        st[ST_NPILE] += 1
        if tr:
            _ev(st, trace, C.EV_FLIP_RETURN, -1, t, -1)
    disc[0] = t
    st[ST_NDISC] = 1
    return t


@njit(cache=True)
def _first_card_effect(top, n, dealer, hand, hcol, hsize, pile, disc, st, rng, trace):
    """S2 official: the first discard's effect. Returns (first seat to act, direction)."""
    tr = st[ST_TRACE]
    rank = _rank_of(top)
    f = (dealer + 1) % n
    if rank == K.SKIP:
        _skip(f, st, trace, tr)
        return _step(f, 1, n), 1
    if rank == K.DRAW_TWO:
        _draw_many(f, 2, C.DRAW_DRAW_TWO, hand, hcol, hsize, pile, disc, st, rng, trace)
        _skip(f, st, trace, tr)
        return _step(f, 1, n), 1
    if rank == K.REVERSE:
        if n == 2:  # A1: with two players Reverse acts as Skip
            _skip(f, st, trace, tr)
            return dealer, 1
        st[ST_COUNTERS + C.C_DIRECTION_CHANGES] += 1
        if tr:
            _ev(st, trace, C.EV_DIRECTION, -1, -1, -1)
        return dealer, -1
    return f, 1


@njit(cache=True)
def _uno_call(p, direction, n, penalty, behaviour, hand, hcol, hsize, pile, disc, st, rng, trace):
    """U1: a player down to one card calls UNO, or forgets and may be caught."""
    tr = st[ST_TRACE]
    if uniform(rng) < behaviour[p, C.B_FORGET_UNO]:
        catcher = -1
        q = p
        for _ in range(n - 1):  # the others, in playing order from the next player
            q = _step(q, direction, n)
            if uniform(rng) < behaviour[q, C.B_CATCH_UNO]:
                catcher = q
                break
        if tr:
            _ev(st, trace, C.EV_UNO_MISS, p, catcher, -1)
        if catcher >= 0:
            st[ST_COUNTERS + C.C_UNO_PENALTIES] += 1
            _draw_many(p, penalty, C.DRAW_UNO, hand, hcol, hsize, pile, disc, st, rng, trace)
    elif tr:
        _ev(st, trace, C.EV_UNO_CALL, p, -1, -1)


@njit(cache=True)
def _wild_draw_four(p, victim, guilty, direction, n, restricted, behaviour, hand, hcol, hsize,
                    pile, disc, st, rng, trace):
    """A1 and P4 (official penalties); returns the seat that acts next."""
    tr = st[ST_TRACE]
    if restricted and uniform(rng) < behaviour[victim, C.B_CHALLENGE]:
        st[ST_COUNTERS + C.C_CHALLENGES] += 1
        if tr:
            _ev(st, trace, C.EV_CHALLENGE, victim, p, 1 if guilty else 0)
        if guilty:
            st[ST_COUNTERS + C.C_CHALLENGES_WON] += 1
            _draw_many(p, 4, C.DRAW_CHALLENGE, hand, hcol, hsize, pile, disc, st, rng, trace)
            return victim
        _draw_many(victim, 6, C.DRAW_CHALLENGE, hand, hcol, hsize, pile, disc, st, rng, trace)
    else:
        _draw_many(victim, 4, C.DRAW_DRAW_FOUR, hand, hcol, hsize, pile, disc, st, rng, trace)
    _skip(victim, st, trace, tr)
    return _step(victim, direction, n)


@njit(cache=True)
def _play_round(n, dealer, rules, deck, stack, points, policy, behaviour, hand, hcol, hsize, pile,
                disc, st, rng, trace, scores, round_row, seat_rows):
    """Play one round from the deal to its end; fill ``round_row`` and ``seat_rows``.

    The common turn (choose, play, draw, colour, Skip/Reverse) is written inline in the loop;
    rarer work is in ordinary functions (see the note on reference counts above).
    """
    tr = st[ST_TRACE]
    for i in range(C.N_COUNTERS):
        st[ST_COUNTERS + i] = 0
    hand[:, :] = 0
    hcol[:, :] = 0
    hsize[:] = 0
    top = _deal_and_flip(n, dealer, rules[C.R_HAND_SIZE], rules[C.R_FIRST_CARD], deck, stack,
                         hand, hcol, hsize, pile, disc, st, rng, trace)
    col = _colour_of(top)
    rank = _rank_of(top)
    p = (dealer + 1) % n
    direction = 1
    if rules[C.R_FIRST_CARD] == C.FIRST_CARD_OFFICIAL:
        p, direction = _first_card_effect(top, n, dealer, hand, hcol, hsize, pile, disc, st, rng,
                                          trace)
        if top == K.WILD:  # the first player names the colour
            col = _choose_colour(hcol, p)
            if tr:
                _ev(st, trace, C.EV_COLOUR, p, col, -1)
    first = p
    start_direction = direction

    wd4_restricted = rules[C.R_WILD_DRAW_FOUR] == C.WD4_NO_MATCHING_COLOUR
    uno_penalty = rules[C.R_UNO_PENALTY]
    max_turns = rules[C.R_MAX_TURNS]
    winner = -1
    turns = 0
    while turns < max_turns:
        turns += 1
        if tr:
            _ev(st, trace, C.EV_TURN, p, -1, -1)
        # P2: a restricted Wild Draw Four is legal without a card of the colour, or as a bluff.
        allow_wd4 = True
        if wd4_restricted and hand[p, WD4] > 0 and hcol[p, col] > 0:
            allow_wd4 = uniform(rng) < behaviour[p, C.B_BLUFF]
        if policy[p] == C.POLICY_RANDOM:
            card = _pick_random(hand, hcol, p, col, rank, allow_wd4, rng)
        else:
            card = _pick_by_priority(policy[p], hand, p, col, rank, allow_wd4, points, rng)
        if card < 0:
            # P5 one_may_play: draw one, play it at once if legal.
            card = _draw(p, C.DRAW_NORMAL, hand, hcol, hsize, pile, disc, st, rng, trace, tr)
            if card >= 0 and not _is_legal(card, col, rank):
                card = -1
            elif card == WD4 and wd4_restricted and hcol[p, col] > 0:
                if not uniform(rng) < behaviour[p, C.B_BLUFF]:
                    card = -1
            if card < 0:
                if tr:
                    _ev(st, trace, C.EV_PASS, p, -1, -1)
                p = _step(p, direction, n)
                continue

        # P4 judges a Wild Draw Four on the hand it was played from (before any UNO penalty).
        guilty = card == WD4 and hcol[p, col] > 0
        _remove(hand, hcol, hsize, p, card)
        disc[st[ST_NDISC]] = card
        st[ST_NDISC] += 1
        st[ST_COUNTERS + C.C_CARDS_PLAYED] += 1
        if tr:
            _ev(st, trace, C.EV_PLAY, p, card, -1)
        rank = _rank_of(card)
        if card >= FIRST_BLACK:
            col = _choose_colour(hcol, p)
            if tr:
                _ev(st, trace, C.EV_COLOUR, p, col, -1)
        else:
            col = _colour_of(card)

        if uno_penalty > 0 and hsize[p] == 1:
            _uno_call(p, direction, n, uno_penalty, behaviour, hand, hcol, hsize, pile, disc, st,
                      rng, trace)

        nxt = _step(p, direction, n)
        if hsize[p] == 0:
            winner = p
            # Official scoring: a final Draw Two / Wild Draw Four is drawn before counting.
            if rank == K.DRAW_TWO or rank == K.WILD_DRAW_FOUR_RANK:
                _draw_many(nxt, 2 if rank == K.DRAW_TWO else 4,
                           C.DRAW_DRAW_TWO if rank == K.DRAW_TWO else C.DRAW_DRAW_FOUR,
                           hand, hcol, hsize, pile, disc, st, rng, trace)
            break

        if rank == K.SKIP:
            _skip(nxt, st, trace, tr)
            p = _step(nxt, direction, n)
        elif rank == K.REVERSE:
            if n == 2:  # A1: with two players Reverse acts as Skip
                _skip(nxt, st, trace, tr)
            else:
                direction = -direction
                st[ST_COUNTERS + C.C_DIRECTION_CHANGES] += 1
                if tr:
                    _ev(st, trace, C.EV_DIRECTION, -1, direction, -1)
                p = _step(p, direction, n)
        elif rank == K.DRAW_TWO:
            _draw_many(nxt, 2, C.DRAW_DRAW_TWO, hand, hcol, hsize, pile, disc, st, rng, trace)
            _skip(nxt, st, trace, tr)
            p = _step(nxt, direction, n)
        elif rank == K.WILD_DRAW_FOUR_RANK:
            p = _wild_draw_four(p, nxt, guilty, direction, n, wd4_restricted, behaviour, hand,
                                hcol, hsize, pile, disc, st, rng, trace)
        else:
            p = nxt

    _finish_round(n, winner, first, start_direction, turns, hand, hsize, points, st, trace,
                  scores, round_row, seat_rows)
    round_row[RO_DEALER] = dealer
    return first


@njit(cache=True)
def _finish_round(n, winner, first, start_direction, turns, hand, hsize, points, st, trace,
                  scores, round_row, seat_rows):
    """R1/R2 scoring and the round's records."""
    round_points = 0
    for s in range(n):
        hp = 0
        for t in range(NT):
            hp += hand[s, t] * points[t]
        seat_rows[s, RS_HAND_POINTS] = hp
        seat_rows[s, RS_CARDS_LEFT] = hsize[s]
        seat_rows[s, RS_POSITION] = ((s - first) * start_direction) % n
        if s != winner:
            round_points += hp
    if winner >= 0:
        scores[winner] += round_points
    else:
        round_points = 0
    st[ST_COUNTERS + C.C_TURNS] = turns
    tr = st[ST_TRACE]
    if tr:
        _ev(st, trace, C.EV_ROUND_END, winner,
            C.ROUND_END_WIN if winner >= 0 else C.ROUND_END_CAP, round_points)
    for s in range(n):
        seat_rows[s, RS_SCORE_AFTER] = scores[s]
        if tr:
            _ev(st, trace, C.EV_SCORE, s, seat_rows[s, RS_HAND_POINTS], scores[s])
    round_row[RO_FIRST] = first
    round_row[RO_WINNER] = winner
    round_row[RO_WINNER_POS] = ((winner - first) * start_direction) % n if winner >= 0 else -1
    round_row[RO_ENDED_BY] = C.ROUND_END_WIN if winner >= 0 else C.ROUND_END_CAP
    round_row[RO_POINTS] = round_points
    for i in range(C.N_COUNTERS):
        round_row[RO_COUNTERS + i] = st[ST_COUNTERS + i]


# ---------------------------------------------------------------- games and batches


@njit(cache=True)
def _play_games(n, rules, deck, points, policy, behaviour, seed, game_lo, game_hi, game_out,
                game_seat_out, round_out, round_seat_out, trace, tracing, stack, first_dealer):
    """Play games [game_lo, game_hi) into the outputs (rows from 0).

    Tests may script a game: ``stack`` (non-empty) fixes the deck order of every round and
    ``first_dealer`` (>= 0) replaces the draw by lot.

    Returns (games completed, rounds written, trace rows needed). A game whose rounds would not
    fit in ``round_out`` is not started, so the caller can play the rest again with more room;
    results are the same because every game seeds its own stream.
    """
    deck_total = 0
    for t in range(NT):
        deck_total += deck[t]
    hand = np.zeros((n, NT), dtype=np.int64)
    hcol = np.zeros((n, 5), dtype=np.int64)
    hsize = np.zeros(n, dtype=np.int64)
    pile = np.zeros(deck_total, dtype=np.int64)
    disc = np.zeros(deck_total, dtype=np.int64)
    st = np.zeros(N_ST, dtype=np.int64)
    st[ST_TRACE] = tracing
    st[ST_STACKED] = 1 if stack.shape[0] > 0 else 0
    rng = np.zeros(4, dtype=np.uint64)
    scores = np.zeros(n, dtype=np.int64)
    max_rounds = rules[C.R_MAX_ROUNDS]
    target = rules[C.R_TARGET_SCORE]
    capacity = round_out.shape[0]
    r_pos = 0
    for g in range(game_lo, game_hi):
        gi = g - game_lo
        g_start = r_pos
        seed_stream(rng, seed, g)
        scores[:] = 0
        dealer = bounded(rng, n)
        if first_dealer >= 0:
            dealer = first_dealer
        total_turns = 0
        ended_by = C.GAME_END_CAP
        first_seat = -1
        for r in range(1, max_rounds + 1):
            if r_pos >= capacity:
                return gi, g_start, st[ST_TPOS]
            if tracing:
                _ev(st, trace, C.EV_ROUND_START, dealer, r, -1)
            row = round_out[r_pos]
            first = _play_round(n, dealer, rules, deck, stack, points, policy, behaviour, hand,
                                hcol, hsize, pile, disc, st, rng, trace, scores, row,
                                round_seat_out[r_pos])
            row[RO_GAME] = g
            row[RO_ROUND] = r
            if r == 1:
                first_seat = first
            total_turns += row[RO_COUNTERS + C.C_TURNS]
            r_pos += 1
            reached = False
            for s in range(n):
                if scores[s] >= target:
                    reached = True
            if reached:
                ended_by = C.GAME_END_TARGET
                break
            dealer = (dealer + 1) % n
        _finish_game(n, g, r, total_turns, first_seat, ended_by, scores, game_out[gi],
                     game_seat_out[gi], st, trace)
    return game_hi - game_lo, r_pos, st[ST_TPOS]


@njit(cache=True)
def _finish_game(n, g, rounds, turns, first_seat, ended_by, scores, game_row, seat_rows, st,
                 trace):
    """R2: the highest score wins (ties: lowest seat); margin over the runner-up; ranks."""
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
        seat_rows[s, GS_FINAL_SCORE] = scores[s]
        seat_rows[s, GS_RANK] = higher + 1
    winner = best if ended_by == C.GAME_END_TARGET else -1
    game_row[GO_GAME] = g
    game_row[GO_ROUNDS] = rounds
    game_row[GO_TURNS] = turns
    game_row[GO_FIRST] = first_seat
    game_row[GO_WINNER] = winner
    game_row[GO_MARGIN] = scores[best] - runner_up
    game_row[GO_ENDED_BY] = ended_by
    if st[ST_TRACE]:
        _ev(st, trace, C.EV_GAME_END, winner, ended_by, -1)


@njit(cache=True, parallel=True)
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
