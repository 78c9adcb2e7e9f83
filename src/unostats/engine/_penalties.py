"""Pending penalties and stacking (njit): Draw Twos and Wild Draw Fours that wait for an answer.

Rules here: A3 stack_draw_two (sum, pass_on), A4 stack_draw_four (sum, pass_on) and
draw_four_on_draw_two, A5 draw_two_on_draw_four, A6 reverse_deflects (back: a Reverse sends the penalty on; extreme: the
+2/Reverse escalation). Without these options a Draw Two or a Wild Draw Four is drawn at once
(A1, _actions.py). docs/engine.md "Stacking".
"""


from .. import cards as K
from .. import codes as C
from .. import rules as R
from ._cards import draw
from ._jit import kernel
from ._policies import pick_by_score
from ._table import BLACK, NT, WD4, next_seat, rank_of, reverse, skip_seat


@kernel(inline=True)
def draw_two_pends(opt):
    """A3, A4 draw_four_on_draw_two, A6 back: a Draw Two waits for an answer instead of being
    drawn at once."""
    return (opt.stack_draw_two != R.STACK_DRAW_TWO_NONE or opt.draw_four_on_draw_two != 0
            or opt.reverse_deflects == R.REVERSE_DEFLECTS_BACK)


@kernel(inline=True)
def draw_four_pends(opt):
    """A4, A5, A6 back: a Wild Draw Four waits for an answer."""
    return (opt.stack_draw_four != R.STACK_DRAW_FOUR_NONE or opt.draw_two_on_draw_four != 0
            or opt.reverse_deflects == R.REVERSE_DEFLECTS_BACK)


@kernel
def _answers(opt, reason, col):
    """A3-A6: the card types (a bit mask) that answer a pending chain of kind ``reason``."""
    mask = 0
    if opt.reverse_deflects == R.REVERSE_DEFLECTS_BACK and col < BLACK:
        mask |= 1 << (col * 13 + K.REVERSE)  # A6 back: a Reverse of the current colour
    if reason == C.DRAW_DRAW_TWO:
        if opt.stack_draw_two != R.STACK_DRAW_TWO_NONE:  # A3: a Draw Two of any colour
            for c in range(4):
                mask |= 1 << (c * 13 + K.DRAW_TWO)
        if opt.draw_four_on_draw_two != 0:  # A4: a +4 on the Draw Twos
            mask |= 1 << WD4
    else:
        if opt.stack_draw_four != R.STACK_DRAW_FOUR_NONE:  # A4
            mask |= 1 << WD4
        if opt.draw_two_on_draw_four != 0 and col < BLACK:  # A5: the named colour
            mask |= 1 << (col * 13 + K.DRAW_TWO)
    return mask


@kernel
def chain_after(opt, is_draw_two, count, total, reason):
    """A3-A5: the pending chain (total, reason; total 0 for none) once ``count`` Draw Twos (or
    Wild Draw Fours) are put on it."""
    for _ in range(count):
        if is_draw_two:
            if total == 0 or reason == C.DRAW_DRAW_FOUR:
                total, reason = 2, C.DRAW_DRAW_TWO  # a new chain; A5 cancels the +4
            elif opt.stack_draw_two != R.STACK_DRAW_TWO_PASS_ON:
                total += 2
        elif total == 0:
            total, reason = 4, C.DRAW_DRAW_FOUR
        elif reason == C.DRAW_DRAW_TWO:  # draw_four_on_draw_two: +4, now a chain of +4s
            total, reason = total + 4, C.DRAW_DRAW_FOUR
        elif opt.stack_draw_four != R.STACK_DRAW_FOUR_PASS_ON:
            total += 4
    return total, reason


@kernel(inline=True)
def card_penalty(st, opt, t, count):
    """What ``count`` cards t make the next seat owe: (cards, draw reason, whether it waits for
    an answer: then it is the pending chain's new total, A3-A6). A Draw Two 2 each (A6 extreme:
    the sequence's value + 2), a Wild Draw Four 4, a blank +10 (D3); 0 for any other card. The
    one reckoning of a card's effect and of a last card's (_scoring.py)."""
    if rank_of(t) == K.DRAW_TWO:
        if draw_two_pends(opt) or st.pending > 0:
            total, reason = chain_after(opt, True, count, st.pending, st.pending_reason)
            return total, reason, True
        value = st.escalation if opt.reverse_deflects == R.REVERSE_DEFLECTS_EXTREME else 0
        return value + 2 * count, C.DRAW_DRAW_TWO, False
    if t == WD4:
        if draw_four_pends(opt) or st.pending > 0:
            total, reason = chain_after(opt, False, count, st.pending, st.pending_reason)
            return total, reason, True
        return 4, C.DRAW_DRAW_FOUR, False
    if t == K.BLANK and opt.blank_effect == R.BLANK_EFFECT_DRAW_TEN:
        return 10, C.DRAW_BLANK, False
    return 0, C.DRAW_NORMAL, False


@kernel
def pay_unless_answered(st, opt, p, state):
    """A3-A6: seat p owes the pending penalty. If it holds no card that answers it, it draws the
    whole penalty and is skipped, without a turn. Returns (whether it holds an answer, the seat
    that acts next, state): p itself when it answers, in a turn of its own (``answer_pending``)."""
    answers = _answers(opt, st.pending_reason, st.col)
    for t in range(NT):
        if (answers >> t) & 1 and st.hand[p, t] > 0:
            return True, p, state
    _, state = draw(st, p, st.pending, st.pending_reason, state)
    st.pending = 0
    st.escalation = 0
    st.skip_run = 0
    return False, skip_seat(st, p), state


@kernel
def answer_pending(st, opt, p, state):
    """The card seat p answers the pending penalty with, chosen in its turn after the turn's N5
    and U2 draws (which may bring answers; ``pay_unless_answered`` found one before them).
    Returns (card, state)."""
    answers = _answers(opt, st.pending_reason, st.col)
    threat = st.hsize[next_seat(st, p)] <= 2
    return pick_by_score(st, p, st.col, st.rank, answers, False, threat, state)


@kernel
def escalate(st, player, t, count, jumper, state):
    """A6 extreme: a Draw Two opens or continues the +2/Reverse sequence, a Reverse continues it
    (with 2 seats in the round it only skips); the next seat draws the value, 2 more with each
    card (A2: a double Draw Two adds 4), and is skipped (a jumper draws nothing for a card aimed
    at itself). Returns (next seat, state)."""
    if rank_of(t) == K.REVERSE and st.left > 2:
        reverse(st)
    victim = next_seat(st, player)
    st.escalation += 2 * count
    _, state = draw(st, victim, st.escalation if victim != jumper else 0, C.DRAW_DRAW_TWO, state)
    return skip_seat(st, victim), state
