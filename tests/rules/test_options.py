"""Every rule option of the rule table (src/unostats/rules.py) and every extra card of the deck
(D3-D5) belongs to exactly one rule family, whose ``OPTIONS`` its own test plays on and off on
one deal (tests/rules/cases.py ``missing_on_and_off``); every value of the table is accepted.
"""

from __future__ import annotations

import pytest
import test_actions
import test_cards
import test_jump_ins
import test_numbers
import test_policies
import test_scoring
import test_stacking
import test_uno_call
from cases import EXTRA_CARDS

from unostats import rules as rules_mod
from unostats.rules import RuleSet

FAMILIES = (test_cards, test_policies, test_actions, test_stacking, test_jump_ins, test_numbers,
            test_uno_call, test_scoring)


def test_every_rule_option_belongs_to_one_family():
    owned = [key for family in FAMILIES for key in family.OPTIONS]
    assert sorted(owned) == sorted(set(owned)), "an option owned by two families"
    table = {o.key for o in rules_mod.RULE_OPTIONS} | {f"deck.{kind}" for kind in EXTRA_CARDS}
    assert set(owned) == table


def test_every_value_of_the_rule_table_is_accepted():
    for opt in rules_mod.RULE_OPTIONS:
        if opt.kind == "enum":
            for value in opt.values:
                assert RuleSet.from_mapping({opt.key: value}).values[opt.key] == value


def test_every_need_of_the_rule_table_is_refused_when_broken_and_its_companions_meet_it():
    needs = [(o, n) for o in rules_mod.RULE_OPTIONS for n in o.needs]
    assert {o.key for o, _ in needs} >= {"stack_draw_two", "multi_play", "h2o_bonus"}
    for opt, need in needs:
        other = rules_mod.RULES_BY_KEY[need.other]
        assert set(need.values) <= set(opt.values) and set(need.allowed) <= set(other.values)
        breaking = next(v for v in other.values if v not in need.allowed)
        with pytest.raises(rules_mod.RuleError) as err:
            RuleSet.from_mapping({opt.key: need.values[0], need.other: breaking})
        assert [key for key, _ in err.value.problems] == [opt.key]
        value = need.values[0]
        assert RuleSet.from_mapping({opt.key: value, **opt.companions(value)})
