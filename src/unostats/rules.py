"""The rule table: everything said about a rule option, in its one row.

A row holds the option's values and default, its catalogue ids, the move hooks it acts in, what
it needs of the other options, the cards it acts on and a sample value for the benchmark. The
table drives scenario validation and defaults, the rules page (``docs/rules.md``, with
``catalogue.py``), the kernel's options record (engine/_layout.py) and its value codes (below:
``<KEY>_<VALUE>``, an enum value's index, read by the kernels as module constants), the hook
levels (engine/_turns.py), the referee's view of the rules and the benchmark's variants.
``RuleSet.from_mapping`` rejects anything else with a clear message, so no rule is ever
silently ignored.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import cards, codes


@dataclass(frozen=True)
class Needs:
    """While its option takes one of ``values``, the option ``other`` must take one of
    ``allowed`` (``why``: the reason, in a few words)."""

    values: tuple[Any, ...]
    other: str
    allowed: tuple[Any, ...]
    why: str


# The move hooks of engine/_turns.py an option may act in, fewest first: none, the end of every
# move, that and the cards a move adds to its first, or all of them (the default, so a new rule
# runs every hook until its row says less).
NONE, MOVE_END, MOVE_PLAYS, ALL = "none", "move_end", "move_plays", "all"
HOOKS = (NONE, MOVE_END, MOVE_PLAYS, ALL)


@dataclass(frozen=True)
class RuleOption:
    key: str
    rule_ids: str  # catalogue ids (catalogue.py, docs/rules.md), e.g. "P5"
    doc: str
    values: tuple[Any, ...] | None = None  # enum or bool values, default first
    int_range: tuple[int, int] | None = None  # inclusive bounds for integer options
    default: Any = None
    hooks: str = ALL  # HOOKS: the move hooks it may act in when not off
    needs: tuple[Needs, ...] = ()
    cards: tuple[str, ...] = ()  # deck kinds (cards.DECK_KEYS) it acts on, not in the default deck
    sample: int | None = None  # an int option's value that switches its rule on (the benchmark)

    @property
    def kind(self) -> str:
        if self.int_range is not None:
            return "int"
        if self.values == (False, True):
            return "bool"
        return "enum"

    def allowed_text(self) -> str:
        if self.int_range is not None:
            lo, hi = self.int_range
            return f"an integer from {lo} to {hi}"
        return ", ".join(_show(v) for v in self.values)

    def code(self, value: Any) -> int:
        """The kernel's integer for a (validated) value: an enum's index in ``values`` (so the
        codes.py constant of each value is that index; tests/test_codes.py checks them all)."""
        if self.int_range is not None:
            return int(value)
        return self.values.index(value)

    def companions(self, value: Any) -> dict[str, Any]:
        """What a one-option change to ``value`` needs besides: each option it ``needs`` at its
        first allowed value (when its default is not allowed), and the deck kinds it acts on."""
        out: dict[str, Any] = {n.other: n.allowed[0] for n in self.needs
                               if value in n.values and RULES_BY_KEY[n.other].default
                               not in n.allowed}
        if self.cards:
            out[DECK_KEY] = {kind: DECK_SAMPLES[kind] for kind in self.cards}
        return out


def _show(v: Any) -> str:
    return json.dumps(v) if isinstance(v, bool) else str(v)


def _enum(key, ids, doc, values, **more):
    return RuleOption(key, ids, doc, values=tuple(values), default=values[0], **more)


def _bool(key, ids, doc, **more):
    return RuleOption(key, ids, doc, values=(False, True), default=False, **more)


def _int(key, ids, doc, lo, hi, default, **more):
    return RuleOption(key, ids, doc, int_range=(lo, hi), default=default, **more)


TARGET_SCORE_DEFAULTS = {
    "winner_takes_all": 500,
    "own_points_low_wins": 500,
    "own_points_lose_at": 200,
    "card_count": 100,
    "lazy": 5,  # rounds won
}
# R3/R4: the scorings under which the lowest total leads a game's standings (the others: the
# highest).
LOWEST_TOTAL_LEADS = ("own_points_low_wins", "own_points_lose_at")


RULE_OPTIONS: tuple[RuleOption, ...] = (
    _int("hand_size", "S1", "Cards dealt to each player.", 1, 20, 7, hooks=NONE),
    _enum("first_card", "S2", "What the first discard does.",
          ("official", "number_only", "extreme"), hooks=NONE),
    _enum("wild_draw_four", "P2", "When a Wild Draw Four may be played.",
          ("no_matching_colour", "free"), hooks=NONE),
    _enum("wild", "P3", "When a plain Wild may be played.",
          ("free", "no_matching_colour"), hooks=NONE),
    _enum("challenge", "P4", "Penalties when a restricted black card is challenged.",
          ("official", "house", "extreme"), hooks=NONE),
    _enum("draw", "P5", "What a player with no playable card does.",
          ("one_may_play", "one_then_pass", "two", "until_playable"), hooks=NONE),
    _bool("colour_cycle", "P7", "Black cards set the next colour of a fixed cycle.", hooks=NONE),
    _bool("double_action", "A2", "Two identical coloured action cards in one turn.",
          hooks=MOVE_PLAYS),
    _enum("stack_draw_two", "A3", "Draw Two stacking.",
          ("none", "sum", "pass_on"), hooks=NONE,
          needs=(Needs(("sum", "pass_on"), "reverse_deflects", ("none", "back"),
                       "the +2/Reverse escalation draws every Draw Two at once, so Draw Twos "
                       "cannot also stack"),)),
    _enum("stack_draw_four", "A4", "Wild Draw Four stacking.",
          ("none", "sum", "pass_on"), hooks=NONE),
    _bool("draw_two_on_draw_four", "A5", "Escape a +4 with a Draw Two of the named colour.",
          hooks=NONE),
    _bool("draw_four_on_draw_two", "A4", "Answer a pending Draw Two with a Wild Draw Four: 4 "
          "more, then a chain of +4s (stack_draw_four).", hooks=NONE,
          needs=(Needs((True,), "reverse_deflects", ("none", "back"),
                       "the +2/Reverse escalation draws every Draw Two at once, so none waits "
                       "for a Wild Draw Four"),)),
    _enum("reverse_deflects", "A6", "A Reverse sends a pending draw penalty back.",
          ("none", "back", "extreme"), hooks=NONE),
    _bool("stack_skip", "A7", "A Skip on a Skip skips one more player.", hooks=NONE),
    _bool("skip_escape", "A8", "A skipped player escapes by jumping in with an identical Skip.",
          hooks=NONE),
    _enum("jump_in", "J1-J4", "Out-of-turn play of an identical card.",
          ("none", "numbers", "all_but_draw_four", "extreme")),
    _enum("multi_play", "N3", "Several cards in one turn.",
          ("none", "same_rank", "two_matching"), hooks=MOVE_PLAYS,
          needs=(Needs(("same_rank", "two_matching"), "eight_cover", (False,),
                       "an 8 is covered by one card of its player, not by the extra cards of "
                       "a turn"),)),
    _bool("seven_zero", "N1", "7 swaps hands with a chosen player; 0 passes all hands on.",
          hooks=NONE),
    _bool("five_swap", "N2", "A 5 swaps one card with any player.", hooks=NONE),
    _int("zero_slap", "N4", "Cards the slowest player draws after a 0 (0 = off).", 0, 20, 0,
         hooks=MOVE_END, sample=4),
    _int("uno_slap", "N4", "Cards the slowest player draws after an UNO call (0 = off).",
         0, 20, 0, hooks=MOVE_END, sample=2),
    _enum("silence", "N5", "Silence rules.", ("none", "seven", "two", "black")),
    _bool("eight_cover", "N6", "An 8 must be covered by its player."),
    _int("uno_penalty", "U1", "Cards drawn when caught without calling UNO (0 = no UNO rule).",
         0, 10, 2, hooks=MOVE_END),
    _int("mistake_penalty", "U2", "Cards drawn per rule mistake.",
         0, 2, 0, sample=2),
    _enum("scoring", "R2-R6", "How rounds are scored and a game is won.",
          ("winner_takes_all", "own_points_low_wins", "own_points_lose_at", "card_count",
           "lazy"), hooks=NONE),
    _int("target_score", "R2-R5",
         "Score that ends a game (default by scoring: 500; 200 for own_points_lose_at; "
         "100 for card_count; 5 rounds won for lazy).", 1, 100_000, None, hooks=NONE),
    _int("lone_zero_value", "R7", "Value of a hand of exactly one 0 at round end (0 = off).",
         0, 100, 0, hooks=NONE, sample=100),
    _bool("h2o_bonus", "R8", "Finishing with a hit-all card takes points off.", hooks=NONE,
          cards=("hit_all_one", "hit_all_two"),
          needs=(Needs((True,), "scoring", ("own_points_lose_at", "own_points_low_wins"),
                       "R8 takes points off the finisher's own total"),)),
    _enum("round_end", "R9-R10", "When a round ends.",
          ("first_out", "to_the_last", "seven_rounds"), hooks=NONE),
    _int("max_turns", "-", "Safety cap on turns per round; a capped round has no winner.",
         10, 1_000_000, 5000, hooks=NONE),
    _int("max_rounds", "-", "Safety cap on rounds per game; a capped game has no winner.",
         1, 100_000, 1000, hooks=NONE),
    _enum("blank_effect", "D3", "What a blank card does.",
          ("none", "draw_ten"), hooks=NONE, cards=("blank",)),
    _enum("custom_wild_effect", "D5", "What a customizable wild does.",
          ("everyone_draws_two", "swap_one_with_next"), hooks=NONE, cards=("custom_wild",)),
)
RULES_BY_KEY: dict[str, RuleOption] = {o.key: o for o in RULE_OPTIONS}

# The kernels' code of every enum value, ``<KEY>_<VALUE>`` (e.g. STACK_DRAW_TWO_SUM): its index
# in the row's ``values``, so the default is 0. Module constants, which Numba freezes into the
# kernels (engine/_cache.py hashes this file).
VALUE_CODES: dict[str, int] = {f"{o.key}_{v}".upper(): i for o in RULE_OPTIONS
                               if o.kind == "enum" for i, v in enumerate(o.values)}
if VALUE_CODES.keys() & globals().keys():  # a value named like another constant of this module
    raise ImportError(f"rule value codes clash: {sorted(VALUE_CODES.keys() & globals().keys())}")
globals().update(VALUE_CODES)

DECK_KEY = "deck"  # mapping of card counts (cards.DECK_KEYS)
DECK_RULE_IDS = "D1, D3-D6"  # the catalogue's rules the deck's counts set
DECK_RANGE = (0, 40)
# Extra card kinds at a count the bundled scenarios use: the benchmark's, and the cards a rule
# that acts on them is played with (``RuleOption.companions``).
DECK_SAMPLES = {"blank": 4, "hit_all_one": 2, "hit_all_two": 2, "swap_hands": 1, "custom_wild": 4}

ALL_RULE_KEYS = tuple(o.key for o in RULE_OPTIONS) + (DECK_KEY,)

POLICIES = (
    "random",
    "first_legal",
    "colour_first",
    "number_first",
    "actions_first",
    "save_actions",
    "high_value_first",
    "wild_last",
    "strategist",
)
POLICY_DOCS = {
    "random": "uniform over the legal card instances in hand",
    "first_legal": "the legal card with the lowest card id",
    "colour_first": "a card of the current colour, else one of the same number/symbol, else black",
    "number_first": "a card of the same number/symbol, else one of the current colour, else black",
    "actions_first": "coloured action cards first, then black cards, then numbers",
    "save_actions": "numbers first, then coloured action cards, black cards last",
    "high_value_first": "the legal card worth the most points",
    "wild_last": "any legal coloured card before a black card",
    "strategist": ("when the next player holds two cards or fewer, a Draw Two or Wild Draw Four, "
                   "else a Skip or Reverse; otherwise a card of the colour it holds most (high "
                   "numbers first), black cards kept for the end"),
}

# Seat behaviour: name -> (default, meaning). B1's probabilities, its ``reaction`` weight, and
# ``keep_drawn``: the choice P5 one_may_play leaves a seat ("may be played") as a hand size.
BEHAVIOUR: dict[str, tuple[float, str]] = {
    "forget_uno": (0.05, "probability of forgetting to call UNO when going down to one card"),
    "catch_uno": (0.5, "probability of catching another player's missed UNO call"),
    "challenge": (0.25, "probability of challenging a restricted black card played on you"),
    "bluff": (0.1, "probability, per turn, of playing a restricted black card illegally"),
    "jump_in": (0.8, "probability of jumping in when able"),
    "silence_break": (0.05, "probability of breaking a silence rule"),
    "mistake": (0.0, "probability of a rule mistake per turn"),
    "reaction": (1.0, "relative speed in slap and jump-in races (higher is faster)"),
    "keep_drawn": (0, "under draw: one_may_play, a drawn black card that may be played is kept "
                      "while the hand then holds more cards than this (0: always played)"),
}
BEHAVIOUR_SLOTS = {
    "forget_uno": codes.B_FORGET_UNO,
    "catch_uno": codes.B_CATCH_UNO,
    "challenge": codes.B_CHALLENGE,
    "bluff": codes.B_BLUFF,
    "jump_in": codes.B_JUMP_IN,
    "silence_break": codes.B_SILENCE_BREAK,
    "mistake": codes.B_MISTAKE,
    "reaction": codes.B_REACTION,
    "keep_drawn": codes.B_KEEP_DRAWN,
}


def unmet_needs(values: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(key, message) for every ``Needs`` of the table that the resolved ``values`` break."""
    out = []
    for opt in RULE_OPTIONS:
        value = values[opt.key]
        for n in opt.needs:
            if value in n.values and values[n.other] not in n.allowed:
                allowed = " or ".join(_show(v) for v in n.allowed)
                out.append((opt.key, f"{_show(value)} cannot be combined with {n.other}: "
                                     f"{_show(values[n.other])} ({n.why}); it needs {n.other}: "
                                     f"{allowed}"))
    return out


