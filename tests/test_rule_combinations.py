"""Property-based: random valid combinations of every rule option, deck extras, seats and player
counts (2-10), each played by the kernel under the referee (cards conserved, every event legal,
a finished seat never draws) and the invariants (every round ends, the winner and every finished
seat hold no cards, scores add up, ...). Hypothesis draws the combinations (derandomized, so a
run is repeatable; a failure prints the combination that broke)."""

from __future__ import annotations

import polars as pl
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from engine_cases import assert_invariants

from unostats import rules as R
from unostats.engine.referee import check_trace
from unostats.engine.simulate import simulate_batches, trace_game
from unostats.seats import Seat

# Integer options at values that switch their rule on or off, and caps that keep games short.
INT_VALUES = {
    "hand_size": [1, 3, 5, 7, 10],
    "zero_slap": [0, 2, 4], "uno_slap": [0, 2], "uno_penalty": [0, 2, 4],
    "mistake_penalty": [0, 1, 2], "lone_zero_value": [0, 50, 100],
    "target_score": [None, 30, 200], "max_turns": [60, 400], "max_rounds": [2, 6],
}
DECK_EXTRAS = {"blank": [0, 4], "hit_all_one": [0, 2], "hit_all_two": [0, 2],
               "swap_hands": [0, 1], "custom_wild": [0, 3]}
CHECKED = {"combinations": 0, "rounds": 0}  # for the summary line below


@st.composite
def rule_sets(draw):
    chosen = {}
    for opt in R.RULE_OPTIONS:
        values = INT_VALUES[opt.key] if opt.kind == "int" else list(opt.values)
        value = draw(st.sampled_from(values))
        if value is not None:
            chosen[opt.key] = value
    chosen["deck"] = {k: draw(st.sampled_from(v)) for k, v in DECK_EXTRAS.items()}
    try:
        return R.RuleSet.from_mapping(chosen)
    except R.RuleError:  # a conflict of the rule table (e.g. eight_cover with multi_play)
        assume(False)


@st.composite
def tables(draw):
    rules = draw(rule_sets())
    players = draw(st.integers(2, 10))
    assume(rules.check_players(players) is None)
    probability = st.sampled_from([0.0, 0.3, 1.0])
    seats = [Seat(draw(st.sampled_from(R.POLICIES)),
                  {**{name: draw(probability) for name in R.BEHAVIOUR
                      if name not in ("reaction", "keep_drawn")},
                   "reaction": draw(st.sampled_from([0.0, 0.5, 2.0])),
                   "keep_drawn": draw(st.sampled_from([0, 2, 5]))})
             for _ in range(players)]
    return rules, players, seats, draw(st.integers(0, 2**32))


@settings(max_examples=300, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])
@given(tables())
def test_random_rule_combinations_pass_the_referee_and_the_invariants(table):
    rules, players, seats, seed = table
    for game in range(2):
        result = check_trace(trace_game(rules=rules, players=players, seats=seats, seed=seed,
                                        game=game))
        CHECKED["rounds"] += len(result.rounds)
    frames = [pl.concat(f) for f in zip(*simulate_batches(rules=rules, players=players,
                                                          seats=seats, games=6, seed=seed))]
    assert_invariants(rules, players, 6, *frames)
    CHECKED["combinations"] += 1
    CHECKED["rounds"] += frames[2].height


def test_the_combinations_were_checked():
    """Runs after the property test (file order): it saw enough distinct combinations."""
    print(f"\nrule combinations checked: {CHECKED['combinations']}, rounds: {CHECKED['rounds']}")
    assert CHECKED["combinations"] >= 150
