"""Whether the engine is about to be compiled: a probe of Numba's on-disk cache, and the line
that says so once per process."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

from .progress import Progress

COMPILE_MESSAGE = "compiling the engine (first run only, ~30 s)..."

_compile_message_shown = False  # once per process


def announce_compilation(progress: Progress, *, suspected: bool = False) -> None:
    """Say once per process that the engine is about to be compiled: if its cache is cold, or
    if ``suspected`` (the engine has been silent for a while: the cache probe missed it)."""
    global _compile_message_shown
    if not _compile_message_shown and (suspected or engine_cache_is_warm() is False):
        progress.log(COMPILE_MESSAGE)
        _compile_message_shown = True


def engine_cache_is_warm(kernel: str = "_play_batch") -> bool | None:
    """Whether Numba's on-disk cache holds ``kernel`` compiled from the current source (so no
    compilation is due): True/False, or None when the cache cannot be found."""
    try:
        spec = importlib.util.find_spec("unostats.engine._kernels")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.origin:
        return None
    source = Path(spec.origin)
    cache_dirs = [source.parent / "__pycache__"]
    custom = os.environ.get("NUMBA_CACHE_DIR")
    if custom:
        cache_dirs = [Path(custom)]
    try:
        stamp = source.stat().st_mtime
        found = [p for d in cache_dirs if d.is_dir()
                 for p in d.rglob(f"_kernels.{kernel}-*.nbi")]
    except OSError:
        return None
    if not found:
        writable = not custom and os.access(source.parent, os.W_OK)
        return False if writable else None
    return any(p.stat().st_mtime >= stamp for p in found)

