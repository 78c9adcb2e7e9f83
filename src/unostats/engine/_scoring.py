"""The end of a move, of a round and of a game (njit): going out, finishing, scoring.

Rules here: R1 the round ends when a hand is empty (R9 to_the_last: when one seat is left; R10
seven_rounds: after the last, single-card hand), the draws a last card still makes (A1, A3-A6,
D3-D5), R2 winner_takes_all, R3/R4 own points, R5 card_count, R6 lazy (loser deals, winner
starts), R7 lone zero, R8 the H2O finishing bonus, R11 the game's winner and losers; and the end
of every move: U1's call, then a hand emptied, else N4/N5's marks. docs/engine.md "Scoring".
"""


from .. import cards as K
from .. import codes as C
from .. import rules as R
from ._cards import draw, everyone_draws, top_card
from ._jit import kernel
from ._layout import (
    GO_ENDED_BY, GO_FIRST, GO_GAME, GO_MARGIN, GO_ROUNDS, GO_TURNS, GO_WINNER, GS_FINAL_SCORE,
    GS_IS_LOSER, GS_RANK, RO_COUNTERS, RO_DEALER, RO_ENDED_BY, RO_FIRST, RO_GAME,
    RO_LARGEST_PENALTY, RO_LOSER, RO_POINTS, RO_ROUND, RO_WINNER, RO_WINNER_POS, RS_CARDS_LEFT,
    RS_FINISH_PLACE, RS_HAND_POINTS, RS_HANDS_EMPTIED, RS_POSITION, RS_SCORE_AFTER,
)
from ._numbers import move_marks
from ._penalties import card_penalty
from ._table import NT, ev, in_round, next_seat, position
from ._uno_call import uno_call


@kernel(inline=True)
def _h2o_bonus(t):
    """R8: what emptying a hand with card t takes off the seat's score (if the rule is on)."""
    return 20 if t == K.HIT_ALL_ONE else (40 if t == K.HIT_ALL_TWO else 0)


@kernel
def _hand_emptied(st, opt, s, state):
    """Seat s has emptied its hand (counted in ``st.hands``) under R9 or R10 (``end_of_move``
    ends the round of R1 without a call). R10 seven_rounds: unless it was its last hand it takes
    a new one of one card fewer (``new_hand``, then refill draws) and stays in the round. R9
    to_the_last: s finishes and leaves the round (a silence it owns ends), which goes on while
    two seats or more are left in it. Returns (whether the round is over, state)."""
    if opt.round_end == R.ROUND_END_TO_THE_LAST:
        place = st.n - st.left + 1
        st.place[s] = place
        st.bonus[s] = _h2o_bonus(top_card(st))
        st.out |= 1 << s
        st.left -= 1
        if st.silence_owner == s:
            st.silence_owner = -1
        if st.tracing:
            ev(st, C.EV_FINISH, s, place, -1)
        return st.left == 1, state
    done = st.hands[s]
    new = opt.hand_size - done
    if opt.round_end != R.ROUND_END_SEVEN_ROUNDS or new <= 0:
        return True, state
    if st.tracing:
        ev(st, C.EV_NEW_HAND, s, done, new)
    _, state = draw(st, s, new, C.DRAW_REFILL, state)
    return False, state


@kernel
def _last_card(st, opt, s, t, count, state):
    """Seat s has gone out with the move of ``count`` cards ``t`` (its first card): the draws
    it makes others do still happen before counting (a Draw Two / Wild Draw Four: the total its
    chain or +2/Reverse sequence would have reached; D3-D5 draws). Records the winner (R9: the
    first seat to finish) and s's R8 bonus; returns the state."""
    winner = s
    for q in range(st.n):
        if st.place[q] == 1:
            winner = q
    st.winner = winner
    st.bonus[s] = _h2o_bonus(top_card(st))
    total, reason, _ = card_penalty(st, opt, t, count)  # a chain's total, not pending now
    if t == K.HIT_ALL_ONE or t == K.HIT_ALL_TWO:  # D4
        state = everyone_draws(st, s, 1 if t == K.HIT_ALL_ONE else 2, C.DRAW_HIT_ALL, False,
                               state)
    elif t == K.CUSTOM_WILD and opt.custom_wild_effect == R.CUSTOM_WILD_EFFECT_EVERYONE_DRAWS_TWO:
        # D5: not the player, who has gone out
        state = everyone_draws(st, s, 2, C.DRAW_CUSTOM_WILD, False, state)
    _, state = draw(st, next_seat(st, s), total, reason, state)
    return state


