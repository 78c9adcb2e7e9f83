"""Policies written as data (B2, seats.WeightedPolicy): each legal card scores sum(weight x
feature) and the best is played; ties go to the lowest card id (``ties: first``) or at random;
a black card names the colour held most (``colour: most_held``) or a random one; the same scores
choose the answer to a pending penalty (A3) and the card given away (N2).

``CASES`` are scripted games (tests/rules/cases.py) played by the kernel and checked by the
referee; the tests after them play the random choices over many seeds, give the referee traces
whose choices break the weights, and check that each bundled preset written as data plays the
bundled policy's games, row for row.
"""

from __future__ import annotations

import dataclasses
import math
from collections import Counter

import numpy as np
import polars as pl
import pytest
from cases import Case, Family, card
from test_policies import CHOICE, PLAYS
from traces import broken

from unostats import cards, codes
from unostats.engine.referee import check_trace
from unostats.engine.referee._policies import _weighted_score
from unostats.engine.simulate import simulate_batches, simulate_tables, trace_scripted_game
from unostats.rules import RuleSet
from unostats.seats import PRESETS, Seat, WeightedPolicy

FAMILY = Family(())  # no rule option of its own: the seats' policies
CASES, case = FAMILY.cases, FAMILY.case


def weighted(ties: str = "first", colour: str = "most_held", **weights: float) -> WeightedPolicy:
    return WeightedPolicy.of("lab", weights, colour=colour, ties=ties)


# ---------------------------------------------------------------- which legal card

# CHOICE (test_policies.py): seat 1 may play R-skip (the current colour, an action, 20 points),
# Y5 (the number on top) or the Wild (50 points); G9 is not legal, whatever its score.
for name, policy, played in (
        ("points", weighted(points=1), "wild"),
        ("no-wild", weighted(points=1, wild=-1000), "R-skip"),
        ("numbers", weighted(number=5, skip=1), "Y5"),
        ("colour-match", weighted(colour_match=1), "R-skip"),
        ("rank-match", weighted(rank_match=1, points=0.01), "Y5"),
        ("attack-off", weighted(attack=100, number=1), "Y5"),  # seat 0 holds 4 cards
        ("g9-scores-best-but-is-not-legal", weighted(points=1, number=100), "Y5"),
        ("all-zero-ties-first", weighted(), "R-skip")):  # the lowest card id
    case(f"weighted-{name}-plays-{played}", **CHOICE, seats={1: {"policy": policy}},
         table=[("flip", "R5"), ("turn", 1), *PLAYS[played]], prefix=True)

# attack: seat 0 holds two cards, so Skip, Reverse, Draw Two and Wild Draw Four gain.
ATTACK = dict(players=2, hands={1: ["R-skip", "R4"], 0: ["B1", "B2"]}, flip="R5",
              draws=["B5", "B6", "B7", "B8", "B9"])
for policy, played in ((weighted(attack=100, points=-1), [("play", 1, "R-skip"), ("skip", 0)]),
                       (weighted(points=-1), [("play", 1, "R4"), ("turn", 0)])):
    case(f"weighted-attack-{policy.weight('attack'):g}-plays-{played[0][2]}", **ATTACK,
         seats={1: {"policy": policy}}, table=[("flip", "R5"), ("turn", 1), *played],
         prefix=True)

# colour_held and links: of R4 and R7, R7 shares its colour with the R-skip and its number with
# the G7; rank_held prefers it too.
HELD = dict(players=2, hands={1: ["R4", "R7", "G7", "B-skip"], 0: ["B1", "B2", "B3", "B4"]},
            flip="R5", draws=["B5", "B6", "B7", "B8", "B9"])
for feature, sign, played in (("links", 1, "R7"), ("links", -1, "R4"), ("rank_held", 1, "R7"),
                              ("rank_held", -1, "R4")):
    case(f"weighted-{feature}-{sign}-plays-{played}", **HELD,
         seats={1: {"policy": weighted(**{feature: sign})}},
         table=[("flip", "R5"), ("turn", 1), ("play", 1, played), ("turn", 0)], prefix=True)


# ---------------------------------------------------------------- the colour a black card names

# Seat 1 can only play the Wild; it then holds two greens and a yellow.
WILD_ONLY = dict(players=2, hands={1: ["wild", "G1", "G2", "Y9"], 0: ["B1", "B2", "B3", "B4"]},
                 flip="R5", draws=["B5", "B6", "B7", "B8", "B9"])
