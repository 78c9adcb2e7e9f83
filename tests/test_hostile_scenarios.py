"""Hostile scenarios, leagues, sweeps, precision targets and comparisons (issue 36), class by class:
a league or sweep too large to play is refused up front by counting (never by enumerating), keys
that would silently override each other are refused, and odd numbers end in one sentence with
exit 2 instead of a traceback. Each class is one parametrised test (its ids are the tally)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from unostats.leagues.spec import seatings as league
from unostats.scenario import sweep

# The most seatings a test lets the league design enumerate, and sweep points it lets be
# resolved: the refusals below must come from counting, so a hostile file costs no memory.
ENUMERATION_BOUND = 10_000
POINTS_BOUND = 500


@pytest.fixture
def bounded(monkeypatch):
    """Fail (instead of hanging) as soon as validation enumerates a huge design or resolves
    sweep points by the thousand."""
    enumerate_seatings = league._seatings
    point = sweep._point
    resolved = []

    def guarded_seatings(policies: int, players: int):
        assert math.comb(policies, players) <= ENUMERATION_BOUND, \
            f"the seatings of {policies} policies at {players} were enumerated"
        return enumerate_seatings(policies, players)

    def guarded_point(*args, **kwargs):
        resolved.append(1)
        assert len(resolved) <= POINTS_BOUND, "sweep points were resolved one by one"
        return point(*args, **kwargs)

    monkeypatch.setattr(league, "_seatings", guarded_seatings)
    monkeypatch.setattr(sweep, "_point", guarded_point)


def _league(policies: int, table_size: str) -> str:
    listed = "\n".join(f"    - {{name: p{i}, weights: {{points: {i % 7 + 1}}}}}"
                       for i in range(policies))
    return (f"name: big league\nseed: 1\ngames: 10\nvariants:\n  - name: official\nleague:\n"
            f"  table_size: {table_size}\n  policies:\n{listed}\n")


def _sweep(sweep_text: str, variants: int = 1, players: str = "2") -> str:
    names = "".join(f"  - name: v{i}\n" for i in range(variants))
    return f"name: big sweep\nseed: 1\ngames: 5\nplayers: {players}\nvariants:\n{names}" \
           f"sweep:\n{sweep_text}"


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "s.yaml"
    path.write_text(text)
    return path


# --- Hangs: what is played is counted up front ---------------------------------------------------

TOO_LARGE = {
    # C(1000, 4) x 8 seatings: 1,000 policies are more than a batch can name
    "league-1000-policies-at-4": (_league(1000, "4"), 8, "league.policies",
                                  ["1,000 policies", "at most 128"]),
    # the store limit at validation, not at the first batch
    "league-150-policies": (_league(150, "2"), 8, "league.policies",
                            ["150 policies", "at most 128"]),
    # C(100, 5) x 10 = 752,875,200 seatings
    "league-100-policies-at-5": (_league(100, "5"), 7, "league.table_size",
                                 ["752,875,200 seatings", "at most 1,000,000"]),
    # 128 policies are allowed, but not at tables of 4 (C(128, 4) x 8 seatings)
    "league-128-policies-at-2-and-4": (_league(128, "[2, 4]"), 7, "league.table_size",
                                       ["85,360,256 seatings", "85,344,000 at 4 players",
                                        "at most 1,000,000"]),
    # 10,000 points x 20 variants: the limit counts cells, not grid points
    "sweep-10000-points-x-20-variants": (
        _sweep("  rules.target_score: {from: 100, to: 10000, step: 100}\n"
               "  rules.max_turns: {from: 10, to: 1000, step: 10}\n", variants=20), 26, "sweep",
        ["200,000 cells", "at most 10,000"]),
    # 1,000 points x 9 swept player counts x 2 variants
    "sweep-players-multiply-cells": (
        _sweep("  rules.target_score: {from: 100, to: 100000, step: 100}\n"
               "  players: [2, 3, 4, 5, 6, 7, 8, 9, 10]\n", variants=2), 8, "sweep",
        ["18,000 cells", "at most 10,000"]),
    # several grids add up
    "sweep-grids-add-up": (
        _sweep("  - rules.target_score: {from: 100, to: 60000, step: 100}\n"
               "  - rules.max_turns: {from: 10, to: 6000, step: 10}\n", variants=3,
               players="[2, 4, 6]"), 9, "sweep", ["10,800 cells", "at most 10,000"]),
}


@pytest.mark.parametrize("name", TOO_LARGE)
def test_hang_a_league_or_sweep_too_large_is_refused_by_counting(name, tmp_path, invoke, bounded):
    text, line, key, words = TOO_LARGE[name]
    path = _write(tmp_path, text)
    for args in (("validate", path), ("simulate", path, "--db", tmp_path / "r.duckdb", "-q")):
        result = invoke(*args)
        assert result.exit_code == 2, result.output
        first = result.stderr.splitlines()[0]
        assert first.startswith(f"{path}:{line}: {key}: "), first
        assert all(w in first for w in words), first
    assert not (tmp_path / "r.duckdb").exists()


def test_hang_the_largest_league_allowed_validates(tmp_path, invoke, bounded):
    """128 policies at tables of 2 (16,256 seatings) are within both limits."""
    result = invoke("validate", _write(tmp_path, _league(128, "2")))
    assert result.exit_code == 0, result.output
    assert "a league of 128 policies x 1 variant: 16,256 seatings at 2 players" in result.stdout


# --- Wrong results: two keys of a grid that set the same thing ----------------------------------

TWO_VARIANTS = "players: 2\nvariants:\n  - name: a\n  - name: b\n"
OVERLAPS = {
    "rules-beside-variant-rules": (
        "  rules.uno_penalty: [1, 2]\n  variants.a.rules.uno_penalty: [3, 4]\n",
        9, "sweep.variants.a.rules.uno_penalty", "sweep.rules.uno_penalty (line 8)"),
    "index-beside-name": (
        "  variants[0].rules.uno_penalty: [1, 2]\n  variants.a.rules.uno_penalty: [3, 4]\n",
        9, "sweep.variants.a.rules.uno_penalty", "sweep.variants[0].rules.uno_penalty (line 8)"),
    "rules-beside-the-other-variant": (
        "  variants.b.rules.hand_size: [5, 6]\n  rules.hand_size: [7, 8]\n",
        9, "sweep.rules.hand_size", "sweep.variants.b.rules.hand_size (line 8)"),
    "a-mapping-beside-its-key": (
        "  seats.behaviour: [{forget_uno: 0.1}, {forget_uno: 0.2}]\n"
        "  seats.behaviour.forget_uno: [0.3, 0.4]\n",
        9, "sweep.seats.behaviour.forget_uno", "sweep.seats.behaviour (line 8)"),
}


@pytest.mark.parametrize("name", OVERLAPS)
def test_wrong_result_sweep_keys_that_set_the_same_value_are_refused(name, tmp_path, invoke):
    grid, line, key, other = OVERLAPS[name]
    path = _write(tmp_path, f"name: s\ngames: 5\n{TWO_VARIANTS}sweep:\n{grid}")
    result = invoke("validate", path)
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith(f"{path}:{line}: {key}: "), result.stderr
    assert other in result.stderr and "remove one" in result.stderr, result.stderr


def test_wrong_result_keys_of_different_variants_or_grids_may_share_a_rule(tmp_path, invoke):
    """Not an overlap: each variant's own key, and the same key in two grids."""
    path = _write(tmp_path, f"name: s\ngames: 5\n{TWO_VARIANTS}sweep:\n"
                            "  - variants.a.rules.uno_penalty: [1, 2]\n"
                            "    variants.b.rules.uno_penalty: [3, 4]\n"
                            "  - rules.uno_penalty: [5, 6]\n")
    result = invoke("validate", path)
    assert result.exit_code == 0, result.output
    assert "8 cells" in result.stdout


