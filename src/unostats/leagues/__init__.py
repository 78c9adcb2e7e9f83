"""The league kind of run: policies met in balanced seatings and rated.

``seatings`` is the design (pure Python), ``section`` checks the ``league:`` section of a
scenario, ``tables`` is the store's ratings table and view, ``driver`` plays a run and fits
the ratings, ``summary`` is what ``simulate`` prints, ``report`` the report's section. The
scenario loader and the store's schema take every kind's section and tables, so those two sit
below them (with ``seatings``), the rest above.

This ``__init__`` imports nothing, so the loader and the store reach ``section`` and
``tables`` without the driver.
"""