@kernel(inline=True)
def end_of_move(st, opt, s, t, count, state):
    """U1, a win (or R9 finish, R10 new hand), N4 and N5 at the end of seat s's move (``count``
    cards, the first of them t; N6: the move of an 8 ends with its cover's, so callers wait).
    Sets ``st.winner`` when the round is over; returns the state."""
    if opt.uno_penalty > 0 and st.hsize[s] == 1:
        state = uno_call(st, opt, s, state)
    out = False
    if st.hsize[s] == 0:
        st.hands[s] += 1
        out = True  # R1: the round is over (a call for it cost ~1% of the rounds/s at 2 seats)
        if opt.round_end != R.ROUND_END_FIRST_OUT:  # R9, R10
            out, state = _hand_emptied(st, opt, s, state)
    if out:
        state = _last_card(st, opt, s, t, count, state)
    else:
        state = move_marks(st, opt, s, t, state)
    return state


# ---------------------------------------------------------------- rounds and games


@kernel(inline=True)
def own_points(scoring):
    """R3/R4: every seat keeps its own points and the lowest total is best."""
    return scoring == R.SCORING_OWN_POINTS_LOW_WINS or scoring == R.SCORING_OWN_POINTS_LOSE_AT


@kernel(inline=True)
def finish_round(st, opt, g, r, dealer, first, start_direction, turns, round_out,
                 round_seat_out, row):
    """R1, R7 hand points; R2, R3/R4, R5 or R6 scoring, R8; the round's records (row ``row`` of
    the round outputs) and its trace events. Returns the points of the round: what it added to
    all scores. Leaves every ``st.hand`` entry 0 (cleared as its points are summed, so
    ``new_round`` need not pass over the hands again); ``hcol`` and ``hsize`` stay as they were.
    Inlined into the game loop, its one caller (as ``new_round``)."""
    n = st.n
    winner = st.winner
    lone_zero = opt.lone_zero_value
    card_count = opt.scoring == R.SCORING_CARD_COUNT
    own = own_points(opt.scoring)
    round_points = 0
    for s in range(n):
        zeros = st.hand[s, 0] + st.hand[s, 13] + st.hand[s, 26] + st.hand[s, 39]
        hp = 0
        for t in range(NT):  # one pass: the hand's points, and the hand emptied for new_round
            hp += st.hand[s, t] * st.points[t]
            st.hand[s, t] = 0
        if lone_zero > 0 and st.hsize[s] == 1 and zeros == 1:  # R7: a lone 0
            hp = lone_zero
        round_seat_out[row, s, RS_HAND_POINTS] = hp
        round_seat_out[row, s, RS_CARDS_LEFT] = st.hsize[s]
        round_seat_out[row, s, RS_HANDS_EMPTIED] = st.hands[s]
        round_seat_out[row, s, RS_POSITION] = position(s, first, start_direction, n)
        if own:  # R3/R4: every seat adds its own hand
            round_points += hp
            st.scores[s] += hp if winner >= 0 else 0
        elif s != winner:
            round_points += st.hsize[s] if card_count else hp  # R5: cards, R2: points
    to_the_last = opt.round_end == R.ROUND_END_TO_THE_LAST
    loser = -1
    if to_the_last and winner >= 0:  # R9: the seat left last
        for s in range(n):
            if in_round(st, s):
                loser = s
    elif opt.scoring == R.SCORING_LAZY and winner >= 0:
        # R6: the loser holds the most points, then the most cards (ties: the lowest seat).
        for s in range(n):
            hp = round_seat_out[row, s, RS_HAND_POINTS]
            if loser < 0 or hp > round_seat_out[row, loser, RS_HAND_POINTS] or (
                    hp == round_seat_out[row, loser, RS_HAND_POINTS]
                    and st.hsize[s] > st.hsize[loser]):
                loser = s
    if loser >= 0:
        st.lost[loser] += 1
    if opt.scoring == R.SCORING_LAZY:  # R6: the winner scores a round won
        round_points = 1
    if winner >= 0 and not own:
        st.scores[winner] += round_points
    if winner >= 0 and opt.h2o_bonus != 0:  # R8: emptying a hand with a hit-all
        for s in range(n):
            st.scores[s] -= st.bonus[s]
            round_points -= st.bonus[s]
    if winner < 0:
        round_points = 0
    for s in range(n):
        round_seat_out[row, s, RS_SCORE_AFTER] = st.scores[s]
        place = st.place[s]
        if s == winner:
            place = 1
        elif to_the_last and s == loser:
            place = n
        round_seat_out[row, s, RS_FINISH_PLACE] = place
    st.counters[C.C_TURNS] = turns
    round_out[row, RO_GAME] = g
    round_out[row, RO_ROUND] = r
    round_out[row, RO_DEALER] = dealer
    round_out[row, RO_FIRST] = first
    round_out[row, RO_WINNER] = winner
    round_out[row, RO_WINNER_POS] = (position(winner, first, start_direction, n) if winner >= 0
                                     else -1)
    round_out[row, RO_ENDED_BY] = C.ROUND_END_WIN if winner >= 0 else C.ROUND_END_CAP
    round_out[row, RO_POINTS] = round_points
    round_out[row, RO_LOSER] = loser
    for i in range(C.N_COUNTERS):
        round_out[row, RO_COUNTERS + i] = st.counters[i]
    round_out[row, RO_LARGEST_PENALTY] = st.largest_penalty
    if st.tracing:  # R1/R2 events: the round's end, then each seat's hand points and score
        ev(st, C.EV_ROUND_END, winner, C.ROUND_END_WIN if winner >= 0 else C.ROUND_END_CAP,
           round_points)
        for s in range(n):
            ev(st, C.EV_SCORE, s, round_seat_out[row, s, RS_HAND_POINTS], st.scores[s])
    return round_points


