"""Simulation runs: a scenario's cells played and stored, resumed after a stop, summarised,
replayed and queried. Keyword-only functions, usable from a notebook (see ``runs.simulate``).

Modules, top down (``tests/test_layers.py`` keeps the order):

- ``simulate``: start a run (``simulate``, ``prepare``) or resume one; ``replay``: recompute a
  stored game and check it. Both find the run's kind in ``unostats.kinds``.
- The kinds: ``games`` (plain games: a producer thread feeding batches to the store) and
  ``summary`` (its summary); ``tournaments`` (whole championships) and ``tournament_summary``.
- What every kind shares: ``session`` (errors, the outcome, options, the stored scenario, the
  end of a session), ``signals`` (SIGINT/SIGTERM as a stop request), ``progress`` (bars and log
  lines on stderr), ``engine_cache`` (whether the engine is about to be compiled), ``query``
  (SQL, the list of runs, export), ``precision`` (the looks and stop rule of precision targets)
  and ``compare`` (stored cells compared, paired over games where the deals agree).
- ``tune``: one seat's policy weights searched by CMA-ES against a scenario's other seats, then
  measured on held-out games beside every bundled policy (it plays through the engine and
  stores nothing).

This ``__init__`` imports nothing: the kinds build on the shared modules without running the
modules above the registry.
"""
