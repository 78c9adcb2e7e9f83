"""The UNO call and mistakes (njit).

Rules here: U1 (a seat down to one card calls UNO or forgets and may be caught; N4's uno_slap
follows a call) and U2 (a rule mistake per turn, by the seat's ``mistake`` probability).
docs/engine.md "UNO".
"""


from .. import codes as C
from ._cards import draw
from ._jit import kernel
from ._numbers import slap
from ._rng import uniform
from ._table import ev, next_seat


@kernel
def uno_call(st, opt, p, state):
    """U1: seat p, down to one card, calls UNO (N4: then the UNO slap), or forgets and may be
    caught by the others, asked in playing order from the next seat. Returns the state."""
    u, state = uniform(state)
    forgot = u < st.behaviour[p, C.B_FORGET_UNO]
    catcher = -1
    if forgot:
        asked = 0
        q = p
        while asked < st.left - 1 and catcher < 0:
            q = next_seat(st, q)
            u, state = uniform(state)
            if u < st.behaviour[q, C.B_CATCH_UNO]:
                catcher = q
            asked += 1
    if st.tracing:
        ev(st, C.EV_UNO_MISS if forgot else C.EV_UNO_CALL, p, catcher if forgot else -1, -1)
    if catcher >= 0:
        st.counters[C.C_UNO_PENALTIES] += 1
        _, state = draw(st, p, opt.uno_penalty, C.DRAW_UNO, state)
    if opt.uno_slap > 0 and not forgot:
        state = slap(st, p, C.SLAP_UNO, opt.uno_slap, state)
    return state


@kernel
def mistake(st, opt, p, state):
    """U2 at the start of p's turn: p makes a mistake with its ``mistake`` probability and
    draws ``mistake_penalty``. Returns the state."""
    u, state = uniform(state)
    if u < st.behaviour[p, C.B_MISTAKE]:
        st.counters[C.C_MISTAKES] += 1
        if st.tracing:
            ev(st, C.EV_MISTAKE, p, opt.mistake_penalty, -1)
        _, state = draw(st, p, opt.mistake_penalty, C.DRAW_MISTAKE, state)
    return state