case("weighted-colour-most_held-names-green", **WILD_ONLY,
     seats={1: {"policy": weighted(colour="most_held")}},
     table=[("flip", "R5"), ("turn", 1), ("play", 1, "wild"), ("colour", 1, "green")],
     prefix=True)


# ---------------------------------------------------------------- the same scores elsewhere

# A3: seat 0 answers R+2 with B+2 (a blue card more in its hand), where first_legal takes the
# lowest id, Y+2.
ANSWER = dict(players=2, hands={1: ["R+2", "G1", "G2", "G3"], 0: ["Y+2", "B+2", "B4", "G7"]},
              flip="R3", draws=["Y1", "Y2", "Y3", "Y4", "Y5", "Y6", "Y7", "Y8"],
              rules={"stack_draw_two": "sum"})
for policy, answer in ((weighted(colour_held=1), "B+2"), ("first_legal", "Y+2")):
    label = "first_legal" if isinstance(policy, str) else "weighted-colour_held"
    case(f"{label}-answers-with-{answer}", **ANSWER, seats={0: {"policy": policy}},
         table=[("flip", "R3"), ("turn", 1), ("play", 1, "R+2"), ("turn", 0),
                ("play", 0, answer)], prefix=True)

# N2: after seat 1's R5, seat 0 gives the card it scores best: Y1 (a yellow more in its hand;
# the lowest id of the two yellows), or B8 (the most points), as first_legal does.
FIVE = dict(players=2, hands={1: ["R5", "+4", "G9"], 0: ["Y1", "Y2", "B8"]}, flip="R3",
            draws=["R6", "B1", "B2", "B3", "B4"], rules={"five_swap": True})
for policy, gift in ((weighted(colour_held=1), "Y1"), (weighted(points=1), "B8")):
    case(f"weighted-{policy.weights[0][0]}-gives-{gift}", **FIVE, seats={0: {"policy": policy}},
         table=[("flip", "R3"), ("turn", 1), ("play", 1, "R5"), ("give", 1, "G9", 0),
                ("give", 0, gift, 1)], prefix=True)

test_case, test_every_option_is_played_on_and_off = FAMILY.tests()


# ---------------------------------------------------------------- random choices over seeds


def _scripted(deal: dict, seats: dict, seed: int):
    """The kernel plays ``deal`` (a case's keywords) with these seats and random stream
    ``seed``; the referee must accept the trace, which is returned."""
    c = Case("seeded", **deal, seats=seats)
    trace = trace_scripted_game(rules=RuleSet.from_mapping(c.all_rules), players=c.players,
                                seats=c.seat_list(), dealer=c.dealer,
                                deck_top=[card(n) for n in c.deck_top()], seed=seed)
    check_trace(trace)
    return trace


def _first_event(trace, kind: int, seat: int) -> int:
    return next(int(a) for k, s, a, _ in trace.events if k == kind and s == seat)


SEEDS = range(40)


def test_ties_random_plays_every_tied_card_and_no_other():
    """R-skip and Y5 score 1, the Wild 0: ties: random plays both over 40 seeds (each has
    probability 1/2: both show with probability 1 - 2**-39), the Wild never; ties: first always
    the lowest id, R-skip."""
    for ties, expected in (("random", {"R-skip", "Y5"}), ("first", {"R-skip"})):
        policy = weighted(ties=ties, number=1, skip=1)
        played = {_first_event(_scripted(CHOICE, {1: {"policy": policy}}, seed), codes.EV_PLAY,
                               1) for seed in SEEDS}
        assert played == {card(n) for n in expected}, ties


def test_colour_random_names_several_colours_and_most_held_one():
    named = {}
    for colour in ("random", "most_held"):
        policy = weighted(colour=colour)
        named[colour] = {_first_event(_scripted(WILD_ONLY, {1: {"policy": policy}}, seed),
                                      codes.EV_COLOUR, 1) for seed in SEEDS}
    assert named["most_held"] == {2}  # green
    assert len(named["random"]) >= 3 and named["random"] <= {0, 1, 2, 3}


# ---------------------------------------------------------------- the referee checks the weights


def _with_weighted(trace, *policies):
    return dataclasses.replace(trace, weighted=tuple(policies))


