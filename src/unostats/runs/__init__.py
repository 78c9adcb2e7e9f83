"""Simulation runs: a scenario's cells played and stored, resumed after a stop, replayed and
tuned. Keyword-only functions, usable from a notebook (see ``runs.simulate``).

- ``simulate``: start a run (``simulate``, ``prepare``) or resume one; ``jobs``: several runs
  one after another under one stop request, as ``unostats simulate`` plays them, and each
  kind's summary of them; ``replay``: recompute a stored game and check it.
- ``tune``: one seat's policy weights searched by CMA-ES against a scenario's other seats, then
  measured on held-out games beside every bundled policy (it plays through the engine and
  stores nothing; it asks a scenario's kind whether it has a seat to tune).

They find the run's kind in ``unostats.kinds``; the kinds are packages of their own
(``unostats.games``, ``unostats.tournaments``, ``unostats.leagues``) over what every kind
shares (``unostats.base``). This ``__init__`` imports nothing.
"""
