"""Output that fits the terminal: simulate's and compare's tables at 80 and 200 columns (no line
longer, the columns left out said under the table, shares in percent, values to the digits their
interval supports), the whole rows in csv and json (shares as fractions), and help text the
terminal wraps (no line longer than it, no sentence broken before the edge)."""

from __future__ import annotations

import csv
import io
import json
import re

import pytest
import typer

from unostats.base.compare import COLUMNS as COMPARE_COLUMNS
from unostats.base.compare import TABLE as COMPARE_TABLE
from unostats.base.compare import ALL_STATISTICS, LABELS
from unostats.cli import app, common
from unostats.games.summary import SUMMARY_COLUMNS, TABLE
from unostats.output import interval_digits

TINY = """\
name: tiny
description: Two variants at two player counts, for the terminal's tests.
seed: 5
games: 30
players: [2, 3]
variants:
  - name: standard
  - name: short hands
    rules: {hand_size: 5}
"""
COMMANDS = tuple(typer.main.get_command(app).commands)


@pytest.fixture(scope="module")
def run(invoke, tmp_path_factory) -> dict:
    folder = tmp_path_factory.mktemp("terminal")
    path = folder / "tiny.yaml"
    path.write_text(TINY)
    db = folder / "tiny.duckdb"
    result = invoke("simulate", path, "--db", db, "-q", "--format", "csv")
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    return {"path": path, "db": db, "rows": rows, "run_id": rows[0]["run_id"]}


@pytest.fixture
def terminal(invoke, monkeypatch):
    """``terminal(width, *args)``: the command as on a terminal of ``width`` columns."""
    monkeypatch.setattr(common, "_is_terminal", lambda: True)

    def at(width: int, *args):
        result = invoke(*args, env={"COLUMNS": str(width)})
        assert result.exit_code == 0, result.output
        return result
    return at


def _table(text: str) -> tuple[list[str], list[list[str]], str]:
    """(each column's header, the rows' cells, the lines under the table) of the first table
    in ``text``, its columns read from the rule of dashes under the header."""
    lines = text.splitlines()
    rule = next(i for i, line in enumerate(lines) if set(line) == {"-", " "})
    spans = [m.span() for m in re.finditer(r"-+", lines[rule])]
    heads = [" ".join(line[a:b].strip() for line in lines[:rule] if line[a:b].strip())
             for a, b in spans]
    rows, taken = [], 0
    for line in lines[rule + 1:]:
        if not line or "left out to fit" in line:
            break
        cells = [line[a:b].strip() for a, b in spans]
        taken += 1
        if rows and not cells[-1]:  # a name wrapped onto the next line
            rows[-1] = [f"{x} {y}".strip() for x, y in zip(rows[-1], cells)]
        else:
            rows.append(cells)
    return heads, rows, "\n".join(lines[rule + 1 + taken:])


@pytest.mark.parametrize("width", [80, 200])
def test_simulate_fits_the_terminal_and_says_what_it_left_out(run, terminal, tmp_path, width):
    result = terminal(width, "simulate", run["path"], "--db", tmp_path / "w.duckdb", "-q")
    assert max(map(len, result.stdout.splitlines())) <= width
    shown, rows, under = _table(result.stdout)
    under, _, plays = under.partition("How it plays, per game")  # the blocks under the table
    assert "How it plays, per round" in plays
    heads = [c.head.format(pace=" at 4 s/turn") for c in TABLE]
    assert shown == [h for h in heads if h in shown]  # in the order of TABLE
    left = [h for h in heads if h not in shown]
    if left:  # said under the table, each by its header
        note = " ".join(under.split())
        assert note.startswith(f"{len(left)} column{'s' if len(left) > 1 else ''} left out to "
                               f"fit {width} columns: {'; '.join(left)}")
        assert "--format csv shows every column" in note
    else:
        assert under.strip() == ""
    assert bool(left) == (width == 80)  # the whole table is wider than 80, narrower than 200
    assert {c.head for c in TABLE if c.rank == 0} <= set(shown)
    # The first player's share in percent, to the digits of its interval, as csv's fraction.
    share = shown.index("pos-0 round wins (%) [95% CI]")
    for row, cells in zip(run["rows"], rows):
        lo, hi = 100 * float(row["p0_win_rate_lo"]), 100 * float(row["p0_win_rate_hi"])
        d = interval_digits(lo, hi)
        assert cells[share] == (f"{100 * float(row['p0_win_rate']):.{d}f} "
                                f"[{lo:.{d}f}, {hi:.{d}f}]")


