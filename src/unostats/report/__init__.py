"""Publishable HTML reports, built from the results database alone.

Pipeline: ``model.load_model`` (DuckDB: views and aggregate queries -> plain dataclasses) ->
``figures.build_figures`` (plotly) -> ``render.render_report`` (one jinja2 template, plotly.js
embedded once); ``build.build_report`` runs it into a file and ``build.build_index`` lists the
folder's reports. Each kind's own sections (``kinds.ReportSection``) live in its package
(``games.sweep``, ``games.skill``, ``tournaments.report``, ``leagues.report``) and write their
numbers with ``base.format`` and their charts with ``base.plotting``.

This ``__init__`` imports nothing.
"""
