"""The tournament kind of run: whole championships, a bracket of table games.

``spec`` is what a championship is, below the store and the scenario loader (which take every
kind's section and tables): ``spec.bracket`` the championship itself (spec, seeds, ranking, the
batched bracket; pure Python and numpy), ``spec.section`` checks the ``tournament:`` section of a
scenario, ``spec.tables`` are the store's tournament tables and views. Above them: ``driver``
plays a run with the engine and ``writer`` stores whole tournaments, ``summary`` is what
``simulate`` prints, ``report`` the report's section.

This ``__init__`` and ``spec``'s import nothing, so the loader and the store reach
``spec.section`` and ``spec.tables`` without the driver.
"""
