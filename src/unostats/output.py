"""Rows out: one table of rows formatted as ``table``, ``csv``, ``json`` or ``ndjson``.

Every command that prints rows (``query``, ``runs``, ``scenarios``, the ``simulate`` summary)
goes through ``format_rows``, so the formats behave the same everywhere:

- ``table``: a fixed-width text table for people: a header, a rule of dashes, numbers
  right-aligned, NULL for missing values; floats with 6 significant digits. With ``width`` (a
  terminal's) and each column's ``rank``, a table that would overflow wraps its headers onto
  several lines (each column as narrow as its values; a column marked ``wrap``, a name of
  several words, on more lines), then leaves out the least important columns (highest rank
  first; rank 0 always stays; one that fits in the room left comes back) and says which in a
  line under it. Without ranks (a query's rows) a last text column that would overflow wraps.
  Without ``width`` (a pipe, a file) the table keeps its natural width, every column on one
  header line.
- ``csv``: RFC 4180 with a header row, ``\\n`` line ends, empty field for NULL, floats in their
  shortest round-trip form, booleans as ``true``/``false``, nested values as JSON text.
- ``json``: one array of objects (``[]`` when there are no rows); ``ndjson``: one object per
  line. NaN and infinities become ``null``; timestamps and dates are ISO 8601 strings; a column
  of DuckDB's JSON type is embedded as JSON rather than as a string.

Table cells and headers never carry control characters: a name with ``ESC[2J`` would clear
the terminal, so C0/C1 controls and DEL are written as ``\\x1b`` escapes (tab and newline as a
space). ``write_rows`` streams rows from an iterator (csv, json, ndjson: any number of rows in
constant memory; a table holds at most ``max_table_rows``, and says when there were more).

``format_table`` writes rows (dicts, records) through a list of ``Column`` (header, rank, the
cell of a row); ``interval_cell`` is the cell of an estimate stored as ``key``, ``key_lo`` and
``key_hi``. ``format_interval`` writes an estimate and its 95% interval as one cell ("12.34 [12.10, 12.58]"),
to the digits the interval supports (``interval_digits``).

Rows are Python values as DuckDB's ``fetchall`` returns them (int, float, Decimal, str, bool,
None, datetime, date, timedelta, UUID, bytes, list, dict). This module imports only the standard
library, so printing never pays for polars or the engine.
"""

from __future__ import annotations

import csv
import datetime as dt
import decimal
import io
import json
import math
import re
import textwrap
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, NamedTuple, TextIO

FORMATS = ("table", "csv", "json", "ndjson")


def format_rows(columns: Sequence[str], rows: Sequence[Sequence[Any]], fmt: str = "table", *,
                json_columns: Sequence[str] = (), width: int | None = None,
                rank: Sequence[int] | None = None, wrap: Sequence[bool] | None = None) -> str:
    """The rows as text in ``fmt`` (ends with a newline unless empty).

    ``json_columns``: names of columns whose values are JSON text (DuckDB's JSON type); json and
    ndjson embed them parsed. ``width``: the table's maximum line width; ``rank``: each
    column's importance, 0 never left out; ``wrap``: the text columns whose cells may wrap onto
    more lines (table only).
    """
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; allowed: {', '.join(FORMATS)}")
    columns = list(columns)
    if fmt == "csv":
        return _csv(columns, rows)
    if fmt in ("json", "ndjson"):
        parsed = {i for i, c in enumerate(columns) if c in set(json_columns)}
        objects = [{c: _json_value(v, i in parsed) for i, (c, v) in enumerate(zip(columns, row))}
                   for row in rows]
        if fmt == "ndjson":
            return "".join(_dumps(o) + "\n" for o in objects)
        if not objects:
            return "[]\n"
        return "[\n" + ",\n".join("  " + _dumps(o) for o in objects) + "\n]\n"
    return _table(columns, rows, width, rank, wrap)


