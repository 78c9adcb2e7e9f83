"""Scenario files: YAML -> validated, fully resolved ``Scenario``.

A scenario names rule variants (each a set of rule-table overrides, docs/rules.md, optionally extending
an earlier variant or a bundled preset), the player counts to sweep, seat policies and behaviour,
games per cell and a seed. Every variant x player count is one cell.

Validation is strict and reports every problem of a file at once, one line each:
``<file>:<line>: <key path>: <message>``. Rule keys and values are checked against the rule table
in ``rules.py``; nothing about rules is repeated here.

Seats: ``seats:`` is either one mapping used for every seat, or a list of mappings, one per seat.
A list must be at least as long as the largest player count; a table of n players uses the
first n entries (so one list serves a sweep over several player counts).

``extends``: ``name`` is an earlier variant of the same file if one has that name, else the first
variant of the bundled preset ``name`` (a file stem in ``bundled_dir()``); ``preset:variant`` picks
a preset's variant. Only earlier variants can be extended, so chains never loop (a forward
reference or a cycle is an error). Without ``extends`` a variant starts from the official rules
(``standard`` is the rule table's defaults). Rule overrides accumulate along the chain, ``deck``
counts merge key by key, and defaults such as ``target_score`` resolve at the end of the chain.

Sweeps (``sweep.py``): ``sweep:`` maps ``--set`` paths to lists of values or ``{from, to, step}``
ranges (a list of such mappings is several grids); every variant x grid point x player count is
a cell, its variant named after the point (``base uno_penalty=2``). Precision targets:
``precision: {STAT: H}`` plays each cell until the 95% half-width of STAT is at most H, ``games``
being the cap (``PRECISION_STATS`` lists the statistics; ``base.precision`` plays them).

``--set path=value`` overrides (``apply_overrides``) edit the parsed file before validation, so a
wrong path or value is reported like any other problem, located at the ``--set`` expression.

Tournaments (docs/rules.md section 9): a file with a ``tournament:`` section plays whole championships
instead of games (``tournaments.spec.bracket`` describes the bracket). Its ``games`` is the number of
tournaments per cell, a cell being one variant x one field; ``players`` and ``seats`` are not used
(table sizes follow from ``tournament.table_size`` and the entrants, seats from the profiles)::

    tournament:
      entrants: 36              # default for every field
      table_size: 6             # default 6 (TOUR)
      consolation: true         # first-stage losers play their own tournament (default false)
      stages:                   # the last stage is the final (no advance)
        - name: group
          advance:              # a number, or a rule by the bracket's entrant count
            - {entrants_at_most: 24, advance: 3}
            - {advance: 2}      # the last rule has no entrants_at_most
        - {name: semifinal, advance: 1}
        - {name: final}
      profiles:                 # name -> a seat mapping (policy, behaviour)
        casual: {policy: random, behaviour: {forget_uno: 0.2}}
      fields:                   # each one is a cell (x every variant)
        - name: evening
          mix: {casual: 30, regular: rest}   # counts per profile; at most one `rest`

Entrant counts are resolved (``rest`` and a field's default ``entrants``) in the canonical form,
and every field's brackets (main and consolation) are checked: each non-final stage must knock
someone out at every table and the final must fit at one table.

Leagues (``leagues.spec.seatings``): a file with a ``league:`` section seats a list of policies against each
other in balanced seatings at one or more table sizes, and the run rates them. Its ``games`` is
per table size, rounded up to whole cycles of the seatings; ``players`` and ``seats`` are not used
(``leagues.spec.section`` checks the section)::

    league:
      policies: [random, strategist, {name: keep-black, weights: {points: 1, wild: -1000}}]
      table_size: [2, 3]        # one size or a list, each at most the number of policies
      behaviour: {forget_uno: 0.1}   # every seat's (optional)

Skill ladders (``ladder``): a file of plain games with a ``skill:`` section seats one player of
each rung (random, a bundled or tuned policy, the expert, the clairvoyant) at seat 0 of the
table, every variant x player count x rung a cell, its variant named ``VARIANT/RUNG``.

This package's names are the scenario interface (``from unostats.scenario import ...``); its
modules, one job each: ``model`` (Variant, Cell, Scenario: cells, canonical form, hash),
``yaml_lines`` (YAML with line numbers), ``overrides`` (``--set``), ``sweep`` (the ``sweep:``
section and its points), ``ladder`` (the ``skill:`` section), ``resolve`` (the top level,
variants, ``extends`` and presets; loading) and ``bundled`` (the bundled files). The checking helpers it shares with each kind's section are
the ``checking`` package (``problems``: Problem, ScenarioError, where each key path came from;
``values``: strings, integers, seats, lists); each kind checks its own section
(``tournaments.spec.section``, ``leagues.spec.section``), which ``resolve`` calls.
"""

from ..checking.problems import Problem, ScenarioError, format_path
from .bundled import (
    SCENARIOS_ENV,
    bundled_dir,
    bundled_presets,
    bundled_scenarios,
    locate_scenario,
)
from .model import Axis, Cell, Grid, Point, Scenario, Variant
from .overrides import apply_overrides
from .resolve import GAMES_MAX, PRECISION_STATS, load_scenario, load_text
from .sweep import point_text

__all__ = [
    "GAMES_MAX", "PRECISION_STATS", "SCENARIOS_ENV", "Axis", "Cell", "Grid", "Point", "Problem", "Scenario", "ScenarioError", "Variant",
    "apply_overrides", "bundled_dir", "bundled_presets", "bundled_scenarios", "format_path",
    "load_scenario", "load_text", "locate_scenario", "point_text",
]
