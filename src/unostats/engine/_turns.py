"""The game loop (njit): games, rounds and the turn loop that calls each rule family in turn.

A turn: a pending penalty is answered or paid (_penalties), the turn starts (N5 silence, U2
mistake), the seat chooses a card (_policies) or draws (_cards, P5), plays it with its twin (A2)
or extra numbers (N3), the move ends (U1 call, going out, N4/N5 marks: _scoring), others may jump
in (_jump_ins), and the card's effect decides who acts next (_actions). N6's cover is the same
seat's next move. docs/engine.md is the specification; engine/referee/ checks traces.

The move hooks (N5 silence, U2 mistake, A2, N3, N6, the U1 call, N4/N5 marks and jump-ins) are
passed over when no option that may act in them is on (``hook_level``). The round loop is compiled
four times from its one source, the hooks it plays a constant of each (``_round_loop``): none
(``_round_without_hooks``: the reference rules' turns go straight from the card to its effect,
10-14% more rounds/s on one core than with the hooks; a flag tested inside one loop gained 2-5%),
the end of every move only (``_round_move_end_hook``: the official rules, whose U1 call is the only
hook they turn on), that and the cards a move adds to its first (``_round_move_plays_hook``: A2's
twin, N3's extra numbers), or all (``_round_with_hooks``). Numba prunes the branches of the
hooks a version passes over before typing them, so it compiles none of their helpers. The level
is each option's ``hooks`` in the rule table (rules.py), by default all of them, so a new rule
runs all the hooks until its row says less. The versions with fewer hooks are also untraced: a traced game
plays the version with all of them (hooks that no option turns on do nothing), which passes
``st.tracing`` down as the ``tracing`` flag of the loop and of the helpers inlined into it
(``draw_traced``, ``lay_down_traced``, ``effect``, ...); the others pass the constant False, so
their event checks fold away too (4-6% more rounds/s on one core).

Counting how a round plays (_measures: the hand leader, decisions, UNO stops) is a constant of
each loop too (``counting``): a run that asks for it hands the kernel a ``COUNTING_TABLE``
record and plays the loops that count (the record's type also makes the helpers shared by every
loop keep the types held and the UNO stops: _table.counts); the others a ``TABLE`` record and
loops without any counting, whose round rows hold the measures' null. Counting in the turn loop
cost about a fifth of the rounds/s however it was written (docs/performance.md); compiled out,
a run that does not count plays at the speed of the engine before the counters.

A game where an expert sits (engine/_expert.py) plays a loop of its own with all the hooks,
whose expert seats choose their cards by ``search_card``; that plays each candidate out with a
second loop, compiled without the search (so no function calls itself) and without counting, on
a scratch table.

The entry point is ``play_games`` (called by simulate.py only, which runs chunks of games on
threads), a Python function that calls the compiled game loop of the rules' level (``_ENTRIES``,
counting: ``_COUNTING_ENTRIES``: one per round loop, each releasing the GIL; ``_SEARCH_ENTRIES``
for the games of an expert). Each is compiled the first time a game needs it and cached on its
own, so a run compiles only the loops its rules and its counting play (engine/compiled.py).
"""

import functools

import numpy as np

from .. import cards as K
from .. import codes as C
from .. import rules as R
from ._actions import effect, has_effect
from ._cards import (
    draw_traced, draw_turn, first_card_effect, lay_down_traced, new_round, stays_first, top_card,
)
from ._expert import (
    best, candidate_list, candidates, forget_shown, prepare, search_stream, shown_void, worth,
)
from ._jit import kernel
from ._jump_ins import effects_after_jump_ins, jump_ins
from ._layout import COUNTING_TABLE, RO_LOSER, SEARCH_TABLES, TABLE
from ._measures import (
    count_decision, no_measures, sample_hands, start_measures, write_measures,
)
from ._numbers import draw_cover, extras, owes_cover, silence_at_turn
from ._penalties import answer_pending, pay_unless_answered
from ._policies import choose_card, if_playable, keeps_drawn
from ._rng import bounded, seed_stream, side_key
from ._scoring import end_of_move, finish_game, finish_round
from ._table import FIRST_BLACK, ev, flush, holds_colour, next_seat, rank_of, step
from ._uno_call import mistake


