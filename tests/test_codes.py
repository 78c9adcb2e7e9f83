"""The integer codes of codes.py agree with the rule table, the policies and the behaviour slots of
rules.py, and the kernels' options record is the rule table: one source for every code."""

import re

import pytest

from unostats import codes, rules, seats
from unostats.engine import _layout

# The prefix of each enum option's constants in codes.py, and value names spelled differently.
PREFIX = {
    "first_card": "FIRST_CARD", "wild_draw_four": "WD4", "wild": "WILD", "challenge": "CHALLENGE",
    "draw": "DRAW", "stack_draw_two": "STACK", "stack_draw_four": "STACK",
    "reverse_deflects": "DEFLECT", "jump_in": "JUMP_IN", "multi_play": "MULTI_PLAY",
    "silence": "SILENCE", "scoring": "SCORING", "round_end": "ROUND_END",
    "blank_effect": "BLANK", "custom_wild_effect": "CUSTOM_WILD",
}
SPELLED = {("draw", "two"): "DRAW_TWO_CARDS"}  # DRAW_DRAW_TWO is the draw reason


def test_every_enum_value_has_the_code_of_its_index():
    enums = [o for o in rules.RULE_OPTIONS if o.kind == "enum"]
    assert {o.key for o in enums} == set(PREFIX), "an enum option without a prefix here"
    for opt in enums:
        for index, value in enumerate(opt.values):
            name = SPELLED.get((opt.key, value), f"{PREFIX[opt.key]}_{value.upper()}")
            assert getattr(codes, name) == index == opt.code(value), (opt.key, value, name)


def test_no_code_of_an_enum_prefix_is_left_over():
    """A constant of an option's prefix names one of its values (no stale code)."""
    names = {SPELLED.get((o.key, v), f"{PREFIX[o.key]}_{v.upper()}")
             for o in rules.RULE_OPTIONS if o.kind == "enum" for v in o.values}
    prefixes = sorted(set(PREFIX.values()), key=len, reverse=True)
    others = {"WILD_DRAW_FOUR", "DRAW_REASON_NAMES", "ROUND_END_NAMES", "ROUND_END_WIN",
              "ROUND_END_CAP"}
    for name in dir(codes):
        if not re.fullmatch(r"[A-Z0-9_]+", name) or name in others or name.startswith("DRAW_"):
            continue  # DRAW_* are draw reasons, checked with the referee
        for prefix in prefixes:
            if name.startswith(prefix + "_"):
                assert name in names, f"codes.{name} is no value of a {prefix} option"
                break


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
    assert opt.stack_draw_two == codes.STACK_PASS_ON and opt.zero_slap == 3
    assert opt.eight_cover == 1 and opt.jump_in == codes.JUMP_IN_NONE
