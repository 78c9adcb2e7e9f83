"""Durations: the pace that turns turns into minutes (a scenario's ``seconds_per_turn``), its
default and allowed range, and how a duration is written ("32 min", "2.3 h").

The conversion itself is SQL, in one place (``sql.minutes``): the store's ``durations`` view
(``store.durations``) and the ``tournament_durations`` view (``tournaments.spec.tables``) multiply
turns by the run's pace, and the summaries and the report read minutes from them. The pace is
a setting, not an estimate, so a duration's interval is the interval of its turns, scaled.

The default, 4 s per turn, is an all-in pace: it covers shuffling, dealing and counting points
between rounds as well as the turns, because the published game lengths it is argued from
include them (docs/durations.md gives the argument).
"""

from __future__ import annotations

import math

KEY = "seconds_per_turn"
SECONDS_PER_TURN_DEFAULT = 4.0
SECONDS_PER_TURN_RANGE = (0.5, 600.0)  # from very fast play to a turn of ten minutes
ALLOWED_TEXT = (f"a number of seconds from {SECONDS_PER_TURN_RANGE[0]:g} to "
                f"{SECONDS_PER_TURN_RANGE[1]:g} (the time one turn takes, all in)")
HOURS_FROM_MINUTES = 90  # a duration of this many minutes or more is written in hours


def unit_for(minutes: float) -> tuple[str, float]:
    """("min", 1) or ("h", 1/60): the unit a duration of ``minutes`` is written in, and the
    factor that converts minutes to it."""
    if math.isfinite(minutes) and minutes >= HOURS_FROM_MINUTES:
        return "h", 1 / 60
    return "min", 1.0
