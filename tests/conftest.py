"""What every test module shares: ``invoke``, the one way to run the command line in-process.

``invoke(*args, input=None, env=None)`` runs ``unostats ARGS`` through Typer's CliRunner and
fails the test on any traceback or any exception other than the command's own exit; the result
carries ``exit_code``, ``stdout``, ``stderr`` and ``output``.
"""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from unostats.cli import app


def _invoke(*args, input: str | None = None, env: dict | None = None):
    result = CliRunner().invoke(app, [str(a) for a in args], input=input, env=env)
    assert "Traceback" not in result.output, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), \
        repr(result.exception)
    return result


@pytest.fixture(scope="session")
def invoke():
    """Run the command line in-process; fails the test on any traceback."""
    return _invoke


# --- Tournaments as objects ----------------------------------------------------------------------
# The bracket (``unostats.tournament``) plays a batch of tournaments as numpy columns, which the
# store's rows are made of; the tests read one tournament at a time as objects instead: a
# ``TournamentResult`` per tournament, a ``TableResult`` per table, an ``EntrantResult`` per
# entrant. ``play_tournaments`` / ``play_tournament`` (fixtures) play them.

from collections.abc import Sequence as _Sequence  # noqa: E402
from dataclasses import dataclass as _dataclass  # noqa: E402
from typing import NamedTuple as _NamedTuple  # noqa: E402

from unostats.tournament import (  # noqa: E402
    DECIDED_BY,
    Field,
    PlayedTournaments,
    StagePlan,
    TableGame,
    TableGames,
    play_batch,
)


class TableResult(_NamedTuple):
    bracket: str
    stage: StagePlan
    table: int  # 0-based within the stage
    entrants: tuple[int, ...]  # entrant in each seat
    profiles: tuple[str, ...]  # their profiles
    game_seed: int
    game: TableGame
    finish: tuple[int, ...]  # entrants best first
    decided_by: str

    @property
    def advancers(self) -> tuple[int, ...]:
        return () if self.stage.is_final else self.finish[:self.stage.advance]


class Standing(_NamedTuple):
    """One entrant's result in one bracket."""

    stage: int  # index into the spec's stages of the last stage played
    stage_name: str
    finish: int  # 1-based finish at that stage's table
    place: int  # competition ranking: 1 + players strictly better


class EntrantResult(_NamedTuple):
    entrant: int
    profile: str
    main: Standing
    first_table: int
    first_seat: int
    first_position: int
    first_table_players: int
    advanced_first: bool  # went on from the first stage (False if the first stage is the final)
    consolation: Standing | None = None


@_dataclass(frozen=True)
class TournamentResult:
    field: Field
    index: int
    tables: tuple[TableResult, ...]  # in play order: main stages, then consolation stages
    entrants: tuple[EntrantResult, ...]
    champion: int
    consolation_champion: int | None

    def games(self) -> int:
        return len(self.tables)


def _table_game(games: TableGames, i: int) -> TableGame:
    """Game ``i`` of ``games``: the TableGame a player of single tables returned, else one read
    from the arrays (its payload: the engine's tables and the game's row in them)."""
    if games.games is not None:
        return games.games[i]
    return TableGame(tuple(games.rank[i].tolist()), tuple(games.rounds_won[i].tolist()),
                     tuple(games.first_position[i].tolist()), int(games.rounds[i]),
                     int(games.turns[i]), tuple(games.hand_points[i].tolist()),
                     (games.payload, i))


def tournament_results(played: PlayedTournaments) -> list[TournamentResult]:
    """The tournaments of ``played`` as TournamentResults (one object per table, entrant and
    standing)."""
    profiles, names = played.ctx.field.profiles, played.ctx.field.stage_names
    out = []
    for k, t in enumerate(played.indices.tolist()):
        tables = []
        for r in played.records:
            for j in range(len(r.plan.tables)):
                cols = r.columns(j)
                seated = tuple(r.seated[k, cols].tolist())
                games, q, m = r.slot(j)
                tables.append(TableResult(
                    r.bracket, r.plan, j, seated, tuple(profiles[e] for e in seated),
                    int(r.seeds[k, j]), _table_game(games, k * m + q),
                    tuple(r.finish[k, cols].tolist()), DECIDED_BY[int(r.decided[k, j])]))
        entrants = []
        for e in range(played.field.entrants):
            cons = None
            if played.cons is not None and played.cons.last_stage[k, e] >= 0:
                s = int(played.cons.last_stage[k, e])
                cons = Standing(s, names[s], int(played.cons.last_finish[k, e]),
                                int(played.cons_place[k, e]))
            s = int(played.main.last_stage[k, e])
            entrants.append(EntrantResult(
                entrant=e, profile=profiles[e],
                main=Standing(s, names[s], int(played.main.last_finish[k, e]),
                              int(played.main_place[k, e])),
                first_table=int(played.first_table[k, e]),
                first_seat=int(played.first_seat[k, e]),
                first_position=int(played.first_position[k, e]),
                first_table_players=int(played.first_players[k, e]),
                advanced_first=bool(played.advanced_first[k, e]), consolation=cons))
        out.append(TournamentResult(
            field=played.field, index=t, tables=tuple(tables), entrants=tuple(entrants),
            champion=int(played.champion[k]),
            consolation_champion=(None if played.consolation_champion is None
                                  else int(played.consolation_champion[k]))))
    return out


def _play_tournaments(spec, fld, *, seed: int, indices: _Sequence[int],
                      play_tables) -> list[TournamentResult]:
    """``play_batch``'s tournaments as TournamentResults, in order (each what
    ``play_tournament`` gives for its index alone)."""
    return [r for part in play_batch(spec, fld, seed=seed, indices=indices,
                                     play_tables=play_tables)
            for r in tournament_results(part)]


def _play_tournament(spec, fld, *, seed: int, index: int, play_tables) -> TournamentResult:
    """Tournament ``index`` of ``fld`` alone: the main bracket, then the consolation."""
    return _play_tournaments(spec, fld, seed=seed, indices=(index,), play_tables=play_tables)[0]


@pytest.fixture(scope="session")
def play_tournaments():
    """``play_tournaments(spec, field, *, seed, indices, play_tables)``: TournamentResults."""
    return _play_tournaments


@pytest.fixture(scope="session")
def play_tournament():
    """``play_tournament(spec, field, *, seed, index, play_tables)``: one TournamentResult."""
    return _play_tournament
