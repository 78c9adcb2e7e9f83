"""Scripted rule cases: a fixed deal written as data, played against the kernel and the referee.

A ``Case`` deals known hands from a fixed deck order (the hands dealt by the first dealer, then
``flip``, then ``draws``; every round of the game is dealt from that same order), seats
deterministic players (``first_legal`` and every behaviour probability 0 unless the case says
otherwise; ``reaction`` weights 1) and lists what docs/engine.md prescribes: the events of each
round from its first flip up to round_end (all of them, or the first ones with ``prefix``), the
round's ending (round_end and the score events), the game's end, numbers the referee computes
(``facts``) and every event of some kinds (``every``).

``check_case`` is the one function a family's parametrized test calls:

1. the kernel plays the case (``trace_scripted_game``), the referee checks its trace
   (``check_trace``) and the case's expectations are asserted on it;
2. when the case spells out every event of the game (no prefix, every round's table and
   ending), those expected events alone are turned into a trace, which the referee must accept
   with the same ``facts``: so the expectations and the referee agree without the kernel.

``written`` turns a game stated the same way (hands, then the events) into a trace for the
referee alone, without the kernel: the referee's own tests write their legal games with it and
damage them (tests/rules/traces.py).

Events read as tuples, e.g. ``("play", 1, "R5")``, ``("draw", 0, "B4", "draw_two")``,
``("colour", 1, "green")``, ``("take_back", 1, "+4")``, ``("jump_in", 2, "R-skip", "escape")``
(an A8 escape; a J1 jump-in has no fourth field). Cards are named as in ``cards.card_to_str``:
"R5", "Y-skip", "G-reverse", "B+2", "wild", "+4", "blank", "hit+1", "hit+2", "swap-hands",
"custom-wild".
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest

from unostats import cards, codes
from unostats import rules as rules_mod
from unostats.engine.referee import GameResult, check_trace, format_trace
from unostats.engine.simulate import Trace, trace_scripted_game
from unostats.rules import RuleSet
from unostats.seats import Seat, WeightedPolicy

CARD_IDS = {cards.card_to_str(t): t for t in range(cards.N_TYPES)}


def card(name: str) -> int:
    return CARD_IDS[name]


# ---------------------------------------------------------------- seats, rules and decks

# Every behaviour probability of B1 is certain (0) unless a case sets it to 0 or 1; ``reaction``
# is a weight (any value >= 0, default 1); ``keep_drawn`` a number of cards (default 0: a drawn
# card is always played). A race is certain when one seat in it weighs more than
# 0 and every other weighs 0 (docs/engine.md J4); a slap's slowest is certain for a seat of
# weight 0 (docs/engine.md "The slowest seat").
CERTAIN = {name: 0.0 for name in rules_mod.BEHAVIOUR if name != "reaction"}


def seat(policy: str | WeightedPolicy = "first_legal", **behaviour: float) -> Seat:
    """A deterministic seat: ``policy`` (a bundled name or a weighted policy), behaviour
    probabilities 0 unless given (0 or 1)."""
    for name, p in behaviour.items():
        assert (name in CERTAIN and p in (0.0, 1.0) or name in ("reaction", "keep_drawn")
                and p >= 0), (name, p)
    return Seat.playing(policy, {**CERTAIN, "reaction": 1.0, **behaviour})


# Rules every case starts from (a case's ``rules`` override them; hand_size comes from the hands).
BASE_RULES = {"uno_penalty": 0, "max_rounds": 1}

# Small decks (rules {"deck": ...}); every other count is 0.
NO_CARDS = {"zero": 0, "numbers": 0, "skip": 0, "reverse": 0, "draw_two": 0, "wild": 0,
            "wild_draw_four": 0}


def small_deck(**counts: int) -> dict[str, int]:
    return {**NO_CARDS, **counts}


def deck_order(players: int, dealer: int, hands: Mapping[int, Sequence[str]],
               flip: str | Sequence[str], draws: Sequence[str] = ()) -> list[str]:
    """The deck top that deals ``hands`` (one card per pass from the dealer's left), then turns
    up ``flip`` (several names: the candidates flipped in turn), then serves ``draws``."""
    sizes = {len(h) for h in hands.values()}
    assert sorted(hands) == list(range(players)) and len(sizes) == 1, hands
    order = []
    for k in range(sizes.pop()):
        for offset in range(1, players + 1):
            order.append(hands[(dealer + offset) % players][k])
    order += [flip] if isinstance(flip, str) else list(flip)
    return order + list(draws)


def deal_events(players: int, dealer: int, hands: Mapping[int, Sequence[str]]) -> list[tuple]:
    """The deal events that give ``hands`` (a later round of a written game dealt anew)."""
    return [("deal", (dealer + 1 + i % players) % players, name)
            for i, name in enumerate(deck_order(players, dealer, hands, flip=()))]


# ---------------------------------------------------------------- events as tuples


def draws(seat_no: int, names: Sequence[str], reason: str) -> list[tuple]:
    """Expected draw events: ``seat_no`` draws ``names`` in order for ``reason``."""
    return [("draw", seat_no, n, reason) for n in names]


def scores(*hand_points_and_scores: tuple[int, int]) -> list[tuple]:
    """Expected score events, seat by seat: (hand points, score after the round)."""
    return [("score", s, hp, sc) for s, (hp, sc) in enumerate(hand_points_and_scores)]


CAP = ("game_end", -1, "cap")

# Events with a seat and one more number.
_SEAT_AND_NUMBER = (codes.EV_MISTAKE, codes.EV_SILENCE_BREAK, codes.EV_SWAP_HANDS,
                    codes.EV_PASS_HANDS, codes.EV_FINISH, codes.EV_UNO_MISS)
_CARD_EVENTS = (codes.EV_DEAL, codes.EV_PLAY, codes.EV_TAKE_BACK, codes.EV_JUMP_IN)
_KINDS = {name: kind for kind, name in codes.EVENT_NAMES.items()}
ESCAPE = 1  # b of an A8 escape's jump_in event (a J1 jump-in has b = -1)


def decode(row: Sequence[int]) -> tuple:
    """A trace row as the tuple the cases write (round_start's first player is not shown)."""
    kind, s, a, b = (int(x) for x in row)
    name = codes.EVENT_NAMES.get(kind, f"kind {kind}")
    if kind == codes.EV_ROUND_START:
        return (name, s, a)
    if kind == codes.EV_JUMP_IN and b == ESCAPE:
        return (name, s, cards.card_to_str(a), "escape")
    if kind in _CARD_EVENTS:
        return (name, s, cards.card_to_str(a))
    if kind in (codes.EV_FLIP, codes.EV_FLIP_RETURN):
        return (name, cards.card_to_str(a))
    if kind in (codes.EV_TURN, codes.EV_PASS, codes.EV_SKIP, codes.EV_UNO_CALL):
        return (name, s)
    if kind == codes.EV_COLOUR:
        return (name, s, cards.colour_to_str(a))
    if kind == codes.EV_DRAW:
        return (name, s, cards.card_to_str(a), codes.DRAW_REASON_NAMES[b])
    if kind == codes.EV_DRAW_FAIL:
        return (name, s, codes.DRAW_REASON_NAMES[b])
    if kind in (codes.EV_DIRECTION, codes.EV_RESHUFFLE):
        return (name, a)
    if kind == codes.EV_CHALLENGE:
        return (name, s, a, {1: "guilty", 0: "innocent"}.get(b, b))
    if kind in _SEAT_AND_NUMBER:
        return (name, s, a)
    if kind == codes.EV_ROUND_END:
        return (name, s, codes.ROUND_END_NAMES[a], b)
    if kind in (codes.EV_SCORE, codes.EV_NEW_HAND):
        return (name, s, a, b)
    if kind == codes.EV_GAME_END:
        return (name, s, codes.GAME_END_NAMES[a])
    if kind == codes.EV_GIVE:
        return (name, s, cards.card_to_str(a), b)
    if kind == codes.EV_SLAP:
        return (name, s, a, codes.SLAP_NAMES[b])
    return (name, s, a, b)


def encode(event: tuple) -> tuple[int, int, int, int]:
    """The trace row of an event as ``decode`` shows it (its inverse, for the expected trace;
    round_start's first player is not shown, so it comes back as -1)."""
    name, *rest = event
    kind = _KINDS[name]
    if kind == codes.EV_JUMP_IN and rest[2:] == ["escape"]:
        s, c, _ = rest
        return kind, s, card(c), ESCAPE
    if kind in _CARD_EVENTS:
        s, c = rest
        return kind, s, card(c), -1
    if kind in (codes.EV_FLIP, codes.EV_FLIP_RETURN):
        return kind, -1, card(rest[0]), -1
    if kind in (codes.EV_DIRECTION, codes.EV_RESHUFFLE):
        return kind, -1, rest[0], -1
    if kind == codes.EV_COLOUR:
        s, colour = rest
        return kind, s, cards.COLOURS.index(colour), -1
    if kind == codes.EV_DRAW:
        s, c, reason = rest
        return kind, s, card(c), codes.DRAW_REASON_NAMES.index(reason)
    if kind == codes.EV_DRAW_FAIL:
        s, reason = rest
        return kind, s, -1, codes.DRAW_REASON_NAMES.index(reason)
    if kind == codes.EV_CHALLENGE:
        s, a, verdict = rest
        return kind, s, a, {"guilty": 1, "innocent": 0}.get(verdict, verdict)
    if kind == codes.EV_ROUND_END:
        s, how, b = rest
        return kind, s, codes.ROUND_END_NAMES.index(how), b
    if kind == codes.EV_GAME_END:
        s, how = rest
        return kind, s, codes.GAME_END_NAMES.index(how), -1
    if kind == codes.EV_GIVE:
        s, c, b = rest
        return kind, s, card(c), b
    if kind == codes.EV_SLAP:
        s, a, what = rest
        return kind, s, a, codes.SLAP_NAMES.index(what)
    s, a, b = (*rest, -1, -1, -1)[:3]
    return kind, s, a, b


# ---------------------------------------------------------------- the data model


@dataclass(frozen=True)
class Round:
    """What a round after the first must show (the first round's are fields of ``Case``)."""

    dealer: int  # round_start's seat
    table: Sequence[tuple] | None = None  # flip .. before round_end; None: not checked
    ending: Sequence[tuple] | None = None  # round_end and the scores; None: not checked
    prefix: bool = False  # ``table`` lists only the first events
    deals: Sequence[tuple] | None = None  # the deal events, where a case spells them out


@dataclass(frozen=True)
class Case:
    """A scripted game and what it must show.

    ``facts`` are numbers the referee computes: "round.<name>" of the first RoundResult,
    "rounds.<name>" a tuple over every round, "game.<name>" of the GameResult. ``every`` maps
    an event kind to every event of that kind in the whole game, in order. ``check`` is for the
    rare expectation data cannot state (a colour named at random); it gets the kernel's
    ``Game``."""

    id: str
    players: int
    hands: Mapping[int, Sequence[str]]
    flip: str | Sequence[str]
    draws: Sequence[str] = ()
    rules: Mapping[str, Any] = field(default_factory=dict)
    seats: Mapping[int, Mapping[str, Any]] = field(default_factory=dict)  # policy, behaviour
    dealer: int = 0
    table: Sequence[tuple] | None = None
    prefix: bool = False
    ending: Sequence[tuple] | None = None
    deals: Sequence[tuple] | None = None
    later: Sequence[Round] = ()
    game_end: tuple | None = CAP
    facts: Mapping[str, Any] = field(default_factory=dict)
    every: Mapping[str, Sequence[tuple]] = field(default_factory=dict)
    check: Callable[[Game], None] | None = None

    @property
    def hand_size(self) -> int:
        return len(next(iter(self.hands.values())))

    @property
    def all_rules(self) -> dict[str, Any]:
        """The rules the case is played with (before the rule table's defaults)."""
        return {**BASE_RULES, "hand_size": self.hand_size, **self.rules}

    def value(self, key: str) -> Any:
        """The value of rule ``key`` in this case (the rule table's default if not given)."""
        return RuleSet.from_mapping(self.all_rules).values[key]

    @property
    def rounds(self) -> tuple[Round, ...]:
        first = Round(self.dealer, self.table, self.ending, self.prefix, self.deals)
        return (first, *self.later)

    @property
    def complete(self) -> bool:
        """Does the case spell out every event of the game?"""
        return self.game_end is not None and all(
            r.table is not None and r.ending is not None and not r.prefix for r in self.rounds)

    def seat_list(self) -> list[Seat]:
        out = []
        for s in range(self.players):
            spec = dict(self.seats.get(s, {}))
            out.append(seat(spec.pop("policy", "first_legal"), **spec))
        return out

    def deck_top(self) -> list[str]:
        return deck_order(self.players, self.dealer, self.hands, self.flip, self.draws)

    def dealt(self, dealer: int) -> list[tuple]:
        """The deal events of a round dealt by ``dealer`` from the case's deck order."""
        names = self.deck_top()[:self.players * self.hand_size]
        return [("deal", (dealer + 1 + i % self.players) % self.players, name)
                for i, name in enumerate(names)]


def first_round(r: Round) -> dict[str, Any]:
    """``Case`` keyword arguments for its first round, from a ``Round`` (multi-round cases)."""
    return {"dealer": r.dealer, "table": r.table, "ending": r.ending, "prefix": r.prefix,
            "deals": r.deals}


def cases_by_id(cases: Sequence[Case]) -> dict:
    """pytest.mark.parametrize arguments for a family's table (ids must be unique)."""
    ids = [c.id for c in cases]
    assert len(ids) == len(set(ids)), sorted(i for i in ids if ids.count(i) > 1)
    return {"argnames": "case", "argvalues": list(cases), "ids": ids}


# ---------------------------------------------------------------- playing a case


@dataclass(frozen=True)
class Game:
    """A traced game (the kernel's, or the expected one), its events read as tuples."""

    trace: Trace
    result: GameResult  # what the referee computed (it accepted the trace)
    events: tuple[tuple, ...]

    @property
    def text(self) -> str:
        return format_trace(self.trace)

    def round(self, number: int = 1) -> list[tuple]:
        """Events of round ``number``, from its round_start to its last score."""
        starts = [i for i, e in enumerate(self.events) if e[0] == "round_start"]
        lo = starts[number - 1]
        hi = starts[number] if number < len(starts) else len(self.events)
        return [e for e in self.events[lo:hi] if e[0] != "game_end"]

    def deals(self, number: int = 1) -> list[tuple]:
        return [e for e in self.round(number) if e[0] == "deal"]

    def table(self, number: int = 1) -> list[tuple]:
        """Round ``number`` from its first flip up to (not including) round_end."""
        events = self.round(number)
        lo = next(i for i, e in enumerate(events) if e[0] == "flip")
        hi = next(i for i, e in enumerate(events) if e[0] == "round_end")
        return events[lo:hi]

    def ending(self, number: int = 1) -> list[tuple]:
        """round_end and the score events of round ``number``."""
        events = self.round(number)
        return events[next(i for i, e in enumerate(events) if e[0] == "round_end"):]

    @property
    def game_end(self) -> tuple:
        assert self.events[-1][0] == "game_end"
        return self.events[-1]


def _refereed(trace: Trace, what: str) -> Game:
    try:
        result = check_trace(trace)
    except AssertionError as err:
        raise AssertionError(f"{what}: {err}\n{format_trace(trace)}") from err
    return Game(trace, result, tuple(decode(row) for row in trace.events))


def kernel_game(case: Case) -> Game:
    """The kernel plays the case, counting how its rounds play (the facts may name them); the
    referee must accept its trace."""
    trace = trace_scripted_game(rules=RuleSet.from_mapping(case.all_rules), players=case.players,
                                seats=case.seat_list(), dealer=case.dealer,
                                deck_top=[card(n) for n in case.deck_top()], how_it_plays=True)
    return _refereed(trace, f"{case.id}: the referee rejects the kernel's trace")


def expected_trace(case: Case) -> Trace:
    """The case's expected events as a trace, without the kernel (the case must be complete)."""
    assert case.complete, case.id
    return _as_trace(case, RuleSet.from_mapping(case.all_rules))


def _as_trace(case: Case, rules: RuleSet) -> Trace:
    """The case's events as a trace (a written game may stop short: no ending, no game_end)."""
    rows = []
    for number, r in enumerate(case.rounds, 1):
        rows.append((codes.EV_ROUND_START, r.dealer, number, -1))
        deals = case.dealt(r.dealer) if r.deals is None else r.deals
        rows += [encode(e) for e in (*deals, *r.table, *(r.ending or ()))]
    if case.game_end is not None:
        rows.append(encode(case.game_end))
    return Trace(rules=rules, players=case.players,
                 policies=tuple(s.policy for s in case.seat_list()), seed=0, game=0,
                 weighted=tuple(s.weighted for s in case.seat_list()),
                 keep_drawn=tuple(int(s.behaviour.get("keep_drawn", 0)) for s in case.seat_list()),
                 deck_counts=rules.deck_counts(), card_points=cards.card_points(),
                 events=np.array(rows, dtype=np.int64).reshape(-1, 4))


def _fact(result: GameResult, name: str) -> Any:
    scope, _, attr = name.partition(".")
    if scope == "round":
        return getattr(result.rounds[0], attr)
    if scope == "rounds":
        return tuple(getattr(r, attr) for r in result.rounds)
    assert scope == "game", name
    return getattr(result, attr)


def assert_facts(case: Case, game: Game, what: str) -> None:
    for name, expected in case.facts.items():
        got = _fact(game.result, name)
        assert got == expected, f"{case.id} ({what}): {name} = {got!r}, expected {expected!r}"
    for kind, expected in case.every.items():
        got = [e for e in game.events if e[0] == kind]
        assert got == list(expected), f"{case.id} ({what}): every {kind}\n{game.text}"


def assert_plays_as_expected(case: Case, game: Game) -> None:
    """The case's expectations on a game traced from it."""
    def fail(what: str) -> str:
        return f"{case.id}: {what}\n{game.text}"

    assert len(game.result.rounds) == len(case.rounds), fail("number of rounds")
    for number, r in enumerate(case.rounds, 1):
        assert game.round(number)[0] == ("round_start", r.dealer, number), fail("round_start")
        assert game.deals(number) == case.dealt(r.dealer), fail(f"round {number}: the deal")
        if r.deals is not None:
            assert game.deals(number) == list(r.deals), fail(f"round {number}: the deal")
        if r.table is not None:
            got = game.table(number)
            if r.prefix:
                got = got[:len(r.table)]
            assert got == list(r.table), fail(f"round {number}: the events")
        if r.ending is not None:
            assert game.ending(number) == list(r.ending), fail(f"round {number}: the ending")
    if case.game_end is not None:
        assert game.game_end == case.game_end, fail("game_end")
    assert_facts(case, game, "kernel")
    if case.check is not None:
        case.check(game)


def check_case(case: Case) -> None:
    """Play ``case`` against the kernel and the referee (see the module docstring)."""
    game = kernel_game(case)
    assert_plays_as_expected(case, game)
    if case.complete:
        expected = _refereed(expected_trace(case),
                             f"{case.id}: the referee rejects the expected events")
        assert_facts(case, expected, "expected events")


# ---------------------------------------------------------------- games written out in full

# A 54-card deck with one card of every standard type (numbers 0-9, actions, wild, +4).
ONE_OF_EACH = {"zero": 1, "numbers": 1, "skip": 1, "reverse": 1, "draw_two": 1,
               "wild": 1, "wild_draw_four": 1}


def game_rules(deck: Mapping[str, int] | None = None, **rules: Any) -> dict[str, Any]:
    """A game decided by its first round (uno_penalty 0, target_score 1), on ONE_OF_EACH with
    ``deck``'s counts on top."""
    return {"uno_penalty": 0, "target_score": 1, **rules, "deck": {**ONE_OF_EACH, **(deck or {})}}


def one_turn_rules(deck: Mapping[str, int] | None = None, **rules: Any) -> dict[str, Any]:
    """One round capped after its first turn (max_turns 1): enough to check an effect's result."""
    return game_rules(deck, **{"max_rounds": 1, "target_score": 10_000, "max_turns": 1, **rules})


def written(players: int, hands: Mapping[int, Sequence[str]], *, rules: Mapping[str, Any],
            table: Sequence[tuple], ending: Sequence[tuple] = (),
            game_end: tuple | None = CAP, dealer: int = 0, later: Sequence[Round] = ()) -> Trace:
    """A game written out in the cases' notation, as a trace for the referee alone (a legal
    game, one a test damages, or one cut short with no ending and ``game_end=None``): the
    kernel does not play it, so its seats play "random" (the referee checks the rules, not a
    policy's choices) and ``rules`` start from the rule table's defaults, not BASE_RULES."""
    case = Case("written", players, hands, [e[1] for e in table if e[0] == "flip"],
                seats={s: {"policy": "random"} for s in range(players)}, dealer=dealer,
                table=table, ending=ending, game_end=game_end, later=later)
    return _as_trace(case, _unchecked_rules(case.hand_size, rules))


def _unchecked_rules(hand_size: int, rules: Mapping[str, Any]) -> RuleSet:
    """``rules`` over the rule table's defaults. Every key and value must exist, but pairs that
    cannot be combined and sizes out of range are not refused: tests hand them to the referee."""
    values = dict(rules)
    deck = values.pop("deck", {})
    for key, value in values.items():
        opt = rules_mod.RULES_BY_KEY[key]
        if opt.values is not None and value not in opt.values:
            raise ValueError(f"{key}: unknown value {value!r}; allowed: {opt.allowed_text()}")
    unknown = set(deck) - set(cards.DECK_KEYS)
    if unknown:
        raise ValueError(f"deck: unknown card kinds {sorted(unknown)}")
    base = RuleSet.from_mapping({})
    return RuleSet(values={**base.values, "hand_size": hand_size, **values},
                   deck={**base.deck, **deck})


# ---------------------------------------------------------------- on and off


def _switch_off(opt: rules_mod.RuleOption) -> Any:
    """The value that turns an option off: 0 for a count (U1, U2, N4, R7), else its default."""
    return 0 if opt.kind == "int" else opt.values[0]


# Integer options whose 0 turns the rule off; every other integer option is a size or a cap.
SWITCH_INTS = ("zero_slap", "uno_slap", "uno_penalty", "mistake_penalty", "lone_zero_value")
# Deck extras (D3-D5): "off" is the same deal with a plain Wild in the extra card's place.
EXTRA_CARDS = {"blank": "blank", "hit_all_one": "hit+1", "hit_all_two": "hit+2",
               "swap_hands": "swap-hands", "custom_wild": "custom-wild"}


def _deal(case: Case, extra: str | None = None) -> tuple:
    def name(n: str) -> str:
        return "wild" if n == extra else n
    flips = (case.flip,) if isinstance(case.flip, str) else tuple(case.flip)
    return (case.players, case.dealer, tuple(tuple(name(n) for n in case.hands[s])
                                              for s in range(case.players)),
            tuple(name(n) for n in flips))


def missing_on_and_off(cases: Sequence[Case], keys: Sequence[str]) -> list[str]:
    """What ``cases`` lack so that every option in ``keys`` is played on and off on one deal
    (the same players, dealer, hands and first card; the draws may differ):

    - enum and bool options: every value but the default, and the default on the same deal;
    - SWITCH_INTS: a count above 0 and 0 on the same deal;
    - other integer options (sizes, caps): two different values;
    - deck extras (``deck.<kind>``): the card in a hand, and the same deal with a plain Wild.
    """
    missing = []
    for key in keys:
        if key.startswith("deck."):
            kind = key.removeprefix("deck.")
            on = [c for c in cases if c.rules.get("deck", {}).get(kind, 0) > 0]
            off = {_deal(c) for c in cases if c.rules.get("deck", {}).get(kind, 0) == 0}
            if not any(_deal(c, EXTRA_CARDS[kind]) in off for c in on):
                missing.append(f"{key}: no deal played with the card and with a Wild instead")
            continue
        opt = rules_mod.RULES_BY_KEY[key]
        if opt.kind == "int" and key not in SWITCH_INTS:
            if len({c.value(key) for c in cases}) < 2:
                missing.append(f"{key}: played with one value only")
            continue
        off_value = _switch_off(opt)
        off = {_deal(c) for c in cases if c.value(key) == off_value}
        ons = opt.values[1:] if opt.kind != "int" else ("> 0",)
        for on_value in ons:
            on = [c for c in cases if (c.value(key) == on_value if opt.kind != "int"
                                       else c.value(key) > 0)]
            if not any(_deal(c) in off for c in on):
                missing.append(f"{key}: {on_value} and {off_value} are not played on one deal")
    return missing


class Family:
    """One rule family's table of scripted cases and the rule options it owns: a family file
    adds its cases with ``FAMILY.case(...)`` and takes its two tests from ``FAMILY.tests()``."""

    def __init__(self, options: Sequence[str]):
        self.options = tuple(options)
        self.cases: list[Case] = []

    def case(self, *args, **kw) -> Case:
        c = Case(*args, **kw)
        self.cases.append(c)
        return c

    def tests(self):
        """Every case played and checked (``check_case``); every option played on and off."""

        @pytest.mark.parametrize(**cases_by_id(self.cases))
        def test_case(case: Case):
            check_case(case)

        def test_every_option_is_played_on_and_off():
            assert missing_on_and_off(self.cases, self.options) == []

        return test_case, test_every_option_is_played_on_and_off
