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

import os
import re
from collections.abc import Sequence
from pathlib import Path

from .. import store
from .figures import build_figures
from .model import ReportModel, load_model
from .render import read_meta, render_index, render_report

DEFAULT_DIR = Path("reports")
INDEX_NAME = "index.html"


def build_report(*, db_path: str | os.PathLike, run_ids: Sequence[str] | None = None,
                 out: str | os.PathLike | None = None, title: str | None = None,
                 index: bool = True) -> Path:
    """Write the HTML report of ``run_ids`` (ids or unique prefixes; default the latest run).

    ``out`` defaults to ``reports/<scenario name>.html`` (relative to the working directory);
    with ``index`` (the default) the index of ``out``'s folder is rebuilt too. Returns the path
    written. Raises ``store.StoreError`` for a missing database or an unknown run.
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
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(html, encoding="utf-8")
    tmp.replace(path)  # never leave a half-written report for the index to list
    if index:
        build_index(path.parent)
    return path


def default_out(model: ReportModel, reports_dir: str | os.PathLike = DEFAULT_DIR) -> Path:
    """reports/<scenario>.html; several runs join their scenario names; run ids are added when
    two runs share a scenario name."""
    names = [_slug(r.scenario_name) for r in model.runs]
    if len(set(names)) < len(names):
        names = [f"{n}-{r.run_id}" for n, r in zip(names, model.runs)]
    return Path(reports_dir) / ("__".join(names) + ".html")


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-.") or "report"


def build_index(reports_dir: str | os.PathLike = DEFAULT_DIR) -> Path:
    """Write ``reports_dir/index.html`` listing every report in the folder (title, scenario,
    date, games), newest first. Returns its path."""
    folder = Path(reports_dir)
    folder.mkdir(parents=True, exist_ok=True)
    entries = [(p.name, read_meta(p)) for p in sorted(folder.glob("*.html"))
               if p.name != INDEX_NAME]
    path = folder / INDEX_NAME
    tmp = folder / f".{INDEX_NAME}.tmp"
    tmp.write_text(render_index(folder, entries), encoding="utf-8")
    tmp.replace(path)
    return path
