"""The game loop (njit): games, rounds and the turn loop that calls each rule family in turn.

A turn: a pending penalty is answered or paid (_penalties), the turn starts (N5 silence, U2
mistake), the seat chooses a card (_policies) or draws (_cards, P5), plays it with its twin (A2)
or extra numbers (N3), the move ends (U1 call, going out, N4/N5 marks: _scoring), others may jump
in (_jump_ins), and the card's effect decides who acts next (_actions). N6's cover is the same
seat's next move. docs/engine.md is the specification; engine/referee.py checks traces.

The entry point is ``play_games`` (called by simulate.py only, which runs chunks of games on
threads: the function releases the GIL). It is compiled once, for every rule set.
"""

from .. import cards as K
from .. import codes as C
from ._actions import effect, has_effect
from ._cards import draw, draw_turn, first_card_effect, lay_down, new_round, stays_first, top_card
from ._jit import kernel
from ._jump_ins import effects_after_jump_ins, jump_ins
from ._layout import RO_LOSER
from ._numbers import draw_cover, extras, owes_cover, silence_at_turn
from ._penalties import answer_pending, pay_unless_answered
from ._policies import choose_card, if_playable
from ._rng import bounded, seed_stream, side_key
from ._scoring import end_of_move, finish_game, finish_round
from ._table import FIRST_BLACK, ev, flush, holds_colour, next_seat, rank_of, step
from ._uno_call import mistake


@kernel
def _play_round(st, opt, p, trace, state):
    """The turns of a round from seat p until a seat wins (``st.winner``) or the turn cap.
    Returns (turns, state)."""
    turns = 0
    covering = False  # N6: p covers its 8 (a play of the same turn, or of a jump-in)
    in_turn = True  # the move is p's turn (not a jump-in's cover)
    covers = 0  # N6: the covers of this turn's chain
    while turns < opt.max_turns or covering:
        if st.tracing:
            flush(st, trace)
        answer = -1
        if covering:
            covers += 1
            if covers > st.ncards:  # N6: 8s covering 8s recycled from the discards: the cap
                break
        else:
            covers = 0
            in_turn = True
            answering = False
            if st.pending > 0:  # A3-A6: answer the pending penalty, or pay it
                answering, p, state = pay_unless_answered(st, opt, p, state)
                if not answering:
                    continue  # paid, without a turn
            turns += 1
            if st.tracing:
                ev(st, C.EV_TURN, p, -1, -1)
            if opt.silence != C.SILENCE_NONE:
                state = silence_at_turn(st, opt, p, state)
            if opt.mistake_penalty > 0:
                state = mistake(st, opt, p, state)
            if answering:
                answer, state = answer_pending(st, opt, p, state)
        card = answer
        if answer < 0:
            card, threat, state = choose_card(st, opt, p, state)
            if card < 0 and covering:  # N6: draw until it can cover
                eight = top_card(st)
                card, state = draw_cover(st, opt, p, state)
                if card < 0:  # the duty lapsed and the 8's move ends
                    state = end_of_move(st, opt, p, eight, 1, state)
                    if st.winner >= 0:
                        break
                    covering = False
                    p = next_seat(st, p)
                    continue
            if card < 0:
                st.escalation = 0  # a draw ends a +2/Reverse sequence (A6 extreme)
                st.skip_run = 0  # and a Skip run (A7)
                if opt.draw == C.DRAW_ONE_MAY_PLAY:  # P5 (the other draw rules: draw_turn)
                    drawn, state = draw(st, p, 1, C.DRAW_NORMAL, state)
                    card, state = if_playable(st, opt, drawn, p, state)
                else:
                    card, state = draw_turn(st, opt, p, threat, state)
            if card < 0:
                if st.tracing:
                    ev(st, C.EV_PASS, p, -1, -1)
                p = next_seat(st, p)
                continue

        # The move: P4 judges a black card on the hand it was played from.
        guilty = holds_colour(st, p, st.col)
        colour_before = st.col
        start_rank = st.rank
        lay_down(st, opt, p, card, C.EV_PLAY, -1)
        count = 1
        cover = covering  # A2 and N3 add no card to a cover
        covering = False
        if opt.double_action != 0 and not cover and rank_of(card) >= K.SKIP \
                and card < FIRST_BLACK and st.hand[p, card] > 0:  # A2: its twin too
            lay_down(st, opt, p, card, C.EV_PLAY, -1)
            count = 2
        if answer < 0 and not cover and count == 1:  # N3: nor to an answer
            state = extras(st, opt, p, card, colour_before, start_rank, state)

        # The end of the move (an 8 under N6: with its cover's, or a jump-in's), jump-ins.
        eight = owes_cover(opt, card)
        if not eight:
            state = end_of_move(st, opt, p, card, count, state)
            if st.winner >= 0:
                break
        jumps, state = jump_ins(st, opt, p, state)
        if st.winner >= 0:
            break

        # A1 and its variants: the effect decides who acts next.
        if not has_effect(opt, card, jumps):
            st.skip_run = 0  # a number card ends a Skip run (A7) and a +2/Reverse sequence
            st.escalation = 0
            covering = eight  # N6: its player covers it next
            if not eight:
                p = next_seat(st, p)
            continue
        if jumps == 0:
            p, state = effect(st, opt, p, card, count, in_turn, guilty, colour_before, -1, state)
        else:
            p, state = effects_after_jump_ins(st, opt, p, card, count, guilty, colour_before,
                                              jumps, state)
        if st.winner >= 0:
            break
        if st.cover:  # N6: a jumper covers the 8 it jumped in with
            st.cover = 0
            covering = True
            in_turn = False
    return turns, state


