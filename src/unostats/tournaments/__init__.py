"""The tournament kind of run: whole championships, a bracket of table games.

``bracket`` is the championship itself (spec, seeds, ranking, the batched bracket; pure
Python and numpy), ``section`` checks the ``tournament:`` section of a scenario, ``tables``
are the store's tournament tables and views, ``driver`` plays a run with the engine and
``writer`` stores whole tournaments, ``summary`` is what ``simulate`` prints, ``report`` the
report's section. The scenario loader and the store's schema take every kind's section and
tables, so those two sit below them (with ``bracket``), the rest above.

This ``__init__`` imports nothing, so the loader and the store reach ``section`` and
``tables`` without the driver.
"""
