"""Building a report: one HTML file from the results database, and the folder's index.

    from unostats.report.build import build_report, build_index
    path = build_report(db_path="unostats.duckdb")                   # latest run
    path = build_report(db_path="u.duckdb", run_ids=["3fa2", "9b1c"], out="reports/cmp.html",
                        title="Standard vs house rules")
    build_index("reports")                                            # reports/index.html

Publishing means copying the ``reports/`` folder: every report is one self-contained file and
``index.html`` lists them all.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Callable, Sequence
from pathlib import Path

from .. import store
from .figures import build_figures
from .model import ReportModel, load_model
from .render import read_meta, render_index, render_report

DEFAULT_DIR = Path("reports")
INDEX_NAME = "index.html"
# The mark of an index unostats wrote (index.html.j2); an index.html without it is the user's
# page and is never overwritten. Indexes of earlier versions carry the generator and title.
INDEX_MARK = '<meta name="unostats-index"'
OLD_INDEX_MARKS = ('<meta name="generator" content="unostats', "<title>unostats reports</title>")
MAX_DEFAULT_STEM = 120  # bytes; file systems allow 255 per name


def build_report(*, db_path: str | os.PathLike, run_ids: Sequence[str] | None = None,
                 out: str | os.PathLike | None = None, title: str | None = None,
                 index: bool = True, notify: Callable[[str], None] | None = None) -> Path:
    """Write the HTML report of ``run_ids`` (ids or unique prefixes; default the latest run).

    ``out`` defaults to ``reports/<scenario name>.html`` (relative to the working directory);
    with ``index`` (the default) the index of ``out``'s folder is rebuilt too. Returns the path
    written. Raises ``store.StoreError`` for a missing database, an unknown run or a file that
    cannot be written. ``notify`` hears when the folder's index.html is the user's own page,
    left alone.
    """
    con = store.open_store(db_path, read_only=True)
    try:
        model = load_model(con, run_ids, title=title, db_path=str(db_path))
    finally:
        con.close()
    path = Path(out) if out is not None else default_out(model)
    if path.name == INDEX_NAME:
        raise store.StoreError(f"{path}: {INDEX_NAME} is reserved for the reports index")
    html = render_report(model, build_figures(model), path.name)
    _write_atomic(path, html, "the report")  # never a half-written report for the index to list
    if index and build_index(path.parent) is None and notify is not None:
        notify(f"{path.parent / INDEX_NAME} was not written by unostats: left as it is "
               "(the reports are not listed in it)")
    return path


def _write_atomic(path: Path, text: str, what: str) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(path)
    except OSError as e:
        try:
            tmp.unlink(missing_ok=True)
        except OSError:
            pass
        raise store.StoreError(f"cannot write {what} {path}: {store.write_problem(e, path)}") from None


def default_out(model: ReportModel, reports_dir: str | os.PathLike = DEFAULT_DIR) -> Path:
    """reports/<scenario>.html; several runs join their scenario names; run ids are added when
    two runs share a scenario name."""
    names = [_slug(r.scenario_name) for r in model.runs]
    if len(set(names)) < len(names):
        names = [f"{n}-{r.run_id}" for n, r in zip(names, model.runs)]
    stem = "__".join(names)
    if len(stem.encode()) > MAX_DEFAULT_STEM:  # many runs or a long name: too long for a file
        digest = hashlib.sha256(stem.encode()).hexdigest()[:8]
        stem = stem.encode()[:MAX_DEFAULT_STEM - 9].decode(errors="ignore").rstrip("-._") \
            + f"-{digest}"
    return Path(reports_dir) / (stem + ".html")


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-.") or "report"


def build_index(reports_dir: str | os.PathLike = DEFAULT_DIR) -> Path | None:
    """Write ``reports_dir/index.html`` listing every report in the folder (title, scenario,
    date, games), newest first. Returns its path; None, writing nothing, when an index.html
    is there that unostats did not write (the user's own page)."""
    folder = Path(reports_dir)
    path = folder / INDEX_NAME
    if (path.exists() or path.is_symlink()) and not is_unostats_index(path):
        return None
    entries = [(p.name, read_meta(p)) for p in sorted(folder.glob("*.html"))
               if p.name != INDEX_NAME]
    _write_atomic(path, render_index(folder, entries), "the reports index")
    return path


def is_unostats_index(path: Path) -> bool:
    """Whether ``path`` is an index that unostats wrote (it carries ``INDEX_MARK``)."""
    if not path.is_file():
        return False
    try:
        with path.open(encoding="utf-8", errors="replace") as f:
            head = f.read(4096)
    except OSError:
        return False
    return INDEX_MARK in head or all(mark in head for mark in OLD_INDEX_MARKS)
