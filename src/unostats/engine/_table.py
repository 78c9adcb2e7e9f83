"""The table every rule family shares (njit): card lookups, the order of seats, trace events.

Rules here: P1 matching (before any black-card restriction), "the next seat" (R9: finished
seats have left the round), P7's colour cycle, positions, and the trace of docs/engine.md. Also
the counters of how a round plays that the shared helpers keep as cards move (the types each
seat holds, UNO stops): Numba overloads chosen by the table's type, which compile to nothing on
the table of a game that does not count (``counts``; their few lines are inlined by Numba, not
LLVM, so no call is left behind).

How the kernels are shaped: every function takes the table record ``st`` and the options record
``opt`` (engine/_layout.py) and scalars, never arrays, so calling one costs no reference counting
and none needs Numba's IR inlining (``inline="always"`` copies a helper into every caller and made
the first compile take minutes). Small helpers used on every turn are ``forceinline=True``: LLVM
inlines them after Numba compiled each once. The random state is a tuple of scalars (_rng.py).
"""

import numpy as np
from numba import types
from numba.extending import overload

from .. import cards as K
from .. import codes as C
from .. import rules as R
from ._jit import kernel
from ._layout import RING

NT = K.N_TYPES
ALL_TYPES = (1 << NT) - 1  # card-type sets are bit masks (NT < 64)
FIRST_BLACK = K.FIRST_BLACK
WD4 = K.WILD_DRAW_FOUR
BLACK = K.NO_COLOUR

# Colour (BLACK for black cards) and rank of each card type, as uint8 tables: a lookup is
# cheaper than dividing by 13, and LLVM knows a uint8 is not negative, so arrays indexed with
# colours and ranks (and with card types from the uint8 piles) skip Numba's checks for negative
# indices.
_TYPE_COLOUR = K.TYPE_COLOUR.astype(np.uint8)
_TYPE_RANK = K.TYPE_RANK.astype(np.uint8)


@kernel(inline=True)
def colour_of(t):
    return _TYPE_COLOUR[t]


@kernel(inline=True)
def rank_of(t):
    return _TYPE_RANK[t]


@kernel(inline=True)
def is_legal(t, col, rank):
    """P1 matching, before any black-card restriction."""
    return t >= FIRST_BLACK or colour_of(t) == col or rank_of(t) == rank


@kernel(inline=True)
def is_restricted(opt, t):
    """P2/P3: is card t legal only without a card of the current colour (and challengeable)?"""
    return ((t == WD4 and opt.wild_draw_four == R.WILD_DRAW_FOUR_NO_MATCHING_COLOUR)
            or (t == K.WILD and opt.wild == R.WILD_NO_MATCHING_COLOUR))


@kernel(inline=True)
def is_number(t):
    return t < FIRST_BLACK and rank_of(t) <= 9


@kernel(inline=True)
def step(seat, direction, n):
    """The seat after ``seat`` in ``direction``, finished or not."""
    q = seat + direction
    if q >= n:
        return q - n
    if q < 0:
        return q + n
    return q


@kernel(inline=True)
def next_seat(st, seat):
    """next(seat): the next seat in the round in the direction of play (R9: the seats that have
    finished have left it). Every rule naming "the next seat" means this one."""
    q = step(seat, st.dir, st.n)
    while (st.out >> q) & 1:
        q = step(q, st.dir, st.n)
    return q


@kernel(inline=True)
def in_round(st, seat):
    """R9: 1 while the seat is in the round, 0 once it has finished."""
    return 1 - ((st.out >> seat) & 1)


@kernel(inline=True)
def next_in_cycle(col, direction):
    """P7 colour_cycle: the colour after ``col`` on the cards' cycle in the direction of play;
    clockwise red -> blue -> green -> yellow -> red, i.e. one colour index down (mod 4)."""
    return (col - direction) & 3


@kernel(inline=True)
def holds_colour(st, s, col):
    """P2/P4: does seat s hold a card of colour ``col``? No colour is current (col 4) after a
    black first card that stays, and then nobody does."""
    return (st.hcol[s, col] > 0) & (col < BLACK)


@kernel(inline=True)
def position(s, first, direction, n):
    """How many seats after ``first`` seat ``s`` plays, in the given direction of play."""
    d = (s - first) * direction
    return d + n if d < 0 else d


# ---------------------------------------------------------------- trace


@kernel(inline=True)
def ev(st, kind, seat, a, b):
    """Record one event in the ring (callers check ``st.tracing`` first). A ring that is full
    keeps its last row, and ``flush`` reports the overflow."""
    row = min(st.ring_n, RING - 1)
    st.ring[row, 0] = kind
    st.ring[row, 1] = seat
    st.ring[row, 2] = a
    st.ring[row, 3] = b
    st.ring_n += 1


