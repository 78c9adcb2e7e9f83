"""Cards moving (njit): hands, piles, draws, the deal and the first card.

Rules here: D1-D6 (the deck arrives as copies per card type), S1 deal, S2 first card (official,
number_only, extreme), S3 who deals, P5 drawing (one_may_play, one_then_pass, two,
until_playable), P6 reshuffle and draw_fail, a card laid down and its colour named (P7), every
seat drawing (D4/D5) and hands exchanged (N1/D5). docs/engine.md "Deal", "A turn", "Drawing".
"""

import numpy as np

from .. import cards as K
from .. import codes as C
from .. import rules as R
from ._jit import kernel
from ._layout import DISCARDS, DRAW_PILE
from ._policies import choose_colour, if_playable, prefer
from ._rng import bounded
from ._table import (
    BLACK, FIRST_BLACK, NT, colour_of, ev, held_added, held_exchanged, held_removed, in_round,
    intake_added, next_in_cycle, next_seat, rank_of, skip_seat, step, trace_draw, uno_stop,
)


@kernel(inline=True)
def add(st, s, t):
    """Seat s takes card t (``held_added``: the types it holds, for _measures; ``intake_added``:
    how many it took, for the experts' deals, engine/_expert.py)."""
    st.hand[s, t] += 1
    intake_added(st, s, 1)
    held_added(st, s, t)
    st.hcol[s, colour_of(t)] += 1
    st.hsize[s] += 1


@kernel(inline=True)
def remove(st, s, t):
    """Seat s gives up card t (``held_removed``: the types it holds, for _measures)."""
    left = st.hand[s, t] - 1
    st.hand[s, t] = left
    held_removed(st, s, t, left)
    st.hcol[s, colour_of(t)] -= 1
    st.hsize[s] -= 1


@kernel(inline=True)
def discard(st, t):
    n = st.ndisc
    st.piles[DISCARDS, n] = t
    st.ndisc = n + 1


@kernel(inline=True)
def top_card(st):
    return np.int64(st.piles[DISCARDS, st.ndisc - 1])


@kernel(inline=True)
def _pop(st, n, state):
    """Take a card from the draw pile of ``n`` > 0 cards; its last card fills the emptied slot.

    The card is uniformly random, or the top one when the deck is scripted (``stacked``, tests),
    and the random number is drawn either way. Returns (card, state).
    """
    j, state = bounded(state, n)
    if st.stacked:
        j = n - 1
    t = st.piles[DRAW_PILE, j]
    st.piles[DRAW_PILE, j] = st.piles[DRAW_PILE, n - 1]
    return t, state


@kernel(inline=True)
def _reshuffle(st):
    """P6: the discard pile except its top card becomes the draw pile; returns the cards moved."""
    moved = st.ndisc - 1
    for i in range(moved):
        st.piles[DRAW_PILE, i] = st.piles[DISCARDS, i]
    st.piles[DISCARDS, 0] = st.piles[DISCARDS, moved]
    st.ndisc = 1
    st.npile = moved
    st.counters[C.C_RESHUFFLES] += 1
    return moved


@kernel(inline=True)
def draw(st, s, count, reason, state):
    """``draw_traced``, traced as ``st.tracing`` says."""
    return draw_traced(st, s, count, reason, state, st.tracing != 0)


@kernel(inline=True)
def draw_traced(st, s, count, reason, state, tracing):
    """Seat ``s`` draws ``count`` cards, reshuffling (P6) when the pile is empty and stopping if
    both piles run out (``draw_fail``); traced if ``tracing`` (the turn loop's flag: a constant
    in its untraced version). Returns (the last card drawn, or -1 if the piles ran out,
    state)."""
    card = 0
    drawn = 0
    got = 0  # cards drawn by this call
    while drawn < count and card >= 0:
        card, moved = -1, 0
        if st.npile > 0 or st.ndisc > 1:
            if st.npile == 0:
                moved = _reshuffle(st)
            npile = st.npile
            card, state = _pop(st, npile, state)
            st.npile = npile - 1
            add(st, s, card)
            st.counters[C.C_CARDS_DRAWN] += 1
            # N6 cover draws are drawn to play, not a penalty; R10 refills are neither.
            normal = reason == C.DRAW_NORMAL or reason == C.DRAW_COVER
            st.counters[C.C_NORMAL_DRAWS if normal else C.C_PENALTY_CARDS] += \
                reason != C.DRAW_REFILL
            got += 1
        if tracing:
            trace_draw(st, s, card, moved, reason)
        drawn += 1
    # The round's largest penalty drawn at once: one call draws one whole penalty (a paid
    # stack, an escalation, a challenge, an UNO penalty, ...), as penalty_cards counts them.
    if reason != C.DRAW_NORMAL and reason != C.DRAW_COVER and reason != C.DRAW_REFILL:
        st.largest_penalty = max(st.largest_penalty, got)
        if got > 0:
            uno_stop(st, s, st.hsize[s] - got)
    return card, state


