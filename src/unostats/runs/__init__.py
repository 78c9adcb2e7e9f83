"""Simulation runs: a scenario's cells played and stored, resumed after a stop, summarised,
replayed and queried. Keyword-only functions, usable from a notebook (see ``runs.simulate``).

Modules, top down (``tests/test_layers.py`` keeps the order):

- ``simulate``: start a run (``simulate``, ``prepare``) or resume one; ``jobs``: several runs
  one after another under one stop request, as ``unostats simulate`` plays them, and each
  kind's summary of them; ``replay``: recompute a stored game and check it. They find the
  run's kind in ``unostats.kinds``; the kinds themselves are packages of their own
  (``unostats.games``, ``unostats.tournaments``, ``unostats.leagues``).
- What every kind shares: ``session`` (errors, the outcome, options, the stored scenario, a
  session of play from its start to its end), ``signals`` (SIGINT/SIGTERM as a stop request),
  ``progress`` (bars and log lines on stderr), ``engine_cache`` (whether the engine is about to
  be compiled), ``handover`` and ``memory`` (batches handed between threads, memory given
  back), ``query`` (SQL, the list of runs, export), ``precision`` (the looks and stop rule of
  precision targets) and ``compare`` (stored cells compared, paired over games where the deals
  agree).
- ``tune``: one seat's policy weights searched by CMA-ES against a scenario's other seats, then
  measured on held-out games beside every bundled policy (it plays through the engine and
  stores nothing; above the registry, it asks a scenario's kind whether it has a seat to tune).

This ``__init__`` imports nothing: the kinds build on the shared modules without running the
modules above the registry.
"""
