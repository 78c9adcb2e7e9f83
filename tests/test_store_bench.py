"""benchmarks/store_bench.py --floor: DuckDB's own append cost and the one-core ceiling it sets
(README "make bench"), on a run small enough for the default test run."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

STORE_BENCH = Path(__file__).resolve().parent.parent / "benchmarks" / "store_bench.py"
ROW = re.compile(r"^(DuckDB's|bitpacking|none)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)x$")


def test_floor_reports_each_compression_and_a_ceiling_below_one():
    done = subprocess.run(
        [sys.executable, str(STORE_BENCH), "--floor", "--games", "3000", "--reps", "1",
         "--batch-games", "1500"], capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    head = next(line for line in lines if line.startswith("DuckDB's floor:"))
    values_a_round = float(re.search(r"([\d.]+) stored values a round", head).group(1))
    assert 30 < values_a_round < 60  # 4 players: the rounds row, 4 round_seats rows, games
    engine = float(re.search(r"engine alone \(1 thread\): ([\d.]+) us/round", done.stdout)[1])
    rows = {m[1]: tuple(map(float, m.groups()[1:])) for m in map(ROW.match, lines) if m}
    assert set(rows) == {"DuckDB's", "bitpacking", "none"}
    for ns_value, us_round, mb, ceiling in rows.values():
        assert ns_value > 0 and mb > 0
        assert us_round * 1000 == pytest.approx(ns_value * values_a_round, rel=0.01)
        assert 0 < ceiling < 1 and ceiling < engine / (engine + us_round) + 0.005
    # no compression writes the file several times the size: the setting took effect
    assert rows["none"][2] > 2 * rows["DuckDB's"][2]
