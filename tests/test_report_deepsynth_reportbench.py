"""The report's DeepSynth-Eval and ReportBench sections on real run directories (built with the
runners against fake OpenAI servers, as tests/test_deepsynth_run.py and
tests/test_reportbench_run.py do): leaderboard numbers equal summary.json, the papers' published
rows are marked and each is checked against the paper's text, the checklist status breakdown
sums to the counts, a report containing <script> is escaped everywhere, the per-task and
per-survey drill-downs, the other table formats, and `compare` on both run types."""
from __future__ import annotations

import csv
import io
import json
import re
from html import unescape
from pathlib import Path

import pytest

from conftest import shared_path
from fake_openai import FakeOpenAI
from scholarbench.report.compare import compare_runs, format_comparison
from scholarbench.report.exports import leaderboard_text
from scholarbench.report.html import render_html_report
from scholarbench.benchmarks.deepsynth.published import PUBLISHED as DSE_PUBLISHED
from scholarbench.benchmarks.reportbench.published import PUBLISHED as RB_PUBLISHED
from scholarbench.report.sections import load_report_run, load_report_runs
from scholarbench.benchmarks.deepsynth.api import DeepSynthRunConfig, run_deepsynth
from test_deepsynth_oracle import judge_labels, router, write_tasks
from test_deepsynth_run import Roles
from test_reportbench_llm import RUN_DATA, build_tiny_corpus, route
from test_reportbench_run import GT, REPORTS, Factory, config, run_reportbench

SCRIPT = "<script>alert('pwned')</script>"


def hostile_judge(prompt: str) -> list[str]:
    """Labels for all four statuses: the Taxonomy sub-group's reply is unusable (unscored after
    the repair), "graphs" is judged incorrect when mentioned, the rest by key word."""
    criteria = prompt.split("=== Input Data: Criteria ===")[1].split("=== Evaluation")[0]
    labels = judge_labels(prompt)
    if "input type" in criteria:
        return ["banana"] * len(labels)
    return ["mentioned_incorrect" if "graphs" in criteria.lower() and lab == "mentioned_correct"
            else lab for lab in labels]


def make_deepsynth_run(root: Path, fake: FakeOpenAI, name: str, reports: dict[int, str]
                       ) -> Path:
    tasks = root / f"{name}-tasks.jsonl"
    if not tasks.exists():
        write_tasks(tasks)
    replay = root / f"{name}-reports.jsonl"
    replay.write_text("".join(json.dumps({"task_id": k, "report": v}) + "\n"
                              for k, v in reports.items()), encoding="utf-8")
    out = root / name
    run_deepsynth(DeepSynthRunConfig(tasks_path=tasks, out=out, agent="replay", replay=replay,
                                     run_name=name, progress=False),
                  Roles(fake, root / "cache.sqlite"))
    return out


def make_reportbench_run(root: Path, fake: FakeOpenAI, corpus_dir: Path, name: str,
                         statements: bool, reports: Path = REPORTS) -> Path:
    out = root / name
    run_reportbench(config(out, corpus_dir, data=RUN_DATA, agent="replay", gt_dir=GT,
                           agent_params={"path": str(reports)}, statements=statements,
                           run_name=name, samples=1), Factory(fake, root / "cache.sqlite"))
    return out


@pytest.fixture(scope="module")
def deepsynth_runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("dse-report")
    fake = FakeOpenAI().start()
    fake.default = router(judge=hostile_judge)
    try:
        one = make_deepsynth_run(root, fake, "dse-writer-a", {
            7: "# Widget learning\n\nWidget transformers and gadget pooling; widget graphs "
               f"too.\n\n{SCRIPT} <b>bold</b> & more",
            8: "Only widget transformers here."})
        two = make_deepsynth_run(root, fake, "dse-writer-b", {
            7: "Gadget pooling, and the limitations of gadget methods."})
    finally:
        fake.stop()
    return [one, two]


