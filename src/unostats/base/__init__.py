"""What every kind of run shares, below the kinds (``games``, ``tournaments``, ``leagues``) and
above the store and the engine.

- ``session``: errors, the outcome, options, the stored scenario, a session of play from its
  start to its end; ``signals``: SIGINT/SIGTERM as a stop request; ``progress``: bars and log
  lines on stderr.
- ``engine_cache``: whether the engine is about to be compiled; ``handover`` and ``memory``:
  batches handed between threads, memory given back.
- ``query``: SQL, the list of runs, export; ``precision``: the looks and stop rule of precision
  targets; ``compare``: stored cells compared, paired over games where the deals agree.
- ``format`` writes the report's numbers, ``plotting`` sets its charts' look.

This ``__init__`` imports nothing.
"""
