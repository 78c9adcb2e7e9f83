"""The engine on any Numba: the fast path leaves Numba as the process had it, the plain-``njit``
fallback (UNOSTATS_PLAIN_NUMBA=1, or internals not as engine/_jit.py expects) plays the same
games, and the engine's surroundings that Numba would turn into a traceback (a cache file it
cannot read, NUMBA_NUM_THREADS below 1) give a sentence or are recovered from.

Each runs in a fresh interpreter: Numba reads its settings once, and a process holds one engine.
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numba
import pytest

from unostats.engine import _cache, _jit, compiled
from unostats.rules import RuleSet
from unostats.base.session import RunError, numba_module

ROOT = Path(__file__).resolve().parents[1]
OFFICIAL = RuleSet.from_mapping({})


def _run(code: str, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code, *args], env={**os.environ, **(env or {})},
                          capture_output=True, text=True, timeout=900)


def _last_json(done: subprocess.CompletedProcess) -> dict:
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


# --- No global side effect ------------------------------------------------------------------

# Every attribute of Numba's compiler modules and of their classes (by identity), Numba's
# settings and the collector's frozen objects: before importing the engine, after, and after
# compiling it and playing a game.
_SNAPSHOT = """
import gc, inspect, json
import numba
from numba.core import (base, caching, codegen, compiler, compiler_machinery, cpu, dispatcher,
                        typed_passes)

def snapshot():
    seen = {}
    for mod in (base, caching, codegen, compiler, compiler_machinery, cpu, dispatcher,
                typed_passes):
        for name, obj in vars(mod).items():
            seen[f"{mod.__name__}.{name}"] = id(obj)
            if inspect.isclass(obj):
                for attr, value in vars(obj).items():
                    if attr != "__slotnames__":  # copyreg's note of a class pickled
                        seen[f"{mod.__name__}.{name}.{attr}"] = id(value)
    for name, value in vars(numba.config).items():
        if isinstance(value, (str, int, float, bool, type(None))):
            seen[f"numba.config.{name}"] = repr(value)
    seen["frozen objects"] = gc.get_freeze_count()
    return seen

before = snapshot()
from unostats.engine import _jit, compiled
from unostats.engine.simulate import Seat, simulate_arrow
from unostats.rules import RuleSet
imported = snapshot()
compiled.compile_for([RuleSet.from_mapping({})])
next(simulate_arrow(rules=RuleSet.from_mapping({}), players=4, seats=Seat(), games=5, seed=3))
played = snapshot()
changed = lambda now: sorted(k for k in before.keys() | now.keys() if before.get(k) != now.get(k))
print(json.dumps({"plain": _jit.PLAIN, "import": changed(imported), "game": changed(played)}))
"""


def test_the_engine_patches_nothing_of_numba(tmp_path):
    out = _last_json(_run(_SNAPSHOT, env={"UNOSTATS_CACHE_DIR": str(tmp_path)}))  # compiles
    assert out["plain"] is None  # the fast path, the one with something to patch
    # (the engine used to replace JITCPUCodegen.set_env, set numba.config.CACHE_DIR and freeze
    # the collector's objects on import)
    assert out["import"] == [] and out["game"] == []


def test_the_fast_path_is_taken_on_the_numba_release_tested():
    if not numba.__version__.startswith("0.68."):
        pytest.skip(f"Numba {numba.__version__}: the fast path is checked by feature there")
    assert _jit._internals_missing() is None and _jit.PLAIN is None


def test_a_missing_internal_is_named():
    from numba.core import codegen

    class Changed:  # a release where the code library's method took another argument
        def _optimize_final_module(self, module):
            pass

    assert _jit._takes(codegen.JITCodeLibrary, "_optimize_final_module")
    assert not _jit._takes(Changed, "_optimize_final_module")
    assert not _jit._takes(Changed, "_finalize_final_module")  # or was gone


# An internal not as the fast path expects, in a fresh interpreter before the engine is imported:
# one gone (as a release that renamed it), one there but failing when the fast path is built.
_BROKEN = {
    "missing": ("from numba.core import caching\ndel caching.Cache._load_overload",
                "FunctionCache._load_overload(sig, target_context)"),
    "failing": ("from numba.core import compiler_machinery\n"
                "def register_pass(mutates_CFG, analysis_only):\n"
                "    raise RuntimeError('passes are registered otherwise')\n"
                "compiler_machinery.register_pass = register_pass",
                "RuntimeError: passes are registered otherwise"),
}
_IMPORT = """
import json
from unostats.engine import _jit, _turns
print(json.dumps({"plain": _jit.PLAIN, "cache": type(_turns._ENTRIES[0]._cache).__name__}))
"""


@pytest.mark.parametrize("how", sorted(_BROKEN))
def test_internals_not_as_expected_fall_back_to_plain_njit_and_say_so(how):
    breaking, reason = _BROKEN[how]
    done = _run(breaking + "\n" + _IMPORT)
    out = _last_json(done)
    assert reason in out["plain"]
    assert out["cache"] == "FunctionCache"  # Numba's own: a plain njit(cache=True) entry point
    assert done.stderr.count("the engine compiles with plain Numba") == 1, done.stderr
    assert reason in done.stderr


# --- The fallback plays the same games --------------------------------------------------------

# Seats of several policies, 300 games of a rule set (every table's rows), and with the rules of
# every hook one traced game (its events). The official rules need the end-of-move hook only;
# UNO-Extreme (scenarios/extreme.yaml: jump-ins, silences, mistakes) every hook, the entry point
# that takes longest to compile, on the plain path minutes: deselected by default.
_EXTREME = {"mistake_penalty": 1, "reverse_deflects": "extreme", "stack_skip": True,
            "jump_in": "extreme", "zero_slap": 4, "silence": "seven", "eight_cover": True,
            "wild": "no_matching_colour", "challenge": "extreme", "first_card": "extreme",
            "scoring": "own_points_low_wins", "target_score": 500, "lone_zero_value": 100}
_BEHAVIOUR = {"mistake": 0.02, "silence_break": 0.05, "jump_in": 0.8}
_GAMES = """
import hashlib, json, sys
from unostats.engine import _jit, _turns, compiled, _layout
from unostats.engine.simulate import Seat, simulate_arrow, trace_game
from unostats.rules import RuleSet

