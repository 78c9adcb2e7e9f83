"""The report's first section, "The answers": a few sentences per question the scenario asks,
generated from the model's numbers, each number with its 95% interval.

The questions of a comparison: how long a round lasts, how long a game lasts (rounds, and
minutes at the run's pace), and what acting first is worth, each variant against the base (the
scenario's first) at every player count; with many variants, the shortest and the longest and
the largest and smallest advantage instead. An ablation adds which of its rules matter most. A
kind's section (sweep, skill and luck, championship, league, design) answers its own questions:
its ``view`` carries them under ``"answers"`` as ``(question, sentences)`` pairs; a sweep's and
a design's stand for the games' questions (``ReportSection.answers_for_cells``). The sample size
closes the section in words.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..base.format import fmt_estimate, fmt_number, fmt_pct, fmt_said
from ..stats import Z95, Estimate
from .model import CellKey, ReportModel

# Past this many variants (the ablation's "without" variants aside) the answers name the
# extremes at each player count instead of a sentence per variant.
MAX_NAMED = 4
# The ablation's rules named by their effect on a round's length, largest first.
TOP_RULES = 3


@dataclass(frozen=True)
class Answer:
    question: str  # "How long does a round last?"
    sentences: tuple[str, ...]


def answers(model: ReportModel, section_views: Mapping[str, Any] | None = None
            ) -> tuple[Answer, ...]:
    """The answers of ``model``; ``section_views``: each present section's view (its
    ``"answers"``, if any, follow the games' own)."""
    out: list[Answer] = []
    if not any(s.section.answers_for_cells and s.data is not None for s in model.sections):
        # else a sweep's points (a design's candidates) answer in their own section
        main = [label for label in model.labels if label not in model.ablation_labels]
        named = len(main) <= MAX_NAMED
        for question, write in (("How long does a round last?", _round_length),
                                ("How long does a game last?", _game_length),
                                ("Does acting first help?", _first_player)):
            sentences = tuple(s for s in write(model, main, named) if s)
            if sentences:
                out.append(Answer(question, sentences))
        if model.ablation:
            out.append(Answer("Which rules matter most?", tuple(_ablation(model))))
    for view in (section_views or {}).values():
        for question, sentences in (view or {}).get("answers", ()):
            out.append(Answer(question, tuple(sentences)))
    return tuple(out)


def sample_sentence(model: ReportModel) -> str:
    """The sample size in words."""
    games = sorted({c.games for c in model.cells})
    per = (f"{fmt_number(games[0])} games" if len(games) == 1
           else f"{fmt_number(games[0])} to {fmt_number(games[-1])} games")
    players = _and([str(n) for n in model.players])
    variants = len(model.labels)
    return (f"Each answer rests on {per} per cell, a cell being one variant at one table size "
            f"({len(model.cells):,} cells: {variants} variant{'s' if variants > 1 else ''} at "
            f"{players} players; {fmt_number(model.games)} games and "
            f"{fmt_number(model.rounds)} rounds in all). Numbers in brackets are 95% intervals; "
            "the tables below give each one's method.")


# --- The games' questions ------------------------------------------------------------------------

def _round_length(model: ReportModel, main: Sequence[str], named: bool) -> list[str]:
    turns = model.measures["round_turns"].summaries
    if not named:
        return _extremes(model, main, {k: s.mean for k, s in turns.items()}, "mean", "turns",
                         "a round is shortest", "longest")
    out = []
    for label in main:
        parts = []
        for key, base in _cells(model, label):
            if key not in turns:
                continue
            said = f"{fmt_said(turns[key].mean, unit='turns')} at {key.players} players"
            if base is not None and base in turns and base != key:
                rel = relative(turns[key].mean, turns[base].mean)
                said += ", " + _change(rel, "longer", "shorter", "as long",
                                       None if parts else model.base_label)
            parts.append(said)
        if parts:
            out.append(f"Under {label} a round lasts {'; '.join(parts)}.")
    return out


def _game_length(model: ReportModel, main: Sequence[str], named: bool) -> list[str]:
    rounds = model.measures["game_rounds"].summaries
    if not named:
        minutes = {k: d.game for k, d in model.durations.items()}
        if minutes:
            return _extremes(model, main, minutes, "mean", "minutes", "a game is shortest",
                             "longest")
        return _extremes(model, main, {k: s.mean for k, s in rounds.items()}, "mean",
                         "rounds", "a game is shortest", "longest")
    out = []
    for label in main:
        parts = []
        for key, base in _cells(model, label):
            if key not in rounds:
                continue
            said = f"{fmt_said(rounds[key].mean, unit='rounds')}"
            d = model.durations.get(key)
            if d is not None:
                said += f", about {fmt_said(d.game, unit='minutes')}"
            said += f" at {key.players} players"
            if base is not None and base in rounds and base != key:
                rel = relative(rounds[key].mean, rounds[base].mean)
                said += " (" + _change(rel, "more rounds", "fewer rounds", "as many rounds",
                                       None if parts else model.base_label) + ")"
            parts.append(said)
        if parts:
            out.append(f"Under {label} a game lasts {'; '.join(parts)}.")
    paces = {f"{d.seconds_per_turn:g}" for d in model.durations.values()}
    if out and paces:
        out.append(f"Minutes are turns at {_and(sorted(paces))} s a turn, the scenario's pace "
                   "(a setting, not an estimate).")
    return out


