"""The rule values' codes are derived from the rule table, codes.py holds none of them, its codes
agree with the policies and the behaviour slots of rules.py, and the kernels' options record is
the rule table: one source for every code."""

import re

import pytest

from unostats import codes, rules, seats
from unostats.engine import _layout

def test_every_enum_value_has_the_code_of_its_index_named_by_its_key_and_value():
    enums = [o for o in rules.RULE_OPTIONS if o.kind == "enum"]
    expected = {f"{o.key.upper()}_{v.upper()}": i for o in enums for i, v in enumerate(o.values)}
    assert rules.VALUE_CODES == expected
    for opt in enums:
        for index, value in enumerate(opt.values):
            assert getattr(rules, f"{opt.key}_{value}".upper()) == index == opt.code(value)
    assert rules.STACK_DRAW_FOUR_PASS_ON == 2 and rules.DRAW_UNTIL_PLAYABLE == 3


def test_codes_holds_no_rule_value():
    """Every constant of codes.py is of a kind it declares (no rule value left over there)."""
    kinds = ("POLICY_", "F_", "FEATURE_", "B_", "N_", "EV_", "EVENT_", "DRAW_", "SLAP_",
             "ROUND_END_", "GAME_END_", "C_", "COUNTER_", "MEASURE_")
    names = [n for n in dir(codes) if re.fullmatch(r"[A-Z0-9_]+", n)]
    assert [n for n in names if not n.startswith(kinds)] == []
    assert not set(names) & set(rules.VALUE_CODES)
    assert {n for n in names if n.startswith("DRAW_") and not n.endswith("_NAMES")} == {
        f"DRAW_{r.upper()}" for r in codes.DRAW_REASON_NAMES}
    assert {n for n in names if n.startswith("ROUND_END_") and not n.endswith("_NAMES")} == {
        f"ROUND_END_{r.upper()}" for r in codes.ROUND_END_NAMES}


def test_every_bundled_policy_is_a_preset_or_coded_with_a_code_of_its_own():
    assert set(seats.PRESETS) | set(seats.CODED) == set(rules.POLICIES)
    assert not set(seats.PRESETS) & set(seats.CODED)
    kernel = {"POLICY_SCORED", "POLICY_UNIFORM", *(f"POLICY_{n.upper()}" for n in seats.CODED)}
    assert {n for n in dir(codes) if n.startswith("POLICY_")} == kernel
    values = [getattr(codes, n) for n in kernel]
    assert sorted(values) == list(range(len(kernel)))
    for name in seats.CODED:
        assert rules.coded_policy(name) == getattr(codes, f"POLICY_{name.upper()}")
    for name in seats.PRESETS:
        with pytest.raises(rules.RuleError):
            rules.coded_policy(name)
    assert all(p.name == name for name, p in seats.PRESETS.items())


def test_feature_codes_follow_the_feature_names():
    for index, name in enumerate(codes.FEATURE_NAMES):
        assert getattr(codes, f"F_{name.upper()}") == index
    assert len([n for n in dir(codes) if n.startswith("F_")]) == codes.N_FEATURES
    assert len(set(codes.FEATURE_NAMES)) == codes.N_FEATURES


def test_behaviour_slots_are_the_codes_and_cover_the_table():
    assert list(rules.BEHAVIOUR_SLOTS) == list(rules.BEHAVIOUR)
    assert sorted(rules.BEHAVIOUR_SLOTS.values()) == list(range(codes.N_BEHAVIOUR))
    for name, slot in rules.BEHAVIOUR_SLOTS.items():
        assert getattr(codes, f"B_{name.upper()}") == slot


def test_the_options_record_is_the_rule_table():
    assert _layout.Options._fields == tuple(o.key for o in rules.RULE_OPTIONS)
    rs = rules.RuleSet.from_mapping({"stack_draw_two": "pass_on", "zero_slap": 3,
                                     "eight_cover": True})
    opt = _layout.options_record(rs)
    assert opt.stack_draw_two == rules.STACK_DRAW_TWO_PASS_ON and opt.zero_slap == 3
    assert opt.eight_cover == 1 and opt.jump_in == rules.JUMP_IN_NONE
