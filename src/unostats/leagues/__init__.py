"""The league kind of run: policies met in balanced seatings and rated.

``spec`` is what a league is, below the store and the scenario loader (which take every kind's
section and tables): ``spec.seatings`` the design (pure Python), ``spec.section`` checks the
``league:`` section of a scenario, ``spec.tables`` is the store's ratings table and view. Above
them: ``driver`` plays a run and fits the ratings, ``summary`` is what ``simulate`` prints,
``report`` the report's section.

This ``__init__`` and ``spec``'s import nothing, so the loader and the store reach
``spec.section`` and ``spec.tables`` without the driver.
"""