def write_rows(out: TextIO, columns: Sequence[str], rows: Iterable[Sequence[Any]],
               fmt: str = "table", *, json_columns: Sequence[str] = (), width: int | None = None,
               max_table_rows: int | None = None) -> int | None:
    """Write the rows to ``out`` as they come (csv, json, ndjson); a table collects at most
    ``max_table_rows`` rows first (column widths need them). Returns None, or, when a table had
    more rows than that, how many it shows (the rest are not read)."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; allowed: {', '.join(FORMATS)}")
    columns = list(columns)
    if fmt == "table":
        shown: list[Sequence[Any]] = []
        cut = None
        for row in rows:
            if max_table_rows is not None and len(shown) >= max_table_rows:
                cut = len(shown)
                break
            shown.append(row)
        out.write(_table(columns, shown, width))
        return cut
    if fmt == "csv":
        if not columns:
            return None
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(columns)
        for row in rows:
            writer.writerow(["" if v is None else _text(v) for v in row])
        return None
    parsed = {i for i, c in enumerate(columns) if c in set(json_columns)}

    def obj(row: Sequence[Any]) -> str:
        return _dumps({c: _json_value(v, i in parsed) for i, (c, v) in enumerate(zip(columns, row))})

    if fmt == "ndjson":
        for row in rows:
            out.write(obj(row) + "\n")
        return None
    first = True
    for row in rows:
        out.write(("[\n  " if first else ",\n  ") + obj(row))
        first = False
    out.write("[]\n" if first else "\n]\n")
    return None


class Numeral(str):
    """A number written as text, to the digits it is known to: a table aligns it right, as a
    number."""


class Column(NamedTuple):
    """A column of a table for people: its header, its rank (on a narrow terminal the highest
    ranks are left out first; 0 always stays), its cell for a row, and whether its text may
    wrap onto more lines (a name of several words) rather than the table losing a column."""

    head: str
    rank: int
    cell: Callable[[Any], Any]
    wrap: bool = False


def format_table(table: Sequence[Column], rows: Iterable[Any], width: int | None = None) -> str:
    """``rows`` as a table of ``table``'s columns, fitted to ``width`` when given."""
    return format_rows([c.head for c in table], [[c.cell(r) for c in table] for r in rows],
                       "table", width=width, rank=[c.rank for c in table],
                       wrap=[c.wrap for c in table])


def interval_cell(key: str, scale: float = 1.0) -> Callable[[Mapping[str, Any]], str]:
    """The cell of the estimate ``row[key]`` with ``row[key_lo]`` and ``row[key_hi]``, as
    'value [lo, hi]' (a share in percent: ``scale`` 100)."""
    def cell(row: Mapping[str, Any]) -> str:
        return format_interval(*(None if x is None else scale * x
                                 for x in (row[key], row[f"{key}_lo"], row[f"{key}_hi"])))
    return cell


def format_interval(value: float, lo: float, hi: float, *, signed: bool = False) -> str:
    """'12.34 [12.10, 12.58]': two significant digits of the half-width, as stats.Estimate;
    ``signed``: a difference, '+0.52 [+0.31, +0.73]'."""
    if value is None or not math.isfinite(value):
        return "-"
    if lo is None or hi is None or not (math.isfinite(lo) and math.isfinite(hi)):
        return f"{value:{'+' if signed else ''}.3g}"
    digits = interval_digits(lo, hi)
    value, lo, hi = (fixed(x, digits, signed) for x in (value, lo, hi))
    return f"{value} [{lo}, {hi}]"


def interval_digits(lo: float, hi: float) -> int:
    """Decimals that show two significant digits of an interval's half-width (3 when it has
    none): the digits its standard error supports."""
    half = (hi - lo) / 2
    return 3 if not half > 0 else max(0, min(10, 1 - math.floor(math.log10(half))))


def fixed(x: float, digits: int, signed: bool = False) -> str:
    """``x`` with ``digits`` decimals, never "-0.0" (a value that rounds to zero has no sign,
    or "+" when ``signed``)."""
    text = f"{x:.{digits}f}"
    if text.startswith("-") and not any(ch in "123456789" for ch in text):
        text = text[1:]
    return "+" + text if signed and not text.startswith("-") else text


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, allow_nan=False)


# --- Scalars -----------------------------------------------------------------------------------

