"""The text of trace events: one readable line per event, for ``replay`` and the referee's
messages. Display only, beside the event codes it spells (codes.py); it checks nothing.
"""

from __future__ import annotations

from . import cards, codes


def format_trace(trace) -> str:
    """One readable line per event of a trace (engine.simulate.Trace), e.g. ``r1 t12 seat 2
    plays R-skip``."""
    rows = [tuple(row) for row in trace.events.tolist()]
    return "\n".join(prefix + describe(*row) for prefix, row in zip(prefixes(rows), rows))


def prefixes(rows):
    """The 'r<round> t<turn> ' context of each row (no turn part before a round's first turn)."""
    round_no = turn_no = 0
    for kind, _, a, _ in rows:
        if kind == codes.EV_ROUND_START:
            round_no, turn_no = a, 0
        elif kind == codes.EV_TURN:
            turn_no += 1
        yield f"r{round_no} t{turn_no} " if turn_no else f"r{round_no} "


def card_name(t: int) -> str:
    return cards.card_to_str(t)


def colour_name(c: int) -> str:
    return cards.COLOURS[c] if 0 <= c < cards.N_COLOURS else f"colour {c}"


def reason_name(b: int) -> str:
    names = codes.DRAW_REASON_NAMES
    return names[b] if 0 <= b < len(names) else f"reason {b}"


_TEMPLATES = {
    codes.EV_DEAL: "seat {seat} is dealt {card}",
    codes.EV_FLIP: "{card} is turned up",
    codes.EV_FLIP_RETURN: "{card} goes back into the draw pile",
    codes.EV_TURN: "seat {seat} takes its turn",
    codes.EV_PLAY: "seat {seat} plays {card}",
    codes.EV_COLOUR: "seat {seat} names {colour}",
    codes.EV_DRAW: "seat {seat} draws {card} ({reason})",
    codes.EV_DRAW_FAIL: "seat {seat} cannot draw ({reason})",
    codes.EV_PASS: "seat {seat} passes",
    codes.EV_SKIP: "seat {seat} is skipped",
    codes.EV_DIRECTION: "direction becomes {a:+d}",
    codes.EV_UNO_CALL: "seat {seat} calls UNO",
    codes.EV_RESHUFFLE: "reshuffle: {a} discards become the draw pile",
    codes.EV_SCORE: "seat {seat} holds {a} points, score {b}",
    codes.EV_JUMP_IN: "seat {seat} jumps in with {card}",
    codes.EV_TAKE_BACK: "seat {seat} takes {card} back",
    codes.EV_MISTAKE: "seat {seat} makes a mistake and owes {a} cards",
    codes.EV_SILENCE_BREAK: "seat {seat} breaks the silence and owes {a} cards",
    codes.EV_SWAP_HANDS: "seat {seat} swaps hands with seat {a}",
    codes.EV_PASS_HANDS: "every hand passes on in direction {a:+d}",
    codes.EV_GIVE: "seat {seat} gives {card} to seat {b}",
    codes.EV_FINISH: "seat {seat} finishes in place {a}",
    codes.EV_NEW_HAND: "seat {seat} has emptied hand {a} and takes {b} new cards",
}


def describe(kind: int, seat: int, a: int, b: int) -> str:
    if kind in _TEMPLATES:
        return _TEMPLATES[kind].format(seat=seat, a=a, b=b, card=card_name(a),
                                       colour=colour_name(a), reason=reason_name(b))
    if kind == codes.EV_ROUND_START:
        first = f", seat {b} plays first" if b != -1 else ""
        return f"round {a} starts, seat {seat} deals{first}"
    if kind == codes.EV_CHALLENGE:
        verdict = {1: "guilty", 0: "innocent"}.get(b, f"b = {b}")
        return f"seat {seat} challenges seat {a}: {verdict}"
    if kind == codes.EV_UNO_MISS:
        caught = f"caught by seat {a}" if a != -1 else "nobody notices"
        return f"seat {seat} forgets UNO, {caught}"
    if kind == codes.EV_SLAP:
        what = {codes.SLAP_ZERO: "0 played", codes.SLAP_UNO: "UNO called"}.get(b, f"b = {b}")
        return f"seat {seat} is the slowest to slap ({what} by seat {a})"
    if kind == codes.EV_ROUND_END:
        if a == codes.ROUND_END_WIN:
            return f"round ends: seat {seat} wins {b} points"
        if a == codes.ROUND_END_CAP:
            return f"round ends at the turn cap (seat {seat}, {b} points)"
        return f"round ends with unknown code {a} (seat {seat}, {b} points)"
    if kind == codes.EV_GAME_END:
        if a == codes.GAME_END_TARGET:
            return f"game ends: seat {seat} wins"
        if a == codes.GAME_END_CAP:
            return f"game ends at the round cap (seat {seat})"
        return f"game ends with unknown code {a} (seat {seat})"
    return f"unknown event kind {kind} (seat {seat}, a {a}, b {b})"
