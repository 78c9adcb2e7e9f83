"""Where the compiled engine is cached, keyed on everything it is compiled from.

Numba's own cache checks only the source file of each function it compiled, so an edited
constant in codes.py or a helper in another family file would leave stale machine code running.
Here the cache directory's name carries a hash of every source the kernels are built from (the
engine's modules and the leaf modules whose constants they freeze: cards, codes, rules) and of
the Python and Numba versions: change any of them and the engine compiles afresh. The files lie
in that folder itself, whatever the path of the sources (_jit's locator): another environment
of the same sources, Python and Numba on this machine loads them.

The base directory is ``$UNOSTATS_CACHE_DIR``, else ``$NUMBA_CACHE_DIR``, else the user's cache
folder (``$XDG_CACHE_HOME/unostats``, by default ``~/.cache/unostats``). Plain Python: importing
this module compiles nothing.
"""

from __future__ import annotations

import hashlib
import os
import sys
from importlib.metadata import version
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent.parent  # src/unostats
_LEAVES = ("cards.py", "codes.py", "rules.py")
_COMPILE_TIME_FILE = "compile_seconds"


def sources(package: Path = _PACKAGE) -> list[Path]:
    """The files the compiled engine depends on, in a fixed order."""
    engine = sorted((package / "engine").glob("_*.py"))
    return engine + [package / name for name in _LEAVES]


def key(package: Path = _PACKAGE) -> str:
    """A hash of the engine's sources and of the Python and Numba versions."""
    # Numba's version from its installed metadata: importing Numba (~0.3 s) is not needed here,
    # so a command that only reads the store (report, query) starts without it.
    h = hashlib.sha256(f"{sys.version_info[:2]} numba {version('numba')}".encode())
    for path in sources(package):
        h.update(path.relative_to(package).as_posix().encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def base_dir() -> Path:
    for var in ("UNOSTATS_CACHE_DIR", "NUMBA_CACHE_DIR"):
        if os.environ.get(var):
            return Path(os.environ[var])
    xdg = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(xdg) / "unostats"


def cache_dir() -> Path:
    """This engine's cache directory: ``engine-<key>`` under the base directory."""
    return base_dir() / f"engine-{key()}"


def compile_estimate() -> float | None:
    """Seconds a cold compile took last time on this machine (any engine version), or None
    before the first."""
    times = []
    for f in base_dir().glob(f"engine-*/{_COMPILE_TIME_FILE}"):
        try:
            times.append((f.stat().st_mtime, float(f.read_text())))
        except (OSError, ValueError):
            continue
    return max(times)[1] if times else None


def record_compile_time(seconds: float) -> None:
    """Remember how long this engine's cold compile took (for the next estimate)."""
    try:
        d = cache_dir()
        d.mkdir(parents=True, exist_ok=True)
        (d / _COMPILE_TIME_FILE).write_text(f"{seconds:.1f}\n")
    except OSError:
        pass  # a read-only cache folder only costs the estimate


def discard(name: str) -> Path:
    """Remove the cached files of one entry point of the engine (``module.function``, e.g.
    ``_turns.play_games_without_hooks``), which Numba cannot read; returns their folder."""
    folder = cache_dir()
    for path in list(folder.glob(f"{name}-*")):
        path.unlink(missing_ok=True)
    return folder