@kernel
def draw_turn(st, opt, s, threat, state):
    """P5: seat s has no legal card and draws as ``opt.draw`` says. Returns (the drawn card it
    plays, or -1 to pass, state).

    one_may_play plays the drawn card if legal (the round loop draws it itself, and asks
    ``_policies.keeps_drawn`` first), one_then_pass never does, until_playable draws
    until a legal card comes or the piles run out; two draws two cards and plays one of them if
    it can (the policy's preference, a fair coin between equals).
    """
    rule = opt.draw
    if rule == R.DRAW_TWO:
        first, state = draw(st, s, 1, C.DRAW_NORMAL, state)
        second, state = draw(st, s, 1 if first >= 0 else 0, C.DRAW_NORMAL, state)
        if first < 0:
            second = -1
        first, state = if_playable(st, opt, first, s, state)
        second, state = if_playable(st, opt, second, s, state)
        if first < 0 or second < 0:
            return max(first, second), state
        return prefer(st, s, first, second, threat, state)
    card = -1
    drawn = 0
    while card < 0 and drawn >= 0:
        drawn, state = draw(st, s, 1, C.DRAW_NORMAL, state)
        if rule != R.DRAW_ONE_THEN_PASS:
            card, state = if_playable(st, opt, drawn, s, state)
        if rule != R.DRAW_UNTIL_PLAYABLE:
            break
    return card, state


@kernel(inline=True)
def lay_down(st, opt, s, t, kind, tag):
    """``lay_down_traced``, traced as ``st.tracing`` says."""
    lay_down_traced(st, opt, s, t, kind, tag, st.tracing != 0)


@kernel(inline=True)
def lay_down_traced(st, opt, s, t, kind, tag, tracing):
    """Seat s plays card t (``kind``: EV_PLAY, or EV_JUMP_IN out of turn with ``tag`` 1 for an
    A8 escape, else -1); a black card names the colour (P7: by policy, or the cycle's next).
    Traced if ``tracing``."""
    remove(st, s, t)
    discard(st, t)
    st.counters[C.C_CARDS_PLAYED] += 1
    if tracing:
        ev(st, kind, s, t, tag)
    col = colour_of(t)
    if t >= FIRST_BLACK:
        if opt.colour_cycle != 0 and st.col < BLACK:
            col = next_in_cycle(st.col, st.dir)
        else:
            col = choose_colour(st, s)
        if tracing:
            ev(st, C.EV_COLOUR, s, col, -1)
    if st.silence_colour != col:  # N5 black: the silence ends once its colour is gone
        st.silence_colour = -1
    st.col = col
    st.rank = rank_of(t)


@kernel
def everyone_draws(st, player, count, reason, player_too, state):
    """D4, D5: every other seat in the round draws ``count`` in playing order from the player
    (the player last, if ``player_too`` and it is still in the round). Returns the state."""
    inside = in_round(st, player)
    s = player
    for _ in range(st.left - inside + (inside if player_too else 0)):
        s = next_seat(st, s)
        _, state = draw(st, s, count, reason, state)
    return state


@kernel
def exchange_hands(st, a, b):
    """Seats a and b exchange their whole hands (each takes cards it did not hold: ``intake``)."""
    for t in range(NT):
        st.hand[a, t], st.hand[b, t] = st.hand[b, t], st.hand[a, t]
    for c in range(5):
        st.hcol[a, c], st.hcol[b, c] = st.hcol[b, c], st.hcol[a, c]
    st.hsize[a], st.hsize[b] = st.hsize[b], st.hsize[a]
    held_exchanged(st, a, b)
    intake_added(st, a, st.hsize[a])
    intake_added(st, b, st.hsize[b])


# ---------------------------------------------------------------- the deal


