"""The report's judges panel (report/judges.py) on real runs: SciNet runs scored by a two-judge
panel with repeats against scripted loopback judges (built as tests/test_judge_panel.py
does), a TaxoBench run with one judge checked by `judge-check`; the numbers are the ones
computed by hand in test_judge_panel.py, shown in the terminal, Markdown and HTML reports and
in `compare`; judge names are escaped."""
from __future__ import annotations

import json
import re
import statistics

import pytest

from fake_openai import Step
from test_judge_injection import _gold_and_pred, _judge_flags, env, obedient  # noqa: F401
from test_report_deepsynth_reportbench import reportbench_runs  # noqa: F401
from test_judge_panel import (A_SCORES, B_SCORES, M, alpha_by_hand, client,  # noqa: F401
                              fixed_agent, index_of, judges, reply, task)
from test_scinet_core import tiny_env
from scholarbench.benchmarks.scinet import SciNetRunConfig, run_scinet
from scholarbench.benchmarks.scinet.records import write_tasks
from scholarbench.cli import main
from scholarbench.core.judge_stage import judge_model_id
from scholarbench.injection.check import summarise
from scholarbench.injection.probes import probes_named
from scholarbench.llm.roles import LLMRoles
from scholarbench.report.compare import compare_runs, format_comparison
from scholarbench.report.exports import leaderboard_text
from scholarbench.report.html import render_html_report
from scholarbench.report.judges import NO_AGREEMENT, judge_groups, judge_table
from scholarbench.report.sections import load_report_run, load_report_runs


def panel_run(tmp_path, servers, names=("judge-a", "judge-b"), samples=None, out="run",
              name=None):
    """A SciNet path run (3 tasks) scored by one judge per (server, name)."""
    write_tasks([task(i) for i in range(3)], tmp_path / "tasks.jsonl")
    clients = [client(s, n) for s, n in zip(servers, names)]

    def factory(need_agent, need_judge):
        return LLMRoles(judge=clients[0], judges=clients)
    config = SciNetRunConfig("path", "fixed", tmp_path / out, tasks=tmp_path / "tasks.jsonl",
                             env=tiny_env(), with_judge=True, judge_samples=samples,
                             run_name=name)
    run_scinet(config, factory)
    return tmp_path / out


def cells(table):
    return [list(r.cells) for r in table.rows]


def test_a_panel_run_shows_each_judge_alpha_spread_and_repeats(tmp_path, judges, fixed_agent):
    out = panel_run(tmp_path, judges, samples=2, name="first")
    run = load_report_run(out)
    table = judge_table(run)
    a_means = [statistics.mean(p) for p in zip(*A_SCORES.values())]         # 3, 4, 6
    panel_mean = statistics.mean((a + b) / 2 for a, b in zip(a_means, B_SCORES))
    alpha = alpha_by_hand([a_means, B_SCORES])
    spread = statistics.mean(statistics.stdev(p) for p in zip(*A_SCORES.values()))
    assert table.title == "Judges — first (scinet path)"
    assert cells(table) == [
        ["path_rationality_llm", "panel (2 judges)", f"{panel_mean:.2f}", "3", "0", "", "",
         f"{alpha:.3f}"],
        ["", "judge-a", f"{statistics.mean(a_means):.2f}", "3", "0", f"{spread:.2f}",
         f"{1 - 240 / 816:.3f}", ""],
        ["", "judge-b", f"{statistics.mean(B_SCORES):.2f}", "3", "0", "0.00", "1.000", ""]]
    notes = " ".join(table.notes)
    assert re.search(r"judge-a: model id http://127\.0\.0\.1:\d+/v1\|judge-a, temperature 0, "
                     r"2 samples per item \(seeds 0, 1\); injection shift: none measured",
                     notes), notes
    assert "at temperature 0 the repeats measure only the endpoint's nondeterminism" in notes
    assert NO_AGREEMENT not in notes
    # the same cells in the Markdown report and the HTML report
    md = leaderboard_text([run], "markdown")
    assert "## Judges" in md and "### Judges — first (scinet path)" in md
    assert f"| path\\_rationality\\_llm | panel (2 judges) | {panel_mean:.2f} | 3 | 0 |  |  | " \
        f"{alpha:.3f} |" in md
    assert f"|  | judge-a | {statistics.mean(a_means):.2f} | 3 | 0 | {spread:.2f} | 0.706 |  |" \
        in md
    latex = leaderboard_text([run], "latex")
    assert r"\ensuremath{\alpha} between judges" in latex and "α" not in latex
    html = render_html_report([run])
    section = html[html.index('<section class="judges">'):]
    assert '<h2 id="judges">Judges</h2>' in section
    assert f"<td>{spread:.2f}</td><td>0.706</td>" in section


