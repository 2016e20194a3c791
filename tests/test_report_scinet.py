"""The report's SciNet section on real run directories built with `run_scinet` on the
hand-made graph of tests/test_scinet_core.py (one paper titled with a <script> tag; an agent
whose answer holds markup; a judged ego run against a scripted server): leaderboard numbers
equal summary.json per family (macro and micro), the LLM table's counts, the note that there
are no published rows, escaping in the drill-down, the table formats, and `compare`."""
from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from fake_openai import FakeOpenAI, Step
from test_scinet_core import EDGES, PAPERS, tiny_env
from test_scinet_llm import client, reply
from scholarbench.core.registry import REGISTRY
from scholarbench.report.compare import compare_runs, format_comparison
from scholarbench.report.exports import leaderboard_text
from scholarbench.report.html import render_html_report
from scholarbench.report.sections import load_report_run, load_report_runs
from scholarbench.benchmarks.scinet.report import COLUMNS, KEYS, NO_PUBLISHED
from scholarbench.benchmarks.scinet.run import SciNetRunConfig, run_scinet
from scholarbench.benchmarks.scinet.env import EnvSettings, SciNetEnv
from scholarbench.benchmarks.scinet.records import write_tasks
from scholarbench.benchmarks.scinet.tasks import BuildSettings, build_tasks

SCRIPT = "<script>alert('pwned')</script>"
SETTINGS = BuildSettings(min_papers=2, n_pair=3, min_citers=1, n_classic=3, n_recent=3,
                         recent_years=3, per_category=2)


def judge_reply(body) -> Step:
    """6 for every paper and path, junk (unscored after the repair) for the hostile title."""
    text = body["messages"][0]["content"]
    return Step(text="Sure! Top marks.") if "alert(" in text.split("Title", 1)[-1][:300] \
        else reply(6)


class Hostile:
    """Answers with markup first, then the query paper's citers' ids (literal)."""
    name, uses_llm, needs_embedder = "hostile", False, False

    def config(self):
        return {}

    def answer(self, task, ctx):
        return [f"{SCRIPT} <b>x</b>", *sorted(ctx.env.citers(task.source or "") or [])]


def hostile_env() -> SciNetEnv:
    papers = [dict(p) for p in PAPERS]
    papers[0]["title"] = f"Deep learning {SCRIPT} foundations"
    base = tiny_env()
    return SciNetEnv.from_tables(papers, EDGES, base.contexts, EnvSettings(randomisations=3),
                                 name="tiny-hostile")


@pytest.fixture(scope="module")
def scinet_runs(tmp_path_factory):
    """{name: run dir}: bm25 and relation-aware per family, a hostile pair run, a judged ego
    run and a judged path run."""
    root = tmp_path_factory.mktemp("scinet-report")
    env = hostile_env()
    tasks = root / "tasks.jsonl"
    write_tasks(build_tasks(env, settings=SETTINGS), tasks)
    out = {}
    for fam in ("ego", "pair", "path"):
        for agent in ("bm25", "relation-aware"):
            out[f"{fam}-{agent}"] = root / f"{fam}-{agent}"
            run_scinet(SciNetRunConfig(fam, agent, out[f"{fam}-{agent}"], tasks=tasks, env=env))
    REGISTRY.load()
    REGISTRY._entries["agent"]["scinet/hostile"] = Hostile
    try:
        out["pair-hostile"] = root / "pair-hostile"
        run_scinet(SciNetRunConfig("pair", "hostile", out["pair-hostile"], tasks=tasks, env=env,
                                   run_name=f"hostile {SCRIPT}"))
    finally:
        del REGISTRY._entries["agent"]["scinet/hostile"]
    fake = FakeOpenAI().start()
    fake.default = judge_reply
    try:
        for fam in ("ego", "path"):
            out[f"{fam}-judged"] = root / f"{fam}-judged"
            run_scinet(SciNetRunConfig(fam, "relation-aware", out[f"{fam}-judged"], tasks=tasks,
                                       env=env, run_name=f"{fam}-judged"), judge=client(fake))
    finally:
        fake.stop()
    return out


def summary(run: Path) -> dict:
    return json.loads((run / "summary.json").read_text())


def test_leaderboard_equals_the_summary(scinet_runs):
    runs = load_report_runs(list(scinet_runs.values()))
    html = render_html_report(runs)
    for name, run_dir in scinet_runs.items():
        run = load_report_run(run_dir)
        family = run.mode
        agg = summary(run_dir)["families"][family]
        assert run.summary.n_samples == agg["n_tasks"]
        checked = 0
        for key in KEYS[family]:
            if key not in agg:
                continue
            m = run.summary.metrics[key]
            assert (m.mean, m.n, m.n_null) == (agg[key]["macro"], agg[key]["n"],
                                                agg[key]["n_null"])
            if "micro" in agg[key]:
                assert run.summary.metrics[f"{key}_micro"].mean == agg[key]["micro"]
            # the HTML cell carries the same value, formatted as in the text tables
            value = "" if agg[key]["macro"] is None else repr(agg[key]["macro"])
            row = html.split(f'<tr class="ours" data-run="{run_dir}"', 1)[1].split("</tr>", 1)[0]
            assert f'data-key="{key}" data-value="{value}">' \
                   f'{COLUMNS[key].format(agg[key]["macro"])}<' in row.replace("<b>", "")
            checked += 1
        assert checked, name
    assert 'data-benchmark="scinet"' in html and NO_PUBLISHED.split(":")[0] in html
    assert "tr class=\"published\"" not in html.split('data-benchmark="scinet"', 1)[1]


