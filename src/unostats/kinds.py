"""The kinds of run unostats plays, listed in one place: ``RUN_KINDS``.

A kind of run is a package of its own - ``games`` (plain games), ``tournaments`` (whole
championships), ``leagues`` (policies rated in balanced seatings), ``design`` (a search of
house rules for goals): its driver, its summary and
its report section - that plugs into the base code through ``RunKind``, the one declared
interface, the way sqlite-utils' plugins implement its hook specifications: the base code looks
a run's kind up here and calls its parts, and never imports a kind's modules itself.

- ``runs.simulate`` (start, resume) records a run with the rows its kind adds and hands it to
  the kind's driver, on the executors the kind names and in the stores it allows;
  ``runs.replay`` asks the kind how a stored game is recomputed; ``runs.jobs`` gives each
  kind's summary of the finished runs; ``validate`` prints what a scenario plays; ``runs.tune``
  asks whether the kind has a seat to tune.
- ``report.model`` loads each kind's report section; ``report.figures`` and ``report.render``
  draw and show it.

A kind's parts build on the services below them (``base.session``, ``base.signals``, the store,
the engine); the base modules that call them sit above this registry (``tests/test_layers.py``
keeps it so). Two parts of a kind sit below the base packages, in the kind's package, because
the base takes every kind's part at once: its scenario section (``tournaments.spec.section``,
``leagues.spec.section``: the loader checks every section of a file) and its store tables
(``tournaments.spec.tables``, ``leagues.spec.tables``: the store creates every kind's tables in every
file, as one schema with one version, since one file receives runs of every kind). They build
on the kind's pure part (the bracket, the seatings) and on helpers below the base packages
(``checking``, ``sql``), and the kind's package ``__init__`` imports nothing, so the base
reaches them without the kind's driver.

A new kind of run is a package beside the four and a ``RunKind`` added to ``RUN_KINDS``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import duckdb

from .design import driver as design
from .design import report as design_report
from .design import summary as design_summary
from .games import driver as games
from .games import plays as plays_report
from .games import skill as skill_report
from .games import summary
from .leagues import driver as leagues
from .leagues import report as league_report
from .leagues import summary as league_summary
from .games import sweep as sweep_report
from .scenario import Cell, Scenario
from .seats import Seat
from .tournaments import driver as tournaments
from .tournaments import report as tournament_report
from .tournaments import summary as tournament_summary


@dataclass(frozen=True)
class ReportSection:
    """A kind's own section of the HTML report, read from the store's views."""

    name: str  # the section's name in the report model and the template
    title: str  # how the report's title starts when the section has data
    # (connection, run ids) -> the section's model of those runs, or None if they have none
    load: Callable[[duckdb.DuckDBPyConnection, Sequence[str]], Any]
    # the section's model -> its charts, each (div id, plotly figure, caption)
    figures: Callable[[Any], list[tuple[str, Any, str]]]
    # the section's model -> the template's display strings
    view: Callable[[Any], dict[str, Any]]
    # its answers stand for the games' own questions (how long a round or a game lasts, what
    # acting first is worth), its cells being points of a grid or a design's candidates
    answers_for_cells: bool = False


@dataclass(frozen=True)
class RunKind:
    """One kind of run: which scenarios it plays, how it records, plays, replays, summarises
    and reports them."""

    name: str
    claims: Callable[[Scenario], bool]  # the scenarios it plays (exactly one kind claims each)
    section: str | None  # the scenario's section that makes it this kind's (None: no section)
    label: str  # what the resume line calls a run: "run", "tournament run"
    games_label: str  # what it calls the games it stores: "games", "table games"
    games_requested: Callable[[Scenario], int]  # games over all cells of a new run
    plan: Callable[[Scenario], str]  # what a new run plays, for its first log line
    outline: Callable[[Scenario], str]  # what ``validate`` says a scenario plays
    # (con, run_id, scenario): rows stored with a new run, in its transaction (None: none)
    record: Callable[[duckdb.DuckDBPyConnection, str, Scenario], None] | None
    # (con, outcome, *, threads, batch_size, progress, stop) -> the outcome: plays the run's
    # remaining games to the end or to a stop request, and closes the session
    play: Callable[..., Any]
    # (con, run_id, scenario, cell, game) -> (seats, seed, game index) to recompute a game with
    replay_args: Callable[[duckdb.DuckDBPyConnection, str, Scenario, Cell, int],
                          tuple[tuple[Seat, ...], int, int]]
    # (*, db, run_ids, fmt, width) -> the text ``simulate`` prints for the finished runs
    summary: Callable[..., str]
    reports: tuple[ReportSection, ...] = ()  # sections of the report beyond the games' own
    # where its runs play: "local" (this machine's threads), "ray" (tasks on a Ray cluster)
    executors: frozenset[str] = frozenset({"local"})
    # a Parquet store may hold its runs (a kind with tables of its own needs the one writer
    # of a DuckDB file)
    parquet: bool = False
    # why ``tune`` has no seat to tune in its scenarios, after "NAME is " (None: it tunes a seat
    # of the scenario's first cell)
    untunable: str | None = None
    # (con, run_id, scenario) -> the cells a run stored, for a kind whose cells are made as it
    # plays (a design's candidates; None: the scenario's cells)
    stored_cells: Callable[[duckdb.DuckDBPyConnection, str, Scenario], list[Cell]] | None = None


GAMES = RunKind(
    name="games", claims=lambda scenario: scenario.tournament is None and scenario.league is None
    and scenario.design is None,
    section=None, label="run", games_label="games",
    games_requested=games.games_requested, plan=games.plan, outline=games.outline, record=None,
    play=games.play, replay_args=games.replay_args, summary=summary.summary_text,
    executors=frozenset({"local", "ray"}), parquet=True,
    reports=(
        ReportSection(name="sweep", title="UNO sweep report: ", load=sweep_report.load_sweeps,
                      figures=sweep_report.sweep_figures, view=sweep_report.view,
                      answers_for_cells=True),
        ReportSection(name="skill", title="UNO skill-and-luck report: ",
                      load=skill_report.load_skill, figures=skill_report.skill_figures,
                      view=skill_report.view),
        # the default title: a plain run's report is a rules report that also tells how it plays
        ReportSection(name="plays", title="UNO rules report: ", load=plays_report.load_section,
                      figures=plays_report.plays_figures, view=plays_report.view)))

TOURNAMENTS = RunKind(
    name="tournaments", claims=lambda scenario: scenario.tournament is not None,
    section="tournament", label="tournament run", games_label="table games",
    games_requested=tournaments.games_requested, plan=tournaments.plan,
    outline=tournaments.outline,
    record=tournaments.record_fields, play=tournaments.play,
    replay_args=tournaments.replay_args, summary=tournament_summary.summary_text,
    untunable="a tournament scenario: its tables are seated from profiles",
    reports=(ReportSection(
        name="tournament", title="UNO championship report: ",
        load=tournament_report.load_tournaments, figures=tournament_report.tournament_figures,
        view=tournament_report.view),))

LEAGUES = RunKind(
    name="leagues", claims=lambda scenario: scenario.league is not None,
    section="league", label="league run", games_label="games",
    games_requested=leagues.games_requested, plan=leagues.plan, outline=leagues.plan,
    record=None, play=leagues.play,
    replay_args=leagues.replay_args, summary=league_summary.summary_text,
    untunable="a league scenario: its tables are seated from its policies",
    reports=(ReportSection(
        name="league", title="UNO league report: ", load=league_report.load_leagues,
        figures=league_report.league_figures, view=league_report.view),))

DESIGNS = RunKind(
    name="design", claims=lambda scenario: scenario.design is not None,
    section="design", label="design run", games_label="games",
    games_requested=design.games_requested, plan=design.plan, outline=design.plan,
    record=None, play=design.play, replay_args=design.replay_args,
    summary=design_summary.summary_text,
    untunable="a design scenario: its candidates are proposed as the run goes",
    stored_cells=design.stored_cells, executors=frozenset({"local", "ray"}),
    reports=(ReportSection(
        name="design", title="UNO design report: ", load=design_report.load_designs,
        figures=design_report.design_figures, view=design_report.view,
        answers_for_cells=True),))

RUN_KINDS: tuple[RunKind, ...] = (GAMES, TOURNAMENTS, LEAGUES, DESIGNS)


def kind_of(scenario: Scenario) -> RunKind:
    """The kind that plays ``scenario``."""
    return next(kind for kind in RUN_KINDS if kind.claims(scenario))


def report_sections() -> tuple[ReportSection, ...]:
    """The report sections of every kind that has one: first the kinds with a scenario section
    of their own, then the plain games' (whose sections may show those runs' cells too: how a
    design's candidates play), each in ``RUN_KINDS`` order; the report takes its title from the
    first one with data and says its answers in this order."""
    ordered = sorted(RUN_KINDS, key=lambda kind: kind.section is None)
    return tuple(section for kind in ordered for section in kind.reports)