@kernel(inline=True)
def stays_first(t, first_card):
    """S2: may card type t stay as the first discard? (extreme: every card stays)"""
    if first_card == R.FIRST_CARD_NUMBER_ONLY:
        return rank_of(t) <= 9
    return first_card == R.FIRST_CARD_EXTREME or t < FIRST_BLACK or t == K.WILD


@kernel(inline=True)
def new_round(st, opt, dealer, state):
    """A fresh round: empty hands and a cleared table, the deal (S1) from ``st.full`` and the
    first discard (S2). Returns (the first discard, state). ``st.hand`` is already all 0: a
    fresh table's, or as ``finish_round`` leaves it. Inlined into the game loop, its one caller:
    a call passes all the options (2-3% of the rounds/s at 2-6 players, with finish_round's)."""
    n = st.n
    st.hcol[:n, :] = 0
    st.hsize[:n] = 0
    st.pending = 0
    st.pending_reason = 0
    st.escalation = 0
    st.skip_run = 0
    st.winner = -1
    st.jump_card = 0
    st.jump_guilty = 0
    st.jump_colour = 0
    st.cover = 0
    st.silence_owner = -1
    st.silence_colour = -1
    st.hands[:] = 0
    st.place[:] = 0
    st.bonus[:] = 0
    st.out = 0
    st.left = n
    st.counters[:] = 0
    st.largest_penalty = 0
    st.dir = 1
    first_card = opt.first_card
    tr = st.tracing
    acceptable_left = st.acceptable
    npile = st.ncards
    for i in range(npile):
        st.piles[DRAW_PILE, i] = st.full[i]
    for _ in range(opt.hand_size):
        s = dealer
        for _ in range(n):
            s = step(s, 1, n)
            t, state = _pop(st, npile, state)
            npile -= 1
            add(st, s, t)
            if tr:
                ev(st, C.EV_DEAL, s, t, -1)
            acceptable_left -= stays_first(t, first_card)
    while True:
        t, state = _pop(st, npile, state)
        npile -= 1
        if tr:
            ev(st, C.EV_FLIP, -1, t, -1)
        if stays_first(t, first_card) or acceptable_left == 0:
            break
        if st.stacked:  # back under a scripted deck, so the next card is flipped
            for i in range(npile, 0, -1):
                st.piles[DRAW_PILE, i] = st.piles[DRAW_PILE, i - 1]
            st.piles[DRAW_PILE, 0] = t
        else:
            st.piles[DRAW_PILE, npile] = t
        npile += 1
        if tr:
            ev(st, C.EV_FLIP_RETURN, -1, t, -1)
    st.npile = npile
    st.ndisc = 0
    discard(st, t)
    st.col = colour_of(t)
    st.rank = rank_of(t)
    return t, state


@kernel
def first_card_effect(st, opt, top, dealer, f, state):
    """S2 official and extreme: the effect of an action or black card turned up first, on the
    first player f (the dealer's left, or R6 lazy's previous winner); sets the direction and
    colour. Returns (first seat to act, state)."""
    rank = rank_of(top)
    if top >= FIRST_BLACK:
        if opt.first_card == R.FIRST_CARD_EXTREME:
            # f draws 4 and misses the turn; the dealer names a colour without looking.
            _, state = draw(st, f, 4, C.DRAW_DRAW_FOUR, state)
            first = skip_seat(st, f)
            st.col, state = bounded(state, 4)
            if st.tracing:
                ev(st, C.EV_COLOUR, dealer, st.col, -1)
            return first, state
        if top == K.WILD:  # official: the first player names the colour
            st.col = choose_colour(st, f)
            if st.tracing:
                ev(st, C.EV_COLOUR, f, st.col, -1)
        return f, state
    if rank == K.DRAW_TWO:
        _, state = draw(st, f, 2, C.DRAW_DRAW_TWO, state)
    if rank == K.SKIP or rank == K.DRAW_TWO or (rank == K.REVERSE and st.n == 2):
        # f misses its turn; with two players Reverse acts as Skip (A1).
        return skip_seat(st, f), state
    if rank == K.REVERSE:
        st.dir = -1
        st.counters[C.C_DIRECTION_CHANGES] += 1
        if st.tracing:
            ev(st, C.EV_DIRECTION, -1, -1, -1)
        return step(f, -1, st.n), state  # the seat before f (the dealer, but lazy)
    return f, state
