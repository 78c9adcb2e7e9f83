"""What the kernel is handed: the rules, deck and seats of a run as its records and arrays
(``KernelInputs``, built once per run), and the preallocated int64 rows it writes into
(``Outputs``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from .. import cards, codes
from ..rules import RuleSet, behaviour_array, coded_policy
from ..seats import SearchPolicy, Seat, WeightedPolicy, resolve_seats
from . import _layout as L


@dataclass(frozen=True)
class PolicyRows:
    """The kernel's rows of some seats' policies: codes (codes.POLICY_*) and the weights
    (codes.F_* columns), colour and tie rules they play by (a bundled policy: its preset,
    seats.PRESETS; an expert: its playout policy's), and an expert's budget (0: none), whether
    it sees every hand, whether its goal is rounds won and whether it searches colours."""

    policy: np.ndarray
    weights: np.ndarray
    colour_random: np.ndarray
    ties_first: np.ndarray
    budget: np.ndarray
    sees_all: np.ndarray
    rounds_goal: np.ndarray
    colour_search: np.ndarray

    @classmethod
    def of(cls, seats: Sequence[Seat]) -> PolicyRows:
        n = len(seats)
        weights = np.zeros((n, codes.N_FEATURES), dtype=np.float64)
        colour_random = np.zeros(n, dtype=np.int64)
        ties_first = np.zeros(n, dtype=np.int64)
        policy = np.zeros(n, dtype=np.int64)
        budget = np.zeros(n, dtype=np.int64)
        sees_all = np.zeros(n, dtype=np.int64)
        rounds_goal = np.zeros(n, dtype=np.int64)
        colour_search = np.zeros(n, dtype=np.int64)
        for i, seat in enumerate(seats):
            if seat.search is not None:
                budget[i] = seat.search.budget
                sees_all[i] = int(seat.search.sees == "all")
                rounds_goal[i] = int(seat.search.goal == "rounds")
                colour_search[i] = int(seat.search.colours == "search")
            w = seat.weights()
            if w is None:
                policy[i] = coded_policy(seat.plays)
                continue
            weights[i] = w.vector()
            policy[i] = codes.POLICY_SCORED if weights[i].any() else codes.POLICY_UNIFORM
            colour_random[i] = int(w.colour == "random")
            ties_first[i] = int(w.ties == "first")
        return cls(policy, weights, colour_random, ties_first, budget, sees_all, rounds_goal,
                   colour_search)


@dataclass(frozen=True)
class KernelInputs:
    """A run's rules and seats as the kernel reads them, built once and shared by its threads."""

    players: int
    options: L.Options
    deck: np.ndarray
    points: np.ndarray
    policy: np.ndarray
    behaviour: np.ndarray
    policies: tuple[str, ...]
    rows: PolicyRows
    weighted: tuple[WeightedPolicy | None, ...]
    search: tuple[SearchPolicy | None, ...]
    # One game per entry with its own seats and stream (``simulate_tables``); empty: the seats
    # above for every game.
    setups: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=L.GAME_SETUP))
    # Count how each round plays (_measures; the game loops that count), else its columns null.
    how_it_plays: bool = False

    @classmethod
    def build(cls, rules: RuleSet, players: int, seats: Seat | Sequence[Seat],
              how_it_plays: bool = False) -> KernelInputs:
        if not 2 <= players <= L.MAX_SEATS:
            raise ValueError(f"players must be from 2 to {L.MAX_SEATS}, got {players}")
        problem = rules.check_players(players)
        if problem:
            raise ValueError(problem)
        seat_list = resolve_seats(seats, players)
        policies = tuple(s.policy for s in seat_list)
        return cls(
            players=players,
            options=L.options_record(rules),
            deck=rules.deck_counts(),
            points=cards.card_points(),
            policy=(rows := PolicyRows.of(seat_list)).policy,
            behaviour=behaviour_array([dict(s.behaviour) for s in seat_list]),
            policies=policies,
            rows=rows,
            weighted=tuple(s.weighted for s in seat_list),
            search=tuple(s.search for s in seat_list),
            how_it_plays=how_it_plays,
        )

    def tables(self, k: int, tracing: bool = False, stack: np.ndarray | None = None) -> np.ndarray:
        """``k`` TABLE records (COUNTING_TABLE when the run counts how each round plays)
        holding the seats and the deck to deal: ``stack`` (a scripted order, its first card
        dealt first) or the deck in card-type order."""
        if stack is None:
            pile = np.repeat(np.arange(cards.N_TYPES, dtype=np.uint8), self.deck)
        else:
            pile = np.asarray(stack, dtype=np.uint8)[::-1]  # the top of the pile is its end
        tables = np.zeros(k, dtype=L.COUNTING_TABLE if self.how_it_plays else L.TABLE)
        n = self.players
        tables["n"] = n
        tables["tracing"] = int(tracing)
        tables["stacked"] = int(stack is not None)
        tables["policy"][:, :n] = self.policy
        tables["behaviour"][:, :n] = self.behaviour
        tables["weights"][:, :n] = self.rows.weights
        tables["colour_random"][:, :n] = self.rows.colour_random
        tables["ties_first"][:, :n] = self.rows.ties_first
        tables["budget"][:, :n] = self.rows.budget
        tables["sees_all"][:, :n] = self.rows.sees_all
        tables["rounds_goal"][:, :n] = self.rows.rounds_goal
        tables["colour_search"][:, :n] = self.rows.colour_search
        tables["resume"] = -1
        tables["points"] = self.points
        tables["full"][:, :len(pile)] = pile
        tables["ncards"] = len(pile)
        return tables



class Outputs:
    """Preallocated kernel outputs for ``games`` games and ``rounds`` round rows."""

    def __init__(self, games: int, rounds: int, players: int) -> None:
        self.game = np.zeros((games, L.N_GO), dtype=np.int64)
        self.game_seat = np.zeros((games, players, L.N_GS), dtype=np.int64)
        self.round = np.zeros((rounds, L.N_RO), dtype=np.int64)
        self.round_seat = np.zeros((rounds, players, L.N_RS), dtype=np.int64)
