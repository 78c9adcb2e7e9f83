"""unostats: simulate UNO games per rule variant and answer rule questions from the stored
results. The package's top level is the Python API (``unostats.api``: ``simulate``, ``open``
and their errors); importing it loads no engine, polars or plotly until a call needs them."""

from .api import Results, Run, ScenarioError, UnostatsError, open, simulate
from .version import __version__

__all__ = ["Results", "Run", "ScenarioError", "UnostatsError", "__version__", "open",
           "simulate"]
