"""The run-loop skeleton every kind shares (``base.session.playing``) and what the base code asks
of a kind through ``RunKind`` rather than by its name (where it plays, which store holds it,
what ``validate`` says of it)."""

import signal

import pytest

from unostats import store
from unostats.kinds import RUN_KINDS, kind_of
from unostats.base.progress import Progress
from unostats.base.session import RunOutcome, Tally, playing
from unostats.base.signals import StopRequest
from unostats.scenario import load_scenario


def _session(tmp_path, start_run):
    con = store.open_store(tmp_path / "u.duckdb", read_only=False)
    run_id = start_run(con)
    outcome = RunOutcome(run_id=run_id, db=tmp_path / "u.duckdb",
                         scenario=load_scenario("standard"), status="running",
                         games_requested=100, games_completed=0)
    return con, outcome


def _tally(outcome):
    return Tally("games stored", "0 games", 0, "games", ",.0f")


def _status(con, run_id):
    return con.execute("SELECT status FROM runs WHERE run_id = ?", [run_id]).fetchone()[0]


@pytest.mark.parametrize("error", [KeyboardInterrupt(), RuntimeError("Query interrupted")])
def test_a_ctrl_c_in_the_body_marks_the_run_interrupted_then_halts(tmp_path, start_run, error):
    con, outcome = _session(tmp_path, start_run)
    order = []
    progress = Progress()
    progress.warn = lambda text: order.append(("warn", text))
    with pytest.raises(KeyboardInterrupt):
        with playing(con, outcome, progress=progress, stop=StopRequest(), tally=_tally,
                     halt=lambda: order.append(("halt", _status(con, outcome.run_id)))):
            raise error  # DuckDB's own error for a Ctrl-C counts as one too
    assert outcome.signal == signal.SIGINT and outcome.status == "interrupted"
    # the session ended (the run marked, the resume line said) before the halt
    assert [what for what, _ in order] == ["warn", "halt"]
    assert order[1][1] == "interrupted"
    assert "simulate --resume" in order[0][1]
    con.close()


def test_a_stop_request_gives_the_signal_and_a_complete_run_none(tmp_path, start_run):
    con, outcome = _session(tmp_path, start_run)
    stop = StopRequest()
    stop.request(signal.SIGTERM)
    with playing(con, outcome, progress=Progress(), stop=stop, tally=_tally):
        pass  # stopped before it played everything
    assert (outcome.status, outcome.signal) == ("interrupted", signal.SIGTERM)
    assert _status(con, outcome.run_id) == "interrupted"
    with playing(con, outcome, progress=Progress(), stop=stop, tally=_tally) as session:
        session.status = "complete"
    assert _status(con, outcome.run_id) == "complete"
    con.close()


def test_another_error_passes_through_and_still_ends_the_session(tmp_path, start_run):
    con, outcome = _session(tmp_path, start_run)
    with pytest.raises(ValueError, match="boom"):
        with playing(con, outcome, progress=Progress(), stop=StopRequest(), tally=_tally):
            raise ValueError("boom")
    assert outcome.signal is None and _status(con, outcome.run_id) == "interrupted"
    con.close()


def test_each_kind_declares_what_the_base_code_asks_of_it():
    by_name = {kind.name: kind for kind in RUN_KINDS}
    assert by_name["games"].executors == {"local", "ray"} and by_name["games"].parquet
    for name, section in (("tournaments", "tournament"), ("leagues", "league")):
        kind = by_name[name]
        assert (kind.section, kind.executors, kind.parquet) == (section, {"local"}, False)
    for name, scenario in (("games", "standard"), ("tournaments", "championship"),
                           ("leagues", "strategies")):
        assert kind_of(load_scenario(scenario)).name == name


def test_a_parquet_store_refuses_a_kind_that_says_so(tmp_path, invoke):
    result = invoke("simulate", "strategies", "--games", "1",
                    "--store", f"parquet:{tmp_path / 'p'}")
    assert result.exit_code == 2
    assert "a Parquet store holds plain games, not league runs" in result.stderr


def test_jobs_stop_at_the_first_run_that_does_not_complete(tmp_path, monkeypatch):
    import os

    from unostats.runs.jobs import Job, play_jobs, summaries

    class SigtermAfterABatch(Progress):
        def __init__(self):
            self.warned = []

        def batch_stored(self, *args, **kwargs):
            os.kill(os.getpid(), signal.SIGTERM)  # as `kill` would: stop_on_signals sets stop

        def warn(self, text):
            self.warned.append(text)

    monkeypatch.setenv("UNOSTATS_BATCH_GAMES", "50")
    first, second = load_scenario("standard"), load_scenario("extreme")
    progress = SigtermAfterABatch()
    outcomes, code = play_jobs([Job(first, command="a"), Job(second, command="b")],
                               db=tmp_path / "u.duckdb", seed=1, games=500, threads=1,
                               progress=progress)
    assert code == 128 + signal.SIGTERM
    assert [o.status for o in outcomes] == ["interrupted"]  # the second never started
    assert any(w == f"not started: {second.source_path}" for w in progress.warned)
    assert list(summaries(outcomes, db=tmp_path / "u.duckdb", fmt="table")) == []