@pytest.fixture(scope="module")
def reportbench_runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("rb-report")
    corpus_dir = root / "corpus"
    build_tiny_corpus(corpus_dir).close()
    lines = [json.loads(x) for x in REPORTS.read_text().splitlines()]
    lines[1]["report"] = lines[1]["report"].replace("\n\n", f"\n\n{SCRIPT}\n\n", 1)
    hostile = root / "hostile.jsonl"
    hostile.write_text("".join(json.dumps(x) + "\n" for x in lines[:1]), encoding="utf-8")
    mixed = root / "mixed.jsonl"
    mixed.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    fake = FakeOpenAI().start()
    fake.default = route
    try:
        judged = make_reportbench_run(root, fake, corpus_dir, "rb-judged", True)
        plain = make_reportbench_run(root, fake, corpus_dir, "rb-refs-only", False, mixed)
        partial = make_reportbench_run(root, fake, corpus_dir, "rb-one-report", False, hostile)
    finally:
        fake.stop()
    return [judged, plain, partial]


def summary(run: Path) -> dict:
    return json.loads((run / "summary.json").read_text())


def section_html(html: str, benchmark: str) -> str:
    start = html.index(f'<section class="benchmark" data-benchmark="{benchmark}">')
    return html[start: html.index('<section class="benchmark"', start + 10)
                if html.find('<section class="benchmark"', start + 10) > 0
                else html.index('<h2 id="run-metadata"')]


def ours(html: str) -> dict[tuple[str, str], dict[str, str]]:
    """(table title, system) → {metric key: data-value} for our leaderboard rows."""
    out = {}
    for table in re.finditer(r'<table class="lb" data-title="([^"]*)">(.*?)</table>', html,
                             re.S):
        for row in re.finditer(r'<tr class="ours" data-run="[^"]*"><th scope="row">([^<]*)'
                               r"</th>(.*?)</tr>", table.group(2), re.S):
            out[(unescape(table.group(1)), unescape(row.group(1)))] = dict(re.findall(
                r'data-key="([^"]*)" data-value="([^"]*)"', row.group(2)))
    return out


# --------------------------------------------------------------------------- published rows

def paper_text(name: str) -> str:
    return " ".join(shared_path("papers", name).read_text(encoding="utf-8").split())


def test_deepsynth_published_rows_are_the_papers_table_1():
    text = paper_text("002_0666b7058b0e67b3.txt")
    table = text[text.index("Overall General Constraint Precision"):
                 text.index("Table 1: Main results")]
    for row in DSE_PUBLISHED:
        printed = " ".join(row.printed)
        system = row.system.replace(" (59/96 tasks subset)", "")
        assert re.search(re.escape(system) + r"[^0-9]*(\(59/96 tasks subset\) )?"
                         + re.escape(printed), table), row
        for key, number in zip(("dse_overall", "dse_general", "dse_constraint",
                                "dse_precision"), row.printed):
            assert row.values[key] == pytest.approx(float(number) / 100)
    # every number of the table is transcribed: 10 rows × 4 numbers
    assert len(re.findall(r"(?<![\w.-])\d+\.\d(?!\d)", table)) == 4 * len(DSE_PUBLISHED)
    assert len(DSE_PUBLISHED) == 10
    assert sum(1 for r in DSE_PUBLISHED if r.group == "E2E Single-turn") == 4
    assert [r.n for r in DSE_PUBLISHED].count(59) == 1


def test_reportbench_published_rows_are_the_papers_table_1():
    text = paper_text("003_22f823472828d6a1.txt")
    table = text[text.index("Test Model Reference"): text.index("Table 1: Performance")]
    for row in RB_PUBLISHED:
        assert f"{row.system} {' '.join(row.printed)}" in table, row
        for key, number in zip(("ref_precision", "ref_recall", "ref_count",
                                "cited_match_rate", "n_cited", "noncited_accuracy",
                                "n_noncited"), row.printed):
            expected = float(number.rstrip("%")) / (100 if number.endswith("%") else 1)
            assert row.values[key] == pytest.approx(expected)
    assert len(RB_PUBLISHED) == 6


# ------------------------------------------------------------------------------- DeepSynth

def test_deepsynth_leaderboard_equals_the_summary(deepsynth_runs):
    html = render_html_report(load_report_runs(deepsynth_runs))
    rows = ours(html)
    for run in deepsynth_runs:
        s = summary(run)
        cells = rows[("Table 1 layout — evaluation metrics (%)", run.name)]
        for key in ("dse_overall", "dse_general", "dse_constraint", "dse_precision"):
            value = s["means"][key]
            assert cells[key] == ("" if value is None else repr(float(value))), key
        counts = rows[("Checklist requirement statuses (ours)", run.name)]
        for key in ("n_correct", "n_not_mentioned", "n_incorrect", "n_unscored"):
            assert float(counts[key]) == s[key]
    # printed ×100 with one decimal, as the paper prints
    first = summary(deepsynth_runs[0])
    text = leaderboard_text(load_report_runs(deepsynth_runs), "terminal")
    assert f"{first['means']['dse_overall'] * 100:.1f}" in text
    assert "Reference Survey (published)" in text and "96.1" in text


