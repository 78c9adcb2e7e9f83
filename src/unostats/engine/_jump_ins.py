"""Out-of-turn play (njit): jump-ins and who wins the race to jump in.

Rules here: J1 jump_in (numbers, all_but_draw_four, extreme: identical cards out of turn, play
going on from the jumper), J2 none on the first discard (the turn loop offers no race before
the first move), J3 a seat may jump in on its own card, J4 the race by ``jump_in`` willingness
and ``reaction`` speed, a chain no longer than the card's copies in the deck; with N6 a jump-in on an 8 takes the cover duty over.
docs/engine.md "Jump-ins".
"""


from .. import cards as K
from .. import codes as C
from .. import rules as R
from ._actions import effect
from ._cards import lay_down, top_card
from ._jit import kernel
from ._numbers import owes_cover
from ._rng import uniform
from ._scoring import end_of_move
from ._table import BLACK, FIRST_BLACK, holds_colour, next_seat, rank_of


@kernel(inline=True)
def _jumpable(mode, t):
    """J1: may a card identical to the top card t be played on it out of turn?"""
    if mode == R.JUMP_IN_NUMBERS:
        return rank_of(t) <= 9
    if mode == R.JUMP_IN_ALL_BUT_DRAW_FOUR:
        return t < FIRST_BLACK or t == K.WILD  # plain Wilds, not the D3-D5 black cards
    return mode == R.JUMP_IN_EXTREME and t < FIRST_BLACK


@kernel
def _race(st, mover, t, state):
    """J4: the seat that jumps in on card t just played by ``mover``, or -1.

    Each seat holding a card identical to t is willing with its ``jump_in`` probability; the
    willing seats race with the seat due to act next, each winning in proportion to its
    ``reaction`` weight. If the seat due to act wins without being willing, nobody jumps in.
    Returns (seat, state).
    """
    due = next_seat(st, mover)
    willing = 0
    weight = 0.0
    for s in range(st.n):
        if st.hand[s, t] > 0:
            u, state = uniform(state)
            if u < st.behaviour[s, C.B_JUMP_IN]:
                willing |= 1 << s
                weight += st.behaviour[s, C.B_REACTION]
    fastest = -1
    if willing != 0:
        if not (willing >> due) & 1:
            weight += st.behaviour[due, C.B_REACTION]
        u, state = uniform(state)
        x = u * weight
        for s in range(st.n):
            if fastest < 0 and ((willing >> s) & 1 or s == due):
                w = st.behaviour[s, C.B_REACTION]
                if x < w:
                    fastest = s
                x -= w
        if fastest >= 0 and not (willing >> fastest) & 1:
            fastest = -1
    return fastest, state


@kernel(inline=True)
def jump_ins(st, opt, p, state):
    """J1-J4 after seat p's move: the race to jump in on the top card, then the jump-ins after
    it, each on the one before, until nobody jumps in (or a jumper goes out). The jumpers go to
    ``st.jumpers``; the last jump-in's card, guilt and covered colour to st. N6: a jump-in on an
    8 takes the cover duty over and ends the previous move. Returns (the number of jump-ins,
    state)."""
    if opt.jump_in == R.JUMP_IN_NONE or not _jumpable(opt.jump_in, top_card(st)):
        return 0, state
    j, state = _race(st, p, top_card(st), state)
    if j < 0:
        return 0, state
    return _chain(st, opt, p, j, state)


@kernel(inline=True)
def _copies(st, t):
    """The copies of card type t in the deck (the cards dealt from, ``st.full``)."""
    n = 0
    for i in range(st.ncards):
        n += st.full[i] == t
    return n


@kernel
def _chain(st, opt, p, j, state):
    """J1-J4: seat j has won the race to jump in on p's move (see ``jump_ins``). The chain ends
    after as many jump-ins as the deck holds copies of the card: only cards taken back from the
    discards (a penalty drawn after a reshuffle) make it longer, and it might never end."""
    top = top_card(st)
    copies = _copies(st, top)
    jumps = 0
    mover = p
    st.jump_card = top
    while j >= 0:
        st.jump_colour = st.col
        st.jump_guilty = holds_colour(st, j, st.col)
        lay_down(st, opt, j, top, C.EV_JUMP_IN, -1)
        st.counters[C.C_JUMP_INS] += 1
        if not owes_cover(opt, top):
            state = end_of_move(st, opt, j, top, 1, state)
        elif j != mover:  # N6: j took the duty over, so the previous move ends (a seat
            # jumping in on its own 8 owes the new 8's cover)
            state = end_of_move(st, opt, mover, top, 1, state)
        mover = j
        st.jumpers[jumps] = j
        jumps += 1
        if st.winner >= 0 or jumps >= copies:
            break
        j, state = _race(st, j, top, state)
    return jumps, state


@kernel
def effects_after_jump_ins(st, opt, p, card, count, guilty, colour_before, jumps, state):
    """The effects once someone jumped in: of the last card only (a jump-in cancels the card it
    jumped on), or under jump_in extreme of every card in turn, the last deciding who acts next.
    Returns (the seat that acts next, state)."""
    top = st.jump_card
    if opt.jump_in != R.JUMP_IN_EXTREME:
        return effect(st, opt, st.jumpers[jumps - 1], top, 1, False, st.jump_guilty != 0,
                      st.jump_colour, -1, state, st.tracing != 0)
    nxt, state = effect(st, opt, p, card, count, True, guilty, colour_before, st.jumpers[0],
                        state, st.tracing != 0)
    i = 0
    while i < jumps and st.winner < 0:
        after = st.jumpers[i + 1] if i + 1 < jumps else -1
        nxt, state = effect(st, opt, st.jumpers[i], top, 1, False, False, BLACK, after, state,
                            st.tracing != 0)
        i += 1
    return nxt, state
