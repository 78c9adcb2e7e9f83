"""The ``tournament:`` section of scenario files: the malformed corpus (every error with its line
and key path), resolution (entrant counts, ``rest``, advance rules), the canonical form and its
round trip, ``--set`` overrides, cells, and the bundled championship file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from unostats import rules
from unostats.scenario import ScenarioError, bundled_dir, load_scenario, load_text
from unostats.tournaments.spec.bracket import AdvanceRule

BAD_DIR = Path(__file__).parent / "scenarios_bad_tournament"

BAD_EXPECTED: dict[str, list[str]] = {
    "players_given.yaml": [
        "players_given.yaml:6: players: not used in a tournament scenario",
        "players_given.yaml:7: seats: not used in a tournament scenario: seats come from "
        "tournament.profiles"],
    "not_mapping.yaml": ["not_mapping.yaml:6: tournament: expected a mapping with keys entrants, "
                         "table_size, consolation, stages, profiles, fields, got 36"],
    "unknown_key.yaml": ["unknown_key.yaml:8: tournament.stage: unknown key 'stage'; did you "
                         "mean 'stages'?",
                         "unknown_key.yaml:6: tournament: missing required key 'stages'"],
    "table_size_11.yaml": ["table_size_11.yaml:8: tournament.table_size: 11 is out of range: "
                           "expected players per table, from 2 to 10"],
    "last_stage_advance.yaml": ["last_stage_advance.yaml:12: tournament.stages[2].advance: the "
                                "last stage is the final"],
    "stage_missing_advance.yaml": ["stage_missing_advance.yaml:11: tournament.stages[1]: "
                                   "missing required key 'advance'"],
    "advance_rules_order.yaml": ["advance_rules_order.yaml:12: "
                                 "tournament.stages[0].advance[1].entrants_at_most: 12 must be "
                                 "larger than the rule before it (24)"],
    "advance_rules_no_catchall.yaml": ["advance_rules_no_catchall.yaml:12: "
                                       "tournament.stages[0].advance[1].entrants_at_most: the "
                                       "last rule applies to any larger number of entrants"],
    "advance_too_big.yaml": ["advance_too_big.yaml:10: tournament.stages[0].advance: 6 is out of "
                             "range: expected players per table who go on, from 1 to 5"],
    "unknown_profile.yaml": ["unknown_profile.yaml:18: tournament.fields[0].mix.casul: unknown "
                             "profile 'casul'; did you mean 'casual'? profiles: casual, regular"],
    "two_rests.yaml": ["two_rests.yaml:18: tournament.fields[0].mix: only one profile can be "
                       "'rest'; here: casual, regular"],
    "mix_sum.yaml": ["mix_sum.yaml:18: tournament.fields[0].mix: the counts add up to 30 but the "
                     "field has 36 entrants"],
    "rest_without_entrants.yaml": ["rest_without_entrants.yaml:17: "
                                   "tournament.fields[0].mix.regular: 'rest' needs the field's "
                                   "entrant count"],
    "final_too_big.yaml": ["final_too_big.yaml:16: tournament.fields[0]: field 'evening' (36 "
                           "entrants) cannot be played: 12 players would reach the final "
                           "'final' after stage 'group'"],
    "duplicate_field.yaml": ["duplicate_field.yaml:19: tournament.fields[1].name: duplicate "
                             "field name 'evening' (first used at line 17)"],
    "profile_policy.yaml": ["profile_policy.yaml:15: tournament.profiles.regular.policy: unknown "
                            "policy 'colour_frist'; did you mean 'colour_first'?"],
    "consolation_string.yaml": ["consolation_string.yaml:8: tournament.consolation: expected "
                                "true or false, got 'yes'"],
    "duplicate_stage.yaml": ["duplicate_stage.yaml:11: tournament.stages[1].name: duplicate "
                             "stage name 'group'"],
    "many_problems.yaml": [
        "many_problems.yaml:7: tournament.entrants: 1 is out of range",
        "many_problems.yaml:8: tournament.table_size: 12 is out of range",
        "many_problems.yaml:13: tournament.stages[2].advance: the last stage is the final",
        "many_problems.yaml:15: tournament.profiles.casual.behaviour.forget_uno: 2 is out of "
        "range"],
}

GOOD = """\
name: cup
description: a small cup
seed: 3
games: 4
variants:
  - name: tour
    rules: {first_card: number_only, wild_draw_four: free}
  - name: official
tournament:
  entrants: 24
  consolation: true
  stages:
    - name: group
      advance:
        - {entrants_at_most: 12, advance: 3}
        - {advance: 2}
    - {name: semifinal, advance: 1}
    - name: final
  profiles:
    casual: {policy: random, behaviour: {forget_uno: 0.2}}
    sharp: {policy: wild_last}
    idle: {policy: first_legal}
  fields:
    - name: evening
      description: the usual crowd
      mix: {sharp: 4, casual: rest, idle: 0}
    - name: duel
      entrants: 12
      mix: {sharp: 1, casual: 11}