class RuleError(ValueError):
    """A rule mapping is invalid. ``problems`` lists (key path, message) pairs."""

    def __init__(self, problems: list[tuple[str, str]]):
        self.problems = problems
        super().__init__("; ".join(f"{k}: {m}" for k, m in problems))


def check_value(opt: RuleOption, value: Any) -> str | None:
    """Return a message if ``value`` is not valid for ``opt``, else None."""
    if opt.int_range is not None:
        if isinstance(value, bool) or not isinstance(value, int):
            return f"expected {opt.allowed_text()}, got {value!r}"
        lo, hi = opt.int_range
        if not lo <= value <= hi:
            return f"{value} is out of range: expected {opt.allowed_text()}"
    elif opt.kind == "bool":
        if not isinstance(value, bool):
            return f"expected true or false, got {value!r}"
    elif value not in opt.values:
        return f"unknown value {value!r}; allowed: {opt.allowed_text()}"
    return None


def check_deck(deck: Any) -> list[tuple[str, str]]:
    if not isinstance(deck, Mapping):
        return [(DECK_KEY, f"expected a mapping of card counts, got {deck!r}")]
    problems = []
    lo, hi = DECK_RANGE
    for k, v in deck.items():
        path = f"{DECK_KEY}.{k}"
        if k not in cards.DECK_KEYS:
            problems.append((path, f"unknown card kind; allowed: {', '.join(cards.DECK_KEYS)}"))
        elif isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
            problems.append((path, f"expected an integer from {lo} to {hi}, got {v!r}"))
    return problems


