"""Number-card rules (njit): 7-0, swap on 5, several cards in a turn, slaps, silence, cover.

Rules here: N1 seven_zero (and D5 Wild Swap Hands, which swaps like a 7), N2 five_swap (and D5's
swap one with the next player), N3 multi_play (same_rank, two_matching), N4 zero_slap and the
slap race (also U1's uno_slap), N5 silence (seven, two, black), N6 eight_cover.
docs/engine.md "Number-card rules".
"""


from .. import codes as C
from .. import rules as R
from ._cards import add, draw, exchange_hands, lay_down, remove
from ._jit import kernel
from ._policies import least_useful, pick_by_score
from ._rng import bounded, uniform
from ._table import (
    BLACK, FIRST_BLACK, ev, holds_colour, in_round, is_legal, is_restricted, next_seat,
    rank_of,
)


# ---------------------------------------------------------------- N1, N2: hands that move


@kernel
def fewest_cards_seat(st, player):
    """The other seat in the round holding the fewest cards; ties to the first in playing
    order."""
    best = -1
    s = player
    for _ in range(st.left - in_round(st, player)):
        s = next_seat(st, s)
        if best < 0 or st.hsize[s] < st.hsize[best]:
            best = s
    return best


@kernel
def pass_hands(st, player):
    """N1 0: every hand in the round moves on to the next seat in the direction of play."""
    if st.tracing:
        ev(st, C.EV_PASS_HANDS, player, st.dir, -1)
    st.counters[C.C_HAND_SWAPS] += 1
    # Exchanges of one seat's hand with each other seat's in playing order rotate every hand
    # one seat on.
    pivot = next_seat(st, player)
    s = pivot
    for _ in range(st.left - 1):
        s = next_seat(st, s)
        exchange_hands(st, pivot, s)


@kernel
def swap_hands(st, player):
    """N1 7, D5 Wild Swap Hands: the player swaps hands with the seat holding the fewest cards
    (nothing when the player holds none)."""
    if st.hsize[player] == 0:
        return
    partner = fewest_cards_seat(st, player)
    if st.tracing:
        ev(st, C.EV_SWAP_HANDS, player, partner, -1)
    st.counters[C.C_HAND_SWAPS] += 1
    exchange_hands(st, player, partner)


@kernel
def swap_one(st, player, partner, state):
    """N2 five_swap, D5 swap one: each side gives its least useful card, both chosen from the
    hands as they are. Returns the state."""
    if st.hsize[player] == 0 or st.hsize[partner] == 0:
        return state
    mine, state = least_useful(st, player, state)
    theirs, state = least_useful(st, partner, state)
    if st.tracing:
        ev(st, C.EV_GIVE, player, mine, partner)
        ev(st, C.EV_GIVE, partner, theirs, player)
    st.counters[C.C_CARD_SWAPS] += 1
    remove(st, player, mine)
    add(st, partner, mine)
    remove(st, partner, theirs)
    add(st, player, theirs)
    return state


@kernel(inline=True)
def has_number_effect(opt, t):
    """N1, N2: does number card t have an effect under these rules?"""
    r = rank_of(t)
    return (opt.seven_zero != 0 and (r == 0 or r == 7)) or (opt.five_swap != 0 and r == 5)


@kernel
def number_effect(st, opt, player, t, state):
    """N1 0 and 7, N2 5: the effect of number card t played by ``player``. Returns the state."""
    r = rank_of(t)
    if opt.seven_zero != 0 and r == 0:
        pass_hands(st, player)
    elif opt.seven_zero != 0 and r == 7:
        swap_hands(st, player)
    elif opt.five_swap != 0 and r == 5:
        state = swap_one(st, player, fewest_cards_seat(st, player), state)
    return state


# ---------------------------------------------------------------- N3: more cards in a turn


