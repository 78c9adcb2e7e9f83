"""The league kind of run: policies met in balanced seatings and rated.

``seatings`` is the design (pure Python), ``driver`` plays a run and fits the ratings,
``summary`` is what ``simulate`` prints, ``report`` the report's section. The ``league:``
section of a scenario is checked by ``scenario.league_section`` and the ratings' table is
``store.leagues``: the scenario loader and the store's schema take every kind's part,
below this package.

This ``__init__`` imports nothing, so the loader reaches ``seatings`` without the driver.
"""