@dataclass(frozen=True)
class RuleSet:
    """One immutable, fully resolved rule set (every key present, defaults applied)."""

    values: Mapping[str, Any]
    deck: Mapping[str, int] = field(default_factory=dict)

    @classmethod
    def from_mapping(cls, rules: Mapping[str, Any] | None = None) -> RuleSet:
        """Validate ``rules`` (section-12 keys) and resolve every default; raises RuleError."""
        rules = dict(rules or {})
        problems: list[tuple[str, str]] = []
        deck = rules.pop(DECK_KEY, {}) or {}
        problems += check_deck(deck)
        values: dict[str, Any] = {}
        for key, value in rules.items():
            opt = RULES_BY_KEY.get(key)
            if opt is None:
                problems.append((key, f"unknown rule; allowed: {', '.join(ALL_RULE_KEYS)}"))
                continue
            msg = check_value(opt, value)
            if msg:
                problems.append((key, msg))
            values[key] = value
        if problems:
            raise RuleError(problems)
        for opt in RULE_OPTIONS:
            values.setdefault(opt.key, opt.default)
        problems += [(key, message) for key, message in unmet_needs(values)]
        if problems:
            raise RuleError(problems)
        if values["target_score"] is None:
            values["target_score"] = TARGET_SCORE_DEFAULTS[values["scoring"]]
        full_deck = {**cards.DECK_KEYS, **deck}
        return cls(values=values, deck=full_deck)

    def as_dict(self) -> dict[str, Any]:
        return {**dict(self.values), DECK_KEY: dict(self.deck)}

    def canonical_json(self) -> str:
        return json.dumps(self.as_dict(), sort_keys=True, separators=(",", ":"))

    def hash(self) -> str:
        return hashlib.sha256(self.canonical_json().encode()).hexdigest()[:16]

    def deck_counts(self) -> np.ndarray:
        return cards.deck_counts(self.deck)

    @property
    def standings_sign(self) -> int:
        """1 where the highest total leads the standings, -1 where the lowest does."""
        return -1 if self.values["scoring"] in LOWEST_TOTAL_LEADS else 1

    def check_players(self, players: int) -> str | None:
        """Message if this deck cannot deal ``players`` hands plus a first discard."""
        total = int(self.deck_counts().sum())
        need = players * self.values["hand_size"] + 1
        if total < need:
            return (f"the deck has {total} cards, too few to deal {self.values['hand_size']} "
                    f"to {players} players and turn up a first card ({need} needed)")
        return None


def behaviour_array(per_seat: list[Mapping[str, float]]) -> np.ndarray:
    """float64 [seats, N_BEHAVIOUR] from per-seat mappings (missing names take defaults)."""
    arr = np.empty((len(per_seat), codes.N_BEHAVIOUR), dtype=np.float64)
    for s, beh in enumerate(per_seat):
        unknown = set(beh) - set(BEHAVIOUR)
        if unknown:
            raise RuleError([(f"behaviour.{k}", f"unknown; allowed: {', '.join(BEHAVIOUR)}")
                             for k in sorted(unknown)])
        for name, (default, _) in BEHAVIOUR.items():
            arr[s, BEHAVIOUR_SLOTS[name]] = float(beh.get(name, default))
    return arr


def coded_policy(policy: str) -> int:
    """The kernel code (codes.POLICY_<NAME>) of a bundled policy coded in the kernel rather than
    played as a preset of weights (seats.CODED); raises RuleError for any other name."""
    code = getattr(codes, f"POLICY_{policy.upper()}", None)
    if policy not in POLICIES or code is None:
        raise RuleError([("policy", f"unknown policy {policy!r}; allowed: {', '.join(POLICIES)}")])
    return code