@kernel(inline=True)
def _may_add(st, rule, p, first, start_col, start_rank):
    """N3: might seat p add a number card after ``first``? (A cheap test before the policy's
    choice: a card of the number for same_rank; for two_matching a card of the colour the turn
    started with, or of its number.)"""
    if rule == R.MULTI_PLAY_SAME_RANK:
        r = rank_of(first)
        same = 0
        if r <= 9:
            for c in range(4):
                same += st.hand[p, c * 13 + r]
        return same > 0
    if start_col < BLACK and st.hcol[p, start_col] > 0:
        return True
    by_rank = 0
    if start_rank <= 9:
        for c in range(4):
            by_rank += st.hand[p, c * 13 + start_rank]
    return by_rank > 0


@kernel(inline=True)
def extras(st, opt, p, first, start_col, start_rank, state):
    """N3: the number cards a turn adds after its first card ``first`` (played on the table
    ``start_col``/``start_rank``). Returns the state."""
    if opt.multi_play == R.MULTI_PLAY_NONE or not _may_add(st, opt.multi_play, p, first,
                                                           start_col, start_rank):
        return state
    return _add_numbers(st, opt, p, first, start_col, start_rank, state)


_COLOUR_NUMBERS = (1 << 10) - 1  # bits of the number cards 0-9 of colour 0 (a colour's shift)
_RANK_IN_COLOURS = 1 | 1 << 13 | 1 << 26 | 1 << 39  # bits of number 0 in the four colours


@kernel
def _pick_matching_number(st, p, start_col, start_rank, state):
    """N3 two_matching for a seat whose weights are all 0: the card ``pick_by_score`` picks among
    the number cards of the colour or the number the turn started with (uniform over their
    instances in card-id order, or the first with ``ties: first``; the same draws), counted over
    those 13 card types instead of all 59 with a score each. -1 if none. Returns (card, state)."""
    total = 0
    for c in range(4):
        if c == start_col:
            for r in range(10):
                total += st.hand[p, c * 13 + r]
        elif start_rank <= 9:
            total += st.hand[p, c * 13 + start_rank]
    if total == 0:
        return -1, state
    k = 0
    if not st.ties_first[p]:
        k, state = bounded(state, total)
    for c in range(4):
        if c == start_col:
            for r in range(10):
                k -= st.hand[p, c * 13 + r]
                if k < 0:
                    return c * 13 + r, state
        elif start_rank <= 9:
            k -= st.hand[p, c * 13 + start_rank]
            if k < 0:
                return c * 13 + start_rank, state
    return -1, state


@kernel
def _add_numbers(st, opt, p, first, start_col, start_rank, state):
    """N3 once a number may be added (see ``extras``)."""
    if opt.multi_play == R.MULTI_PLAY_SAME_RANK:
        r = rank_of(first)
        if r <= 9:  # every other card of the number, in card-id order
            for c in range(4):
                while st.hand[p, c * 13 + r] > 0:
                    lay_down(st, opt, p, c * 13 + r, C.EV_PLAY, -1)
        return state
    # two_matching: one more number card matching the top card as the turn started.
    if st.policy[p] == C.POLICY_UNIFORM:
        t, state = _pick_matching_number(st, p, start_col, start_rank, state)
    else:
        mask = 0  # the number cards of the colour and those of the number
        if start_col < BLACK:
            mask = _COLOUR_NUMBERS << (start_col * 13)
        if start_rank <= 9:
            mask |= _RANK_IN_COLOURS << start_rank
        t, state = pick_by_score(st, p, start_col, start_rank, mask, False, False, state)
    if t >= 0:
        lay_down(st, opt, p, t, C.EV_PLAY, -1)
    return state


# ---------------------------------------------------------------- N4, N5: slaps and silence


