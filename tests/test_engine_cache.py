"""The compiled engine's cache cannot go stale: its directory is keyed on every source the kernels
are built from, so an edited constant compiles afresh (engine/_cache.py)."""

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numba
import pytest

import unostats
from unostats.engine import _cache

PACKAGE = Path(unostats.__file__).resolve().parent


@pytest.fixture
def copy(tmp_path):
    """A copy of the package's sources (no caches) in tmp_path/src/unostats."""
    dest = tmp_path / "src" / "unostats"
    shutil.copytree(PACKAGE, dest, ignore=shutil.ignore_patterns("__pycache__"))
    return dest


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, 1))


def test_the_key_changes_with_every_engine_source_and_only_with_them(copy):
    assert _cache.key(copy) == _cache.key(PACKAGE)
    _edit(copy / "report" / "__init__.py", '"""', '"""Not an engine source. ')
    assert _cache.key(copy) == _cache.key(PACKAGE)  # no kernel reads the report
    for rel, old, new in [("codes.py", "C_SKIPS = 10", "C_SKIPS = 10  # edited"),
                          ("engine/_table.py", "return q - n", "return (q - n)"),
                          ("cards.py", "N_TYPES = 59", "N_TYPES = 59 + 0")]:
        before = _cache.key(copy)
        _edit(copy / rel, old, new)
        assert _cache.key(copy) != before, rel


def test_kernels_cache_under_the_keyed_directory():
    from unostats.engine import _turns  # applies every @kernel

    assert _cache.cache_dir().name == f"engine-{_cache.key()}"
    for entry in _turns._ENTRIES:  # Numba's own setting stays the process's
        assert Path(entry._cache._cache_path) == _cache.cache_dir()  # whatever the sources' path
    assert numba.config.CACHE_DIR != str(_cache.cache_dir())


# Run in a fresh interpreter on the copy: compile (if cold), then report, for each function of
# the compiled turn loop's module, its reference-count operations and the blocks they sit in.
_PROBE = """
import json, re, sys, warnings
from unostats.engine import _cache, compiled
from unostats.rules import RuleSet
assert _cache.__file__.startswith(sys.argv[1])
# every entry point (one per round loop), or the reference rules' only
seconds = compiled.compile_for(None if sys.argv[2] == "all" else
                               [RuleSet.from_mapping({"uno_penalty": 0})])
nrt = {}
if seconds is not None:
    from unostats.engine import _turns
    for entry in (e for e in _turns._ENTRIES if e.signatures):  # the ones compiled
        ir = entry.inspect_llvm(entry.signatures[0])
        for name, body in re.findall(r"define [^@]*@(\\S+?)\\((.*?)\\n}\\n", ir, flags=re.S):
            label, where = "B0", []
            for line in body.split("\\n"):
                m = re.match(r"^([\\w.]+):", line)
                label = m.group(1) if m else label
                if "@NRT_incref" in line or "@NRT_decref" in line:
                    where.append(label)
            if where and not name.startswith("_ZN7cpython"):
                nrt[re.sub(r"B\\d.*", "", name)] = where
print(json.dumps({"seconds": seconds, "nrt": nrt}))
"""


