"""Scripted rule tests: a fixed deal for every rule option value.

Each test deals known hands from a fixed deck order (``scripted.play``), plays with deterministic
seats (``first_legal`` unless said otherwise, behaviour probabilities 0 or 1) and asserts the
exact events that docs/engine.md prescribes; the referee checks every trace as well. RULES.md ids
are in the test names' comments. The last tests walk the rule table: every enum/bool value must
be covered by scripted tests.
"""

from __future__ import annotations

from unostats import rules as rules_mod
from unostats.rules import RuleSet

# ---------------------------------------------------------------- the rule table

# Every value of every enum/bool rule, with the tests above that script it. When the rule table
# gains another value, test_every_value_has_scripted_tests fails until the value is added here
# (with its scripted tests).
SCRIPTED = {
    "first_card": {"official", "number_only", "extreme"},
    "wild_draw_four": {"no_matching_colour", "free"},
    "wild": {"free", "no_matching_colour"},
    "challenge": {"official", "house", "extreme"},
    "draw": {"one_may_play", "one_then_pass", "two", "until_playable"},
    "stack_draw_two": {"none", "sum", "pass_on"},
    "stack_draw_four": {"none", "sum", "pass_on"},
    "reverse_deflects": {"none", "back", "extreme"},
    "jump_in": {"none", "numbers", "all_but_draw_four", "extreme"},
    "multi_play": {"none", "same_rank", "two_matching"},
    "silence": {"none", "seven", "two", "black"},  # test_rules_extras_scripted.py
    "scoring": {"winner_takes_all", "own_points_low_wins", "own_points_lose_at", "card_count",
                "lazy"},
    "round_end": {"first_out", "to_the_last", "seven_rounds"},
    # issue 5 values scripted in tests/test_rules_extras_scripted.py
    "blank_effect": {"none", "draw_ten"},
    "custom_wild_effect": {"everyone_draws_two", "swap_one_with_next"},
    # switches whose "true" is scripted in tests/test_rules_variants_scripted.py
    "colour_cycle": {False, True},
    "double_action": {False, True},
    "draw_two_on_draw_four": {False, True},
    "stack_skip": {False, True},
    "skip_escape": {False, True},
    "eight_cover": {False, True},
    "seven_zero": {False, True},
    "five_swap": {False, True},
    "h2o_bonus": {False, True},
}
BOOL_RULES = [o.key for o in rules_mod.RULE_OPTIONS if o.kind == "bool"]


def test_every_value_has_scripted_tests():
    for opt in rules_mod.RULE_OPTIONS:
        if opt.kind == "int":
            continue
        values = set(opt.values)
        scripted = SCRIPTED.get(opt.key, set())
        assert values == scripted, (
            f"{opt.key}: values {sorted(values)}, scripted {sorted(scripted)}: script the others "
            f"and list them in SCRIPTED")
        if opt.kind == "enum":
            for value in values:
                RuleSet.from_mapping({opt.key: value})  # accepted
