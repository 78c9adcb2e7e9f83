"""Compiling the engine before a run when this version has no cached machine code yet, and the
lines that say so on stderr (once per process). The engine (and Numba with it) is imported only
when a run prepares it, so commands that only read the store (report, query) start without it."""

from __future__ import annotations

from .progress import Progress

_checked = False  # once per process


def compile_message(estimate_s: float | None) -> str:
    """What a cold start says: the time the last compile took here, else a typical one."""
    took = (f"about {estimate_s:.0f} s last time" if estimate_s is not None
            else "about 20 s on 2 cores")
    return f"compiling the engine (once per unostats version and machine; {took})..."


def prepare_engine(progress: Progress | None) -> float | None:
    """Compile the engine now if its cache is cold, saying so first with the time the last
    compile took on this machine, and after with the time this one took. Returns the seconds
    it took, or None when nothing was compiled."""
    global _checked
    from ..engine.simulate import compile_estimate, engine_is_cached, ensure_compiled

    if _checked or engine_is_cached():
        _checked = True
        return None
    if progress is not None:
        progress.log(compile_message(compile_estimate()))
    seconds = ensure_compiled()
    _checked = True
    if progress is not None and seconds is not None:
        progress.log(f"engine compiled in {seconds:.1f} s")
    return seconds
