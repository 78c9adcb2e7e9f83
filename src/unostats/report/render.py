"""Report model + figures -> one HTML file (jinja2), and the folder's index.

The page works offline: plotly.js is embedded once in a <script> in the head (a self-contained
page), or, for a site (``plotly_src``), loaded from one shared file beside the pages
(``write_plotly_js``); every figure is a ``fig.to_html(include_plotlyjs=False, full_html=False,
div_id=...)`` fragment with a stable id. The page opens with its answers (``answers``), then the
key table, folded per variant when it is long. The template autoescapes everything; the only
unescaped inserts are plotly's own fragments (whose JSON escapes ``<``) and the plotly.js bundle.

Each report carries its own index entry as JSON in
``<script type="application/json" id="unostats-report-meta">``, so ``render_index`` builds
``index.html`` from the report files alone.
"""

from __future__ import annotations

import base64
import json
import os
import re
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from functools import lru_cache
from pathlib import Path
from typing import Any

import jinja2
import plotly
import plotly.offline
from markupsafe import Markup

from .. import stats, store
from ..engine._cache import base_dir as cache_base_dir
from ..store.files import read_head
from ..version import __version__
from ..base.format import fmt_estimate, fmt_number, fmt_p, fmt_pct, fmt_test, fmt_when
from .answers import answers as page_answers
from .answers import sample_sentence
from .figures import Figure, colours
from .model import CellKey, ReportModel

META_ID = "unostats-report-meta"
META_RE = re.compile(
    r'<script type="application/json" id="' + META_ID + r'">(.*?)</script>', re.DOTALL)
PLOTLY_CONFIG = {"displaylogo": False, "responsive": True,
                 "toImageButtonOptions": {"format": "png", "scale": 2}}
# The key table folds its rows per variant past this many rows (one a cell), the first
# OPEN_VARIANTS variants that are not an ablation's "without" open.
FOLD_ROWS = 8
OPEN_VARIANTS = 3
# The first line of the shared plotly.js a site's pages load: the mark of a file unostats wrote.
PLOTLY_MARK = "/* unostats: plotly.js for the reports in this folder */"


class _TemplateCache(jinja2.FileSystemBytecodeCache):
    """The compiled templates, kept between runs in the cache folder (``templates/`` beside the
    compiled engine): compiling the report's template takes ~0.25 s, loading it ~2 ms. Jinja
    checks each entry against its template's source and the Python version; a folder that
    cannot be written only costs the compile."""

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        try:
            super().load_bytecode(bucket)
        except OSError:  # e.g. a file where the folder should be: compile instead
            pass

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        try:
            os.makedirs(self.directory, exist_ok=True)
            super().dump_bytecode(bucket)
        except OSError:
            pass


@lru_cache(maxsize=1)
def _env() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("unostats.report", "templates"),
        autoescape=True, undefined=jinja2.StrictUndefined,
        trim_blocks=True, lstrip_blocks=True,
        bytecode_cache=_TemplateCache(str(cache_base_dir() / "templates")))
    env.filters["num"] = fmt_number
    env.filters["pct"] = fmt_pct
    env.filters["p"] = fmt_p
    env.filters["when"] = fmt_when
    return env


# --- Page --------------------------------------------------------------------------------------

def figure_html(fig: Figure) -> Markup:
    height = fig.figure.layout.height
    html = fig.figure.to_html(
        include_plotlyjs=False, full_html=False, div_id=fig.div_id, config=PLOTLY_CONFIG,
        default_width="100%", default_height=f"{height}px" if height else "450px")
    return Markup(html)  # plotly's fragment: its JSON escapes "<", "/" and ">"


def _data_uri(text: str, mime: str) -> str:
    return f"data:{mime};charset=utf-8;base64," + base64.b64encode(text.encode()).decode("ascii")


