"""Stopping a run cleanly: a stop flag checked between batches, set by SIGINT/SIGTERM.

SIGINT and SIGTERM (``stop_on_signals``) only set the flag: the batch being stored is committed,
the run is marked ``interrupted`` and ``RunOutcome.signal`` says which signal stopped it. A second
Ctrl-C interrupts at once (the batch being written is rolled back). A killed process leaves whole
batches only; the next writer marks its run interrupted.

That second Ctrl-C may land anywhere, also inside a DuckDB statement, where DuckDB turns the
KeyboardInterrupt into its own error (``RuntimeError('Query interrupted')``, or
``duckdb.InterruptException``): ``is_interrupt`` recognises all three, so the run still ends
as interrupted (exit 130) with the command that resumes it.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager


class StopRequest:
    """A stop flag checked between batches; ``signum`` is the signal that set it (or None)."""

    def __init__(self) -> None:
        self._event = threading.Event()
        self.signum: int | None = None

    def request(self, signum: int | None = None) -> None:
        if not self._event.is_set():
            self.signum = signum
        self._event.set()

    @property
    def requested(self) -> bool:
        return self._event.is_set()

    @property
    def exit_code(self) -> int:
        """The shell convention for a process stopped by a signal: 128 + signal number."""
        return 128 + self.signum if self.signum else 1


@contextmanager
def stop_on_signals(stop: StopRequest,
                    notify: Callable[[str], None] | None = None,
                    finishing: str = "the batch being stored") -> Iterator[StopRequest]:
    """SIGINT and SIGTERM set ``stop`` instead of raising; a second SIGINT raises
    KeyboardInterrupt. Handlers are installed only in the main thread and restored on exit.
    ``notify`` is told that the work stops after ``finishing``."""
    if threading.current_thread() is not threading.main_thread():
        yield stop
        return

    def handler(signum, frame):
        if stop.requested and signum == signal.SIGINT:
            raise KeyboardInterrupt
        stop.request(signum)
        if notify is not None:
            notify(f"{signal.Signals(signum).name}: stopping after {finishing}"
                   + (" (Ctrl-C again to stop at once)" if signum == signal.SIGINT else ""))

    previous = {s: signal.signal(s, handler) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield stop
    finally:
        for s, h in previous.items():
            signal.signal(s, h)


def is_interrupt(error: BaseException) -> bool:
    """Whether ``error`` is a Ctrl-C: KeyboardInterrupt, or DuckDB's error for a statement a
    KeyboardInterrupt stopped."""
    if isinstance(error, KeyboardInterrupt):
        return True
    if type(error).__name__ == "InterruptException":  # duckdb's (not imported here)
        return True
    return type(error) is RuntimeError and str(error) == "Query interrupted"
