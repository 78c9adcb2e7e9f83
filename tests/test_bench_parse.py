"""benchmarks/bench.py reads the C yardstick's output correctly."""

import importlib.util
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "benchmarks" / "bench.py"


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("unostats_bench", BENCH)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    yield module
    del sys.modules[spec.name]


# Verbatim output of `uno_ref -p 4 -n 200000 -r 1` (shared/bench/uno_ref.c).
SAMPLE = """\
impl=C mode=lazy check=0 players=4 rounds=200000 seed=12345 reps=1
cpu: best_s=0.2378 mean_s=0.2378 rounds_per_s=841149 turns_per_s=42379002 ns_per_round=1188.8 ns_per_turn=23.60
wall: best_s=0.2378 mean_s=0.2378 rounds_per_s=841029 turns_per_s=42372955 (cpu share 100%)
mean_turns=50.3823 seat0_win=0.27214 ci95=0.00195 mean_points=110.889
wins: 0.27214 0.24637 0.24057 0.24093
bad_rounds=0 sum_turns=10076451 sum_points=22177870 hash=0d15d134c009a071
"""


def test_parses_cpu_line_and_mean_turns(bench):
    r = bench.parse_c_output(SAMPLE)
    assert r.players == 4
    assert r.rounds == 200_000
    # the cpu: line, not the wall: line that follows it with the same keys
    assert r.rounds_per_s == 841149.0
    assert r.turns_per_s == 42379002.0
    assert r.ns_per_turn == pytest.approx(23.60)
    assert r.mean_turns == pytest.approx(50.3823)


def test_rejects_other_output(bench):
    with pytest.raises(ValueError, match="cpu:"):
        bench.parse_c_output(SAMPLE.replace("cpu:", "CPU"))
    with pytest.raises(ValueError, match="ns_per_turn"):
        bench.parse_c_output(SAMPLE.replace("ns_per_turn=", "ns="))
    with pytest.raises(ValueError):
        bench.parse_c_output("")


def test_verdict(bench):
    assert bench.verdict(0.95, 0.8) == "met"
    assert bench.verdict(0.5, 0.8) == "missed"
    assert bench.verdict(1.2, 2.0, higher_is_better=False) == "met"
    assert bench.verdict(None, 2.0) == ""


def test_figures_keep_the_frames_run_apart(bench):
    """The polars-frames run (engine[p, FRAMES]) is its own ratio, never a row of the table."""
    c = bench.parse_c_output(SAMPLE)
    engine = {(4, 1): bench.EngineResult(4, 1, 10, 800, 40_000, 0.001),
              (4, 2): bench.EngineResult(4, 2, 10, 800, 40_000, 0.0005),
              (4, bench.FRAMES): bench.EngineResult(4, 1, 10, 800, 40_000, 0.002)}
    out = bench.figures(engine, {4: c}, {}, [], {})
    assert [(r["players"], r["threads"]) for r in out["rows"]] == [(4, 1), (4, 2)]
    one, two = out["rows"]
    assert one["ratio"] == pytest.approx(800_000 / c.rounds_per_s)
    assert one["frames_ratio"] == pytest.approx(400_000 / c.rounds_per_s)
    assert two["frames_ratio"] is None and two["speedup"] == pytest.approx(2.0)


def test_each_option_is_costed_against_the_official_runs_beside_it(bench):
    """option_cost divides an option's ns/turn by that of the official rules timed in turn with
    it, not by one official run of another moment."""
    official = {1: bench.EngineResult(4, 1, 10, 800, 40_000, 0.001)}  # 25 ns/turn
    costs = [("a", bench.EngineResult(4, 1, 10, 800, 40_000, 0.002),  # 50 ns/turn
              bench.EngineResult(4, 1, 10, 800, 40_000, 0.0016)),  # 40 ns/turn beside it
             ("b", bench.EngineResult(4, 1, 10, 800, 40_000, 0.0015),  # 37.5 ns/turn
              bench.EngineResult(4, 1, 10, 800, 40_000, 0.001))]
    out = bench.figures({}, {}, official, costs, {})
    assert out["option_cost"] == {"a": pytest.approx(1.25), "b": pytest.approx(1.5)}


@pytest.mark.parametrize("argv, message", [(["--reps", "0"], "--reps must be at least 1"),
                                           (["--scale", "0"], "--scale must be a positive")])
def test_bad_counts_are_refused_before_anything_runs(bench, argv, message, capsys):
    with pytest.raises(SystemExit) as exit_:
        bench.main(argv)
    assert exit_.value.code == 2 and message in capsys.readouterr().err
