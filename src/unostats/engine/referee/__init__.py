"""The referee: a slow, readable replay of one traced game that checks every event.

``check_trace`` walks the events of a ``Trace`` in order, keeping its own model of the table (the
draw pile as a multiset, since the engine draws uniformly at random and order is not observable;
the discard pile; every hand; colour, direction and whose turn it is; the scores) and checks each
event against docs/engine.md. It raises ``RefereeError`` at the first event that breaks a rule and
otherwise returns what it computed itself, so the engine's statistics can be compared with it.

The referee deliberately shares no code with the Numba kernels: a rule bug would have to be made
twice, in two different styles, to slip through. It shares their declarations only (the rule
table, the codes). It supports exactly the rule options listed in ``_supported._CLAIMED`` (every
value of each) and refuses any other with ``NotImplementedError``; pairs the rule table forbids
(``needs``) are a ``RefereeError``. It reads the options through one object (``self.rules``, by
key).

Its modules mirror the kernel's rule families: ``_turns`` is the flow of a game, its rounds and
turns (a turn, or a penalty drawn without one; its plays; UNO and a win; the jump-ins that
follow; then the effects), into which ``_cards``, ``_policies``, ``_penalties``, ``_actions``,
``_jump_ins``, ``_numbers``, ``_uno_call`` and ``_scoring`` mix their checks (``_measures``: how
a round played, counted again); ``_model`` is the table it keeps. Three pieces of state carry
from one turn to the next: a pending penalty (A3-A6), the +2/Reverse sequence (A6 extreme) and
the Skip run (A7). What the referee cannot see (the slowest seat of a slap, who breaks a
silence, who errs, a random policy's gift) it accepts from any seat that could have done it. The text of events (``format_trace``) is
``unostats.event_text``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...event_text import format_trace
from ._model import GameResult, RefereeError, RoundResult
from ._turns import _Referee

if TYPE_CHECKING:
    from ..simulate import Trace

__all__ = ["GameResult", "RefereeError", "RoundResult", "check_trace", "format_trace"]


def check_trace(trace: Trace) -> GameResult:
    """Replay ``trace``; raise RefereeError at the first violation, else return the results."""
    return _Referee(trace).run()