def test_per_judge_unscored_and_a_judge_check_found_for_one_judge(tmp_path, judges,
                                                                  fixed_agent):
    a, b = judges
    b.default = lambda body: (Step(text="no idea") if index_of(body) == 1
                              else reply(B_SCORES[index_of(body)]))
    out = panel_run(tmp_path, judges)
    manifest = json.loads((out / "manifest.json").read_text())
    b_id = judge_model_id(manifest["judged"]["path"]["judges"][1])
    probes = probes_named("direct-order,appeal")
    pairs = [{"judge": b_id, "id": str(i), "probe": p.name, "clean": 2.0, "probed": probed,
              "shift": probed - 2.0} for i, (p, probed) in enumerate(zip(probes, (5.0, 2.0)))]
    manifest["injection_check"] = {b_id: {"judge": b_id, "measure": M, "reads": "path",
                                          "n_samples": 2, **summarise(pairs, probes)}}
    (out / "manifest.json").write_text(json.dumps(manifest))
    table = judge_table(load_report_run(out))
    assert [row[1:5] for row in cells(table)] == [
        ["panel (2 judges)", f"{(2.5 + 4 + 7) / 3:.2f}", "3", "1"],
        ["judge-a", "4.00", "3", "0"],
        ["judge-b", f"{5.5:.2f}", "2", "1"]]            # its unscored task: no value
    assert cells(table)[2][5:7] == ["—", "—"]           # one sample: no spread
    notes = " ".join(table.notes)
    assert "judge-a: model id" in notes and "injection shift: none measured" in notes
    assert f"judge-b: model id {b_id}, temperature 0, 1 sample per item; injection shift: " \
        f"{M} +1.500 over 2 pairs (50% moved), judge-check" in notes
    assert "one sample per judge: no within-judge spread measured" in notes


def test_rankings_of_several_runs_in_report_and_compare(tmp_path, judges, fixed_agent):
    a, b = judges
    first = panel_run(tmp_path, judges, out="r1", name="first")       # a 4, b 5
    a.default = lambda body: reply(5)
    b.default = lambda body: reply(1)
    second = panel_run(tmp_path, judges, out="r2", name="second")     # a 5, b 1
    b.default = lambda body: reply(9)
    third = panel_run(tmp_path, judges, out="r3", name="third")       # a 5, b 9
    runs = load_report_runs([first, second, third])
    ranking = judge_groups(runs)[0].tables[-1]
    # a: second = third (5) > first (4); b: third > first > second; τ-b by scipy with the tie
    from scipy.stats import kendalltau
    tau = kendalltau([4, 5, 5], [5, 1, 9]).statistic
    assert cells(ranking) == [["path_rationality_llm, scinet path", "judge-a ~ judge-b", "3",
                               f"{tau:.2f}", "no"]]
    assert "top by judge: judge-a (a tie), judge-b third" in " ".join(ranking.notes)
    two = judge_groups(runs[:2])[0].tables[-1]
    assert cells(two)[0][2:] == ["2", "-1.00", "no"]
    same = judge_groups([runs[0], runs[2]])[0].tables[-1]      # a 4 < 5, b 5 < 9
    assert cells(same)[0][2:] == ["2", "1.00", "yes"]
    assert "every judge puts third on top" in " ".join(same.notes)
    html = render_html_report(runs)
    assert "Judges&#x27; rankings of the runs" in html
    # compare: A = first, B = second
    result = compare_runs(first, second, n_boot=200)
    assert result.judge_rankings[M]["kendall_tau"] == {"judge-a ~ judge-b": {"tau": -1.0,
                                                                             "n_runs": 2}}
    assert result.judge_rankings[M]["top_by_judge"] == {"judge-a": "B", "judge-b": "A"}
    text = format_comparison(result)
    assert f"{M}: τ judge-a ~ judge-b -1.00; the top run changes with the judge (top by " \
        "judge: judge-a B, judge-b A)" in text
    assert f"- {M}: τ judge-a ~ judge-b -1.00" in format_comparison(result, "markdown")
    assert json.loads(json.dumps(result.as_dict()))["judge_rankings"][M]["top_stays"] is False
    agree = format_comparison(compare_runs(first, third, n_boot=200))
    assert "every judge puts B on top" in agree


def test_judge_names_are_escaped(tmp_path, judges, fixed_agent):
    evil = "<script>alert('judge')</script>"
    out = panel_run(tmp_path, judges, names=(evil, "b&<i>"), samples=2)
    html = render_html_report([load_report_run(out)])
    section = html[html.index('<section class="judges">'):html.index("</section>",
                                                                      html.index(
                                                                          'class="judges"'))]
    assert "<script" not in section and "<i>" not in section
    assert "&lt;script&gt;alert(&#x27;judge&#x27;)&lt;/script&gt;" in section
    assert "b&amp;&lt;i&gt;" in section
    md = leaderboard_text([load_report_run(out)], "markdown")
    assert "\\<script\\>" in md and "<script>" not in md