# The hooks a round loop plays: none (every move that keeps cards in hand ends with nothing to
# do), the end of every move (the U1 call when a hand is down to one card, N4's slap after it,
# or after a 0), that and the cards a move adds to its first (A2: its identical twin; N3: number
# cards), or all of them: the rule table's ``hooks`` (rules.HOOKS) of each option. (An option
# declared at too low a level loses its effect in untraced games only, the scripted cases being
# traced: tests/test_engine.py plays every option at its level and with every hook.)
NO_HOOKS, MOVE_END, MOVE_PLAYS, ALL_HOOKS = range(len(R.HOOKS))
_LEVEL = ("without_hooks", "move_end_hook", "move_plays_hook", "with_hooks")  # compiled loops
# What a round loop is for: play a game, play one where an expert searches (engine/_expert.py),
# or play out a candidate of its search; and the suffix of its compiled name.
PLAY, SEARCH, PLAYOUT = range(3)
_ROLE = ("", "_expert", "_playout")
# Whether a loop counts how its rounds play (_measures), and the suffix of its compiled name.
_COUNTING = ("", "_counting")
# Per field of ``opt`` (the rule table's order), the hooks it may act in when not 0 (every
# option's code 0 is "off": none, False, 0).
_HOOKS_OF = tuple(R.HOOKS.index(o.hooks) for o in R.RULE_OPTIONS)


@functools.cache  # play_games asks at every call: 0.5 us for a rule set seen before, not 3.6
def hook_level(opt) -> int:
    """The hooks the rule options ``opt`` need: NO_HOOKS, MOVE_END, MOVE_PLAYS or ALL_HOOKS."""
    return max((level for code, level in zip(opt, _HOOKS_OF) if code != 0), default=NO_HOOKS)


def entry_name(level: int, counting: bool = False) -> str:
    """The name of the entry point playing the hooks of ``level``, counting or not (its cache
    files')."""
    return f"play_games_{_LEVEL[level]}{_COUNTING[counting]}"


def _round_loop(level, role=PLAY, counting=False):
    """The round loop playing the hooks of ``level``; traced (as ``st.tracing`` says) with all
    of them, else never. ``hooked``, ``adds_cards`` and ``ends_every_move`` are constants of the
    compiled function: Numba prunes the branches they close before typing them, so a loop
    compiles none of the helpers of the hooks it passes over, and LLVM folds a constant
    ``tracing`` away. ``role`` (a constant too): PLAY, SEARCH (an expert's seat chooses its
    card by ``search_card``, on the ``scratch`` table) or PLAYOUT (the search's playouts: the
    first move plays ``st.resume``; no search, so the call graph has no cycle). ``counting``
    (a constant): the turns count how the round plays (_measures)."""
    hooked = level == ALL_HOOKS
    adds_cards = level >= MOVE_PLAYS
    ends_every_move = level >= MOVE_END
    searching = role == SEARCH
    playout = role == PLAYOUT

    def play_round(st, opt, p, trace, state, scratch=None):
        """The turns of a round from seat p until a seat wins (``st.winner``) or the turn cap;
        with the hooks, events are traced when ``st.tracing``. Returns (turns, state)."""
        tracing = st.tracing != 0 if hooked else False
        if searching:
            forget_shown(st)  # what the seats showed of their hands in the last round
        turns = 0
        covering = False  # N6: p covers its 8 (a play of the same turn, or of a jump-in)
        in_turn = True  # the move is p's turn (not a jump-in's cover)
        covers = 0  # N6: the covers of this turn's chain
        while turns < opt.max_turns or covering:
            if tracing:
                flush(st, trace)
            answer = -1
            resumed = -1
            if playout and st.resume >= 0:  # the searched turn goes on with the candidate
                resumed = st.resume
                st.resume = -1
            elif covering:
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
                if counting:
                    sample_hands(st, p)
                if tracing:
                    ev(st, C.EV_TURN, p, -1, -1)
                if hooked and opt.silence != R.SILENCE_NONE:
                    state = silence_at_turn(st, opt, p, state)
                if hooked and opt.mistake_penalty > 0:
                    state = mistake(st, opt, p, state)
                if answering:
                    answer, state = answer_pending(st, opt, p, state)
            card = answer
            if resumed >= 0:
                card = resumed
            elif answer < 0:
                if counting and not covering:
                    count_decision(st, opt, p)
                if searching and not covering and st.budget[p] > 0:
                    card, threat, state = search_card(st, opt, p, trace, state, scratch)
                else:
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
                    if opt.draw == R.DRAW_ONE_MAY_PLAY:  # P5 (the other draw rules: draw_turn)
                        drawn, state = draw_traced(st, p, 1, C.DRAW_NORMAL, state, tracing)
                        card, state = if_playable(st, opt, drawn, p, state)
                        if card >= 0 and keeps_drawn(st, p, card):
                            card = -1
                        if searching:  # it held no legal card, nor does it now but the drawn one
                            shown_void(st, p)
                    else:
                        if searching:  # it holds no legal card (what it draws is unknown)
                            shown_void(st, p)
                        card, state = draw_turn(st, opt, p, threat, state)
                if card < 0:
                    if tracing:
                        ev(st, C.EV_PASS, p, -1, -1)
                    p = next_seat(st, p)
                    continue

            # The move: P4 judges a black card on the hand it was played from.
            guilty = holds_colour(st, p, st.col)
            colour_before = st.col
            start_rank = st.rank
            lay_down_traced(st, opt, p, card, C.EV_PLAY, -1, tracing)
            count = 1
            cover = covering  # A2 and N3 add no card to a cover
            covering = False
            if adds_cards and opt.double_action != 0 and not cover and rank_of(card) >= K.SKIP \
                    and card < FIRST_BLACK and st.hand[p, card] > 0:  # A2: its twin too
                lay_down_traced(st, opt, p, card, C.EV_PLAY, -1, tracing)
                count = 2
            if adds_cards and answer < 0 and not cover and count == 1:  # N3: nor to an answer
                state = extras(st, opt, p, card, colour_before, start_rank, state)

            # The end of the move (an 8 under N6: with its cover's, or a jump-in's), jump-ins. Without
            # the hooks, a move that keeps cards in hand ends with nothing to do.
            eight = hooked and owes_cover(opt, card)
            if not eight and (ends_every_move or st.hsize[p] == 0):
                state = end_of_move(st, opt, p, card, count, state)
                if st.winner >= 0:
                    break
            jumps = 0
            if hooked:
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
                p, state = effect(st, opt, p, card, count, in_turn, guilty, colour_before, -1, state,
                                  tracing)
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

    play_round.__name__ = play_round.__qualname__ = (f"_round_{_LEVEL[level]}{_ROLE[role]}"
                                                     f"{_COUNTING[counting]}")
    return kernel(play_round)