@kernel
def _seat_game(st, setups, g):
    """Entry ``g`` of ``setups``: its seats replace the table's. Returns its stream's state."""
    for s in range(st.n):
        st.policy[s] = setups[g].policy[s]
        for b in range(st.behaviour.shape[1]):
            st.behaviour[s, b] = setups[g].behaviour[s, b]
        for f in range(st.weights.shape[1]):
            st.weights[s, f] = setups[g].weights[s, f]
        st.colour_random[s] = setups[g].colour_random[s]
        st.ties_first[s] = setups[g].ties_first[s]
    return seed_stream(setups[g].seed, setups[g].stream)


@kernel(entry=True)
def play_games(st, opt, seed, game_lo, game_hi, game_out, game_seat_out, round_out,
               round_seat_out, trace, first_dealer, setups):
    """Play games [game_lo, game_hi) into the outputs (rows from 0).

    ``st`` holds the seats (n, policy, behaviour, points) and the deck to deal (``full``,
    ``ncards``); ``opt`` the rule options. ``trace`` receives every event when ``st.tracing``.
    Tests may script a game: ``st.stacked`` takes the top card at every draw and
    ``first_dealer`` (>= 0) replaces the draw by lot.

    ``setups`` (``GAME_SETUP`` records) empty: game g has the stream (seed, g) and the seats of
    ``st``. Else game g is entry g: its seats replace those of ``st`` and it plays the stream
    (setups[g].seed, setups[g].stream), so each entry is the game that stream numbers in a run
    of its own (``seed`` is unused).

    Returns (games completed, rounds written); ``st.tpos`` counts the trace rows needed. A game
    whose rounds would not fit in ``round_out`` is not started, so the caller can play the rest
    again with more room; results are the same because every game seeds its own stream.
    """
    n = st.n
    acceptable = 0  # S2: cards that may stay as the first discard
    for i in range(st.ncards):
        acceptable += stays_first(st.full[i], opt.first_card)
    st.acceptable = acceptable
    capacity = round_out.shape[0]
    r_pos = 0
    for g in range(game_lo, game_hi):
        gi = g - game_lo
        g_start = r_pos
        if setups.shape[0] > 0:
            state = _seat_game(st, setups, g)
        else:
            state = seed_stream(seed, g)
        st.side_key = side_key(state)
        st.side_n = 0
        st.scores[:] = 0
        st.lost[:] = 0
        dealer, state = bounded(state, n)
        if first_dealer >= 0:
            dealer = first_dealer
        first_player = step(dealer, 1, n)
        total_turns = 0
        ended_by = C.GAME_END_CAP
        first_seat = -1
        r = 0
        for r in range(1, opt.max_rounds + 1):
            if r_pos >= capacity:
                return gi, g_start
            if st.tracing:
                ev(st, C.EV_ROUND_START, dealer, r, -1)
            top, state = new_round(st, opt, dealer, state)
            p = first_player
            if opt.first_card != C.FIRST_CARD_NUMBER_ONLY and rank_of(top) >= K.SKIP:
                p, state = first_card_effect(st, opt, top, dealer, p, state)
            first = p
            start_direction = st.dir
            turns, state = _play_round(st, opt, p, trace, state)
            finish_round(st, opt, g, r, dealer, first, start_direction, turns, round_out,
                         round_seat_out, r_pos)
            if st.tracing:
                flush(st, trace)
            if r == 1:
                first_seat = first
            total_turns += turns
            r_pos += 1
            reached = False
            for s in range(n):
                if st.scores[s] >= opt.target_score:
                    reached = True
            if reached:
                ended_by = C.GAME_END_TARGET
                break
            if opt.scoring == C.SCORING_LAZY and st.winner >= 0:
                # R6: the round's loser deals, its winner starts
                dealer = round_out[r_pos - 1, RO_LOSER]
                first_player = st.winner
            else:
                dealer = step(dealer, 1, n)
                first_player = step(dealer, 1, n)
        finish_game(st, opt, g, r, total_turns, first_seat, ended_by, game_out, game_seat_out, gi)
        if st.tracing:
            flush(st, trace)
    return game_hi - game_lo, r_pos
