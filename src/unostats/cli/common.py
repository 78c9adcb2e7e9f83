"""What every command shares: the output formats, the options for the store and the scenario,
one message on stderr for an expected error, and writing to stdout.

stdout carries data only; messages go to stderr. A name that is not UTF-8 (undecodable bytes as
surrogates) is shown with \\x escapes.
"""

from __future__ import annotations

import enum
import shutil
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, NoReturn

import typer

from ..defaults import DB_ENV, DEFAULT_DB, STORE_ENV


class Format(str, enum.Enum):
    table = "table"
    csv = "csv"
    json = "json"
    ndjson = "ndjson"


DbOption = Annotated[Path, typer.Option(
    "--db", envvar=DB_ENV, show_envvar=True, dir_okay=False,
    help="The results database (DuckDB file).")]
StoreOption = Annotated[str | None, typer.Option(
    "--store", envvar=STORE_ENV, show_envvar=True, metavar="SPEC",
    help="The results store instead of --db: parquet:DIR (a Parquet dataset in the folder or "
         "URI DIR, e.g. parquet:results/ or parquet:s3://bucket/unostats) or duckdb:FILE "
         "(the same as --db FILE).")]
FormatOption = Annotated[Format, typer.Option(
    "--format", "-f", case_sensitive=False,
    help="Output format of the rows: table (for people, fitted to the terminal), csv, json or "
         "ndjson (every column, as numbers).")]
OverwriteOption = Annotated[bool, typer.Option(
    "--overwrite", help="Replace an existing output file that unostats did not write (never "
    "the results store, nor a FIFO, device or folder).")]


class Executor(str, enum.Enum):
    local = "local"
    ray = "ray"


class Keep(str, enum.Enum):
    """What a run stores of its games (``--keep``: ``store.keep``)."""

    rows = "rows"
    games = "games"
    summary = "summary"


ExecutorOption = Annotated[Executor, typer.Option(
    "--executor", help="Where the games are played: local (this machine's threads) or ray "
    "(batches as tasks on a Ray cluster, `pip install 'unostats\\[ray]'`; plain-games and design "
    "scenarios). The rows are the same either way, and either resumes the other's runs.")]
AddressOption = Annotated[str | None, typer.Option(
    "--address", metavar="HOST:PORT|auto",
    help="With --executor ray: the cluster to join (HOST:PORT of its head, or auto: the one "
         "started on this machine with `ray start`, or $RAY_ADDRESS). Default: a Ray instance "
         "of this command's own on this machine.")]
SetOption = Annotated[list[str] | None, typer.Option(
    "--set", metavar="PATH=VALUE",
    help="Override a scenario value before validation (repeatable), e.g. --set players=4, "
         "--set rules.uno_penalty=4, --set variants.fast.rules.hand_size=5.")]


def err(text: str) -> None:
    print(printable(text), file=sys.stderr, flush=True)


def note(text: str) -> None:
    """A note on stderr, wrapped to the terminal's width when stderr is one."""
    if sys.stderr is not None and sys.stderr.isatty():
        import textwrap

        text = "\n".join(textwrap.wrap(text, shutil.get_terminal_size().columns,
                                        subsequent_indent="  "))
    err(text)


def fail(message: str, code: int) -> NoReturn:
    err(f"error: {message}")
    raise typer.Exit(code)


@contextmanager
def expected_errors() -> Iterator[None]:
    """The package's expected exceptions, as the API raises them, as one message on stderr and
    the exit code they carry (a scenario's problems as the loader writes them)."""
    from .. import api

    try:
        with api.expected_errors():
            yield
    except api.ScenarioError as e:
        err(str(e))
        raise typer.Exit(e.exit_code) from None
    except api.UnostatsError as e:
        fail(str(e), e.exit_code)


def target(db: Path, spec: str | None):
    """The store a command uses: --store SPEC (parquet:DIR or duckdb:FILE), else --db. Both
    given (a --db other than the default, or $UNOSTATS_DB) is a usage error."""
    if spec is None:
        return db
    import os
    if db != Path(DEFAULT_DB) or os.environ.get(DB_ENV):
        fail("give either --db or --store (or $UNOSTATS_DB or $UNOSTATS_STORE), not both", 2)
    from ..store import StoreError, parse_store
    try:
        return parse_store(spec)
    except StoreError as e:
        fail(str(e), 2)


def stdout_width() -> int | None:
    """The terminal's width (``$COLUMNS``, else the terminal's own) when stdout is one: tables
    are fitted to it. None for a pipe or a file, which get whole tables as they always did."""
    return shutil.get_terminal_size().columns if _is_terminal() else None


def _is_terminal() -> bool:
    return sys.stdout is not None and sys.stdout.isatty()


def write(text: str) -> None:
    """``text`` on stdout, ending its line (what a shell prints next starts on a line of its
    own)."""
    sys.stdout.write(printable(text if text.endswith("\n") else text + "\n"))
    sys.stdout.flush()


def printable(text: str) -> str:
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def make_executor(executor: Executor, address: str | None):
    """The executor object of --executor (None: the local one). Ray is imported only here."""
    if executor is Executor.local:
        return None
    from ..executors.ray.cluster import is_loopback, joins, use_loopback
    if is_loopback(joins(address)):  # before Ray is imported: Ray reads it once
        use_loopback()
    try:
        from ..executors.ray.driver import RayExecutor
    except ImportError as e:
        fail(f"--executor ray needs Ray: pip install 'unostats[ray]' ({e})", 2)
    return RayExecutor(address)
