"""Scenario files: the malformed corpus (every error kind, with line and key path) and the good
path (defaults, extends chains, --set overrides, canonical form and hash, cells, bundled files)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from unostats import rules
from unostats.engine.simulate import Seat
from unostats.scenario import (
    Problem,
    Scenario,
    ScenarioError,
    apply_overrides,
    bundled_dir,
    bundled_scenarios,
    load_scenario,
    load_text,
)

BAD_DIR = Path(__file__).parent / "scenarios_bad"

# file -> substrings its error message must contain ("<file>:<line>: <key path>: <message>").
BAD_EXPECTED: dict[str, list[str]] = {
    # file-level
    "empty.yaml": ["empty.yaml:1: the file is empty"],
    "comments_only.yaml": ["comments_only.yaml:1: the file is empty"],
    "top_level_list.yaml": ["top_level_list.yaml:1: the top level must be a mapping", "got a list"],
    "top_level_scalar.yaml": ["top_level_scalar.yaml:1: the top level must be a mapping"],
    "yaml_syntax.yaml": ["yaml_syntax.yaml:4: YAML syntax error", "starts at line 3"],
    "yaml_bad_indent.yaml": ["yaml_bad_indent.yaml:3: YAML syntax error"],
    "two_documents.yaml": ["two_documents.yaml:6: YAML syntax error", "single document"],
    "duplicate_key.yaml": ["duplicate_key.yaml:4: games: duplicate key (first at line 2)"],
    # top-level keys and values
    "unknown_top_key.yaml": [
        "unknown_top_key.yaml:4: varients: unknown key 'varients'; did you mean 'variants'?",
        "allowed: name, description, seed, games, players, seats, variants",
        "unknown_top_key.yaml:1: missing required key 'variants'",
    ],
    "missing_required.yaml": ["missing_required.yaml:1: missing required key 'games'",
                              "missing_required.yaml:1: missing required key 'players'"],
    "name_empty.yaml": ["name_empty.yaml:1: name: expected a non-empty string"],
    "players_11.yaml": ["players_11.yaml:3: players: 11 is out of range",
                        "player count from 2 to 10"],
    "players_1.yaml": ["players_1.yaml:3: players[0]: 1 is out of range"],
    "players_repeat.yaml": ["players_repeat.yaml:3: players: player counts repeat"],
    "players_string.yaml": ["players_string.yaml:3: players: expected a player count",
                            "got 'four' (a string)"],
    "games_zero.yaml": ["games_zero.yaml:2: games: 0 is out of range: expected an integer >= 1"],
    "games_string.yaml": ["games_string.yaml:2: games: expected an integer >= 1",
                          "got 'many' (a string)"],
    "seed_negative.yaml": ["seed_negative.yaml:4: seed: -5 is out of range"],
    # seats
    "unknown_policy.yaml": ["unknown_policy.yaml:5: seats.policy: unknown policy 'colour_frist'; "
                            "did you mean 'colour_first'?", "allowed: random, first_legal"],
    "probability_1_5.yaml": ["probability_1_5.yaml:7: seats.behaviour.forget_uno: 1.5 is out of "
                             "range: expected a probability from 0 to 1"],
    "reaction_zero.yaml": ["reaction_zero.yaml:6: seats.behaviour.reaction: 0 is out of range: "
                           "expected a positive weight"],
    "keep_drawn_fraction.yaml": ["keep_drawn_fraction.yaml:6: seats.behaviour.keep_drawn: 1.5 is "
                                 "out of range: expected a number of cards (a whole number from "
                                 "0)"],
    "behaviour_string.yaml": ["behaviour_string.yaml:6: seats.behaviour.catch_uno: expected a "
                              "probability from 0 to 1, got 'often'"],
    "unknown_behaviour.yaml": ["unknown_behaviour.yaml:6: seats.behaviour.forgot_uno: unknown "
                               "behaviour 'forgot_uno'; did you mean 'forget_uno'?"],
    "weighted_policy.yaml": [
        "weighted_policy.yaml:7: seats[0].policy.weights.pointz: unknown feature 'pointz'; "
        "did you mean 'points'? allowed: number, skip, reverse, draw_two, wild, wild_draw_four, "
        "blank, hit_all, swap_hands, custom_wild, points, colour_match, rank_match, "
        "colour_held, rank_held, links, attack",
        "weighted_policy.yaml:7: seats[0].policy.weights.colour_held: expected a number from "
        "-1e+09 to 1e+09, got 'lots'",
        "weighted_policy.yaml:8: seats[0].policy.colour: unknown value 'rainbow'",
        "allowed: most_held, random",
        "weighted_policy.yaml:9: seats[0].policy.ties: unknown value 'maybe'; allowed: random, "
        "first",
        "weighted_policy.yaml:10: seats[0].policy.tie: unknown key 'tie'; did you mean 'ties'? "
        "allowed: name, weights, colour, ties",
        "weighted_policy.yaml:11: seats[1].policy: missing required key 'name'",
    ],
    "weighted_policy_names.yaml": [
        "weighted_policy_names.yaml:5: seats[0].policy.name: 'random' is a bundled policy's "
        "name; a policy written as data needs a name of its own",
        "weighted_policy_names.yaml:7: seats[2].policy: another seat's policy is named 'lab' "
        "with other weights or rules: give each policy a name of its own",
    ],
    "unknown_seat_key.yaml": ["unknown_seat_key.yaml:5: seats.polcy: unknown key 'polcy'; "
                              "did you mean 'policy'?"],
    "seats_list_short.yaml": ["seats_list_short.yaml:4: seats: 3 seat mappings, but the file "
                              "plays up to 4 players"],
    "seats_scalar.yaml": ["seats_scalar.yaml:4: seats: expected one seat mapping",
                          "got 'random'"],
    # variants
    "variants_empty.yaml": ["variants_empty.yaml:4: variants: expected a non-empty list",
                            "got an empty list"],
    "variant_not_mapping.yaml": ["variant_not_mapping.yaml:5: variants[0]: expected a variant "
                                 "mapping"],
    "variant_missing_name.yaml": ["variant_missing_name.yaml:5: variants[0]: missing required "
                                  "key 'name'"],
    "variant_name_colon.yaml": ["variant_name_colon.yaml:5: variants[0].name: 'a:b': a variant "
                                "name cannot contain ':'"],
    "unknown_variant_key.yaml": ["unknown_variant_key.yaml:6: variants[0].rule: unknown key "
                                 "'rule'; did you mean 'rules'?"],
    "duplicate_variant.yaml": ["duplicate_variant.yaml:7: variants[2].name: duplicate variant "
                               "name 'base' (first used at line 5)"],
    "rules_not_mapping.yaml": ["rules_not_mapping.yaml:6: variants[0].rules: expected a mapping "
                               "of rule options, got a list"],
    # extends
    "extends_unknown_preset.yaml": ["extends_unknown_preset.yaml:6: variants[0].extends: unknown "
                                    "preset or variant 'standrd'; did you mean 'standard'?"],
    "extends_preset_variant_missing.yaml": ["extends_preset_variant_missing.yaml:6: "
                                            "variants[0].extends: preset 'standard' has no "
                                            "variant 'fast'"],
    "extends_cycle.yaml": ["extends_cycle.yaml:6: variants[0].extends: extends cycle: "
                           "a -> b -> a"],
    "extends_self.yaml": ["extends_self.yaml:6: variants[0].extends: extends cycle: a -> a"],
    "extends_forward.yaml": ["extends_forward.yaml:6: variants[0].extends: refers to variant "
                             "'b', defined later in the file"],
    "extends_not_string.yaml": ["extends_not_string.yaml:6: variants[0].extends: expected the "
                                "name of an earlier variant or a preset"],
    # rules (wording from rules.check_value / check_deck / RuleSet.check_players)
    "unknown_rule_key.yaml": ["unknown_rule_key.yaml:7: variants[0].rules.stack_draw2: unknown "
                              "rule 'stack_draw2'; did you mean 'stack_draw_two'?"],
    "bad_enum_value.yaml": ["bad_enum_value.yaml:8: variants[1].rules.stack_draw_two: unknown "
                            "value 'add'; allowed: none, sum, pass_on"],
    "bool_as_string.yaml": ["bool_as_string.yaml:7: variants[0].rules.seven_zero: expected true "
                            "or false, got 'true'"],
    "int_out_of_range.yaml": ["int_out_of_range.yaml:7: variants[0].rules.hand_size: 25 is out "
                              "of range: expected an integer from 1 to 20"],
    "int_as_float.yaml": ["int_as_float.yaml:7: variants[0].rules.uno_penalty: expected an "
                          "integer from 0 to 10, got 2.5"],
    "deck_negative.yaml": ["deck_negative.yaml:8: variants[0].rules.deck.wild: expected an "
                           "integer from 0 to 40, got -1"],
    "deck_unknown_key.yaml": ["deck_unknown_key.yaml:8: variants[0].rules.deck.wilds: unknown "
                              "card kind; did you mean 'wild'?"],
    "deck_not_mapping.yaml": ["deck_not_mapping.yaml:7: variants[0].rules.deck: expected a "
                              "mapping of card counts"],
    "deck_too_small.yaml": ["deck_too_small.yaml:6: variants[0].rules: with 10 players: the deck "
                            "has 108 cards, too few to deal 20 to 10 players"],
    # every problem of a file at once, in line order
    "many_problems.yaml": [
        "many_problems.yaml:2: games: 0 is out of range",
        "many_problems.yaml:3: players: 11 is out of range",
        "many_problems.yaml:5: seats.policy: unknown policy 'smart'",
        "many_problems.yaml:6: varients: unknown key 'varients'; did you mean 'variants'?",
        "many_problems.yaml:10: variants[0].rules.jump_in: unknown value 'all'",
        "many_problems.yaml:11: variants[0].rules.hand_size: 0 is out of range",
    ],
}

GOOD = """\
name: good
description: a test scenario
seed: 7
games: 50
players: [6, 4]
seats:
  policy: colour_first
  behaviour:
    forget_uno: 0.2
