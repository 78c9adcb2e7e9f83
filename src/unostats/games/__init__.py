"""The plain-games kind of run: every cell (variant x player count) played game by game.

``driver`` plays a run and recomputes a stored game, ``summary`` is what ``simulate``
prints of finished runs, ``skill`` the report's skill-and-luck section. Its rows are the
store's own game tables (``store.games``), which every kind writes.
"""