@kernel
def finish_game(st, opt, g, rounds, turns, first_seat, ended_by, game_out, game_seat_out, gi):
    """The best total wins (R2, R5: the highest; R3/R4: the lowest; ties: lowest seat); margin
    over the next best; ranks (equal totals share the better); the losers by the scoring mode
    (none when the game was capped). Fills row ``gi`` of the game outputs; returns the winner
    (-1 if the game was capped)."""
    n = st.n
    scoring = opt.scoring
    target = opt.target_score
    sign = -1 if own_points(scoring) else 1  # compare sign * score: higher is better
    best = 0
    worst = 0
    most_lost = 0
    for s in range(n):
        most_lost = max(most_lost, st.lost[s])
        if sign * st.scores[s] > sign * st.scores[best]:
            best = s
        if sign * st.scores[s] < sign * st.scores[worst]:
            worst = s
    runner_up = -(1 << 40)
    for s in range(n):
        if s != best and sign * st.scores[s] > runner_up:
            runner_up = sign * st.scores[s]
        better = 0
        for q in range(n):
            if sign * st.scores[q] > sign * st.scores[s]:
                better += 1
        game_seat_out[gi, s, GS_FINAL_SCORE] = st.scores[s]
        game_seat_out[gi, s, GS_RANK] = better + 1
        if scoring == R.SCORING_OWN_POINTS_LOSE_AT:  # R4: every seat that reached the target
            loser = st.scores[s] >= target
        elif scoring == R.SCORING_LAZY:  # R6: every seat that lost the most rounds
            loser = st.lost[s] == most_lost
        else:
            loser = st.scores[s] == st.scores[worst]
        game_seat_out[gi, s, GS_IS_LOSER] = loser and ended_by == C.GAME_END_TARGET
    winner = best if ended_by == C.GAME_END_TARGET else -1
    game_out[gi, GO_GAME] = g
    game_out[gi, GO_ROUNDS] = rounds
    game_out[gi, GO_TURNS] = turns
    game_out[gi, GO_FIRST] = first_seat
    game_out[gi, GO_WINNER] = winner
    game_out[gi, GO_MARGIN] = sign * st.scores[best] - runner_up
    game_out[gi, GO_ENDED_BY] = ended_by
    if st.tracing:
        ev(st, C.EV_GAME_END, winner, ended_by, -1)
    return winner