def _meta_json(meta: Mapping[str, Any]) -> Markup:
    text = json.dumps(meta, sort_keys=True, default=str)
    # Safe inside <script>: no "<" at all, so no "</script>" or "<!--".
    return Markup(text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026"))


def report_meta(model: ReportModel, out_name: str) -> dict[str, Any]:
    starts = [r.started_at for r in model.runs if r.started_at is not None]
    return {
        "file": out_name,
        "title": model.title,
        "scenarios": list(dict.fromkeys(r.scenario_name for r in model.runs)),
        "runs": [r.run_id for r in model.runs],
        "run_date": min(starts).astimezone(UTC).isoformat() if starts else None,
        "generated_at": model.generated_at.astimezone(UTC).isoformat(),
        "games": model.games,
        "rounds": model.rounds,
        "variants": list(model.labels),
        "players": list(model.players),
        "unostats_version": __version__,
    }


def render_report(model: ReportModel, figures: Mapping[str, Figure], out_name: str,
                  plotly_src: str | None = None) -> str:
    """The page; ``plotly_src``: the shared plotly.js file it loads (a site's page), else
    plotly.js is embedded."""
    cell_label = {c.key: c.label for c in model.cells}

    def row(key: CellKey) -> dict[str, Any]:
        return {"label": cell_label[key], "players": key.players}

    measures = {}
    for key, m in model.measures.items():
        rows = []
        for c in model.cells:
            s = m.summaries.get(c.key)
            if s is None:
                continue
            rows.append({**row(c.key), "n": fmt_number(s.n), "mean": fmt_estimate(s.mean),
                         "sd": fmt_number(s.sd), "quantiles": [fmt_number(v) for _, v in
                                                               s.quantiles],
                         "max": fmt_number(s.max),
                         "capped": fmt_estimate(s.capped, "rate") if s.capped else None})
        measures[key] = {"m": m, "rows": rows,
                         "quantile_labels": [label for label, _ in
                                             next(iter(m.summaries.values())).quantiles]
                         if m.summaries else []}

    def positions(data) -> list[dict[str, Any]]:
        out = []
        for c in model.cells:
            p = data.get(c.key)
            if p is None:
                continue
            out.append({**row(c.key), "fair": fmt_pct(p.fair, 2),
                        "rates": [fmt_estimate(e, "rate") for e in p.rates],
                        "first": fmt_estimate(p.rates[0], "rate"),
                        "excess": fmt_estimate(p.excess, "diff_rate"),
                        "test": fmt_test(p.test), "n": fmt_number(p.n)})
        return out

    findings = _findings_table(model)

    comparisons = [{**row(c.cell), "round_length": fmt_estimate(c.round_length, "diff_mean"),
                    "game_rounds": fmt_estimate(c.game_rounds, "diff_mean"),
                    "first_win": fmt_estimate(c.first_win, "diff_rate")}
                   for c in model.comparisons]
    ablation = [{**row(a.cell), "what": a.what, "rules": ", ".join(a.rules),
                 "round_length": fmt_estimate(a.round_length, "diff_mean"),
                 "game_rounds": fmt_estimate(a.game_rounds, "diff_mean")
                 if a.game_rounds is not None else None,
                 "first_win": fmt_estimate(a.first_win, "diff_rate")} for a in model.ablation]
    paired = []
    for cmp in model.paired:
        for r in cmp.rows:
            kind = "rate" if r.statistic == "first_player_share" else "mean"
            est = fmt_estimate(stats.Estimate(r.diff, r.lo, r.hi, None, r.method),
                               "diff_rate" if kind == "rate" else "diff_mean")
            paired.append({**row(CellKey(*cmp.b)), "statistic": r.statistic,
                           "a": fmt_estimate(stats.Estimate(r.a, r.a, r.a, None, ""),
                                             kind)["value"] if kind == "mean"
                           else fmt_pct(r.a, 2),
                           "b": fmt_estimate(stats.Estimate(r.b, r.b, r.b, None, ""),
                                             kind)["value"] if kind == "mean"
                           else fmt_pct(r.b, 2),
                           "diff": est["value"], "interval": est["interval"],
                           "method": r.method, "paired": "yes" if r.paired else "no",
                           "games": r.games,
                           "narrowing": "—" if r.narrowing is None
                           else f"{100 * r.narrowing:.0f}%"})
    spread = [{**row(c.key),
               "spread": fmt_estimate(model.standings_spread[c.key]),
               "margin": fmt_estimate(model.measures["game_margin"].summaries[c.key].mean)
               if c.key in model.measures["game_margin"].summaries else None,
               "points": fmt_estimate(model.measures["round_points"].summaries[c.key].mean)
               if c.key in model.measures["round_points"].summaries else None}
              for c in model.cells if c.key in model.standings_spread]

    durations = [{**row(c.key), "pace": f"{d.seconds_per_turn:g}",
                  "round": fmt_estimate(d.round), "game": fmt_estimate(d.game),
                  "n": fmt_number(d.game.n), "method": d.game.method}
                 for c in model.cells for d in (model.durations.get(c.key),) if d is not None]

    runs = []
    for r in model.runs:
        text = r.scenario_text or ""
        runs.append({
            "r": r,
            "scenario_uri": _data_uri(text, "application/x-yaml") if text else None,
            "resolved_uri": _data_uri(r.scenario_json, "application/json")
            if r.scenario_json else None,
            "file_stem": re.sub(r"[^A-Za-z0-9._-]+", "-", r.scenario_name).strip("-")
            or "scenario",
        })

    colour = colours(model.labels)
    meta = report_meta(model, out_name)
    views = {s.section.name: None if s.data is None else s.section.view(s.data)
             for s in model.sections}
    return _env().get_template("report.html.j2").render(
        model=model, meta_json=_meta_json(meta), meta_id=META_ID,
        plotly_js=Markup("" if plotly_src else _plotly_js()), plotly_src=plotly_src,
        plotly_version=plotly.__version__,
        answers=page_answers(model, {k: v for k, v in views.items() if v is not None}),
        sample=sample_sentence(model),
        figs={k: {"html": figure_html(f), "caption": f.caption} for k, f in figures.items()},
        measures=measures, round_positions=positions(model.round_positions),
        game_positions=positions(model.game_positions), findings=findings,
        comparisons=comparisons, ablation=ablation, spread=spread, runs=runs, paired=paired,
        durations=durations,
        rule_changes=model.rule_changes, colour=colour, version=__version__,
        games=fmt_number(model.games), rounds=fmt_number(model.rounds),
        max_players=max(model.players), **views)


def _findings_table(model: ReportModel) -> dict[str, Any]:
    """Key findings pivoted: a row per cell, a column per estimate (method in the header)."""
    columns: dict[str, dict[str, Any]] = {}
    cells: dict[CellKey, dict[str, Any]] = {}
    for f in model.findings:
        col = columns.setdefault(f.group, {"title": f.group, "method": f.estimate.method,
                                           "unit": f.unit})
        if f.estimate.method != col["method"]:
            col["method"] = "see each cell"
        e = fmt_estimate(f.estimate, f.kind)
        extra = []
        if f.group.startswith("First player wins"):
            extra.append(f"fair {fmt_pct(1 / f.cell.players, 1)}")
        if f.estimate.p_value is not None:
            extra.append(f"p {e['p']}" if e["p"].startswith("<") else f"p = {e['p']}")
        cells.setdefault(f.cell, {})[f.group] = {**e, "extra": " · ".join(extra)}
    rows = [{"label": c.label, "players": c.players, "values": cells.get(c.key, {})}
            for c in model.cells if c.key in cells]
    described = {c.label: c.description for c in model.cells}
    groups: dict[str, list] = {}
    for r in rows:
        groups.setdefault(r["label"], []).append(r)
    main = [label for label in groups if label not in model.ablation_labels][:OPEN_VARIANTS]
    return {"columns": list(columns.values()), "rows": rows, "folded": len(rows) > FOLD_ROWS,
            "groups": [{"label": label, "rows": rs, "open": label in main,
                        "description": described.get(label, "")}
                       for label, rs in groups.items()]}


def plotly_file_name() -> str:
    """The shared plotly.js of a site: one file per plotly version."""
    return f"plotly-{plotly.__version__}.min.js"


def write_plotly_js(folder: Path, overwrite: bool = False) -> Path:
    """``folder``/``plotly_file_name()``, written unless unostats wrote it already (a file
    there that unostats did not write is replaced only with ``overwrite``)."""
    path = folder / plotly_file_name()
    text = PLOTLY_MARK + "\n" + plotly.offline.get_plotlyjs()
    head = read_head(path, len(PLOTLY_MARK.encode()) + 1)
    if head is not None and head.decode("utf-8", "replace").startswith(PLOTLY_MARK) and \
            path.stat().st_size == len(text.encode()):
        return path
    store.write_output(path, text, what="the reports' plotly.js", overwrite=overwrite,
                       ours=is_plotly_js, option="--site")
    return path


def is_plotly_js(path: Path) -> bool:
    """Whether ``path`` is a plotly.js that unostats wrote for a site."""
    head = read_head(path, len(PLOTLY_MARK.encode()))
    return head is not None and head.decode("utf-8", "replace") == PLOTLY_MARK


@lru_cache(maxsize=1)
def _plotly_js() -> str:
    js = plotly.offline.get_plotlyjs()
    if "</script" in js.lower():  # would end the <script> element early
        js = re.sub(r"</(script)", r"<\\/\1", js, flags=re.IGNORECASE)
    return js


# --- Index -------------------------------------------------------------------------------------

def read_meta(path: Path) -> dict[str, Any] | None:
    """The index entry embedded in a report file, or None if it has none."""
    data = read_head(path, 1 << 16)  # the meta script sits near the top of the head
    if data is None:  # not a regular file (a FIFO is never waited on), or unreadable
        return None
    m = META_RE.search(data.decode("utf-8", "replace"))
    if not m:
        return None
    try:
        meta = json.loads(m.group(1))
    except ValueError:
        return None
    return meta if isinstance(meta, dict) else None


def render_index(reports_dir: Path, entries: Sequence[tuple[str, dict[str, Any] | None]]) -> str:
    rows = []
    for name, meta in entries:
        meta = meta or {}
        rows.append({
            "href": name,
            "title": meta.get("title") or name,
            "scenarios": ", ".join(meta.get("scenarios") or []) or "—",
            "runs": ", ".join(meta.get("runs") or []),
            "date": _short_date(meta.get("run_date")),
            "generated": _short_date(meta.get("generated_at")),
            "games": fmt_number(meta["games"]) if isinstance(meta.get("games"), int) else "—",
            "players": ", ".join(str(p) for p in meta.get("players") or []),
            "variants": len(meta.get("variants") or []),
            "sort": meta.get("generated_at") or "",
        })
    rows.sort(key=lambda r: (r["sort"], r["href"]), reverse=True)
    return _env().get_template("index.html.j2").render(
        rows=rows, version=__version__, generated=fmt_when(datetime.now(UTC)))


def _short_date(text: str | None) -> str:
    if not text:
        return "—"
    try:
        return fmt_when(datetime.fromisoformat(text))
    except ValueError:
        return str(text)