@kernel
def flush(st, trace):
    """Move the ring's events to the end of ``trace``. Rows past the trace's end are counted in
    ``st.tpos`` but not stored, so the caller can retry with a trace of that size; a ring that
    overflowed sets tpos to -1 (the trace is lost)."""
    if st.ring_n > RING:
        st.tpos = -1
    if st.tpos >= 0:
        for i in range(st.ring_n):
            row = st.tpos + i
            if row < trace.shape[0]:
                for k in range(4):
                    trace[row, k] = st.ring[i, k]
        st.tpos += st.ring_n
    st.ring_n = 0


@kernel(inline=True)
def trace_draw(st, s, card, moved, reason):
    """The events of one draw: the reshuffle before it, then the draw or, for card -1, its
    failure."""
    if moved > 0:
        ev(st, C.EV_RESHUFFLE, -1, moved, -1)
    ev(st, C.EV_DRAW if card >= 0 else C.EV_DRAW_FAIL, s, card, reason)


# ---------------------------------------------------------------- counting how a round plays


def counts(st) -> bool:
    """Is ``st`` (a Numba type) the table of a game that counts how its rounds play
    (``_layout.COUNTING_TABLE``)? Decided when a kernel is typed: on the other table the
    helpers below compile to nothing, and a game that does not count keeps no counter."""
    return isinstance(st, types.Record) and "held" in st.fields


def searched(st) -> bool:
    """Is ``st`` (a Numba type) the table of a game that seats an expert
    (``_layout.SEARCH_TABLES``), whose kernels keep each seat's intake for its deals?"""
    return isinstance(st, types.Record) and "intake" in st.fields


def intake_added(st, s, count):
    """Seat s took ``count`` cards it did not hold (``st.intake``, for the experts' deals)."""


def uno_stop(st, s, held):
    """A seat that held ``held`` cards is skipped or made to draw a penalty: an UNO stop (a
    measure of how the round plays, engine/_measures.py) if it held one."""


def held_added(st, s, t):
    """Seat s took card t: its type is among those it holds (``st.held``, for _measures)."""


def held_removed(st, s, t, left):
    """Seat s gave up card t, ``left`` of its type remaining."""


def held_exchanged(st, a, b):
    """Seats a and b exchanged their hands."""


# Their kernels: on a counting table what each docstring says, on the other nothing.


@overload(intake_added, inline="always")
def _intake_added(st, s, count):
    if not searched(st):
        return lambda st, s, count: None

    def impl(st, s, count):
        st.intake[s] += count
    return impl


@overload(uno_stop, inline="always")
def _uno_stop(st, s, held):
    if not counts(st):
        return lambda st, s, held: None

    def impl(st, s, held):
        st.stops[s] += held == 1
    return impl


@overload(held_added, inline="always")
def _held_added(st, s, t):
    if not counts(st):
        return lambda st, s, t: None

    def impl(st, s, t):
        st.held[s] |= 1 << t
    return impl


@overload(held_removed, inline="always")
def _held_removed(st, s, t, left):
    if not counts(st):
        return lambda st, s, t, left: None

    def impl(st, s, t, left):
        st.held[s] ^= (1 << t) if left == 0 else 0
    return impl


@overload(held_exchanged, inline="always")
def _held_exchanged(st, a, b):
    if not counts(st):
        return lambda st, a, b: None

    def impl(st, a, b):
        st.held[a], st.held[b] = st.held[b], st.held[a]
    return impl


@kernel(inline=True)
def skip_seat_traced(st, s, tracing):
    """A1: seat s misses its turn; returns the seat after it. Traced if ``tracing`` (the turn
    loop's flag: a constant in its untraced version, so the checks fold away)."""
    if tracing:
        ev(st, C.EV_SKIP, s, -1, -1)
    st.counters[C.C_SKIPS] += 1
    uno_stop(st, s, st.hsize[s])
    return next_seat(st, s)


@kernel(inline=True)
def skip_seat(st, s):
    """``skip_seat_traced``, traced as ``st.tracing`` says."""
    return skip_seat_traced(st, s, st.tracing != 0)


@kernel(inline=True)
def reverse_traced(st, tracing):
    """A1: the direction of play flips (traced if ``tracing``)."""
    st.dir = -st.dir
    st.counters[C.C_DIRECTION_CHANGES] += 1
    if tracing:
        ev(st, C.EV_DIRECTION, -1, st.dir, -1)


@kernel(inline=True)
def reverse(st):
    """``reverse_traced``, traced as ``st.tracing`` says."""
    reverse_traced(st, st.tracing != 0)
