"""Action cards and black cards (njit): the effect of every move, written once.

Rules here: A1 (Skip, Reverse, Draw Two, Wild Draw Four), A2 double_action (two Skips skip two,
two Reverses cancel, two Draw Twos count twice), A7 stack_skip, A8 skip_escape, A9 with D3-D5
(blank +10, H2O hit-all, Wild Swap Hands, customizable wilds), P2/P3 restricted black cards and
P4 challenges (official, house, extreme). ``effect`` is the one place a move's effect is played,
under every rule set: the official rules are the case where no option is on. It hands pending
penalties to _penalties.py and number cards' effects to _numbers.py. docs/engine.md "Action
cards".
"""


from .. import cards as K
from .. import codes as C
from .. import rules as R
from ._cards import add, draw, draw_traced, everyone_draws, lay_down
from ._jit import kernel
from ._layout import DISCARDS
from ._numbers import has_number_effect, number_effect, owes_cover, swap_hands, swap_one
from ._penalties import card_penalty, escalate
from ._rng import uniform
from ._scoring import end_of_move
from ._table import (
    FIRST_BLACK, WD4, ev, in_round, is_number, is_restricted, next_seat, rank_of, reverse_traced,
    skip_seat, skip_seat_traced,
)


@kernel(inline=True)
def has_effect(opt, t, jumps):
    """Does a move of card t (after ``jumps`` jump-ins on it) have an effect to play? Every
    action and black card has; a number card only under N1/N2 or once jumped in on (N6: an 8's
    cover is its player's next move, not an effect)."""
    return jumps > 0 or not is_number(t) or has_number_effect(opt, t)


@kernel
def _skip_players(st, opt, player, k, t, state):
    """A1/A2/A7: the k seats after the player miss their turns (round the table if need be).
    A8: a seat about to be skipped that holds the identical Skip t escapes with it (``jump_in``
    probability), and the skip moves on. Returns (the seat that acts next, state)."""
    s = next_seat(st, player)
    while k > 0:
        escapes = False
        if opt.skip_escape != 0 and st.hand[s, t] > 0:
            u, state = uniform(state)
            escapes = u < st.behaviour[s, C.B_JUMP_IN]
        if escapes:
            lay_down(st, opt, s, t, C.EV_JUMP_IN, 1)
            st.counters[C.C_JUMP_INS] += 1
            state = end_of_move(st, opt, s, t, 1, state)
            if st.winner >= 0:
                return s, state
            s = next_seat(st, s)
        else:
            s = skip_seat(st, s)
            k -= 1
    return s, state


@kernel
def _take_back(st, player, t, colour_before):
    """P4 house/extreme: the guilty player's card goes back to its hand; if it was on top, the
    previous top card and colour are current again. Nothing is taken back once a reshuffle has
    taken the cards below it (docs/engine.md)."""
    nd = st.ndisc
    i = nd - 1
    while i >= 0 and st.piles[DISCARDS, i] != t:
        i -= 1
    if i < 0 or nd == 1:
        return
    if st.tracing:
        ev(st, C.EV_TAKE_BACK, player, t, -1)
    for k in range(i, nd - 1):
        st.piles[DISCARDS, k] = st.piles[DISCARDS, k + 1]
    st.ndisc = nd - 1
    add(st, player, t)
    if i == nd - 1:
        st.col = colour_before
        if st.silence_colour != colour_before:
            st.silence_colour = -1
        st.rank = rank_of(st.piles[DISCARDS, nd - 2])


@kernel
def _challenge(st, opt, player, t, guilty, colour_before, state):
    """P4: the next seat challenges the restricted black card t; penalties by ``challenge``.
    Returns (the seat that acts next, state)."""
    victim = next_seat(st, player)
    st.counters[C.C_CHALLENGES] += 1
    st.counters[C.C_CHALLENGES_WON] += guilty
    if st.tracing:
        ev(st, C.EV_CHALLENGE, victim, player, 1 if guilty else 0)
    rule = opt.challenge
    if guilty:
        if rule != R.CHALLENGE_OFFICIAL:
            _take_back(st, player, t, colour_before)
        _, state = draw(st, player, 4, C.DRAW_CHALLENGE, state)
        return victim, state
    count = 8 if rule == R.CHALLENGE_EXTREME else (6 if t == WD4 else 2)
    _, state = draw(st, victim, count, C.DRAW_CHALLENGE, state)
    if t == WD4:
        return skip_seat(st, victim), state
    return victim, state