def _text(value: Any) -> str:
    """A value as csv/table text (None handled by the caller)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else str(value)
    if isinstance(value, dt.datetime):
        return value.isoformat(sep=" ")
    if isinstance(value, (dt.date, dt.time)):
        return value.isoformat()
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value).decode("utf-8", "backslashreplace")
    if isinstance(value, (list, tuple, dict)):
        return _dumps(_json_value(value, False))
    return str(value)


def _json_value(value: Any, is_json_text: bool) -> Any:
    if is_json_text and isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, decimal.Decimal):
        if not value.is_finite():
            return None
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, dict):
        return {str(k): _json_value(v, False) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_value(v, False) for v in value]
    if isinstance(value, dt.datetime):
        return value.isoformat()
    if isinstance(value, (dt.date, dt.time)):
        return value.isoformat()
    if isinstance(value, (dt.timedelta, uuid.UUID)):
        return str(value)
    return _text(value)


# --- CSV ---------------------------------------------------------------------------------------

def _csv(columns: list[str], rows: Sequence[Sequence[Any]]) -> str:
    if not columns:
        return ""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow(["" if v is None else _text(v) for v in row])
    return out.getvalue()


# --- Table -------------------------------------------------------------------------------------

def _cell(value: Any) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, float) and math.isfinite(value):
        text = f"{value:.6g}"
        if "e" in text and abs(value) >= 1:  # 1234567.0 -> 1234567.0, not 1.23457e+06
            text = f"{value:.1f}"
        return text
    if isinstance(value, decimal.Decimal):
        return str(value)
    return safe_text(_text(value))


_CONTROLS = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def safe_text(text: str) -> str:
    """Text for a terminal: tab, newline and carriage return as a space, every other control
    character (C0, DEL, C1: ESC[2J would clear the screen) as a visible ``\\xNN`` escape."""
    return _CONTROLS.sub(lambda m: " " if m.group() in "\t\n\r" else f"\\x{ord(m.group()):02x}",
                         text)


def _is_number(value: Any) -> bool:
    return (isinstance(value, (int, float, decimal.Decimal, Numeral))
            and not isinstance(value, bool))


def _table(columns: list[str], rows: Sequence[Sequence[Any]], width: int | None,
           rank: Sequence[int] | None = None, wrap: Sequence[bool] | None = None) -> str:
    if not columns:
        return ""
    heads = [safe_text(str(c)) for c in columns]
    cells = [[_cell(v) for v in row] for row in rows]
    right = [bool(rows) and all(_is_number(r[i]) or r[i] is None for r in rows)
             and any(_is_number(r[i]) for r in rows) for i in range(len(columns))]
    natural = [max([len(h)] + [len(r[i]) for r in cells]) for i, h in enumerate(heads)]
    wraps = [bool(wrap and wrap[i]) and not right[i] for i in range(len(columns))]
    shown, widths, left_out = list(range(len(columns))), list(natural), []
    if width is not None and _span(widths, shown) > width and rank is None:
        room = width - _span(natural, shown[:-1]) - 2  # a query's last text column wraps
        if not right[-1] and room >= 20:
            widths[-1] = room
    elif width is not None and _span(widths, shown) > width:
        # Narrowed: headers wrap (a column as wide as its values or its header's longest
        # word), a wrapping column's text onto two lines; then the least important columns go,
        # and those that fit in the room left come back.
        for i, h in enumerate(heads):
            widths[i] = max([len(w) for w in h.split()] + [1] + [
                _two_lines(r[i]) if wraps[i] else len(r[i]) for r in cells])
        while _span(widths, shown) > width and any(rank[i] for i in shown):
            drop = max((i for i in shown if rank[i]), key=lambda i: (rank[i], i))
            shown.remove(drop)
            left_out.append(drop)
        for i in sorted(left_out, key=lambda i: (rank[i], i)):
            if _span(widths, sorted(shown + [i])) <= width:
                shown = sorted(shown + [i])
                left_out.remove(i)
        spare = width - _span(widths, shown)
        for i in shown:  # the room left puts a column back on one line, left first
            if 0 < natural[i] - widths[i] <= spare:
                spare -= natural[i] - widths[i]
                widths[i] = natural[i]
    heads, right, widths = ([x[i] for i in shown] for x in (heads, right, widths))
    cells = [[r[i] for i in shown] for r in cells]

    def lines(values: list[str]) -> list[str]:
        parts = [textwrap.wrap(v, w, break_long_words=False) or [""] if len(v) > w else [v]
                 for v, w in zip(values, widths)]
        depth = max(len(p) for p in parts)
        return ["  ".join((p[k] if k < len(p) else "").rjust(w) if r
                          else (p[k] if k < len(p) else "").ljust(w)
                          for p, w, r in zip(parts, widths, right)).rstrip()
                for k in range(depth)]

    head_lines = [textwrap.wrap(h, w, break_long_words=False) if len(h) > w else [h]
                  for h, w in zip(heads, widths)]
    depth = max(len(h) for h in head_lines)
    out = [lines([(h[k - depth + len(h)] if k >= depth - len(h) else "") for h in head_lines])[0]
           for k in range(depth)]  # a wrapped header sits at the bottom, on the rule
    out.append("  ".join("-" * w for w in widths))
    for row in cells:
        out.extend(lines(row))
    if left_out:
        n, names = len(left_out), "; ".join(safe_text(str(columns[i])) for i in sorted(left_out))
        out += textwrap.wrap(f"{n} column{'s' if n > 1 else ''} left out to fit {width} "
                             f"columns: {names} (--format csv shows every column)", width)
    return "\n".join(out) + "\n"


def _two_lines(text: str) -> int:
    """The narrowest width that wraps ``text`` onto at most two lines."""
    width = max([len(w) for w in text.split()] + [1])
    while len(textwrap.wrap(text, width, break_long_words=False)) > 2:
        width += 1
    return width


def _span(widths: Sequence[int], shown: Sequence[int]) -> int:
    """The width of a table of these columns, two spaces between two."""
    return sum(widths[i] for i in shown) + 2 * (len(shown) - 1)
