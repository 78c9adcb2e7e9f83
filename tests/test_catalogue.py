"""The rule catalogue as documentation: docs/rules.md is the page rendered from the catalogue
(src/unostats/catalogue.py) and the rule table (src/unostats/rules.py), every catalogue id from
D1 to B3 is on it once with its meaning, every option of the rule table is in its key table, and
every id an option names is in the catalogue."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from unostats import catalogue, rules

DOC = Path(__file__).resolve().parents[1] / "docs" / "rules.md"

# The catalogue's ids by section: deck, deal, turn, actions, out-of-turn play, number cards, the
# UNO call, scoring, tournament, behaviour.
EXPECTED_IDS = [f"{letter}{i}" for letter, n in (
    ("D", 6), ("S", 3), ("P", 7), ("A", 9), ("J", 4), ("N", 6), ("U", 2), ("R", 12), ("T", 4),
    ("B", 3)) for i in range(1, n + 1)]


def doc_text() -> str:
    return DOC.read_text(encoding="utf-8")


def test_docs_rules_md_is_current():
    assert doc_text() == catalogue.markdown(), (
        "docs/rules.md is out of date with the catalogue or the rule table: run `make docs`")


def test_every_rule_id_once_with_its_meaning():
    assert list(catalogue.RULE_IDS) == EXPECTED_IDS
    items = re.findall(r"^- \*\*([A-Z]\d+) ([^*]+)\.\*\* (.+)$", doc_text(), re.MULTILINE)
    assert [i for i, _, _ in items] == EXPECTED_IDS  # none missing, none extra, in order
    for rule_id, name, text in items:
        rule = catalogue.RULES_BY_ID[rule_id]
        assert name == rule.name and rule.meaning in text and "In unostats:" in text


def table_rows(header: str) -> list[list[str]]:
    """The rows of the doc's table whose header line starts with ``header``, as cell lists."""
    lines = doc_text().split("\n")
    start = next(i for i, line in enumerate(lines) if line.startswith(header))
    rows = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        rows.append([c.strip() for c in line.strip("|").split(" | ")])
    return rows


def test_every_rule_option_in_the_key_table():
    rows = table_rows("| key | rules |")
    assert [r[0] for r in rows] == [f"`{k}`" for k in rules.ALL_RULE_KEYS]
    for opt, row in zip(rules.RULE_OPTIONS, rows):
        assert row[1] == opt.rule_ids and row[3] == opt.doc
        if opt.values is not None:
            assert row[2] == ", ".join(f"`{catalogue._show(v)}`" for v in opt.values)
    assert [r[0] for r in table_rows("| behaviour |")] == [f"`{k}`" for k in rules.BEHAVIOUR]
    assert [(r[0], r[1]) for r in table_rows("| policy |")] == \
        [(f"`{p}`", rules.POLICY_DOCS[p]) for p in rules.POLICIES]


def test_every_option_names_catalogue_ids():
    for opt in rules.RULE_OPTIONS:
        for rule_id in catalogue.expand_ids(opt.rule_ids):
            assert rule_id in catalogue.RULES_BY_ID, (opt.key, rule_id)
    named = {i for o in rules.RULE_OPTIONS for i in catalogue.expand_ids(o.rule_ids)}
    named |= set(catalogue.expand_ids(rules.DECK_RULE_IDS))
    for rule_id in EXPECTED_IDS:  # a rule no option sets says how unostats plays it
        assert rule_id in named or catalogue.RULES_BY_ID[rule_id].elsewhere, rule_id


def test_expand_ids():
    assert catalogue.expand_ids("J1-J4") == ("J1", "J2", "J3", "J4")
    assert catalogue.expand_ids("D1, D3-D6") == ("D1", "D3", "D4", "D5", "D6")
    assert catalogue.expand_ids("-") == ()
    with pytest.raises(ValueError):
        catalogue.expand_ids("J1-K2")


def test_sources_named_by_title():
    text = doc_text()
    for tag, (title, _) in catalogue.SOURCES.items():
        assert f"| {tag} | {title} |" in text
    used = {tag for r in catalogue.RULES_BY_ID.values() for tag in re.findall(r"[A-Z]{2,}", r.sources)}
    assert used <= set(catalogue.SOURCES) | {"UNO"}  # "UNO-Extreme" is a section of WIKI
