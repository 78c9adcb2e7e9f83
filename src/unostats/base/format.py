"""The report's numbers as text: counts, percentages, p-values and times, estimates with their
intervals (precision from the interval's width) for a table's cells or inside a sentence, test
results; and the escape of text placed in plotly's HTML labels. Shared by the page (``render``),
its answers, the charts and every report section."""

from __future__ import annotations

import html
import math
from datetime import UTC, datetime
from typing import Any

from ..stats import Estimate, TestResult, _digits_for


def esc(text: str) -> str:
    return html.escape(str(text), quote=False)


def fmt_number(x: Any, digits: int | None = None) -> str:
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "—"
    if isinstance(x, int) or (digits is None and float(x).is_integer()):
        return f"{int(x):,}"
    if digits is None:
        digits = 1 if abs(x) >= 100 else 2
    return f"{x:,.{digits}f}"


def fmt_pct(x: float | None, digits: int = 1) -> str:
    if x is None or not math.isfinite(x):
        return "—"
    return f"{100 * x:.{digits}f}%"


def fmt_p(p: float | None) -> str:
    if p is None or not math.isfinite(p):
        return "—"
    if p < 1e-4:
        return "< 0.0001"
    return f"{p:.4f}" if p < 0.01 else f"{p:.3f}"


def fmt_when(t: datetime | None) -> str:
    if t is None:
        return "—"
    return t.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")


# Scale and unit per kind of estimate: rates as percentages, rate differences in points.
_KINDS = {
    "mean": (1.0, "", False),
    "rate": (100.0, "%", False),
    "diff_mean": (1.0, "", True),
    "diff_rate": (100.0, " pp", True),
}


def fmt_estimate(est: Estimate, kind: str = "mean") -> dict[str, str]:
    """value, interval, n, method and p as display strings; the precision follows the interval
    (two significant digits of its half-width, as ``Estimate.format``)."""
    scale, unit, signed = _KINDS[kind]
    v, lo, hi = est.value * scale, est.lo * scale, est.hi * scale
    if not all(math.isfinite(x) for x in (v, lo, hi)):
        value = "—" if not math.isfinite(v) else f"{v:,.3f}{unit}"
        return {"value": value, "interval": "—", "n": fmt_number(est.n), "method": est.method,
                "p": fmt_p(est.p_value)}
    d = _digits_for(hi - lo)
    return {
        "value": _fixed(v, d, signed) + unit,
        "interval": f"[{_fixed(lo, d, signed)}, {_fixed(hi, d, signed)}]",
        "n": fmt_number(est.n),
        "method": est.method,
        "p": fmt_p(est.p_value),
    }


def fmt_said(est: Estimate, kind: str = "mean", unit: str = "") -> str:
    """An estimate inside a sentence, its unit after the value: "68.4 turns [67.8, 69.1]",
    "26.8% [24.1%, 29.6%]", "+1.8 points [+1.2, +2.4]" (a rate difference in percentage
    points)."""
    e = fmt_estimate(est, kind)
    value, interval = e["value"], e["interval"]
    if kind == "diff_rate":
        value, unit = value.removesuffix(" pp"), unit or "points"
    elif kind == "rate" and interval != "—":
        lo, hi = interval[1:-1].split(", ")
        interval = f"[{lo}%, {hi}%]"
    return f"{value}{' ' + unit if unit else ''} {interval}"


def _fixed(x: float, digits: int, signed: bool) -> str:
    """Fixed-point with thousands separators; never "-0.0" (a value that rounds to zero has no
    sign, or "+" when signed)."""
    text = f"{x:,.{digits}f}"
    if text.startswith("-") and not any(ch in "123456789" for ch in text):
        text = text[1:]
    if signed and not text.startswith("-"):
        text = "+" + text
    return text


def fmt_test(t: TestResult) -> dict[str, str]:
    stat = "—" if not math.isfinite(t.statistic) else f"{t.statistic:,.2f}"
    return {"statistic": stat, "df": str(t.df), "p": fmt_p(t.p_value), "n": fmt_number(t.n),
            "method": t.method}