rules, behaviour = RuleSet.from_mapping(json.loads(sys.argv[1])), json.loads(sys.argv[2])
seats = [Seat(p, behaviour) for p in ("random", "strategist", "high_value_first", "wild_last")]
digest = hashlib.sha256()
for totals in (False, True):  # the rows, then the games' totals (a run that keeps less)
    for batch in simulate_arrow(rules=rules, players=4, seats=seats, games=300, seed=20261207,
                                threads=1, totals=totals):
        for table in batch:
            digest.update(json.dumps(table.to_pydict(), default=str).encode())
out = {"plain": _jit.PLAIN, "tables": digest.hexdigest(), "cached": compiled.is_cached([rules]),
       "level": _turns.hook_level(_layout.options_record(rules))}
if out["level"] == _turns.ALL_HOOKS:
    events = trace_game(rules=rules, players=4, seats=seats, seed=5, game=2).events
    out["trace"] = [len(events), hashlib.sha256(events.tobytes()).hexdigest()]
print(json.dumps(out))
"""


@pytest.mark.parametrize("rules", [pytest.param({}, id="official"),
                                   pytest.param(_EXTREME, id="extreme", marks=pytest.mark.slow)])
def test_the_plain_numba_fallback_plays_the_same_games(tmp_path, rules):
    args = (json.dumps(rules), json.dumps(_BEHAVIOUR))
    fast = _last_json(_run(_GAMES, *args))
    done = _run(_GAMES, *args, env={"UNOSTATS_PLAIN_NUMBA": "1",
                                    "UNOSTATS_CACHE_DIR": str(tmp_path)})
    plain = _last_json(done)
    assert fast["plain"] is None and plain["plain"] == "UNOSTATS_PLAIN_NUMBA=1"
    # said once, as a line (no traceback: _last_json)
    assert done.stderr.count("the engine compiles with plain Numba") == 1, done.stderr
    assert plain == {**fast, "plain": plain["plain"]}  # the same rows, events and level
    assert "trace" not in plain or plain["trace"][0] > 100
    # the fallback caches its entry point under the keyed folder as well
    assert plain["cached"] and list(tmp_path.glob("engine-*/*/_turns.play_games_*.nbi"))


# --- A cache file Numba cannot read -------------------------------------------------------------

_SIMULATE = "from unostats.cli import app; app()"


def _simulate(db: Path, cache: Path) -> subprocess.CompletedProcess:
    return _run(_SIMULATE, "simulate", str(ROOT / "scenarios" / "standard.yaml"), "--db", str(db),
                "--games", "20", env={"UNOSTATS_CACHE_DIR": str(cache)})


@pytest.mark.parametrize("damage", ["index", "data"])
def test_a_corrupt_cache_file_is_compiled_afresh_and_said_once(tmp_path, damage):
    compiled.compile_for([OFFICIAL])  # this process's cache, warm from here on
    cache = tmp_path / "cache"
    shutil.copytree(_cache.cache_dir(), cache / _cache.cache_dir().name)
    suffix = ".nbi" if damage == "index" else ".nbc"
    files = list(cache.glob(f"engine-*/_turns.play_games_move_end_hook-*{suffix}"))
    assert files, list(cache.rglob("*"))
    for f in files:
        f.write_bytes(f.read_bytes()[:40])  # cut short, as a full disk or a killed writer leaves it
    done = _simulate(tmp_path / "a.duckdb", cache)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    assert done.stderr.count("could not be read") == 1, done.stderr
    assert str(cache) in done.stderr and "compiling the engine" in done.stderr
    again = _simulate(tmp_path / "b.duckdb", cache)  # compiled afresh and cached: loaded
    assert again.returncode == 0, again.stderr
    assert "could not be read" not in again.stderr and "compiling" not in again.stderr


# --- NUMBA_NUM_THREADS below 1 ------------------------------------------------------------------

@pytest.mark.parametrize("value", ["0", "-2"])
def test_numba_num_threads_below_one_is_a_sentence(tmp_path, value):
    done = _run(_SIMULATE, "simulate", str(ROOT / "scenarios" / "standard.yaml"), "--db",
                str(tmp_path / "t.duckdb"), "--games", "5", env={"NUMBA_NUM_THREADS": value})
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr and "ValueError" not in done.stderr, done.stderr
    assert f"NUMBA_NUM_THREADS='{value}'" in done.stderr and "unset it" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr


def test_numba_num_threads_is_checked_before_numba_is_imported(monkeypatch):
    monkeypatch.setenv("NUMBA_NUM_THREADS", " 0 ")
    with pytest.raises(RunError, match="NUMBA_NUM_THREADS='0'") as caught:
        numba_module()
    assert caught.value.exit_code == 2
    for fine in ("1", "4", "not a number", ""):  # Numba itself ignores the last two
        monkeypatch.setenv("NUMBA_NUM_THREADS", fine)
        assert numba_module() is numba


# --- Entry points cached by different processes ------------------------------------------------

_PLAY_ONE = """
import sys
from unostats.engine.simulate import Seat, simulate_arrow, trace_game
from unostats.rules import RuleSet