REPEATED = {
    "precision-twice": ("simulate", "--precision", "turns_per_round=0.5", "--precision",
                        "turns_per_round=0.3"),
    "set-twice": ("validate", "--set", "rules.uno_penalty=2", "--set", "rules.uno_penalty=4"),
    "set-by-index-and-by-name": ("validate", "--set", "variants[0].rules.hand_size=5", "--set",
                                 "variants.a.rules.hand_size=6"),
}


@pytest.mark.parametrize("name", REPEATED)
def test_wrong_result_an_option_given_twice_is_refused(name, tmp_path, invoke):
    command, *options = REPEATED[name]
    path = _write(tmp_path, "name: s\nseed: 1\ngames: 5\nplayers: 2\nvariants:\n  - name: a\n")
    db = ("--db", tmp_path / "r.duckdb") if command == "simulate" else ()
    result = invoke(command, path, *db, *options)
    assert result.exit_code == 2, result.output
    assert "is set again by --set" in result.stderr and "give each path once" in result.stderr, \
        result.stderr
    assert not (tmp_path / "r.duckdb").exists()


# --- Tracebacks: one sentence and exit 2 ---------------------------------------------------------

RANGES = {
    "span-overflows": "{from: -1.0e+308, to: 1.0e+308, step: 1.0e+306}",
    "step-underflows": "{from: 0.0, to: 1.0e+308, step: 1.0e-308}",
    "tiny-step": "{from: 0.0, to: 1.0, step: 5.0e-324}",
    "count-of-301-digits": "{from: 0, to: 10, step: 1.0e-300}",
}


