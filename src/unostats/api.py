"""The Python API for notebooks: ``simulate`` a scenario into a results database and ``open``
one to read it (runs, SQL, summaries, comparisons, the report), over the same functions the
commands call, so a result here is the one the command line gives.

Importing this module is light (the standard library only): the engine, polars and plotly are
imported by the call that needs them. Errors are ``ScenarioError`` (a bad scenario, with the
messages ``unostats validate`` prints) and ``UnostatsError`` (its base: every other expected
problem, phrased as the command line phrases it).
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import polars as pl


class UnostatsError(Exception):
    """An expected problem (unknown run, refused SQL, refused output file, ...), one sentence
    saying what to do; ``exit_code`` the command line's for it (2 a usage problem)."""

    def __init__(self, message: str, exit_code: int = 1):
        super().__init__(message)
        self.exit_code = exit_code


class ScenarioError(UnostatsError):
    """A scenario that does not load: every problem, one a line, as ``file:line: key: message``."""

    def __init__(self, message: str, exit_code: int = 2):
        super().__init__(message, exit_code)


# shown and pickled as the package's names (``unostats.ScenarioError``), where users meet them
UnostatsError.__module__ = ScenarioError.__module__ = "unostats"


@contextmanager
def expected_errors() -> Iterator[None]:
    """The package's expected exceptions as the API's two classes (the same messages), each
    with the command line's exit code; the commands turn them into a message and that code."""
    from .base.session import RunError
    from .scenario import ScenarioError as LoadError
    from .store import OutputRefused, StoreError, UnknownRunError

    try:
        yield
    except LoadError as e:
        raise ScenarioError(str(e)) from None
    except RunError as e:
        raise UnostatsError(str(e), e.exit_code) from None
    except (UnknownRunError, OutputRefused) as e:
        raise UnostatsError(str(e), 2) from None
    except StoreError as e:
        raise UnostatsError(str(e), 1) from None


def _where(db: str | os.PathLike | None):
    """The store ``db`` names, as ``--db`` or ``--store`` would: ``parquet:DIR`` a Parquet
    store, ``duckdb:FILE`` or any other name a DuckDB file, None the default database."""
    from .base.session import locate

    if isinstance(db, str) and db.startswith(("parquet:", "duckdb:")):
        from .store import parse_store

        with expected_errors():
            return parse_store(db)
    return locate(db)


@dataclass(frozen=True)
class Run:
    """A finished run: its id, the store it is in (a DuckDB file's path, or a Parquet store),
    and the summary ``unostats simulate --format csv`` prints for it (a polars DataFrame)."""

    id: str
    db: Path | Any
    summary: pl.DataFrame


def simulate(scenario: str | os.PathLike | Mapping[str, Any], *, games: int | None = None,
             seed: int | None = None, db: str | os.PathLike | None = None,
             set: Sequence[str] | Mapping[str, Any] | None = None,  # noqa: A002 (the CLI's --set)
             quiet: bool = False, keep: str | None = None) -> Run:
    """Play a scenario into ``db`` as ``unostats simulate`` does and return the run.

    ``scenario``: a bundled scenario's name, a scenario file, or a mapping (the file's YAML as
    a dict). ``db``: the results database, as the command's ``--db``: default
    ``$UNOSTATS_DB``, else ``unostats.duckdb`` in the current folder; ``"parquet:DIR"`` a
    Parquet store, as ``--store``. ``set``: the ``--set`` overrides, as ``["players=4"]`` or
    ``{"players": 4}``. ``quiet``: no progress on stderr. ``keep``: what the run stores of its
    games, as ``--keep``: "rows" (the default), "games" or "summary". An interrupted run (Ctrl-C, the
    kernel's interrupt) raises ``UnostatsError`` with the command that resumes it."""
    from .runs.jobs import Job, play_jobs, summaries
    from .base.progress import ConsoleProgress
    from .base.session import check_db

    target = _where(db)
    with expected_errors():
        check_db(target)
        loaded = _load(scenario, _overrides(set))
        progress = ConsoleProgress(quiet=quiet)
        outcomes, code = play_jobs([Job(loaded)], db=target, seed=seed, games=games,
                                   progress=progress, keep=keep)
        if code:
            stopped = outcomes[-1] if outcomes else None
            how = f": resume it with {stopped.resume_command}" if stopped else ""
            raise UnostatsError(f"the run did not complete{how}")
        text = "".join(summaries(outcomes, db=target, fmt="csv"))
    return Run(outcomes[0].run_id, target, _csv_frame(text))


def _overrides(given: Sequence[str] | Mapping[str, Any] | None) -> list[str]:
    """``set`` as the command's PATH=VALUE strings (a mapping's values written as JSON, which
    the override parser reads as YAML)."""
    import json

    if given is None:
        return []
    if isinstance(given, str):
        return [given]
    if isinstance(given, Mapping):
        return [f"{path}={json.dumps(value)}" for path, value in given.items()]
    return list(given)


