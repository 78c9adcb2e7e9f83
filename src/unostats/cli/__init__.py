"""The ``unostats`` command line: thin Typer commands over ``runs``, ``report``, ``store`` and
``scenario``, one module per group of commands (``simulate``; ``design``; ``query`` and ``runs``;
``scenarios`` and ``validate``; ``compare`` and ``export``; ``skill``; ``report`` and
``replay``;
``tune``), on the one ``app``.

stdout carries data only (tables, CSV, JSON, traces); progress, logs and hints go to stderr.
Exit codes: 0 ok, 1 runtime failure, 2 usage or validation error; 130/143 when ``simulate`` is
stopped by SIGINT/SIGTERM. Expected errors are one message on stderr, never a traceback.

Start-up stays fast: the package imports neither the engine nor numba (nor polars); each command
imports what it needs when it runs, so ``query`` and ``runs`` start in a fraction of a second.
"""

from __future__ import annotations

# Imported in the order of the commands in --help: each module registers its commands on app.
from . import simulate, design, query, scenarios, results, skill, report, tune  # noqa: F401, I001
from .app import app, fit_help

fit_help(app)

__all__ = ["app"]