def _first_player(model: ReportModel, main: Sequence[str], named: bool) -> list[str]:
    pos = model.round_positions
    if not named:
        return _extremes(model, main, {k: p.excess for k, p in pos.items()}, "diff_rate", "",
                         "acting first is worth least", "most", "of rounds won over the fair "
                         "share")
    out = []
    for label in main:
        parts = []
        for key, base in _cells(model, label):
            p = pos.get(key)
            if p is None:
                continue
            said = (f"{fmt_said(p.excess, 'diff_rate')}{'' if parts else ' of rounds won'} at "
                    f"{key.players} players ({fmt_pct(p.rates[0].value)} against a fair "
                    f"{fmt_pct(p.fair)}{_chance(p.excess)})")
            if base is not None and base != key and base in pos:
                said += f", against {fmt_said(pos[base].excess, 'diff_rate')} under " \
                        f"{model.base_label}"
            parts.append(said)
        if parts:
            out.append(f"Under {label} acting first is worth {'; '.join(parts)}.")
    games = [(k, p) for k, p in model.game_positions.items() if model.cell(k).label in main]
    if games:
        k, p = max(games, key=lambda kp: abs(kp[1].excess.value))
        out.append(f"Over whole games the first player's edge is furthest from fair under "
                   f"{model.cell(k).label} at {k.players} players: "
                   f"{fmt_said(p.excess, 'diff_rate')} of games won{_chance(p.excess)}.")
    return out


def _ablation(model: ReportModel) -> list[str]:
    """Per player count, the rules that change a round's length most, and the rule that moves
    the first player's advantage most."""
    out = []
    for n in model.players:
        effects = [a for a in model.ablation if a.cell.players == n]
        if not effects:
            continue
        base = model.cell(effects[0].base).label
        ranked = sorted(effects, key=lambda a: -abs(a.round_length.value))[:TOP_RULES]
        first, rest = ranked[0], ranked[1:]
        text = (f"At {n} players, of {base}'s rules the {first.what} changes a round's length "
                f"most: {fmt_said(first.round_length, 'diff_mean', 'turns')}")
        if rest:
            text += ", then the " + _and([f"{a.what} ({fmt_said(a.round_length, 'diff_mean')})"
                                          for a in rest])
        moved = max(effects, key=lambda a: abs(a.first_win.value))
        text += (f". The {moved.what} moves the first player's share of rounds most: "
                 f"{fmt_said(moved.first_win, 'diff_rate')}{_chance(moved.first_win)}.")
        out.append(text)
    if out:
        out.append("An effect is the variant with the rule minus the variant without it.")
    return out


def _extremes(model: ReportModel, main: Sequence[str], values: Mapping[CellKey, Estimate],
              kind: str, unit: str, low: str, high: str, what: str = "") -> list[str]:
    """With many variants: at each player count, the variants with the lowest and the highest
    value (and the base's)."""
    def said(c) -> str:
        return fmt_said(values[c.key], kind, unit) + (f" {what}" if what else "")

    out = []
    for n in model.players:
        cells = [c for c in model.cells if c.players == n and c.label in main
                 and c.key in values and math.isfinite(values[c.key].value)]
        if len(cells) < 2:
            continue
        lo = min(cells, key=lambda c: values[c.key].value)
        hi = max(cells, key=lambda c: values[c.key].value)
        base = next((c for c in cells if c.label == model.base_label), None)
        text = f"At {n} players {low} under {lo.label}: {said(lo)}; {high} under {hi.label}: " \
               f"{said(hi)}"
        if base is not None and base not in (lo, hi):
            text += f" ({base.label}: {fmt_said(values[base.key], kind, unit)})"
        out.append(text + ".")
    return out


# --- Words -------------------------------------------------------------------------------------

def relative(a: Estimate, b: Estimate) -> Estimate | None:
    """a / b - 1 with its 95% interval: the delta method on the log of the ratio of two
    independent means. None without standard errors or for a mean that is not positive."""
    if a.se is None or b.se is None or not (a.value > 0 and b.value > 0):
        return None
    ratio = a.value / b.value
    s = math.hypot(a.se / a.value, b.se / b.value)
    if not math.isfinite(s):
        return None
    return Estimate(ratio - 1, ratio * math.exp(-Z95 * s) - 1, ratio * math.exp(Z95 * s) - 1,
                    None, "ratio of means, delta method on its log")


def _change(rel: Estimate | None, more: str, less: str, same: str, base: str | None) -> str:
    """'40.1% [38.0%, 42.3%] longer than under B'; 'about as long as under B (+0.4% [-1.2%,
    +2.0%])' when the interval holds 0; without ``base`` the comparison is left implied."""
    if rel is None:
        return "not comparable" + (f" with {base}" if base else "")
    if rel.lo <= 0 <= rel.hi:
        e = fmt_estimate(rel, "diff_rate")
        lo, hi = e["interval"][1:-1].split(", ")
        return f"about {same}" + (f" as under {base}" if base else "") + \
            f" ({e['value'].removesuffix(' pp')}% [{lo}%, {hi}%])"
    flipped = rel if rel.value > 0 else Estimate(-rel.value, -rel.hi, -rel.lo, rel.n,
                                                 rel.method)
    return f"{fmt_said(flipped, 'rate')} {more if rel.value > 0 else less}" + \
        (f" than under {base}" if base else "")


def _chance(e: Estimate) -> str:
    """What an excess's interval says about chance."""
    return "; chance alone could give that" if e.lo <= 0 <= e.hi else ""


def _cells(model: ReportModel, label: str) -> list[tuple[CellKey, CellKey | None]]:
    """The cells of a variant label, each with the base cell at its player count."""
    base = {c.players: c.key for c in model.cells if c.label == model.base_label}
    return [(c.key, base.get(c.players)) for c in model.cells if c.label == label]


def _and(items: Sequence[str]) -> str:
    items = list(items)
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]
