"""The report's design section without a browser: every goal can be shown, each candidate is
in or out for the reason the driver logged when it judged it, the answers name the Pareto set
and its best candidate with the summary's numbers, and a design run's report is a design
report (its own answers, no sweep section over its candidates). The page itself:
tests/test_design_report_browser.py."""

from __future__ import annotations

import re

from unostats import store
from unostats.base.progress import Progress
from unostats.design.report import SHOWN, judge, view
from unostats.design.spec.goals import GOALS
from unostats.design.summary import design_results
from unostats.output import format_interval
from unostats.report.answers import answers
from unostats.report.model import load_model
from unostats.base.signals import StopRequest
from unostats.runs.simulate import resume, simulate
from unostats.scenario import load_text

# 30 settings, 8 candidates: with this seed some play to the cap and meet the constraint,
# some miss it, some stop early for either reason
DESIGN = """\
name: club evening
seed: 5
variants:
  - name: house
design:
  players: 4
  search:
    rules.hand_size: {from: 5, to: 9}
    rules.seven_zero: [false, true]
    rules.stack_draw_two: [none, sum, pass_on]
  goals:
    minutes_per_game: {between: [20, 30]}
    turns_per_round: minimize
  budget: {candidates: 8, games: 400}
"""

JUDGED = re.compile(r"candidate \d+: (?P<name>.+) 4p: (?P<games>[\d,]+) games: .*; "
                    r"(?P<verdict>out: .*|played to the cap, .*)$")


class Log(Progress):
    def __init__(self) -> None:
        self.lines: list[str] = []

    def log(self, text: str) -> None:
        self.lines.append(text)


def _played(tmp_path):
    db = tmp_path / "d.duckdb"
    log = Log()
    outcome = simulate(scenario=load_text(DESIGN, "design.yaml"), db=db, progress=log)
    assert outcome.status == "complete"
    result, = design_results(db=db, run_ids=[outcome.run_id])
    return db, outcome.run_id, result, log.lines


def test_every_goal_has_units_and_an_axis_title():
    assert set(SHOWN) == set(GOALS)
    assert all(s.kind in ("mean", "rate", "diff_rate") and s.axis for s in SHOWN.values())


def test_each_candidate_is_in_or_out_for_the_reason_the_driver_gave(tmp_path):
    _, _, result, lines = _played(tmp_path)
    verdicts = {m["name"]: (int(m["games"].replace(",", "")), m["verdict"])
                for m in map(JUDGED.match, lines) if m}
    run = judge(result)
    number = {j.candidate.name: j.number for j in run.judged}
    assert set(verdicts) == set(number) and len(number) == 8
    statuses = set()
    for j in run.judged:
        games, verdict = verdicts[j.candidate.name]
        assert j.candidate.games == games
        statuses.add(j.status)
        if verdict.startswith("out: beaten on every objective by "):
            by = verdict.removeprefix("out: beaten on every objective by ")
            assert j.status == "stopped"
            assert j.why.endswith(f"beaten on every objective by #{number[by]}")
        elif verdict.startswith("out: minutes_per_game outside its bounds"):
            assert j.status == "stopped"
            assert "minutes per game" in j.why and "not inside between 20 and 30 minutes" in j.why
        elif verdict.endswith("meets every constraint"):
            assert j.status in ("pareto", "beaten")
            assert (j.status == "pareto") == (j.candidate in result.pareto)
        else:
            assert verdict.endswith("a constraint's interval not inside its bounds")
            assert j.status == "missed" and "minutes per game" in j.why
    # the seed gives every kind of candidate, so each branch above was taken
    assert statuses == {"pareto", "beaten", "missed", "stopped"}


def test_a_design_report_answers_with_its_pareto_set_and_draws_no_sweep(tmp_path):
    db, run_id, result, _ = _played(tmp_path)
    con = store.open_store(db, read_only=True)
    try:
        model = load_model(con, [run_id])
    finally:
        con.close()
    assert model.title == "UNO design report: club evening"
    assert model.section("sweep") is None  # the candidates' settings are the design's
    views = {s.section.name: s.section.view(s.data) for s in model.sections
             if s.data is not None}
    said = answers(model, views)
    # the design's answer first, and none of the games' questions over its candidates
    assert said[0].question == "Which house rules meet the goals?"
    assert not {"How long does a round last?", "Does acting first help?"} & \
        {a.question for a in said}
    first, best, cost = said[0].sentences
    feasible = sum(all(a.met(c.estimates[a.goal]) for a in result.scenario.design.constraints)
                   for c in result.candidates)
    n = len(result.pareto)
    assert first.startswith(f"Of 8 candidate settings of hand_size, seven_zero and "
                            f"stack_draw_two (30 possible), {feasible} "
                            f"{'meets' if feasible == 1 else 'meet'} every constraint")
    assert f"and {n} of them {'is' if n == 1 else 'are'} not beaten" in first
    top = min(result.pareto, key=lambda c: c.estimates["turns_per_round"].value)
    number = 1 + [c.name for c in result.candidates].index(top.name)
    e = top.estimates["turns_per_round"]
    assert best.startswith(f"The one with the fewest turns per round is #{number} (")
    assert f"turns per round {format_interval(e.value, e.lo, e.hi)}" in best  # the summary's
    assert cost.startswith(f"The search played {result.games:,} games of the 3,200")
    # the table's rows: the Pareto set, best first, with the summary's settings and games
    table = views["design"]["runs"][0]["pareto"]
    assert [r["number"] for r in table] == sorted(
        (1 + [c.name for c in result.candidates].index(c.name) for c in result.pareto),
        key=lambda n: result.candidates[n - 1].estimates["turns_per_round"].value)


def test_an_interrupted_design_says_its_answer_is_not_finished(tmp_path, stop_after):
    """Stopped inside a candidate's look: that candidate is not finished (neither out nor at
    the cap) and the answer says the run may change; resumed, the same design is whole."""
    db = tmp_path / "i.duckdb"
    stop = StopRequest()
    outcome = simulate(scenario=load_text(DESIGN, "design.yaml"), db=db, batch_games=30,
                       stop=stop, progress=stop_after(stop, 5))
    assert outcome.status == "interrupted"
    result, = design_results(db=db, run_ids=[outcome.run_id])
    run = judge(result)
    last = run.judged[-1]
    assert last.unfinished and 0 < last.candidate.games < 400 and "not finished" in last.why
    assert [j.unfinished for j in run.judged[:-1]] == [False] * (len(run.judged) - 1)
    said = _section_answers(db, outcome.run_id)
    assert said[-1] == (f"The run is not finished (1 candidate short of its next look): the "
                        f"answer may change as it goes on (unostats design --resume "
                        f"{outcome.run_id}).")
    assert resume(run=outcome.run_id, db=db).status == "complete"
    resumed, = design_results(db=db, run_ids=[outcome.run_id])
    assert not any(j.unfinished for j in judge(resumed).judged)
    assert not _section_answers(db, outcome.run_id)[-1].startswith("The run is not finished")


def _section_answers(db, run_id) -> tuple[str, ...]:
    con = store.open_store(db, read_only=True)
    try:
        model = load_model(con, [run_id])
    finally:
        con.close()
    return answers(model, {"design": view(model.section("design"))})[0].sentences