variants:
  - name: base
  - name: short_hands
    description: five cards each
    extends: base
    rules:
      hand_size: 5
      deck: {wild: 2}
  - name: shorter
    extends: short_hands
    rules:
      uno_penalty: 4
      deck: {wild_draw_four: 3}
  - name: from_preset
    extends: standard:standard
"""


def _error(path: Path) -> ScenarioError:
    with pytest.raises(ScenarioError) as info:
        load_scenario(path)
    return info.value


# --- the malformed corpus -------------------------------------------------------------------


def test_corpus_is_complete():
    files = {p.name for p in BAD_DIR.glob("*.yaml")}
    assert files == set(BAD_EXPECTED), "every corpus file needs expected messages, and vice versa"
    assert len(files) >= 25


@pytest.mark.parametrize("name", sorted(BAD_EXPECTED))
def test_bad_scenario(name):
    error = _error(BAD_DIR / name)
    text = str(error)
    for expected in BAD_EXPECTED[name]:
        assert expected in text, f"{expected!r} not in:\n{text}"
    # one line per problem, each a Problem that names this file
    assert text.count("\n") + 1 == len(error.problems)
    assert all(isinstance(p, Problem) and p.source.endswith(name) for p in error.problems)


def test_many_problems_reported_in_line_order():
    error = _error(BAD_DIR / "many_problems.yaml")
    lines = [p.line for p in error.problems]
    assert len(lines) == 6 and lines == sorted(lines)


# --- the good path --------------------------------------------------------------------------


def test_defaults_resolved():
    s = load_text("name: x\ngames: 3\nplayers: 4\nvariants:\n  - name: v\n", "x.yaml")
    assert s.seed is None and s.description == "" and s.players == (4,)
    assert s.variants[0].rules == rules.RuleSet.from_mapping({})
    assert s.seats_spec.policy == "random"
    assert s.seats_spec.behaviour == {k: d for k, (d, _) in rules.BEHAVIOUR.items()}
    assert s.with_seed(11).seed == 11


def test_extends_chain_accumulates_overrides():
    s = load_text(GOOD, "good.yaml")
    by_name = {v.name: v for v in s.variants}
    assert by_name["base"].rules == rules.RuleSet.from_mapping({})
    short = by_name["short_hands"].rules
    assert short.values["hand_size"] == 5 and short.deck["wild"] == 2
    shorter = by_name["shorter"].rules
    assert shorter.values["hand_size"] == 5 and shorter.values["uno_penalty"] == 4
    assert shorter.deck["wild"] == 2 and shorter.deck["wild_draw_four"] == 3  # decks merge
    assert by_name["from_preset"].rules == by_name["base"].rules
    assert by_name["short_hands"].description == "five cards each"
    assert s.players == (4, 6)  # sorted
    assert s.seats_spec.behaviour["forget_uno"] == 0.2


def test_extends_preset_first_variant_and_local_names_first(tmp_path, monkeypatch):
    (tmp_path / "house.yaml").write_text(
        "name: house\ngames: 1\nplayers: 4\nvariants:\n"
        "  - name: first\n    rules: {hand_size: 9}\n"
        "  - name: second\n    extends: first\n    rules: {uno_penalty: 4}\n")
    monkeypatch.setenv("UNOSTATS_SCENARIOS", str(tmp_path))
    s = load_text("name: x\ngames: 1\nplayers: 4\nvariants:\n"
                  "  - name: a\n    extends: house\n"
                  "  - name: b\n    extends: house:second\n"
                  "  - name: house\n    rules: {hand_size: 3}\n"
                  "  - name: c\n    extends: house\n", "x.yaml")
    a, b, _, c = s.variants
    assert a.rules.values["hand_size"] == 9 and a.rules.values["uno_penalty"] == 2
    assert b.rules.values["hand_size"] == 9 and b.rules.values["uno_penalty"] == 4
    assert c.rules.values["hand_size"] == 3  # an earlier local variant wins over a preset


def test_broken_preset_and_preset_cycle_are_reported(tmp_path, monkeypatch):
    (tmp_path / "p1.yaml").write_text(
        "name: p1\ngames: 1\nplayers: 4\nvariants:\n  - name: v\n    extends: p2\n")
    (tmp_path / "p2.yaml").write_text(
        "name: p2\ngames: 1\nplayers: 4\nvariants:\n  - name: v\n    extends: p1\n")
    (tmp_path / "broken.yaml").write_text(
        "name: broken\ngames: 1\nplayers: 4\nvariants:\n  - name: v\n    rules: {hand_size: 0}\n")
    monkeypatch.setenv("UNOSTATS_SCENARIOS", str(tmp_path))
    with pytest.raises(ScenarioError) as info:
        load_text("name: x\ngames: 1\nplayers: 4\nvariants:\n  - name: a\n    extends: p1\n"
                  "  - name: b\n    extends: broken\n", "x.yaml")
    text = str(info.value)
    assert "extends cycle through presets: p1 -> p2 -> p1" in text
    assert "x.yaml:8: variants[1].extends: preset 'broken'" in text
    assert "broken.yaml:6: variants[0].rules.hand_size: 0 is out of range" in text


def test_seat_list_uses_first_n_seats():
    s = load_text("name: x\ngames: 1\nplayers: [2, 3]\nseats:\n  - policy: wild_last\n"
                  "  - policy: first_legal\n  - policy: random\n    behaviour: {reaction: 2}\n"
                  "variants:\n  - name: v\n", "x.yaml")
    cells = list(s.cells())
    assert [c.players for c in cells] == [2, 3]
    assert [seat.policy for seat in cells[0].seats] == ["wild_last", "first_legal"]
    assert cells[1].seats[2].behaviour["reaction"] == 2.0
    assert all(isinstance(seat, Seat) for c in cells for seat in c.seats)


def test_cells_cover_every_variant_and_player_count():
    s = load_text(GOOD, "good.yaml")
    cells = list(s.cells())
    assert len(cells) == len(s.variants) * len(s.players) == 8
    assert [(c.variant.name, c.players) for c in cells[:2]] == [("base", 4), ("base", 6)]
    assert all(len(c.seats) == c.players for c in cells)


# --- --set overrides ------------------------------------------------------------------------


def test_apply_overrides():
    raw = {"name": "x", "games": 1, "players": 4,
           "seats": [{"policy": "random"}, {"policy": "random"}],
           "variants": [{"name": "a"}, {"name": "b", "rules": {"hand_size": 5}}]}
    out = apply_overrides(raw, ["rules.stack_draw_two=sum", "games=100", "players=[4,6]",
                                "seats.policy=colour_first", "variants.b.rules.deck.wild=2",
                                "variants[0].description=first"])
    assert raw["games"] == 1  # the input is not modified
    assert out["games"] == 100 and out["players"] == [4, 6]
    assert [v["rules"]["stack_draw_two"] for v in out["variants"]] == ["sum", "sum"]
    assert out["variants"][1]["rules"] == {"hand_size": 5, "stack_draw_two": "sum",
                                           "deck": {"wild": 2}}
    assert out["variants"][0]["description"] == "first"
    assert [s["policy"] for s in out["seats"]] == ["colour_first", "colour_first"]


def test_load_with_overrides():
    s = load_text(GOOD, "good.yaml",
                  overrides=["games=9", "players=[2,3]", "rules.uno_penalty=3", "seed=",
                             "seats.behaviour.catch_uno=1"])
    assert s.games == 9 and s.players == (2, 3) and s.seed is None
    assert {v.rules.values["uno_penalty"] for v in s.variants} == {3}
    assert s.seats_spec.behaviour["catch_uno"] == 1.0
    assert s.overrides[0] == "games=9"


def test_bad_overrides_are_validation_errors():
    with pytest.raises(ScenarioError) as info:
        load_text(GOOD, "good.yaml", overrides=[
            "rules.stack_draw_two=add", "gamez=5", "players=11", "variants[9].rules.x=1",
            "no_equals_sign", "games=[1"])
    text = str(info.value)
    assert ("good.yaml (--set rules.stack_draw_two=add): variants[0].rules.stack_draw_two: "
            "unknown value 'add'") in text
    assert "good.yaml (--set gamez=5): gamez: unknown key 'gamez'; did you mean 'games'?" in text
    assert "good.yaml (--set players=11): players: 11 is out of range" in text
    assert "good.yaml (--set variants[9].rules.x=1): variants[9]: no such item" in text
    assert "good.yaml (--set no_equals_sign): expected path=value" in text
    assert "good.yaml (--set games=[1): the value is not valid YAML" in text
    with pytest.raises(ScenarioError, match="has 2 items"):
        apply_overrides({"variants": [{}, {}]}, ["variants.5.name=x"])


# --- canonical form and hash ----------------------------------------------------------------


def test_canonical_json_and_hash():
    a = load_text(GOOD, "good.yaml")
    b = load_text(GOOD.replace("players: [6, 4]", "players: [4, 6]"), "elsewhere.yaml")
    assert a.canonical_json() == b.canonical_json() and a.hash() == b.hash()
    resolved = json.loads(a.canonical_json())
    assert resolved == a.resolved()
    assert resolved["variants"][0]["rules"] == rules.RuleSet.from_mapping({}).as_dict()
    assert set(resolved["seats"]["behaviour"]) == set(rules.BEHAVIOUR)
    changed = load_text(GOOD, "good.yaml", overrides=["variants.shorter.rules.uno_penalty=5"])
    assert changed.hash() != a.hash()
    # an explicit default resolves to the same scenario
    explicit = load_text(GOOD, "good.yaml", overrides=["variants.base.rules.hand_size=7"])
    assert explicit.hash() == a.hash()


def test_target_score_follows_the_final_scoring_along_a_chain():
    # target_score is resolved after the whole chain, so a default is never frozen early.
    s = load_text("name: x\ngames: 1\nplayers: 4\nvariants:\n  - name: a\n"
                  "    rules: {uno_penalty: 3}\n  - name: b\n    extends: a\n", "x.yaml")
    assert s.variants[1].rules.values["target_score"] == rules.TARGET_SCORE_DEFAULTS[
        "winner_takes_all"]
    assert "target_score" not in s.variants[1].overrides


# --- bundled scenarios ----------------------------------------------------------------------


def test_bundled_standard_loads():
    s = load_scenario(bundled_dir() / "standard.yaml")
    assert isinstance(s, Scenario) and s.name == "standard" and s.seed == 20261130
    assert [v.name for v in s.variants] == ["standard"]
    # "no extends" means "extends standard": that holds only while standard overrides nothing
    assert s.variants[0].overrides == {}
    assert s.variants[0].rules == rules.RuleSet.from_mapping({})
    assert s.source_text.startswith("#")


def test_bundled_scenarios_list():
    listed = {name: (description, path) for name, description, path in bundled_scenarios()}
    assert "standard" in listed
    description, path = listed["standard"]
    assert "docs/rules.md" in description and path.name == "standard.yaml"


@pytest.mark.parametrize("path", sorted(bundled_dir().glob("*.yaml")), ids=lambda p: p.stem)
def test_every_bundled_scenario_is_valid(path):
    load_scenario(path)


# --- how_it_plays -----------------------------------------------------------------------------

DESIGN = """\
name: d
seed: 1
variants:
  - name: base
