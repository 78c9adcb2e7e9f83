"""Publishable HTML reports, built from the results database alone.

Pipeline: ``model.load_model`` (DuckDB: views and aggregate queries -> plain dataclasses) ->
``figures.build_figures`` (plotly) -> ``render.render_report`` (one jinja2 template, plotly.js
embedded once); ``build.build_report`` runs it into a file and ``build.build_index`` lists the
folder's reports. ``format`` writes the numbers and ``plotting`` sets the charts' look; ``sweep``
is the sweep section of plain games; the other kinds' sections (``kinds.ReportSection``) live in
their packages (``games.skill``, ``tournaments.report``, ``leagues.report``).

This ``__init__`` imports nothing, so the kinds' sections build on ``format`` without running the
pipeline's modules, which reach the sections through ``unostats.kinds``.
"""
