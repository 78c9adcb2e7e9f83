"""What a run reports while it goes: the silent ``Progress`` base and ``ConsoleProgress`` (rich
bars on stderr: done/total, rate, ETA; log lines; one line per stored batch when verbose)."""

from __future__ import annotations

from typing import Any


class Progress:
    """What a run reports while it goes. This base class is silent; see ConsoleProgress."""

    def log(self, text: str) -> None:
        """An informational line (quiet mode drops it)."""

    def warn(self, text: str) -> None:
        """A line that must be seen even in quiet mode (interruptions, how to resume)."""

    def cell_started(self, key: str, label: str, done: int, total: int,
                     unit: str = "games") -> None: ...

    def batch_stored(self, key: str, label: str, first: int, last: int, done: int, total: int,
                     games_per_s: float, unit: str = "games") -> None: ...

    def close(self) -> None: ...


class ConsoleProgress(Progress):
    """Progress on stderr with rich: one bar per cell (games done/total, games/s, ETA).

    ``bar`` defaults to "stderr is a terminal and not quiet". ``verbose`` prints one line per
    stored batch (what tests and logs watch)."""

    def __init__(self, *, quiet: bool = False, verbose: bool = False, bar: bool | None = None,
                 console: Any = None) -> None:
        from rich.console import Console

        self.console = console if console is not None else Console(stderr=True)
        self.quiet = quiet
        self.verbose = verbose
        self.bar = (not quiet and self.console.is_terminal) if bar is None else bar
        self._progress: Any = None
        self._tasks: dict[str, Any] = {}

    def _print(self, text: str) -> None:
        self.console.print(text, markup=False, highlight=False, soft_wrap=True)

    def log(self, text: str) -> None:
        if not self.quiet:
            self._print(text)

    def warn(self, text: str) -> None:
        self._print(text)

    def cell_started(self, key: str, label: str, done: int, total: int,
                     unit: str = "games") -> None:
        if not self.bar:
            return
        if self._progress is None:
            from rich.progress import (BarColumn, MofNCompleteColumn, Progress as Bars,
                                       TextColumn, TimeRemainingColumn)
            self._progress = Bars(
                TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                TextColumn("{task.fields[unit]}"), TextColumn("{task.fields[rate]}"),
                TextColumn("ETA"), TimeRemainingColumn(),
                console=self.console, transient=False)
            self._progress.start()
        self._tasks[key] = self._progress.add_task(label, total=total, completed=done, rate="",
                                                   unit=unit)

    def batch_stored(self, key: str, label: str, first: int, last: int, done: int, total: int,
                     games_per_s: float, unit: str = "games") -> None:
        if self.verbose:
            rate = f"{games_per_s:,.0f}" if unit == "games" else f"{games_per_s:,.1f}"
            self._print(f"stored batch: {label} {unit} {first}..{last} ({done}/{total}, "
                        f"{rate} {unit}/s)")
        if self._progress is not None and key in self._tasks:
            self._progress.update(self._tasks[key], completed=done,
                                  rate=f"{games_per_s:,.0f}/s")

    def close(self) -> None:
        if self._progress is not None:
            self._progress.stop()
            self._progress = None
            self._tasks = {}