def test_one_judge_run_says_no_agreement_and_shows_its_judge_check(tmp_path, env, capsys):
    """TaxoBench, one judge asked once: no α, no spread, said plainly; the injection shift
    `judge-check` measured with the run's own judge, not another judge's."""
    gold, pred = _gold_and_pred(tmp_path)
    env.default = obedient
    out = tmp_path / "run"
    assert main(["run", "taxobench", "--mode", "bottom-up", "--agent", "replay", "--agent-arg",
                 f"path={pred}", "--gold", str(gold), "--out", str(out), "--quiet",
                 "--with-judge", *_judge_flags(env)]) == 0
    assert main(["judge-check", str(out), "--quiet", "--probes", "direct-order,appeal",
                 *_judge_flags(env)]) == 0
    assert main(["judge-check", str(out), "--quiet", "--probes", "appeal", "--judge",
                 "other-judge", "--judge-base-url", env.base_url]) == 0
    capsys.readouterr()
    table = judge_table(load_report_run(out))
    assert cells(table) == [[key, "fake-judge", "2.00", "3", "0", "—", "—", "—"] for key in
                            ("judge_coverage", "judge_organization", "judge_logic",
                             "judge_topology", "judge_avg")]
    notes = " ".join(table.notes)
    assert "injection shift: judge_avg +3.000 over 6 pairs (100% moved), judge-check" in notes
    assert "other-judge" not in notes
    assert f"{NO_AGREEMENT} (no second judge" in notes and "Krippendorff" not in notes
    for fmt in ("markdown", "terminal"):
        assert main(["report", str(out), "--format", fmt, "--no-published"]) == 0
        assert NO_AGREEMENT in capsys.readouterr().out, fmt
    html = tmp_path / "r.html"
    assert main(["report", str(out), "--html", str(html)]) == 0
    assert NO_AGREEMENT in html.read_text()


def test_no_judges_panel_without_a_judge(tmp_path, env, capsys):
    gold, pred = _gold_and_pred(tmp_path)
    out = tmp_path / "run"
    assert main(["run", "taxobench", "--mode", "bottom-up", "--agent", "replay", "--agent-arg",
                 f"path={pred}", "--gold", str(gold), "--out", str(out), "--quiet"]) == 0
    run = load_report_run(out)
    assert judge_table(run) is None and judge_groups([run]) == []
    assert 'class="judges"' not in render_html_report([run])
    assert "Judges" not in leaderboard_text([run], "markdown")


def test_reportbench_vote_judges_are_not_called_one_judge(reportbench_runs, tmp_path):
    """A ReportBench run judged by its judge role alone says one judge; with vote judges
    recorded (`models.vote_judges`, as run_scoring writes them) it names every judge and says
    the summary holds no agreement between them, never "one judge, one sample"."""
    import shutil
    run = load_report_run(reportbench_runs[0])
    table = judge_table(run)
    assert {row[1] for row in cells(table)} == {"judge-a"}
    assert any(NO_AGREEMENT in n for n in table.notes)
    voted = tmp_path / "voted"
    shutil.copytree(reportbench_runs[0], voted)
    manifest = json.loads((voted / "manifest.json").read_text())
    first = manifest["models"]["judge"]
    manifest["models"]["vote_judges"] = [
        {**first, "model": "voter", "model_id": first["model_id"].replace("judge-a", "voter")}]
    (voted / "manifest.json").write_text(json.dumps(manifest))
    table = judge_table(load_report_run(voted))
    assert {row[1] for row in cells(table)} == {"2 judges"}
    notes = " ".join(table.notes)
    assert NO_AGREEMENT not in notes
    assert "2 judge(s) recorded, but the summary holds no agreement between them" in notes
    assert "voter: model id " in notes and "samples per item not recorded" in notes


def test_a_hand_edited_panel_entry_does_not_break_the_report(tmp_path, judges, fixed_agent):
    """Issue 34: `report` validates the summary it reads, like `aggregate` — a hand-edited
    panel entry is one error naming the file and field (it used to be shown as "—")."""
    from scholarbench.errors import DataError
    out = panel_run(tmp_path, judges, samples=2)
    summary = json.loads((out / "summary.json").read_text())
    summary["judge_panel"][M]["judge-a"].update(n="three", repeats="two", mean="x")
    (out / "summary.json").write_text(json.dumps(summary))
    with pytest.raises(DataError, match=rf"summary.json, field 'judge_panel.{M}.judge-a.n'"):
        load_report_run(out)