def _compile_in(copy: Path, cache: Path, entries: str = "all") -> dict:
    """Compile the engine's entry points (``all``, or ``one``) on the copy with its own cache
    base (see _PROBE)."""
    env = {**os.environ, "PYTHONPATH": str(copy.parent), "UNOSTATS_CACHE_DIR": str(cache)}
    env.pop("NUMBA_CACHE_DIR", None)
    done = subprocess.run([sys.executable, "-c", _PROBE, str(copy), entries], env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_an_edited_constant_recompiles_the_engine(copy, tmp_path):
    cache = tmp_path / "cache"
    cold = _compile_in(copy, cache)
    assert cold["seconds"] is not None  # cold: compiled
    # No reference counting per turn: the kernels take records and scalars, so only the
    # functions given arrays count them, the turn loop once per round (on entry for its trace).
    nrt = cold["nrt"]
    assert {re.sub(r"^_ZN\d+unostats\d+engine\d+_\w+?\d+", "", n) for n in nrt} <= {
        "play_games_with_hooks", "play_games_move_plays_hook", "play_games_move_end_hook",
        "play_games_without_hooks", "_round_with_hooks", "_round_move_plays_hook",
        "_round_move_end_hook", "_round_without_hooks", "flush"}, nrt
    # An entry point (one per round loop: its move hooks none, at move end, that and the cards
    # a move adds, all; _turns.py) counts each array it is given on entry and on its two exits
    # (6 x 3), and the trace around each of its two flushes, on the branch taken only when a
    # game is traced (``if st.tracing: flush(...)``). LLVM inlines a round loop called once into its entry point (that of the
    # loop with every hook stays a function of its own: it counts its trace on entry, on its
    # exit and around its flush). Nothing counts per turn or per round: ``make bench``.
    for name, where in nrt.items():
        assert len(where) <= (24 if "play_games" in name else 8), (name, len(where), where)
    assert sum("play_games" in name for name in nrt) == 4, nrt
    assert _compile_in(copy, cache)["seconds"] is None  # warm: loaded
    _edit(copy / "codes.py", "N_COUNTERS = 17", "N_COUNTERS = 17  # edited")
    assert _compile_in(copy, cache, "one")["seconds"] is not None  # the edit compiles afresh
    assert len(list(cache.glob("engine-*"))) == 2
    assert all(float((d / "compile_seconds").read_text()) > 0 for d in cache.glob("engine-*"))


def test_a_run_compiles_the_entry_points_its_rules_play():
    from unostats.engine import _turns, compiled
    from unostats.rules import RuleSet

    official, reference = RuleSet.from_mapping({}), RuleSet.from_mapping({"uno_penalty": 0})
    assert compiled.levels([official]) == {_turns.MOVE_END}
    assert compiled.levels([official, reference]) == {_turns.MOVE_END, _turns.NO_HOOKS}
    assert compiled.levels([reference], traced=True) == {_turns.NO_HOOKS, _turns.ALL_HOOKS}
    assert compiled.levels(None) == {_turns.NO_HOOKS, _turns.MOVE_END, _turns.MOVE_PLAYS,
                                     _turns.ALL_HOOKS}
    for level, rules in compiled._EXAMPLES.items():  # the stand-ins when rules are not known
        assert compiled.levels([rules]) == {level}


# Run in a fresh interpreter on a copy: prepare the engine as a run does (the reference rules'
# one entry point), and report what it said, the seconds it compiled and Numba's compiles.
# "post-hoc": the cache's files are taken at their word (cached_here always yes), so a compile
# can only be seen after it happened.
_PREPARE = """
import json, sys
from unostats.base.engine_cache import prepare_engine
from unostats.engine import _jit, compiled
from unostats.rules import RuleSet
assert compiled.__file__.startswith(sys.argv[1])
if sys.argv[2] == "post-hoc":
    _jit.cached_here = lambda d: True
class Lines:
    said = []
    def log(self, text):
        self.said.append(text)
seconds = prepare_engine(Lines(), [RuleSet.from_mapping({"uno_penalty": 0})])
print(json.dumps({"seconds": seconds, "said": Lines.said, "compiles": compiled.compiles()}))
"""


def _prepare_in(copy: Path, cache: Path, how: str = "") -> dict:
    env = {**os.environ, "PYTHONPATH": str(copy.parent), "UNOSTATS_CACHE_DIR": str(cache)}
    env.pop("NUMBA_CACHE_DIR", None)
    done = subprocess.run([sys.executable, "-c", _PREPARE, str(copy), how], env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_second_environment_loads_the_engine_and_no_compile_goes_unsaid(copy, tmp_path):
    cache = tmp_path / "cache"
    cold = _prepare_in(copy, cache)
    assert cold["compiles"] > 0 and cold["seconds"] is not None
    assert cold["said"][0].startswith("compiling the engine")  # said before it compiles
    assert cold["said"][1].startswith("engine compiled in")
    # The same sources at another path (another virtual environment): the same cached files,
    # loaded without compiling and without a word.
    other = tmp_path / "other" / "site-packages" / "unostats"
    shutil.copytree(copy, other, ignore=shutil.ignore_patterns("__pycache__"))
    warm = _prepare_in(other, cache)
    assert warm == {"seconds": None, "said": [], "compiles": 0}
    (folder,) = cache.glob("engine-*")
    assert not [p for p in folder.iterdir() if p.is_dir()]  # no folder per sources' path
    # Machine code gone but its index left: foretold, so said before the compile.
    for data in folder.glob("_turns.*.nbc"):
        data.unlink()
    again = _prepare_in(other, cache)
    assert again["compiles"] > 0 and again["said"][0].startswith("compiling the engine")
    # A compile the files did not foretell (here: taken at their word) is said after it.
    for data in folder.glob("_turns.*.nbc"):
        data.unlink()
    late = _prepare_in(other, cache, "post-hoc")
    assert late["compiles"] > 0 and late["seconds"] is not None
    assert late["said"] == [f"engine compiled in {late['seconds']:.1f} s: its cache in "
                            f"{folder} held no machine code Numba could load here"]