def test_deepsynth_runs_cover_every_status(deepsynth_runs):
    s = summary(deepsynth_runs[0])
    assert s["n_correct"] and s["n_incorrect"] and s["n_not_mentioned"] and s["n_unscored"]
    assert s["unscored_reasons"]


def test_status_breakdown_sums_to_the_counts(deepsynth_runs):
    html = render_html_report(load_report_runs(deepsynth_runs))
    chart = re.search(r'<svg[^>]*data-chart="status-breakdown".*?</svg>', html, re.S).group(0)
    bars: dict[str, dict[str, int]] = {}
    for row, seg, count in re.findall(r'data-row="([^"]*)" data-segment="([^"]*)" '
                                      r'data-count="(\d+)"', chart):
        bars.setdefault(unescape(row), {})[seg] = int(count)
    for run in deepsynth_runs:
        s = summary(run)
        bar = bars[run.name]
        assert bar == {"correct": s["n_correct"], "not mentioned": s["n_not_mentioned"],
                       "incorrect": s["n_incorrect"], "unscored": s["n_unscored"]}
        # the general / constraint split adds up to the run's bar
        general, constraint = bars.get(f"{run.name} · general"), bars.get(
            f"{run.name} · constraint")
        if general and constraint:
            assert {k: general[k] + constraint[k] for k in bar} == bar
    shares = [float(x) for x in re.findall(r'data-share="([^"]*)"', chart)]
    assert all(0 <= x <= 1 for x in shares)


def test_deepsynth_drilldown_groups_labels_and_escaped_report(deepsynth_runs):
    html = render_html_report(load_report_runs(deepsynth_runs))
    part = section_html(html, "deepsynth")
    assert SCRIPT not in html and "<b>bold</b>" not in html
    assert "&lt;script&gt;alert(&#x27;pwned&#x27;)&lt;/script&gt;" in part
    samples = re.findall(r'<details class="sample" data-sample="([^"]*)"', part)
    assert samples == ["7", "8"]
    first = part[part.index('<details class="sample" data-sample="7"'):
                 part.index('<details class="sample" data-sample="8"')]
    # per group scores from judged.jsonl, the judge's label per requirement
    assert "Methods" in first and "Structure" in first and "constraint" in first
    for label in ("correct", "not mentioned", "incorrect", "unscored"):
        assert f"<td class='label'>{label}" in first
    assert "unknown_label" in first                    # the unscored item's reason
    assert "Describes widget transformers." in first
    # writer-b has no report for task 8: said so, not dropped
    last = part[part.index('<details class="sample" data-sample="8"'):]
    assert "no report" in last and "missing" in last
    # metadata: judge model and prompt version, unscored counts
    meta = html[html.index('<h2 id="run-metadata"'):]
    assert "fake-judge" in meta and "checklist_judge_v1" in meta
    assert "unscored requirements" in meta


# ------------------------------------------------------------------------------ ReportBench

def test_reportbench_leaderboard_equals_the_summary(reportbench_runs):
    runs = load_report_runs(reportbench_runs)
    html = render_html_report(runs)
    rows = ours(html)
    title = "Table 1 layout — references and statements"
    for run in reportbench_runs:
        s = summary(run)
        cells = rows[(title, run.name)]
        for key in ("ref_precision", "ref_recall", "ref_count"):
            assert cells[key] == repr(float(s["means"][key])), key
        st = s.get("statements")
        if st:
            assert cells["cited_match_rate"] == repr(st["cited_match_rate"]["mean"])
            assert cells["n_cited"] == repr(st["mean_cited_per_report"])
            counts = rows[("Statement judgements (ours): counts beside the means", run.name)]
            for key in ("n_cited_unreachable", "n_cited_unscored", "n_noncited_tie"):
                assert float(counts[key]) == st["counts"][key]
        else:
            assert cells["cited_match_rate"] == "" and cells["noncited_accuracy"] == ""
    part = section_html(html, "reportbench")
    assert part.count('<span class="badge">published</span>') == len(RB_PUBLISHED)
    assert "OpenAI Deep Research" in part and "published: ReportBench paper, Table 1" in part
    text = leaderboard_text(runs, "markdown")
    assert "| OpenAI Deep Research (published) | n=100 | 0.385 | 0.033 | 9.89 | 78.87% |" in text
    assert "unreachable" in text and "statements not judged" in text
    assert "1 unscored (excluded)" in text          # beside the judged run's means


