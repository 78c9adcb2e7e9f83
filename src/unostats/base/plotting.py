"""New plotly figures in the report's look: every chart of the page (``figures`` and each
kind's report section) starts from ``new_figure`` or ``new_subplots``, born with the report's
template (``TEMPLATE``), and ``figures.build_figures`` makes them all inside one
``report_template()``.

Why: plotly validates a template (a deep copy of every trace type's defaults, ~25 ms) each time
one is named, in ``update_layout(template=...)`` as in ``plotly.io.templates.default = ...``;
the default template a new figure is born with is copied without that check. So the report
names its template once, as plotly's default while its charts are made, instead of once a
chart (12 to 20 charts a page: 0.3-0.5 s). The figures' JSON is the same either way.

Plotly is imported when a figure is made, so the modules of a kind's section stay cheap to
import.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

TEMPLATE = "plotly_white"


@contextmanager
def report_template() -> Iterator[None]:
    """``TEMPLATE`` is plotly's default template inside (the previous default is restored)."""
    import plotly.io as pio

    before = pio.templates.default
    if before == TEMPLATE:
        yield
        return
    pio.templates.default = TEMPLATE
    try:
        yield
    finally:
        pio.templates.default = before


def new_figure(**kwargs: Any) -> Any:
    """``go.Figure(**kwargs)`` with the report's template."""
    import plotly.graph_objects as go

    with report_template():
        return go.Figure(**kwargs)


def new_subplots(**kwargs: Any) -> Any:
    """``plotly.subplots.make_subplots(**kwargs)`` with the report's template."""
    from plotly.subplots import make_subplots

    with report_template():
        return make_subplots(**kwargs)
