"""The rule options the referee checks (``_CLAIMED``, every value of each) and the pairs the
rule table forbids.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ... import rules
from ._model import RefereeError

if TYPE_CHECKING:
    from ..simulate import Trace


# The rule options the referee checks, every value of each. Claimed here rather than read from
# rules.RULE_OPTIONS, so that adding a rule to the table does not silently claim that the referee
# checks it too.
_CLAIMED = frozenset({
    "hand_size", "first_card", "wild_draw_four", "wild", "challenge", "draw", "colour_cycle",
    "double_action", "stack_draw_two", "stack_draw_four", "draw_two_on_draw_four",
    "draw_four_on_draw_two",
    "reverse_deflects", "stack_skip", "skip_escape", "jump_in", "multi_play", "seven_zero",
    "five_swap", "zero_slap", "uno_slap", "silence", "eight_cover", "uno_penalty",
    "mistake_penalty", "scoring", "target_score", "lone_zero_value", "h2o_bonus", "round_end",
    "max_turns", "max_rounds", "blank_effect", "custom_wild_effect",
})


def _check_supported(trace: Trace) -> None:
    """Refuse a rule the referee does not claim, and the pairs the rule table's ``needs``
    forbid (the loader refuses them too: a trace that holds one was not built by it)."""
    values = trace.rules.values
    for key, value in values.items():
        if key not in _CLAIMED:
            raise NotImplementedError(f"the referee does not know the rule {key!r}")
        allowed = rules.RULES_BY_KEY[key].values  # an int option: any value (traces may cap low)
        if allowed is not None and value not in allowed:
            raise NotImplementedError(f"the referee cannot check rule {key} = {value!r} "
                                      f"(the rule table's values: {allowed})")
    for key, why in rules.unmet_needs(values):
        raise RefereeError(f"trace.rules combine what docs/engine.md forbids: {key}: {why}")
    if list(trace.deck_counts) != list(trace.rules.deck_counts()):
        raise RefereeError("trace.deck_counts differs from the deck of trace.rules")