design:
  players: 4
  search:
    rules.hand_size: {from: 5, to: 9}
  goals:
    GOAL: maximize
  budget: {candidates: 2, games: 100}
"""


def test_how_it_plays_is_off_unless_asked_and_in_the_hash_only_when_on():
    plain = load_text(GOOD, "good.yaml")
    assert not plain.how_it_plays and "how_it_plays" not in plain.resolved()
    on = load_text(GOOD, "good.yaml", overrides=["how_it_plays=true"])
    assert on.how_it_plays and on.resolved()["how_it_plays"] is True
    assert on.hash() != plain.hash()
    assert load_text("how_it_plays: false\n" + GOOD, "good.yaml").hash() == plain.hash()


def test_how_it_plays_is_checked_like_every_key():
    with pytest.raises(ScenarioError) as info:
        load_text(GOOD, "good.yaml", overrides=["how_it_plays=sometimes"])
    assert ("good.yaml (--set how_it_plays=sometimes): how_it_plays: expected true or false "
            "(count how each round plays), got 'sometimes'") in str(info.value)
    with pytest.raises(ScenarioError) as info:
        load_text("how_it_plays: 1\n" + GOOD, "good.yaml")
    assert "good.yaml:1: how_it_plays: expected true or false" in str(info.value)


def test_a_design_goal_that_reads_a_round_counter_counts_by_itself():
    counted = load_text(DESIGN.replace("GOAL", "hand_leader_changes_per_round"), "d.yaml")
    assert counted.how_it_plays
    assert not load_text(DESIGN.replace("GOAL", "turns_per_round"), "d.yaml").how_it_plays
    with pytest.raises(ScenarioError) as info:
        load_text("how_it_plays: false\n" + DESIGN.replace("GOAL", "hand_leader_changes_per_round"),
                  "d.yaml")
    assert ("d.yaml:1: how_it_plays: false, but the goal hand_leader_changes_per_round needs "
            "how each round plays") in str(info.value)


def test_the_bundled_how_it_plays_scenario_counts_and_its_run_says_so():
    from unostats.games.driver import plan

    counting = load_scenario("how-it-plays")
    assert counting.how_it_plays and plan(counting).endswith(", counting how each round plays")
    plain = load_scenario("standard")
    assert not plain.how_it_plays and "counting" not in plan(plain)


@pytest.mark.parametrize("name", ["championship", "strategies"])
def test_tournaments_and_leagues_refuse_how_it_plays(name):
    with pytest.raises(ScenarioError) as info:
        load_scenario(name, ["how_it_plays=true"])
    assert ("(--set how_it_plays=true): how_it_plays: not used in a tournament or league "
            "scenario") in str(info.value)
