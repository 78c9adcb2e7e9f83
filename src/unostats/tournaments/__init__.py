"""The tournament kind of run: whole championships, a bracket of table games.

``bracket`` is the championship itself (spec, seeds, ranking, the batched bracket; pure
Python and numpy), ``driver`` plays a run with the engine, ``summary`` is what ``simulate``
prints, ``report`` the report's section. The ``tournament:`` section of a scenario is
checked by ``scenario.tournament_section`` and the tables are ``store.tournaments``: the
scenario loader and the store's schema take every kind's part, below this package.

This ``__init__`` imports nothing, so the loader reaches ``bracket`` without the driver.
"""
