"""The referee on the turn variants of docs/engine.md (RULES.md sections 2-5 and N3).

For every rule value: hand-written legal games that the referee accepts with the right numbers,
and broken copies of them (one event changed, removed or added) that it rejects, naming the
problem.
"""

from __future__ import annotations
