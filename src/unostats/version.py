"""The package's version, in a module that imports nothing: the run's stored versions and the
report name it, and the wheel's build reads it (pyproject's hatch version path)."""

__version__ = "0.1.0"