@kernel
def slap(st, starter, kind, count, state):
    """N4: the seats in the round other than ``starter`` race to slap; the slowest (probability
    in proportion to 1 / reaction; a reaction of 0 is slowest for certain) draws ``count``.
    Returns the state."""
    n = st.n
    zeros = 0
    total = 0.0
    last = -1  # the last racer
    for s in range(n):
        if s != starter and in_round(st, s):
            last = s
            r = st.behaviour[s, C.B_REACTION]
            if r <= 0:
                zeros += 1
            else:
                total += 1.0 / r
    slowest = -1
    if zeros > 0:
        k, state = bounded(state, zeros)
        for s in range(n):
            if s != starter and in_round(st, s) and st.behaviour[s, C.B_REACTION] <= 0:
                if k == 0:
                    slowest = s
                k -= 1
    else:
        u, state = uniform(state)
        x = u * total
        for s in range(n):
            if s != starter and in_round(st, s) and slowest < 0:
                x -= 1.0 / st.behaviour[s, C.B_REACTION]
                if x < 0:
                    slowest = s
        if slowest < 0:  # rounding
            slowest = last
    st.counters[C.C_SLAPS] += 1
    if st.tracing:
        ev(st, C.EV_SLAP, slowest, starter, kind)
    _, state = draw(st, slowest, count, C.DRAW_SLAP, state)
    return state


@kernel(inline=True)
def _starts_silence(rule, t):
    """N5: does card t start (or renew) a silence?"""
    if rule == R.SILENCE_SEVEN:
        return t < FIRST_BLACK and rank_of(t) == 7
    if rule == R.SILENCE_TWO:
        return t < FIRST_BLACK and rank_of(t) == 2
    return rule == R.SILENCE_BLACK and t >= FIRST_BLACK


@kernel(inline=True)
def move_marks(st, opt, s, t, state):
    """After seat s's move of card t (unless it ended the round): the N4 zero slap, then the N5
    silence it starts or renews (unless s has just finished, R9). Returns the state."""
    if opt.zero_slap > 0 and t < FIRST_BLACK and rank_of(t) == 0:
        state = slap(st, s, C.SLAP_ZERO, opt.zero_slap, state)
    if _starts_silence(opt.silence, t) and in_round(st, s):
        if t >= FIRST_BLACK:
            st.silence_colour = st.col
        else:
            st.silence_owner = s
    return state


@kernel
def silence_at_turn(st, opt, p, state):
    """N5 at the start of p's turn: the owner's turn ends its silence; a silence that holds may
    be broken by the seats asked in playing order from p, the first that breaks it drawing its
    penalty. Returns the state."""
    if st.silence_owner == p:
        st.silence_owner = -1
    if st.silence_owner >= 0 or st.silence_colour >= 0:
        breaker = -1
        s = p
        asked = 0
        while asked < st.left and breaker < 0:
            u, state = uniform(state)
            if u < st.behaviour[s, C.B_SILENCE_BREAK]:
                breaker = s
            s = next_seat(st, s)
            asked += 1
        if breaker >= 0:
            penalty = 4 if opt.silence == R.SILENCE_SEVEN else 2
            st.silence_owner = -1
            st.silence_colour = -1
            st.counters[C.C_SILENCE_BREAKS] += 1
            if st.tracing:
                ev(st, C.EV_SILENCE_BREAK, breaker, penalty, -1)
            _, state = draw(st, breaker, penalty, C.DRAW_SILENCE, state)
    return state


# ---------------------------------------------------------------- N6: an 8 is covered


@kernel(inline=True)
def owes_cover(opt, t):
    """N6: a move of an 8 waits for its cover (its end of move comes with the cover's)."""
    return opt.eight_cover != 0 and t < FIRST_BLACK and rank_of(t) == 8


@kernel
def draw_cover(st, opt, s, state):
    """N6: seat s holds no card to cover its 8 with: it draws one card at a time until one is
    legal (a restricted black card only without a card of the colour). Returns (that card, or
    -1 when the piles ran out: then the duty has lapsed, state)."""
    card = -1
    drawn = 0
    while card < 0 and drawn >= 0:
        drawn, state = draw(st, s, 1, C.DRAW_COVER, state)
        card = _legal_cover(st, opt, s, drawn)
    return card, state


@kernel(inline=True)
def _legal_cover(st, opt, s, card):
    """N6: card (or -1) if it may cover the 8 now (no bluff: the card is drawn to be played)."""
    if card < 0 or not is_legal(card, st.col, st.rank) or (
            is_restricted(opt, card) and holds_colour(st, s, st.col)):
        return -1
    return card