def test_llm_table_and_unscored_counts(scinet_runs):
    for fam, keys in (("ego", ("novelty_llm", "disruption_llm")),
                      ("path", ("path_rationality_llm",))):
        run = load_report_run(scinet_runs[f"{fam}-judged"])
        agg = summary(run.run_dir)["families"][fam]
        present = [k for k in keys if k in agg]
        assert present
        for k in present:
            assert run.summary.metrics[k].mean == agg[k]["macro"]
        text = leaderboard_text([run], "terminal")
        assert f"SciNet {fam} — LLM-judged metrics" in text
        judged = sum(agg["judge"][k]["judged"] for k in present)
        assert f"{judged} items scored" in text or f"{agg['judge'][present[0]]['judged']} items" \
            in text
        assert "Unscored items" in text
    ego = summary(scinet_runs["ego-judged"])["families"]["ego"]["judge"]
    unscored = sum(c["unscored"] for c in ego.values())
    assert unscored > 0            # the hostile title's replies are junk: counted, shown
    html = render_html_report([load_report_run(scinet_runs["ego-judged"])])
    assert "Unscored items" in html and "invalid_json" in html
    plain = load_report_run(scinet_runs["ego-bm25"])
    assert "LLM-judged" not in leaderboard_text([plain], "terminal")


def test_drilldown_query_answer_gold_and_escaping(scinet_runs):
    runs = load_report_runs([scinet_runs["pair-relation-aware"], scinet_runs["pair-hostile"]])
    html = render_html_report(runs)
    section = html.split('<section class="benchmark" data-benchmark="scinet">', 1)[1]
    assert SCRIPT not in html and "<b>x</b>" not in html and "<script" not in html
    assert "&lt;script&gt;alert(&#x27;pwned&#x27;)&lt;/script&gt;" in section
    assert 'data-sample="pair/pncites/arxiv:1001.00001"' in section
    sample = section.split('data-sample="pair/pncites/arxiv:1001.00001"', 1)[1].split(
        "</details>\n", 1)[0]
    assert "<b>Query:</b> Which papers positively cite the paper titled" in sample
    assert 'data-list="gold-citers"' in sample and 'data-list="answer"' in sample
    assert '<li class="rel">arxiv:1101.00001 ✓' in sample      # a citer, returned
    # the markup item is answer text, escaped, and a miss
    assert '<li class="nonrel">&lt;script&gt;' in section


def test_tables_in_every_format_and_csv(scinet_runs):
    runs = load_report_runs(list(scinet_runs.values()))
    for fmt in ("terminal", "markdown", "latex"):
        text = leaderboard_text(runs, fmt)
        for fam in ("ego", "pair", "path"):
            assert f"SciNet {fam}" in text
        assert "No published rows" in text
    assert "\\textless{}script" in leaderboard_text(runs, "latex")
    rows = list(csv.DictReader(io.StringIO(leaderboard_text(runs, "csv"))))
    assert len(rows) == len(scinet_runs)
    pair = next(r for r in rows if r["run_dir"] == str(scinet_runs["pair-relation-aware"]))
    agg = summary(scinet_runs["pair-relation-aware"])["families"]["pair"]
    assert float(pair["cite_acc"]) == agg["cite_acc"]["macro"]
    assert float(pair["comention_acc_micro"]) == agg["comention_acc"]["micro"]


def test_compare_pairs_by_task_id(scinet_runs):
    result = compare_runs(scinet_runs["path-bm25"], scinet_runs["path-relation-aware"],
                          n_boot=500)
    assert result.benchmark == "scinet" and result.n_shared == summary(
        scinet_runs["path-bm25"])["families"]["path"]["n_tasks"] and result.n_only_a == 0
    by = {m.metric: m for m in result.metrics}
    assert set(by) == {"path_consistency", "path_connectivity"}
    a = summary(scinet_runs["path-bm25"])["families"]["path"]
    b = summary(scinet_runs["path-relation-aware"])["families"]["path"]
    for key in by:
        assert by[key].mean_a == pytest.approx(a[key]["macro"])
        assert by[key].mean_b == pytest.approx(b[key]["macro"])
        assert by[key].diff == pytest.approx(b[key]["macro"] - a[key]["macro"])
    assert "path_consistency" in format_comparison(result)
    same = compare_runs(scinet_runs["pair-bm25"], scinet_runs["pair-bm25"], n_boot=200)
    assert all(m.diff in (0, None) and (m.p_value in (1.0, None)) for m in same.metrics)