def _load(scenario: str | os.PathLike | Mapping[str, Any], overrides: list[str]):
    """A name or a file through the command's loader; a mapping written as YAML and loaded by
    the same loader, so its problems read as a file's (``<mapping>:LINE: key: message``)."""
    from .scenario import load_scenario, load_text

    if isinstance(scenario, Mapping):
        import yaml

        try:
            text = yaml.safe_dump(dict(scenario), sort_keys=False, allow_unicode=True)
        except yaml.YAMLError as e:  # a value YAML cannot write: an object, a numpy number
            raise ScenarioError(f"<mapping>: a value is not plain data (str, int, float, bool, "
                                f"list, dict): {e}; convert it, e.g. int(x)") from None
        return load_text(text, "<mapping>", overrides)
    return load_scenario(scenario, overrides)


# The summary's columns that name things: read as text whatever they look like (a run id such
# as 859409e4 or a variant named 1e5 reads as a number otherwise).
_NAMES = ("run_id", "variant", "policy", "candidate", "scenario")


def _csv_frame(text: str) -> pl.DataFrame:
    import io

    import polars as pl

    if not text.strip():
        return pl.DataFrame()
    header = text.splitlines()[0].split(",")
    return pl.read_csv(io.StringIO(text),
                       schema_overrides={c: pl.String for c in _NAMES if c in header})


def _rows_frame(result) -> pl.DataFrame:
    """A ``base.query.QueryResult`` as a DataFrame (its rows as DuckDB gives them to Python)."""
    import polars as pl

    return pl.DataFrame(result.rows, schema=result.columns, orient="row",
                        infer_schema_length=None)


class Results:
    """A results database (or Parquet store) to read, as the reading commands read it: every
    query opens it read-only in the reader's sandbox and closes it, so a run may write it in
    between. A context manager for symmetry with files; nothing stays open."""

    def __init__(self, db: str | os.PathLike | None = None):
        self.db = _where(db)

    def __repr__(self) -> str:
        return f"Results({str(self.db)!r})"

    def __enter__(self) -> Results:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def runs(self) -> pl.DataFrame:
        """The rows of ``unostats runs``: one per run, the latest last."""
        from .base.query import list_runs

        with expected_errors():
            return _rows_frame(list_runs(self.db))

    def query(self, sql: str, **params: Any) -> pl.DataFrame:
        """The rows of ``unostats query``: ``sql``'s last statement, read-only, no file outside
        the store; ``params`` are its ``$name`` parameters."""
        from .base.query import query

        with expected_errors():
            return _rows_frame(query(sql=sql, params=params or None, db=self.db))

    def summary(self, run: str | None = None) -> pl.DataFrame:
        """The summary ``unostats simulate --format csv`` printed for ``run`` (an id, a unique
        prefix or 'latest'; default the latest)."""
        from . import store
        from .kinds import kind_of
        from .base.session import resolve_run, stored_scenario

        with expected_errors():
            con = store.open_store(self.db, read_only=True)
            try:
                run_id = resolve_run(con, run)
                scenario = stored_scenario(store.run_info(con, run_id))
            finally:
                con.close()
            text = kind_of(scenario).summary(db=self.db, run_ids=[run_id], fmt="csv",
                                             width=None)
        return _csv_frame(text)

    def compare(self, a: str, b: str | Sequence[str]) -> pl.DataFrame:
        """The rows of ``unostats compare A B...``: cells as RUN/VARIANT/PLAYERS (RUN an id, a
        unique prefix or latest), B minus A with 95% intervals."""
        import polars as pl

        from .base.compare import COLUMNS, compare

        with expected_errors():
            results = compare(a=a, b=[b] if isinstance(b, str) else list(b), db=self.db)
        return pl.DataFrame([row.values() for c in results for row in c.rows],
                            schema=list(COLUMNS), orient="row", infer_schema_length=None)

    def report(self, out: str | os.PathLike | None = None, *,
               runs: Sequence[str] | None = None, site: str | os.PathLike | None = None,
               title: str | None = None, overwrite: bool = False) -> Path:
        """Write the HTML report of ``unostats report`` and return its path: the latest run
        unless ``runs``; into the file ``out`` (plotly.js inside), or with ``site`` into that
        folder under the scenario's name, beside the plotly.js its reports share; ``out``
        replaced if unostats wrote it, another file only with ``overwrite``."""
        import sys

        from .report.build import build_report

        with expected_errors():
            return build_report(db_path=self.db, run_ids=list(runs) if runs else None,
                                out=None if out is None else Path(out), site=site, title=title,
                                overwrite=overwrite,
                                notify=lambda text: print(f"note: {text}", file=sys.stderr))


def open(db: str | os.PathLike | None = None) -> Results:  # noqa: A001 (unostats.open)
    """The results in ``db`` (default: ``$UNOSTATS_DB``, else ``unostats.duckdb`` here;
    ``"parquet:DIR"`` a Parquet store)."""
    return Results(db)