def test_referee_rejects_a_card_the_weights_do_not_choose():
    trace = _scripted(CHOICE, {1: {"policy": weighted(points=1)}}, 0)  # plays the Wild
    broken(_with_weighted(trace, None, weighted(colour_match=1)),
           r"seat 1 \(lab, weights\) must play the legal card it scores best: R-skip, not wild")
    # ties: random allows every best card, ties: first only the lowest id
    broken(_with_weighted(trace, None, weighted(number=1, skip=1, ties="random")),
           r"scores best: R-skip, Y5, not wild")


def test_referee_checks_answers_gifts_and_colours():
    answer = _scripted(ANSWER, {0: {"policy": weighted(colour_held=1)}}, 0)
    broken(_with_weighted(answer, weighted(colour_held=-1), None),
           r"seat 0 \(lab, weights\) must play the answer it scores best: Y\+2, not B\+2")
    gift = _scripted(FIVE, {0: {"policy": weighted(colour_held=1)}}, 0)
    broken(_with_weighted(gift, weighted(points=1), None),
           r"seat 0 \(lab, weights\) must give a card it scores best: B8 \(N2, D5\)")
    # a random colour other than green: most_held would have named green
    policy = weighted(colour="random")
    named = next(t for seed in SEEDS
                 if _first_event(t := _scripted(WILD_ONLY, {1: {"policy": policy}}, seed),
                                 codes.EV_COLOUR, 1) != 2)
    broken(_with_weighted(named, None, weighted(colour="most_held")),
           r"seat 1 holds most green cards")


# ---------------------------------------------------------------- equal to bundled policies


def _frames(seat: Seat, rules: dict, games: int, seed: int = 11):
    batches = list(simulate_batches(rules=RuleSet.from_mapping(rules), players=3, seats=seat,
                                    games=games, seed=seed))
    assert len(batches) == 1
    return batches[0]


# Rules where a policy chooses more than the card of a turn: answers to pending penalties (A3,
# A4, A6 back), the better of two drawn cards (P5 two), the extra number (N3 two_matching) and
# the card given away (N2, D5).
CHOOSING_RULES = ({}, {"stack_draw_two": "sum", "stack_draw_four": "sum", "draw": "two",
                       "reverse_deflects": "back", "multi_play": "two_matching",
                       "five_swap": True, "seven_zero": True})
EVERY_KIND = {k: 1 for k in codes.FEATURE_NAMES[:codes.F_POINTS]}  # one of these per card


def _same_games(bundled: str, data: WeightedPolicy, rules: dict, games: int = 150):
    a = _frames(Seat(bundled), rules, games)
    b = _frames(Seat.playing(data), rules, games)
    for name, x, y in zip(a._fields, a, b):
        if name == "game_seats":
            assert set(x["policy"].cast(pl.String).to_list()) == {bundled}
            assert set(y["policy"].cast(pl.String).to_list()) == {data.name}
            x, y = x.drop("policy"), y.drop("policy")
        assert x.equals(y), (bundled, name)


@pytest.mark.parametrize("rules", CHOOSING_RULES, ids=("official", "choosing"))
@pytest.mark.parametrize("bundled", sorted(PRESETS))
def test_a_bundled_preset_written_as_data_plays_the_same_games(bundled, rules):
    """Each bundled preset's weights, written as a policy of the scenario file's own, play the
    bundled policy's games, row for row (but the policy's name): one mechanism."""
    preset = PRESETS[bundled]
    _same_games(bundled, WeightedPolicy.of("mine", dict(preset.weights), ties=preset.ties), rules)


def test_random_plays_as_weights_under_which_every_card_ties_within_noise():
    """random (all weights 0: the kernel's counting path, pick_uniform) against weights under
    which every card scores 1 (the general path, a score per card type): both uniform over the
    legal card instances, enumerated in other orders, so the games differ but turns per round
    and the first seat's round wins agree within 4.5 standard errors over 3000 one-round games
    each."""
    rules = {"max_rounds": 1}
    stats = []
    for s in (Seat("random"), Seat.playing(WeightedPolicy.of("ones", EVERY_KIND))):
        rounds = _frames(s, rules, 3000).rounds
        turns = rounds["turns"].to_numpy().astype(float)
        first_wins = (rounds["winner_seat"] == rounds["first_seat"]).fill_null(False)
        first_wins = first_wins.to_numpy().astype(float)
        stats.append([(x.mean(), x.var(ddof=1) / len(x)) for x in (turns, first_wins)])
    for (m1, v1), (m2, v2) in zip(*stats):
        assert abs(m1 - m2) < 4.5 * math.sqrt(v1 + v2), (m1, m2)
    # and the games are not the same ones (the test compares two samples, not one twice)
    assert stats[0][0][0] != stats[1][0][0]


