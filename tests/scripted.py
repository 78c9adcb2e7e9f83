"""Scripted games for the rule tests: a fixed deal, deterministic seats, readable events.

``play`` deals the given hands from a fixed deck order (``trace_scripted_game``), runs the referee
on the trace and returns a ``Game`` whose events read as tuples, e.g. ``("play", 1, "R5")``,
``("draw", 0, "B4", "draw_two")``, ``("colour", 1, "green")``, ``("take_back", 1, "+4")``. Cards
are named as in ``cards.card_to_str``: "R5", "Y-skip", "G-reverse", "B+2", "wild", "+4".

Every seat is ``first_legal`` with all four chance behaviours at 0 unless a test says otherwise,
so nothing depends on the random stream.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass


from unostats import cards, codes
from unostats.engine.referee import GameResult, check_trace, format_trace
from unostats.engine.simulate import Trace, trace_scripted_game
from unostats.rules import RuleSet
from unostats.seats import Seat

CARD_IDS = {cards.card_to_str(t): t for t in range(cards.N_TYPES)}

# The behaviours that the implemented rules consult; all certain (0 or 1) in scripted games.
CERTAIN = {"forget_uno": 0.0, "catch_uno": 0.0, "challenge": 0.0, "bluff": 0.0}

# Rules every scripted game starts from (a test overrides them by keyword).
BASE_RULES = {"uno_penalty": 0, "max_rounds": 1}

# Small decks (rules {"deck": ...}); every other count is 0.
NO_CARDS = {"zero": 0, "numbers": 0, "skip": 0, "reverse": 0, "draw_two": 0, "wild": 0,
            "wild_draw_four": 0}


def small_deck(**counts: int) -> dict[str, int]:
    return {**NO_CARDS, **counts}


def card(name: str) -> int:
    return CARD_IDS[name]


def seat(policy: str = "first_legal", **behaviour: float) -> Seat:
    """A deterministic seat: ``policy`` and behaviour probabilities (0.0 unless given)."""
    for name, p in behaviour.items():
        assert name in CERTAIN and p in (0.0, 1.0), (name, p)
    return Seat(policy, {**CERTAIN, **behaviour})


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


def _decode(row: Sequence[int]) -> tuple:
    kind, s, a, b = (int(x) for x in row)
    name = codes.EVENT_NAMES.get(kind, f"kind {kind}")
    if kind in _DECODE_ISSUE_5:
        return _DECODE_ISSUE_5[kind](name, s, a, b)
    if kind == codes.EV_ROUND_START:
        return (name, s, a)
    if kind in (codes.EV_DEAL, codes.EV_PLAY, codes.EV_TAKE_BACK, codes.EV_JUMP_IN):
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
    if kind == codes.EV_UNO_MISS:
        return (name, s, a)
    if kind == codes.EV_ROUND_END:
        return (name, s, codes.ROUND_END_NAMES[a], b)
    if kind == codes.EV_SCORE:
        return (name, s, a, b)
    if kind == codes.EV_GAME_END:
        return (name, s, codes.GAME_END_NAMES[a])
    return (name, s, a, b)


# Issue 5 events (docs/engine.md "Number-card rules, deck extras, scoring and round modes"),
# e.g. ("swap_hands", 1, 2), ("give", 1, "G9", 0), ("slap", 0, 1, "zero"), ("finish", 1, 1).
_DECODE_ISSUE_5 = {
    codes.EV_MISTAKE: lambda name, s, a, b: (name, s, a),
    codes.EV_SILENCE_BREAK: lambda name, s, a, b: (name, s, a),
    codes.EV_SWAP_HANDS: lambda name, s, a, b: (name, s, a),
    codes.EV_PASS_HANDS: lambda name, s, a, b: (name, s, a),
    codes.EV_FINISH: lambda name, s, a, b: (name, s, a),
    codes.EV_NEW_HAND: lambda name, s, a, b: (name, s, a, b),
    codes.EV_GIVE: lambda name, s, a, b: (name, s, cards.card_to_str(a), b),
    codes.EV_SLAP: lambda name, s, a, b: (name, s, a, codes.SLAP_NAMES[b]),
}


@dataclass(frozen=True)
class Game:
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

    def kinds(self) -> set[str]:
        return {e[0] for e in self.events}

    def expect(self, expected: Sequence[tuple], number: int = 1, prefix: bool = False) -> None:
        """Assert the table events of round ``number`` (only the first ones with ``prefix``)."""
        got = self.table(number)
        if prefix:
            got = got[:len(expected)]
        assert got == list(expected), "\n" + self.text


def run(players: int, deck_top: Sequence[str], *, dealer: int = 0,
        seats: Mapping[int, Seat] | None = None, **rules) -> Game:
    """Trace a scripted game from ``deck_top`` (card names), check it with the referee."""
    seat_list = [seat() for _ in range(players)]
    for s, st in (seats or {}).items():
        seat_list[s] = st
    ruleset = RuleSet.from_mapping({**BASE_RULES, **rules})
    trace = trace_scripted_game(rules=ruleset, players=players, seats=seat_list, dealer=dealer,
                                deck_top=[card(n) for n in deck_top])
    try:
        result = check_trace(trace)
    except AssertionError as err:
        raise AssertionError(f"{err}\n{format_trace(trace)}") from err
    return Game(trace, result, tuple(_decode(row) for row in trace.events))


def play(players: int, hands: Mapping[int, Sequence[str]], flip: str | Sequence[str],
         draws: Sequence[str] = (), *, dealer: int = 0, seats: Mapping[int, Seat] | None = None,
         **rules) -> Game:
    """Deal ``hands`` (seat -> card names; hand_size defaults to their length), flip ``flip``,
    serve ``draws`` next, and play the scripted game."""
    rules.setdefault("hand_size", len(next(iter(hands.values()))))
    return run(players, deck_order(players, dealer, hands, flip, draws), dealer=dealer,
               seats=seats, **rules)


def draws(seat_no: int, names: Sequence[str], reason: str) -> list[tuple]:
    """Expected draw events: ``seat_no`` draws ``names`` in order for ``reason``."""
    return [("draw", seat_no, n, reason) for n in names]


def scores(*hand_points_and_scores: tuple[int, int]) -> list[tuple]:
    """Expected score events, seat by seat: (hand points, score after the round)."""
    return [("score", s, hp, sc) for s, (hp, sc) in enumerate(hand_points_and_scores)]


def racer(policy: str = "first_legal", *, jump_in: float = 0.0, reaction: float = 1.0,
          **behaviour: float) -> Seat:
    """``seat`` for the jump-in rules (J1-J4, A8): its ``jump_in`` probability (0 or 1) and its
    ``reaction`` weight (any weight >= 0) are set as well, since their defaults (0.8 and 1.0)
    would leave races to chance. A race is certain when one seat in it weighs more than 0 and
    every other weighs 0 (docs/engine.md J4; ``_race`` in the kernels)."""
    assert jump_in in (0.0, 1.0) and reaction >= 0, (jump_in, reaction)
    base = seat(policy, **behaviour)
    return Seat(base.policy, {**base.behaviour, "jump_in": jump_in, "reaction": reaction})


# --- Issue 5 additions -----------------------------------------------------------------------

# Every behaviour certain: the ones the rules of issue 5 consult too (reaction is a weight).
ALL_CERTAIN = {**CERTAIN, "jump_in": 0.0, "silence_break": 0.0, "mistake": 0.0}


def seat_all(policy: str = "first_legal", **behaviour: float) -> Seat:
    """A deterministic seat for any rule: every probability 0 unless given (0 or 1), and the
    ``reaction`` weight 1 unless given."""
    for name, p in behaviour.items():
        assert name in ALL_CERTAIN and p in (0.0, 1.0) or name == "reaction", (name, p)
    return Seat(policy, {**ALL_CERTAIN, **behaviour})


_KINDS = {name: kind for kind, name in codes.EVENT_NAMES.items()}


def encode(event: tuple) -> tuple[int, int, int, int]:
    """The trace row of an event as ``_decode`` shows it (the inverse, for hand-built traces;
    round_start's first player and an A8 escape's b are not shown, so they come back as -1)."""
    name, *rest = event
    kind = _KINDS[name]
    card_kinds = (codes.EV_DEAL, codes.EV_PLAY, codes.EV_TAKE_BACK, codes.EV_JUMP_IN)
    if kind in card_kinds:
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
