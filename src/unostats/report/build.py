"""Building a report: one HTML file from the results database, and the folder's index.

    from unostats.report.build import build_report, build_index
    path = build_report(db_path="unostats.duckdb")                   # latest run
    path = build_report(db_path="u.duckdb", run_ids=["3fa2", "9b1c"], out="reports/cmp.html",
                        title="Standard vs house rules")
    path = build_report(db_path="u.duckdb", site="site/reports")     # a site's page
    build_index("reports")                                            # reports/index.html

Publishing means copying the folder: ``index.html`` lists every report in it. A report written
with ``out`` is one self-contained file (plotly.js inside, ~5 MB); a site's reports (``site``)
load one shared ``plotly-<version>.min.js`` beside them, so each is a few hundred kB.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Callable, Sequence
from pathlib import Path

from .. import store
from ..store.files import is_regular, read_head
from .figures import build_figures
from .model import ReportModel, load_model
from .render import read_meta, render_index, render_report, write_plotly_js

DEFAULT_DIR = Path("reports")
INDEX_NAME = "index.html"
# The mark of an index unostats wrote (index.html.j2); an index.html without it is the user's
# page and is never overwritten. Indexes of earlier versions carry the generator and title.
INDEX_MARK = '<meta name="unostats-index"'
OLD_INDEX_MARKS = ('<meta name="generator" content="unostats', "<title>unostats reports</title>")
MAX_DEFAULT_STEM = 120  # bytes; file systems allow 255 per name


def build_report(*, db_path: str | os.PathLike, run_ids: Sequence[str] | None = None,
                 out: str | os.PathLike | None = None, title: str | None = None,
                 index: bool = True, overwrite: bool = False,
                 notify: Callable[[str], None] | None = None,
                 site: str | os.PathLike | None = None) -> Path:
    """Write the HTML report of ``run_ids`` (ids or unique prefixes; default the latest run).

    ``out`` defaults to ``reports/<scenario name>.html`` (relative to the working directory);
    with ``site`` (a folder; not with ``out``) the report is ``site/<scenario name>.html`` and
    loads plotly.js from the one file the folder's reports share (``render.write_plotly_js``);
    an existing ``out`` is replaced if it is a report unostats wrote, another file only with
    ``overwrite``, the results store or a non-regular file never (``store.check_output``).
    With ``index`` (the default) the index of ``out``'s folder is rebuilt too. Returns the path
    written. Raises ``store.StoreError`` for a missing database, an unknown run or a file that
    cannot be written. ``notify`` hears what the page leaves out (the detail of the cells past
    ``model.DETAIL_CELLS``) and what the index leaves out (the user's own index.html, a file
    that is not a regular one).
    """
    if out is not None and site is not None:
        raise store.OutputRefused("--out and --site: give one (--site writes the report into "
                                  "the folder under its scenario's name)")
    if out is not None:  # refused before the report is computed
        _check_out(Path(out), overwrite)
    con = store.open_store(db_path, read_only=True)
    try:
        model = load_model(con, run_ids, title=title, db_path=str(db_path))
    finally:
        con.close()
    if model.left_out and notify is not None:
        notify(model.left_out)
    path = Path(out) if out is not None else \
        default_out(model, DEFAULT_DIR if site is None else site)
    _check_out(path, overwrite)
    plotly_src = None
    if site is not None:
        plotly_src = write_plotly_js(path.parent, overwrite=overwrite).name
    html = render_report(model, build_figures(model), path.name, plotly_src=plotly_src)
    # never a half-written report for the index to list
    store.write_output(path, html, what="the report", overwrite=overwrite, ours=is_report)
    if index:
        build_index(path.parent, notify=notify)
    return path


def _check_out(path: Path, overwrite: bool) -> None:
    store.check_output(path, overwrite=overwrite, ours=is_report, what="the report")
    if path.name == INDEX_NAME:
        raise store.OutputRefused(f"--out {path}: {INDEX_NAME} is reserved for the reports "
                                  "index; choose another file name")


def is_report(path: Path) -> bool:
    """Whether ``path`` is a report unostats wrote (it carries its index entry)."""
    return read_meta(path) is not None


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


def build_index(reports_dir: str | os.PathLike = DEFAULT_DIR,
                notify: Callable[[str], None] | None = None) -> Path | None:
    """Write ``reports_dir/index.html`` listing every report in the folder (title, scenario,
    date, games), newest first. Returns its path; None, writing nothing, when an index.html
    is there that unostats did not write (the user's own page, or not a regular file).
    ``notify`` hears why the index was left alone and which *.html are not listed (not
    regular files: a FIFO is never opened)."""
    say = notify or (lambda text: None)
    folder = Path(reports_dir)
    path = folder / INDEX_NAME
    if (path.exists() or path.is_symlink()) and not is_unostats_index(path):
        say(f"{path} was not written by unostats: left as it is (the reports are not listed "
            "in it)")
        return None
    entries = []
    for p in sorted(folder.glob("*.html")):
        if p.name == INDEX_NAME:
            continue
        if not is_regular(p):
            say(f"{p} is not a regular file: not listed in the index")
            continue
        entries.append((p.name, read_meta(p)))
    store.write_output(path, render_index(folder, entries), what="the reports index",
                       ours=is_unostats_index)
    return path


def is_unostats_index(path: Path) -> bool:
    """Whether ``path`` is an index that unostats wrote (it carries ``INDEX_MARK``)."""
    head = read_head(path, 4096)
    if head is None:
        return False
    text = head.decode("utf-8", "replace")
    return INDEX_MARK in text or all(mark in text for mark in OLD_INDEX_MARKS)