def _documented_class(policy: str, t: int, colour: int, top: int, points) -> float:
    """The bundled policies' classes as rules.POLICY_DOCS describes them (the highest is
    played; docs/engine.md "Bundled policies as presets")."""
    black, number = cards.is_black(t), cards.is_number(t)
    colour_match = not black and cards.TYPE_COLOUR[t] == colour
    rank_match = cards.TYPE_RANK[t] == cards.TYPE_RANK[top]
    return {
        "random": 0,
        "first_legal": -t,
        "colour_first": 2 if colour_match else (0 if black else 1),
        # a black card of the top's kind before the other black cards: number_first's only
        # departure from "same number/symbol, else colour, else black"
        "number_first": (rank_match / 2) if black else (2 if rank_match else 1),
        "actions_first": 1 if black else (0 if number else 2),
        "save_actions": 0 if black else (2 if number else 1),
        "high_value_first": points[t],
        "wild_last": 0 if black else 1,
    }[policy]


@pytest.mark.parametrize("policy", sorted(PRESETS))
def test_each_preset_plays_its_documented_class(policy):
    """On 3000 random hands (with H2O cards) and tables, the cards a preset may play (its
    best-scoring legal cards, by the referee's own scoring) are the policy's most preferred
    class of legal cards, as documented: the presets are the bundled policies."""
    rng = np.random.default_rng(7)
    points = [int(p) for p in cards.card_points()]
    preset = PRESETS[policy]
    for _ in range(3000):
        hand = Counter(int(t) for t in rng.integers(0, cards.N_TYPES, rng.integers(1, 9)))
        top = int(rng.integers(0, cards.N_TYPES))
        colour = int(cards.TYPE_COLOUR[top]) if top < cards.FIRST_BLACK else int(rng.integers(4))
        legal = [t for t in hand if cards.is_black(t) or cards.TYPE_COLOUR[t] == colour
                 or cards.TYPE_RANK[t] == cards.TYPE_RANK[top]]
        if not legal:
            continue
        scores = {t: _weighted_score(preset, hand, t, colour, top, False, points) for t in legal}
        best = sorted(t for t in legal if scores[t] == max(scores.values()))
        if preset.ties == "first":
            best = best[:1]
        classes = {t: _documented_class(policy, t, colour, top, points) for t in legal}
        assert best == sorted(t for t in legal if classes[t] == max(classes.values())), (
            policy, sorted(hand.elements()), top, colour)


def test_weighted_seats_are_reproducible_with_a_random_colour():
    policy = WeightedPolicy.of("r", {"points": 1}, colour="random")
    a = _frames(Seat.playing(policy), {}, 50, seed=5)
    b = _frames(Seat.playing(policy), {}, 50, seed=5)
    assert all(x.equals(y) for x, y in zip(a, b))
    assert np.asarray(a.games["turns"]).sum() > 0


def test_tables_of_weighted_seats_play_the_games_of_their_own_runs():
    """simulate_tables (a tournament's tables in one call) copies each table's weights, colour
    and tie rules: every table plays the game a run of its own seats plays, row for row."""
    rules = RuleSet.from_mapping({"five_swap": True})
    keep = Seat.playing(WeightedPolicy.of("kb", {"points": 1, "wild": -1000, "colour_held": 2},
                                          colour="random"))
    first = Seat.playing(WeightedPolicy.of("z", {}, ties="first"))
    tables = [[keep, Seat("random"), Seat("strategist")], [Seat("random"), keep, first]]
    seeds, streams = [5, 6], [2, 3]
    both = simulate_tables(rules=rules, players=3, tables=tables, seeds=seeds, streams=streams)
    for i, seats in enumerate(tables):
        (own,) = simulate_batches(rules=rules, players=3, seats=seats, seed=seeds[i],
                                  first_game=streams[i], games=1)
        for name in ("game_seats", "rounds", "round_seats"):
            got = getattr(both, name).filter(pl.col("game") == i).drop("game")
            want = getattr(own, name).drop("game")
            if name == "game_seats":
                got, want = (f.with_columns(pl.col("policy").cast(pl.String))
                             for f in (got, want))
            assert got.equals(want), (i, name)