def test_a_pipe_gets_the_whole_table_and_csv_json_every_column_as_fractions(run, invoke,
                                                                           tmp_path):
    piped = invoke("simulate", run["path"], "--db", tmp_path / "p.duckdb", "-q",
                   env={"COLUMNS": "80"})
    lines = piped.stdout.splitlines()
    assert lines[0].split("  ")[0] == "run" and "left out" not in piped.stdout
    assert max(map(len, lines)) > 80  # not fitted: stdout is not a terminal
    assert list(run["rows"][0]) == list(SUMMARY_COLUMNS)
    assert all(0 <= float(r["p0_win_rate"]) <= 1 for r in run["rows"])
    rows = json.loads(invoke("simulate", run["path"], "--db", tmp_path / "j.duckdb", "-q",
                             "-f", "json").stdout)
    assert list(rows[0]) == list(SUMMARY_COLUMNS) and 0 <= rows[0]["p0_win_rate"] <= 1


@pytest.mark.parametrize("width", [80, 200])
def test_compare_fits_the_terminal_with_values_to_their_digits(run, terminal, invoke, width):
    cells = [f"{run['run_id']}/standard/2", f"{run['run_id']}/short hands/2"]
    result = terminal(width, "compare", *cells, "--db", run["db"])
    assert max(map(len, result.stdout.splitlines())) <= width
    shown, rows, under = _table(result.stdout)
    assert shown == [c for c, _ in COMPARE_TABLE if c in shown]
    if width == 80:
        assert "left out to fit 80 columns" in under and "method" in under
    csv_rows = list(csv.DictReader(io.StringIO(invoke(
        "compare", *cells, "--db", run["db"], "-f", "csv").stdout)))
    assert list(csv_rows[0]) == list(COMPARE_COLUMNS)
    assert len(rows) == len(csv_rows) == len(ALL_STATISTICS)  # how it plays too
    share = next(r for r in csv_rows if r["statistic"] == "first_player_share")
    assert 0 <= float(share["a"]) <= 1  # csv: a fraction
    diff = shown.index("B - A [95% CI]")
    for row, cells_shown in zip(csv_rows, rows):
        if row["method"].startswith("not counted"):  # the run did not count its rounds' play
            assert row["a"] == row["diff"] == "" and cells_shown[diff] == "-"
            assert all(cells_shown[shown.index(k)] == "not counted" for k in ("A", "B")
                       if k in shown)
            continue
        scale = LABELS[row["statistic"]][1]
        lo, hi = scale * float(row["lo"]), scale * float(row["hi"])
        d = interval_digits(lo, hi)
        want = [f"{scale * float(row[k]):+.{d}f}" for k in ("diff", "lo", "hi")]
        assert cells_shown[diff] == f"{want[0]} [{want[1]}, {want[2]}]"
        for k in (k for k in ("a", "b") if k.upper() in shown):  # A and B to the same digits
            assert cells_shown[shown.index(k.upper())] == \
                f"{scale * float(row[k]):.{d}f}"
    assert "(%)" in " ".join(r[shown.index("statistic")] for r in rows)


@pytest.mark.parametrize("command", ["", *COMMANDS])
def test_help_is_wrapped_by_the_terminal(invoke, command):
    result = invoke(*([command] if command else []), "--help", env={"COLUMNS": "80"})
    lines = result.stdout.splitlines()
    assert lines and max(map(len, lines)) <= 80
    # Outside the panels, a line of a paragraph ends only where its next word would not fit.
    prose = [line.rstrip() for line in lines if not line.lstrip().startswith(tuple("│╭╰"))]
    for line, after in zip(prose, prose[1:]):
        if line.strip() and after.strip() and not after.startswith("   ") \
                and not after.strip().startswith("unostats "):  # an example's line
            assert len(line) + 1 + len(after.split()[0]) > 78, (line, after)
    # An example keeps its own line.
    group = typer.main.get_command(app)
    epilog = (group.commands[command] if command else group).epilog or ""
    examples = [line.strip() for line in epilog.splitlines() if line.strip().startswith(
        "unostats ")]
    assert examples, epilog
    for example in examples:
        assert any(line.strip().startswith(example[:40]) for line in lines), example


def test_a_narrow_table_wraps_names_then_leaves_out_the_least_important_columns():
    from unostats.output import Column, format_table

    table = [Column("name", 0, lambda r: r[0], wrap=True), Column("n", 0, lambda r: r[1]),
             Column("estimate [95% CI]", 1, lambda r: r[2]), Column("extra", 2, lambda r: r[3])]
    rows = [("official uno_penalty=2 forget_uno=0.1", 4, "12.34 [12.10, 12.58]", "x" * 30)]
    whole = format_table(table, rows).splitlines()
    assert len(whole) == 3 and len(whole[2]) > 60  # no width: one line a row
    narrow = format_table(table, rows, width=50).splitlines()
    assert max(map(len, narrow)) <= 50
    assert narrow[2].startswith("official uno_penalty=2") and narrow[3].strip() == "forget_uno=0.1"
    assert "12.34 [12.10, 12.58]" in narrow[2]  # the name wrapped, the estimate kept
    assert " ".join(narrow[4:]) == ("1 column left out to fit 50 columns: extra (--format csv "
                                    "shows every column)")
