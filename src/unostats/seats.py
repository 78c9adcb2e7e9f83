"""Who sits at the table: each seat's play policy (B2: a bundled name, a policy written as data,
``WeightedPolicy``, or a search, ``SearchPolicy``: the expert) and behaviour probabilities (B1),
and the bundled policies as weights (``PRESETS``; ``CODED``: those the weights cannot express)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import cards, codes
from .rules import POLICIES

FEATURES = codes.FEATURE_NAMES  # what a weighted policy scores a card by
COLOUR_CHOICES = ("most_held", "random")  # the colour a black card names, default first
TIE_BREAKS = ("random", "first")  # among the best-scoring cards, default first
SEARCHES = ("rollouts",)  # how a search policy chooses its card, default first
SEES = ("own", "all")  # what a search policy sees: its own hand (and the table), or every hand
GOALS = ("score", "rounds")  # what a search's playouts are worth: what the scoring counts, or wins
COLOURS = ("playout", "search")  # who chooses the colour a search's black card names
BUDGET_RANGE = (1, 4096)  # deals a search samples per choice of card
DEFAULT_BUDGET = 64


def card_kind_features() -> np.ndarray:
    """The kind feature (codes.F_NUMBER .. F_CUSTOM_WILD) of each card type, as a uint8 table
    (the kernel scores by it)."""
    black = {cards.WILD: codes.F_WILD, cards.WILD_DRAW_FOUR: codes.F_WILD_DRAW_FOUR,
             cards.BLANK: codes.F_BLANK, cards.HIT_ALL_ONE: codes.F_HIT_ALL,
             cards.HIT_ALL_TWO: codes.F_HIT_ALL, cards.SWAP_HANDS: codes.F_SWAP_HANDS,
             cards.CUSTOM_WILD: codes.F_CUSTOM_WILD}
    coloured = {cards.SKIP: codes.F_SKIP, cards.REVERSE: codes.F_REVERSE,
                cards.DRAW_TWO: codes.F_DRAW_TWO}
    return np.array([black[t] if t >= cards.FIRST_BLACK
                     else coloured.get(cards.TYPE_RANK[t], codes.F_NUMBER)
                     for t in range(cards.N_TYPES)], dtype=np.uint8)


def features_in_play(deck_counts: np.ndarray) -> tuple[str, ...]:
    """The features that can tell two cards of this deck apart: every feature but the kinds
    of which the deck holds no card (their weight changes no choice)."""
    kinds = set(card_kind_features()[np.asarray(deck_counts) > 0].tolist())
    return tuple(name for i, name in enumerate(FEATURES)
                 if i > codes.F_CUSTOM_WILD or i in kinds)


@dataclass(frozen=True)
class WeightedPolicy:
    """A policy as data: every legal card scores sum(weight x feature) and the best is played;
    ``ties``: random (uniform over the tied card instances) or first (the lowest card id);
    ``colour``: the colour a black card names, most_held or random. The card given away (N2,
    D5) is the worst-scoring one, by the same ties. ``name`` labels the seat in results."""

    name: str
    weights: tuple[tuple[str, float], ...] = ()  # (feature, weight), by feature name
    colour: str = COLOUR_CHOICES[0]
    ties: str = TIE_BREAKS[0]

    @classmethod
    def of(cls, name: str, weights: Mapping[str, float] | None = None,
           colour: str = COLOUR_CHOICES[0], ties: str = TIE_BREAKS[0]) -> WeightedPolicy:
        """The policy with these weights (missing features weigh 0); raises ValueError for an
        unknown feature, colour or tie rule (scenario files report them with their line)."""
        weights = dict(weights or {})
        unknown = sorted(set(weights) - set(FEATURES))
        if unknown:
            raise ValueError(f"unknown features {unknown}; allowed: {', '.join(FEATURES)}")
        if colour not in COLOUR_CHOICES or ties not in TIE_BREAKS:
            raise ValueError(f"colour must be one of {COLOUR_CHOICES}, ties one of {TIE_BREAKS}")
        return cls(name, tuple(sorted((k, float(v)) for k, v in weights.items())), colour, ties)

    def weight(self, feature: str) -> float:
        return dict(self.weights).get(feature, 0.0)

    def vector(self) -> np.ndarray:
        """The weights in codes.F_* order (the kernel's row for the seat)."""
        return np.array([self.weight(f) for f in FEATURES], dtype=np.float64)

    def as_dict(self) -> dict[str, Any]:
        """The policy as a scenario file writes it (every given weight, sorted)."""
        return {"name": self.name, "weights": dict(self.weights), "colour": self.colour,
                "ties": self.ties}


@dataclass(frozen=True)
class SearchPolicy:
    """The expert: at each choice of card with more than one candidate it samples ``budget``
    deals of the cards it cannot see (``sees: all``: none, it sees every hand), plays every
    candidate out to the end of the round with the ``playout`` policy (a bundled policy's
    name) in each deal, and plays the best on average by its ``goal`` (``score``: what the
    scoring counts, points or rounds won; ``rounds``: rounds won), keeping the playout policy's
    own card unless another is clearly better (engine/_expert.py). ``colours``: the colour its
    black card names is its playout policy's (``playout``) or searched too (``search``: a
    candidate per colour). Its other choices (answers to penalties, what it gives away) are the
    playout policy's. ``name`` labels the seat in results."""

    name: str
    search: str = SEARCHES[0]
    budget: int = DEFAULT_BUDGET
    playout: str = "random"
    sees: str = SEES[0]
    goal: str = GOALS[0]
    colours: str = COLOURS[0]

    def __post_init__(self):
        lo, hi = BUDGET_RANGE
        if self.search not in SEARCHES or self.sees not in SEES or self.goal not in GOALS \
                or self.colours not in COLOURS or self.playout not in POLICIES \
                or not lo <= self.budget <= hi:
            raise ValueError(f"search must be one of {SEARCHES}, sees one of {SEES}, goal one "
                             f"of {GOALS}, colours one of {COLOURS}, playout a bundled policy "
                             f"({', '.join(POLICIES)}) and budget from {lo} to {hi}")

    def as_dict(self) -> dict[str, Any]:
        """The policy as a scenario file writes it."""
        given = {"name": self.name, "search": self.search, "budget": self.budget,
                 "playout": self.playout, "sees": self.sees, "goal": self.goal}
        if self.colours != COLOURS[0]:  # the default left out: resolved hashes stay as they were
            given["colours"] = self.colours
        return given


@dataclass(frozen=True)
class Seat:
    """One seat's play policy (rules.POLICIES; or ``weighted`` or ``search``: then ``policy`` is
    its name) and behaviour probabilities (rules.BEHAVIOUR)."""

    policy: str = "random"
    behaviour: Mapping[str, float] = field(default_factory=dict)
    weighted: WeightedPolicy | None = None
    search: SearchPolicy | None = None

    def __post_init__(self):
        for given in (self.weighted, self.search):
            if given is not None and self.policy != given.name:
                raise ValueError(f"a seat's policy is its policy's name: {given.name!r}, "
                                 f"not {self.policy!r}")
        if self.weighted is not None and self.search is not None:
            raise ValueError("a seat plays weights or a search, not both")

    def weights(self) -> WeightedPolicy | None:
        """The weights the seat plays by: its policy written as data, or the bundled policy's
        preset (``PRESETS``; a search: its playout policy's); None for a policy coded in the
        kernel (``CODED``)."""
        return self.weighted or PRESETS.get(self.plays)

    @property
    def plays(self) -> str:
        """The bundled policy (or weighted policy's name) the seat plays by when it does not
        search: a search's playout policy, else its policy."""
        return self.search.playout if self.search is not None else self.policy

    def resolved(self) -> dict[str, Any]:
        """The seat as a resolved scenario records it (its hash covers a weighted policy's
        weights and a search's settings, not only its name)."""
        given = self.weighted or self.search
        policy = self.policy if given is None else given.as_dict()
        return {"policy": policy, "behaviour": dict(self.behaviour)}

    @classmethod
    def playing(cls, policy: str | WeightedPolicy | SearchPolicy,
                behaviour: Mapping[str, float] | None = None) -> Seat:
        """A seat playing a bundled policy (by name), a weighted one or a search."""
        behaviour = dict(behaviour or {})
        if isinstance(policy, WeightedPolicy):
            return cls(policy.name, behaviour, policy)
        if isinstance(policy, SearchPolicy):
            return cls(policy.name, behaviour, search=policy)
        return cls(policy, behaviour)


def resolve_seats(seats: Seat | Sequence[Seat], players: int) -> tuple[Seat, ...]:
    """One Seat per seat: a single Seat is used for every seat; a list must match ``players``."""
    if isinstance(seats, Seat):
        return (seats,) * players
    seats = tuple(seats)
    if len(seats) != players:
        raise ValueError(f"{len(seats)} seats given for {players} players")
    return seats


_BLACK_KINDS = ("wild", "wild_draw_four", "blank", "hit_all", "swap_hands", "custom_wild")
_COLOURED_ACTIONS = ("skip", "reverse", "draw_two")


# The bundled policies (rules.POLICIES) as presets of the weighted mechanism: each plays by these
# scores, with ``colour: most_held`` (docs/engine.md "Bundled policies as presets").
PRESETS: dict[str, WeightedPolicy] = {p.name: p for p in (
    WeightedPolicy.of("random"),  # every legal card instance equally likely
    WeightedPolicy.of("first_legal", ties="first"),  # the lowest card id
    WeightedPolicy.of("colour_first", {"colour_match": 1, **dict.fromkeys(_BLACK_KINDS, -1)}),
    # a card of the top's number or symbol, then of the colour, then black (a black card of the
    # top card's kind ranks above the other black cards: rank_match counts for it too)
    WeightedPolicy.of("number_first", {"rank_match": 1, **dict.fromkeys(_BLACK_KINDS, -2)}),
    WeightedPolicy.of("actions_first", {**dict.fromkeys(_COLOURED_ACTIONS, 2),
                                        **dict.fromkeys(_BLACK_KINDS, 1)}),
    WeightedPolicy.of("save_actions", {"number": 2, **dict.fromkeys(_COLOURED_ACTIONS, 1)}),
    WeightedPolicy.of("high_value_first", {"points": 1}),
    WeightedPolicy.of("wild_last", {"number": 1, **dict.fromkeys(_COLOURED_ACTIONS, 1)}),
)}

# The bundled policies the weights cannot express, coded in the kernel (codes.POLICY_<NAME>),
# and why (the README and docs/engine.md say the same).
CODED: dict[str, str] = {
    "strategist": (
        "its preferences are ranked classes, not a sum: under a threat a Draw Two or Wild Draw "
        "Four outranks a Skip or Reverse whatever else the hand holds, and otherwise the number "
        "of cards held in a card's colour counts for coloured cards but not for black ones and "
        "the points for numbers but not for actions; a sum of weights x features adds the colour "
        "count and the points to every card alike"),
}