def test_reportbench_drilldown_reference_lists_and_escaping(reportbench_runs):
    html = render_html_report(load_report_runs(reportbench_runs))
    part = section_html(html, "reportbench")
    assert SCRIPT not in html
    assert "&lt;script&gt;" in part
    one = part[part.index('<details class="sample" data-sample="2101.00001"'):
               part.index('<details class="sample" data-sample="2101.00002"')]
    lists = dict(re.findall(r'data-list="(\w+)"><h6>[^<]*\((\d+)\)', one))
    # GT 2101.00001: Attention, BERT, ResNet; the report cites those and one more
    assert lists == {"matched": "3", "extra": "1", "missed": "0"}
    assert "Attention is all you need" in one
    two = part[part.index('<details class="sample" data-sample="2101.00002"'):]
    assert "Adam" in two and re.search(r'data-list="missed"><h6>[^<]*\(1\)', two)
    # the run with one report: the second survey has none, scored 0 and said so
    assert "No report" in two
    # plots: per run and per survey
    assert 'data-chart="pr-runs"' in part and 'data-chart="pr-surveys"' in part
    assert part.count('class="point published"') >= len(RB_PUBLISHED)


def test_reportbench_judged_run_metadata(reportbench_runs):
    html = render_html_report(load_report_runs(reportbench_runs[:1]))
    meta = html[html.index('<h2 id="run-metadata"'):]
    assert "judge-a" in meta and "statement counts" in meta and "tokens per role" in meta


# --------------------------------------------------------------------- formats and compare

@pytest.mark.parametrize("fmt", ["terminal", "markdown", "latex"])
def test_tables_in_every_format(deepsynth_runs, reportbench_runs, fmt):
    text = leaderboard_text(load_report_runs(deepsynth_runs + reportbench_runs), fmt)
    assert "DeepSynth-Eval" in text and "ReportBench" in text
    if fmt == "latex":
        assert "\\textit{Reference Survey (published)}" in text and "<script>" not in text


def test_csv_per_benchmark(deepsynth_runs, reportbench_runs):
    rows = list(csv.DictReader(io.StringIO(leaderboard_text(load_report_runs(deepsynth_runs),
                                                            "csv"))))
    assert [r["system"] for r in rows] == ["dse-writer-a", "dse-writer-b"]
    s = summary(deepsynth_runs[0])
    assert float(rows[0]["dse_overall"]) == s["means"]["dse_overall"]
    assert int(rows[0]["n_unscored"]) == s["n_unscored"]
    rows = list(csv.DictReader(io.StringIO(leaderboard_text(load_report_runs(reportbench_runs),
                                                            "csv"))))
    assert float(rows[0]["ref_precision"]) == summary(reportbench_runs[0])["means"][
        "ref_precision"]
    assert rows[0]["total_n_cited_unreachable"] != "" and rows[1]["n_judged"] == ""


def test_compare_pairs_by_task_id_and_arxiv_id(deepsynth_runs, reportbench_runs):
    result = compare_runs(*deepsynth_runs, n_boot=200)
    assert result.n_shared == 2 and [m.metric for m in result.metrics] == [
        "dse_overall", "dse_general", "dse_constraint"]
    rows = {str(r["task_id"]): r for r in map(json.loads, (deepsynth_runs[0] / "scores.jsonl")
                                               .read_text().splitlines())}
    overall = result.metrics[0]
    defined = [r["dse_overall"] for r in rows.values() if r["dse_overall"] is not None]
    assert overall.n == len(defined) and overall.mean_a == pytest.approx(
        sum(defined) / len(defined))
    result = compare_runs(reportbench_runs[0], reportbench_runs[1], n_boot=200)
    assert result.n_shared == 2
    assert {m.metric for m in result.metrics} == {"ref_precision", "ref_recall", "ref_count"}
    same = compare_runs(reportbench_runs[0], reportbench_runs[0], n_boot=200)
    assert all(m.diff in (0, None) for m in same.metrics)
    assert "cited_match_rate" in format_comparison(same)
    assert load_report_run(reportbench_runs[0]).scores[0]["id"] == "2101.00001"
