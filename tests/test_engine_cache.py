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
    from unostats.engine import _turns  # noqa: F401  (applies every @kernel)

    assert numba.config.CACHE_DIR == str(_cache.cache_dir())
    assert _cache.cache_dir().name == f"engine-{_cache.key()}"


# Run in a fresh interpreter on the copy: compile (if cold), then report, for each function of
# the compiled turn loop's module, its reference-count operations and the blocks they sit in.
_PROBE = """
import json, re, sys, warnings
from unostats.engine import _cache, simulate
assert _cache.__file__.startswith(sys.argv[1])
seconds = simulate.ensure_compiled()
nrt = {}
if seconds is not None:
    from unostats.engine import _turns
    ir = _turns.play_games.inspect_llvm(_turns.play_games.signatures[0])
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


def _compile_in(copy: Path, cache: Path) -> dict:
    """Run ensure_compiled() on the copy with its own cache base (see _PROBE)."""
    env = {**os.environ, "PYTHONPATH": str(copy.parent), "UNOSTATS_CACHE_DIR": str(cache)}
    env.pop("NUMBA_CACHE_DIR", None)
    done = subprocess.run([sys.executable, "-c", _PROBE, str(copy)], env=env,
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
        "play_games", "_round_with_hooks", "_round_without_hooks", "flush"}, nrt
    # Each version of the round loop (with and without the move hooks, _turns.py) counts twice
    # on entry (B0: the version's own count of its trace, then the inlined loop's) and on its
    # exits, once per round; since the kernels below the entry point are optimised as
    # one module (_jit.py's link-only libraries), the trace's flush is inlined into it too, with
    # its increment and decrements, on the branch taken only when a game is traced (``if
    # st.tracing: flush(...)``). The per-turn cost: ``make bench``.
    for version in ("_round_with_hooks", "_round_without_hooks"):
        loop = next(v for n, v in nrt.items() if n.endswith(version))
        assert loop.count("B0") == 2 and len(loop) <= 8, (version, len(loop), loop)
    assert _compile_in(copy, cache)["seconds"] is None  # warm: loaded
    _edit(copy / "codes.py", "N_COUNTERS = 17", "N_COUNTERS = 17  # edited")
    assert _compile_in(copy, cache)["seconds"] is not None  # the edit compiles afresh
    assert len(list(cache.glob("engine-*"))) == 2
    assert all(float((d / "compile_seconds").read_text()) > 0 for d in cache.glob("engine-*"))
