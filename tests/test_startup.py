"""What a fresh process spends before its first game: the cached engine loads without Numba's
compile-time set-up, and the paths to a game import no library they do not use (plotting, and
polars where the caller takes pyarrow tables). ``make bench`` measures the seconds."""

import json
import subprocess
import sys

from unostats.engine import compiled
from unostats.rules import RuleSet

# A fresh interpreter: play one game with the engine loaded from the cache, then compile a new
# function (which needs the registries the load skipped), and say what was imported.
_FIRST_GAME = """
import json, sys
from unostats.engine import _turns
from unostats.engine.simulate import Seat, simulate_arrow
from unostats.rules import RuleSet
batch = next(simulate_arrow(rules=RuleSet.from_mapping({}), players=4, seats=Seat("random"),
                            games=1, seed=1))
out = {"hits": [sum(e.stats.cache_hits.values()) for e in _turns._ENTRIES],
       "misses": sum(sum(e.stats.cache_misses.values()) for e in _turns._ENTRIES),
       "rounds": batch.rounds.num_rows,
       "registries": "numba.cpython.charseq" in sys.modules,
       "polars": "polars" in sys.modules}
import numba
out["compiled_later"] = numba.njit(lambda x: x + 1)(41)
print(json.dumps(out))
"""


def _fresh(code: str) -> dict:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_cached_engine_loads_without_the_compilers_registries():
    compiled.compile_for([RuleSet.from_mapping({})])  # the cache is warm from here on
    out = _fresh(_FIRST_GAME)
    # loaded, not compiled: the entry point of the official rules' loop (the end-of-move hook
    # only, _turns.MOVE_END), and no other
    assert (out["hits"], out["misses"]) == ([0, 1, 0, 0], 0)
    assert out["rounds"] > 0
    # Numba refreshes its target context before a cache load: that imports and registers every
    # typing and lowering module (the charseq one among them), two thirds of the first call.
    assert not out["registries"]
    assert out["compiled_later"] == 42  # compiling still finds them: it refreshes itself
    assert not out["polars"]  # pyarrow tables need no polars


def test_simulate_imports_no_plotting():
    out = _fresh("import json, sys; import unostats.cli, unostats.kinds, unostats.runs.simulate; "
                 "print(json.dumps({m: m in sys.modules for m in ('plotly', 'jinja2')}))")
    assert out == {"plotly": False, "jinja2": False}  # the report's figures import it


def test_reading_the_store_imports_no_engine_compiler():
    # report and query only read the store: Numba (~0.3 s of imports) comes with a run's engine.
    out = _fresh("import json, sys; import unostats.cli, unostats.kinds, unostats.report.build, "
                 "unostats.base.query; print(json.dumps({'numba': 'numba' in sys.modules}))")
    assert out == {"numba": False}


def test_a_new_store_file_gives_the_columns_later_opens_are_checked_against(tmp_path,
                                                                           monkeypatch):
    from unostats.store import database

    monkeypatch.setattr(database, "_expected", None)
    database.open_store(tmp_path / "new.duckdb", read_only=False).close()
    from_file = database._expected  # taken from the file just created
    assert from_file is not None and "runs" in from_file
    monkeypatch.setattr(database, "_expected", None)
    assert database.expected_columns() == from_file  # as the schema built in memory
    database.open_store(tmp_path / "new.duckdb", read_only=True).close()  # and it passes


def test_importing_the_package_imports_no_engine_compiler_plotting_or_frames():
    # the API's calls import what they use: a notebook's `import unostats` stays instant
    out = _fresh("import json, sys; import unostats; assert callable(unostats.simulate); "
                 "print(json.dumps({m: m in sys.modules for m in "
                 "('numba', 'plotly', 'polars', 'duckdb')}))")
    assert out == {"numba": False, "plotly": False, "polars": False, "duckdb": False}
