"""What every test module shares: ``invoke``, the one way to run the command line in-process.

``invoke(*args, input=None, env=None)`` runs ``unostats ARGS`` through Typer's CliRunner and
fails the test on any traceback or any exception other than the command's own exit; the result
carries ``exit_code``, ``stdout``, ``stderr`` and ``output``.
"""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from unostats.cli import app


def _invoke(*args, input: str | None = None, env: dict | None = None):
    result = CliRunner().invoke(app, [str(a) for a in args], input=input, env=env)
    assert "Traceback" not in result.output, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), \
        repr(result.exception)
    return result


@pytest.fixture(scope="session")
def invoke():
    """Run the command line in-process; fails the test on any traceback."""
    return _invoke