@pytest.mark.parametrize("name", RANGES)
def test_traceback_a_sweep_range_beyond_a_float_is_refused(name, tmp_path, invoke):
    path = _write(tmp_path, _sweep(f"  rules.target_score: {RANGES[name]}\n"))
    result = invoke("validate", path)
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith(f"{path}:8: sweep.rules.target_score: "), result.stderr
    assert "more than 1,000 values: a swept key takes at most 1,000" in result.stderr, \
        result.stderr


CAPPED = """\
name: capped
seed: 1
games: 500
players: 2
variants:
  - name: a
    rules: {max_turns: 10, max_rounds: 1, hand_size: 10}
  - name: b
    rules: {max_turns: 10, max_rounds: 1, hand_size: 10, uno_penalty: 4}
"""


@pytest.fixture(scope="module")
def capped(tmp_path_factory) -> Path:
    """A run whose rounds all hit the turn cap (10 turns: nobody empties a hand of 10)."""
    from typer.testing import CliRunner

    from unostats.cli import app
    folder = tmp_path_factory.mktemp("capped")
    (folder / "capped.yaml").write_text(CAPPED)
    db = folder / "capped.duckdb"
    result = CliRunner().invoke(app, ["simulate", str(folder / "capped.yaml"), "--db", str(db),
                                      "--precision", "points_per_round=0.5", "-q"])
    assert result.exit_code == 0, result.output
    return db


CELL_TEXTS = {"arabic-indic": "latest/a/٢", "fullwidth": "latest/a/２",
              "superscript": "latest/a/²", "devanagari": "latest/a/२"}


@pytest.mark.parametrize("name", CELL_TEXTS)
def test_traceback_compare_takes_ascii_player_counts_only(name, capped, invoke):
    result = invoke("compare", "--db", capped, CELL_TEXTS[name], "latest/b/2")
    assert result.exit_code == 2, result.output
    assert "expected RUN/VARIANT/PLAYERS" in result.stderr and \
           "PLAYERS a number in digits 0-9" in result.stderr, result.stderr


@pytest.mark.parametrize("command", ["compare", "report"])
def test_traceback_statistics_of_rounds_that_all_hit_the_turn_cap(command, capped, invoke,
                                                                   tmp_path):
    """No round has a winner: points per round and the first player's share have no value."""
    if command == "compare":
        result = invoke("compare", "--db", capped, "latest/a/2", "latest/b/2",
                        "--format", "csv")
        rows = {r.split(",")[2]: r for r in result.stdout.splitlines()[1:]}
        assert ",10.0,10.0," in rows["turns_per_round"], rows
        assert ",nan,nan,nan," in rows["points_per_round"], rows
    else:
        result = invoke("report", "--db", capped, "--out", tmp_path / "r.html")
        assert (tmp_path / "r.html").stat().st_size > 0
    assert result.exit_code == 0, result.output


# --- Reporting a large sweep: every cell's intervals from one scan of the run ---------------------

def test_report_the_run_estimates_are_each_cells_own(capped):
    """The sweep section reads every cell's sums in one query (not one a cell): they must be
    the per-cell intervals exactly, and a cell without games has none."""
    from unostats import store
    from unostats.base.precision import STATISTICS, cell_estimates, run_estimates

    con = store.open_store(capped, read_only=True)
    try:
        run_id = con.execute("SELECT run_id FROM runs").fetchone()[0]
        together = run_estimates(con, run_id, STATISTICS)
        for variant in ("a", "b"):
            assert together[variant, 2] == cell_estimates(con, run_id, variant, 2, 2**62,
                                                          STATISTICS)
        assert together["a", 2]["turns_per_round"].value == 10.0
        assert together["none", 2]["turns_per_round"].n == 0
    finally:
        con.close()