official = RuleSet.from_mapping({})
if sys.argv[1] == "games":  # the loop of the official rules (the end-of-move hook)
    list(simulate_arrow(rules=official, players=2, seats=Seat(), games=5, seed=1, threads=1))
else:  # the loop with every hook, which a traced game plays
    trace_game(rules=official, players=3, seats=Seat(), seed=1, game=0)
"""

_PLAY_ALL = """
import json
from unostats.engine.referee import check_trace
from unostats.engine.simulate import Seat, simulate_arrow, trace_game
from unostats.rules import RuleSet

official = RuleSet.from_mapping({})
checked = 0
for players in (2, 3, 4):
    for counting in (True, False):
        list(simulate_arrow(rules=official, players=players, seats=Seat(), games=5, seed=9,
                            threads=1, how_it_plays=counting))
        for game in range(3):
            check_trace(trace_game(rules=official, players=players, seats=Seat(), seed=99,
                                   game=game, how_it_plays=counting))
            checked += 1
print(json.dumps({"checked": checked}))
"""


def test_entry_points_cached_by_different_processes_play_together(tmp_path):
    """Two entry points compiled by two processes into one cache (as two test workers, or two
    runs at once, fill it), then loaded by a third with the loops it compiles itself: every
    traced game passes the referee. (A function linked into an entry point is internal to it,
    engine/_jit.py ``_EntryLibrary``: names carry an id of the process that compiled them, and
    one entry point's function once stood for another's of the same name.)"""
    env = {"UNOSTATS_CACHE_DIR": str(tmp_path)}
    for what in ("games", "trace"):
        done = _run(_PLAY_ONE, what, env=env)
        assert done.returncode == 0, done.stderr
    assert _last_json(_run(_PLAY_ALL, env=env)) == {"checked": 18}