"""


def _error(path: Path) -> ScenarioError:
    with pytest.raises(ScenarioError) as info:
        load_scenario(path)
    return info.value


def test_corpus_is_complete():
    assert {p.name for p in BAD_DIR.glob("*.yaml")} == set(BAD_EXPECTED)


@pytest.mark.parametrize("name", sorted(BAD_EXPECTED))
def test_bad_tournament_scenario(name):
    error = _error(BAD_DIR / name)
    text = str(error)
    for expected in BAD_EXPECTED[name]:
        assert expected in text, f"{expected!r} not in:\n{text}"
    assert text.count("\n") + 1 == len(error.problems)


def test_many_problems_at_once_in_line_order():
    error = _error(BAD_DIR / "many_problems.yaml")
    lines = [p.line for p in error.problems]
    assert len(lines) == 4 and lines == sorted(lines)


def test_good_tournament_resolves():
    s = load_text(GOOD, "cup.yaml")
    spec = s.tournament
    assert spec.table_size == 6 and spec.consolation and spec.entrants == 24
    assert list(spec.profiles) == ["casual", "idle", "sharp"]  # sorted: entrant ids follow
    evening, duel = spec.fields
    assert evening.entrants == 24 and evening.mix == (("casual", 20), ("sharp", 4))
    assert evening.entrant_profiles() == ("casual",) * 20 + ("sharp",) * 4
    assert duel.entrants == 12 and duel.mix == (("casual", 11), ("sharp", 1))
    assert spec.stages[0].advance == (AdvanceRule(3, 12), AdvanceRule(2))
    assert spec.stages[0].advancers(12) == 3 and spec.stages[0].advancers(24) == 2
    # evening: 4 tables of 6, 2 go on -> semifinal 8 at 2 tables of 4 -> final of 2;
    # consolation of 16: 3 tables (6, 5, 5) x 2 -> 6: one table, the final.
    # duel: 2 tables of 6, 3 go on -> final of 6; consolation of 6: a final.
    assert s.players == (2, 4, 5, 6)
    assert [(c.variant.name, c.players, c.seats) for c in s.cells()][:2] == [
        ("tour", 2, ()), ("tour", 4, ())]
    assert spec.games_per_tournament(evening) == 4 + 2 + 1 + 3 + 1
    assert spec.games_per_tournament(duel) == 2 + 1 + 1


def test_canonical_form_round_trips_and_hashes():
    s = load_text(GOOD, "cup.yaml")
    resolved = s.resolved()
    assert "players" not in resolved and "seats" not in resolved
    t = resolved["tournament"]
    assert t["fields"][0]["mix"] == {"casual": 20, "sharp": 4}
    assert t["profiles"]["sharp"]["behaviour"] == {k: v for k, (v, _) in
                                                    rules.BEHAVIOUR.items()}
    again = load_text(s.canonical_json(), "stored")
    assert again.hash() == s.hash() and again.tournament == s.tournament
    # Writing the file differently but meaning the same gives the same hash.
    reordered = GOOD.replace("{sharp: 4, casual: rest, idle: 0}", "{casual: 20, sharp: 4}")
    assert load_text(reordered, "x.yaml").hash() == s.hash()
    changed = GOOD.replace("{sharp: 1, casual: 11}", "{sharp: 2, casual: 10}")
    assert load_text(changed, "x.yaml").hash() != s.hash()


def test_set_overrides_reach_the_tournament():
    s = load_text(GOOD, "cup.yaml", ["tournament.entrants=36"])
    assert s.tournament.fields[0].entrants == 36 and s.tournament.fields[0].count("casual") == 32
    with pytest.raises(ScenarioError) as info:
        load_text(GOOD, "cup.yaml", ["tournament.table_size=12"])
    assert "cup.yaml (--set tournament.table_size=12): tournament.table_size: 12 is out of " \
           "range" in str(info.value)
    with pytest.raises(ScenarioError) as info:
        load_text(GOOD, "cup.yaml", ["players=4"])
    assert "players: not used in a tournament scenario" in str(info.value)


def test_deck_must_deal_the_largest_table():
    text = GOOD.replace("rules: {first_card: number_only, wild_draw_four: free}",
                        "rules: {first_card: number_only, wild_draw_four: free, hand_size: 20}")
    with pytest.raises(ScenarioError) as info:
        load_text(text, "cup.yaml")
    assert "variants[0].rules: with 6 players: the deck has 108 cards" in str(info.value)


def test_bundled_championship_validates():
    path = bundled_dir() / "championship.yaml"
    s = load_scenario(path)
    spec = s.tournament
    assert spec is not None and spec.table_size == 6 and spec.consolation
    assert s.games >= 1000
    assert [st.name for st in spec.stages] == ["group", "semifinal", "final"]
    assert len(spec.fields) >= 2
    policies = {seat.policy for seat in spec.profiles.values()}
    simple = {"random", "first_legal", "colour_first", "number_first", "actions_first",
              "save_actions", "high_value_first", "wild_last"}
    assert policies - simple, "the championship needs a stronger policy than the simple ones"
    # A field of one strong entrant against equals (the skill question).
    assert any(len(f.mix) == 2 and min(c for _, c in f.mix) == 1 for f in spec.fields)
    json.loads(s.canonical_json())