@kernel(inline=True)
def effect(st, opt, player, t, count, in_turn, guilty, colour_before, jumper, state,
           tracing):
    """A1 and its variants: the effect of a move (``count`` cards t by ``player``; ``in_turn``:
    played in its turn, not out of turn; ``guilty``: the player held the colour ``colour_before``
    it played a black card on; ``jumper``: the seat that jumped in on it under jump_in extreme,
    else -1). Returns (the seat that acts next, state); ``st.cover`` is set when the player must
    now cover its 8 (N6). Traced if ``tracing`` (the turn loop's flag). Inlined into its
    callers: a call for every action card passed every option and spilled the turn loop's state
    (a tenth of a turn's time)."""
    rank = rank_of(t)
    victim = next_seat(st, player)
    if rank != K.SKIP:
        st.skip_run = 0  # A7: any other play ends a Skip run
    if rank != K.DRAW_TWO and rank != K.REVERSE:
        st.escalation = 0  # A6 extreme: any other play closes the sequence
    pending = st.pending > 0
    if rank == K.SKIP:
        run = st.skip_run if opt.stack_skip != 0 and in_turn else 0
        st.skip_run = run + count
        if run + count == 1 and opt.skip_escape == 0:  # A1, inline: no call for the common case
            return skip_seat_traced(st, victim, tracing), state
        return _skip_players(st, opt, player, run + count, t, state)
    if rank == K.REVERSE:
        if count == 2:
            return victim, state  # A2: two Reverses cancel
        if pending:  # A6 back: the penalty is now owed by the next seat in the new direction
            reverse_traced(st, tracing)
            return next_seat(st, player), state
        if st.escalation > 0:
            return escalate(st, player, t, count, jumper, state)
        if st.left == 2:  # A1: with two players (in the round) a Reverse acts as a Skip
            return skip_seat_traced(st, victim, tracing), state
        reverse_traced(st, tracing)
        return next_seat(st, player), state
    if rank == K.DRAW_TWO:
        total, reason, pends = card_penalty(st, opt, t, count)
        if pends:  # A3-A6: the next seat may answer
            st.pending, st.pending_reason = total, reason
            return victim, state
        if opt.reverse_deflects == R.REVERSE_DEFLECTS_EXTREME:
            return escalate(st, player, t, count, jumper, state)
        _, state = draw_traced(st, victim, total if victim != jumper else 0, reason, state,
                               tracing)
        return skip_seat_traced(st, victim, tracing), state
    if owes_cover(opt, t) and jumper < 0:  # N6: its player covers it next (no turn)
        st.cover = 1
        return player, state
    challenged = False
    restricted = is_restricted(opt, t) and not (t == WD4 and pending)  # A4: none on a chain
    if restricted and in_round(st, player):  # R9: a card that empties a hand is not challenged
        u, state = uniform(state)
        challenged = u < st.behaviour[victim, C.B_CHALLENGE]
    if challenged:
        return _challenge(st, opt, player, t, guilty, colour_before, state)
    if t < FIRST_BLACK:  # N1, N2: numbers
        state = number_effect(st, opt, player, t, state)
        return victim, state
    total, reason, pends = card_penalty(st, opt, t, count)
    if pends:  # A4-A6: a Wild Draw Four the next seat may answer
        st.pending, st.pending_reason = total, reason
        return victim, state
    if total > 0:  # a Wild Draw Four, D3 a blank +10
        _, state = draw_traced(st, victim, total, reason, state, tracing)
        return skip_seat_traced(st, victim, tracing), state
    if t == K.HIT_ALL_ONE or t == K.HIT_ALL_TWO:  # D4: every other seat, in playing order
        state = everyone_draws(st, player, 1 if t == K.HIT_ALL_ONE else 2, C.DRAW_HIT_ALL, False,
                               state)
    elif t == K.SWAP_HANDS:  # D5
        swap_hands(st, player)
    elif t == K.CUSTOM_WILD and opt.custom_wild_effect == R.CUSTOM_WILD_EFFECT_EVERYONE_DRAWS_TWO:
        state = everyone_draws(st, player, 2, C.DRAW_CUSTOM_WILD, True, state)
    elif t == K.CUSTOM_WILD:
        state = swap_one(st, player, victim, state)
    return victim, state
