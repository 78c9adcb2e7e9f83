"""Scripted rule tests for the turn variants of docs/engine.md ("Turn variants").

Each test deals known hands from a fixed deck order (``scripted.play``), plays with deterministic
seats (``first_legal`` unless said otherwise, behaviour probabilities 0 or 1) and asserts the exact
events docs/engine.md prescribes; the referee checks every trace as well. Where an option is a
switch the same deal is also played with it off.

The expected events were checked against the referee by building each game by hand as a trace.
"""

from __future__ import annotations