_round_without_hooks = _round_loop(NO_HOOKS)
_round_move_end_hook = _round_loop(MOVE_END)
_round_move_plays_hook = _round_loop(MOVE_PLAYS)
_round_with_hooks = _round_loop(ALL_HOOKS)
_round_without_hooks_counting = _round_loop(NO_HOOKS, counting=True)
_round_move_end_hook_counting = _round_loop(MOVE_END, counting=True)
_round_move_plays_hook_counting = _round_loop(MOVE_PLAYS, counting=True)
_round_with_hooks_counting = _round_loop(ALL_HOOKS, counting=True)
# The expert's games play every hook (its searches take the time, not the hooks), and so do
# its playouts: one loop each, whatever the rules; the playouts never count.
_round_searching = _round_loop(ALL_HOOKS, SEARCH)
_round_searching_counting = _round_loop(ALL_HOOKS, SEARCH, counting=True)
_playout = _round_loop(ALL_HOOKS, PLAYOUT)


@kernel
def search_card(st, opt, p, trace, state, scratch):
    """The expert's card (engine/_expert.py): with fewer than two candidates its playout
    policy's choice (``choose_card``); else every candidate (a card, and with ``colours:
    search`` a black card's colour) played out in each of ``st.budget[p]`` deals on the
    ``scratch`` table, and the candidate ``_expert.best`` picks; the colour of a black card goes
    to ``st.named``. Returns (card, threat, state) as ``choose_card``."""
    mask, count = candidates(st, opt, p)
    if count < 2:
        return choose_card(st, opt, p, state)
    st.searches += 1
    key, state = search_stream(state)
    cards, names, mine = candidate_list(st, scratch, opt, p, mask, count, key)
    totals = np.zeros(count)
    squares = np.zeros(count)  # of the differences to the policy's candidate, deal by deal
    worths = np.zeros(count)
    for deal in range(st.budget[p]):
        for i in range(count):
            play = prepare(st, scratch, opt, p, cards[i], names[i], key, deal)
            _, play = _playout(scratch, opt, p, trace, play)
            worths[i] = worth(scratch, opt, p, st.rounds_goal[p])
        for i in range(count):
            totals[i] += worths[i]
            squares[i] += (worths[i] - worths[mine]) ** 2
    i = best(totals, squares, mine, st.budget[p])
    st.named = names[i]
    return cards[i], False, state


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
        st.budget[s] = setups[g].budget[s]
        st.sees_all[s] = setups[g].sees_all[s]
        st.rounds_goal[s] = setups[g].rounds_goal[s]
        st.colour_search[s] = setups[g].colour_search[s]
    return seed_stream(setups[g].seed, setups[g].stream)


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

    ``st`` a ``COUNTING_TABLE`` record: the round rows hold how each round played
    (_measures), else (a ``TABLE``) the measures' null (-1: ``_measures.no_measures``); the
    same games either way (counting draws nothing).

    Returns (games completed, rounds written); ``st.tpos`` counts the trace rows needed. A game
    whose rounds would not fit in ``round_out`` is not started, so the caller can play the rest
    again with more room; results are the same because every game seeds its own stream.
    """
    counting = st.dtype == COUNTING_TABLE
    if st["budget"].any() or (len(setups) > 0 and setups["budget"].any()):  # an expert sits
        scratch = np.zeros(1, dtype=TABLE)  # the table its playouts play on
        # its game's table keeps what the expert's deals respect (SEARCH_TABLES), st's fields
        # copied in and back (per call: a batch of games)
        searched = np.zeros(1, dtype=SEARCH_TABLES[counting])[0]
        for name in st.dtype.names:
            searched[name] = st[name]
        done = _SEARCH_ENTRIES[counting](searched, opt, seed, game_lo, game_hi, game_out,
                                         game_seat_out, round_out, round_seat_out, trace,
                                         first_dealer, setups, scratch[0])
        for name in st.dtype.names:
            st[name] = searched[name]
        return done
    entries = _COUNTING_ENTRIES if counting else _ENTRIES
    entry = entries[ALL_HOOKS if st["tracing"] else hook_level(opt)]
    return entry(st, opt, seed, game_lo, game_hi, game_out, game_seat_out, round_out,
                 round_seat_out, trace, first_dealer, setups)


def _game_loop(level, role=PLAY, counting=False):
    """``play_games`` compiled with the round loop of ``level``: each its own entry point,
    compiled when first called and cached, so a run compiles only the hooks its rules need (a
    traced game: all of them); ``role`` SEARCH: the loop of games where an expert sits, which
    takes the ``scratch`` table its playouts play on; ``counting``: with the round loop that
    counts how each round plays, else the measures' columns are written null. (The loop is
    chosen by constant branches, not held as a closure variable: a compiled function in a
    closure cell keeps Numba from loading the entry point from its cache in a new process.)"""
    hooked = level == ALL_HOOKS
    adds_cards = level >= MOVE_PLAYS
    ends_every_move = level >= MOVE_END
    searching = role == SEARCH

    def games(st, opt, seed, game_lo, game_hi, game_out, game_seat_out, round_out,
              round_seat_out, trace, first_dealer, setups, scratch=None):
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
                if counting:
                    start_measures(st)
                top, state = new_round(st, opt, dealer, state)
                p = first_player
                if opt.first_card != R.FIRST_CARD_NUMBER_ONLY and rank_of(top) >= K.SKIP:
                    p, state = first_card_effect(st, opt, top, dealer, p, state)
                first = p
                start_direction = st.dir
                # constants: the loops of the other levels are not compiled here
                if searching and counting:
                    turns, state = _round_searching_counting(st, opt, p, trace, state, scratch)
                elif searching:
                    turns, state = _round_searching(st, opt, p, trace, state, scratch)
                elif hooked and counting:
                    turns, state = _round_with_hooks_counting(st, opt, p, trace, state)
                elif hooked:
                    turns, state = _round_with_hooks(st, opt, p, trace, state)
                elif adds_cards and counting:
                    turns, state = _round_move_plays_hook_counting(st, opt, p, trace, state)
                elif adds_cards:
                    turns, state = _round_move_plays_hook(st, opt, p, trace, state)
                elif ends_every_move and counting:
                    turns, state = _round_move_end_hook_counting(st, opt, p, trace, state)
                elif ends_every_move:
                    turns, state = _round_move_end_hook(st, opt, p, trace, state)
                elif counting:
                    turns, state = _round_without_hooks_counting(st, opt, p, trace, state)
                else:
                    turns, state = _round_without_hooks(st, opt, p, trace, state)
                if counting:
                    write_measures(st, round_out, r_pos)
                else:
                    no_measures(round_out, r_pos)
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
                if opt.scoring == R.SCORING_LAZY and st.winner >= 0:
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

    games.__name__ = games.__qualname__ = entry_name(level, counting) + _ROLE[role]
    return kernel(entry=True)(games)


# By hook level, without counting and counting: each compiled the first time a game plays it
# (a run that does not count compiles no counting loop).
_ENTRIES = tuple(_game_loop(level) for level in (NO_HOOKS, MOVE_END, MOVE_PLAYS, ALL_HOOKS))
_COUNTING_ENTRIES = tuple(_game_loop(level, counting=True)
                          for level in (NO_HOOKS, MOVE_END, MOVE_PLAYS, ALL_HOOKS))
# Compiled when a game first seats an expert.
_SEARCH_ENTRIES = tuple(_game_loop(ALL_HOOKS, SEARCH, counting) for counting in (False, True))
