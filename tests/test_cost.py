"""Cost (issue 38, docs/cost.md): prices from `--price MODEL=IN/OUT` or the config file's
`[prices]` table, the cost of every judge request in its record, the run's cost per stage and
per sample in summary.json (rebuilt by `aggregate`), the terminal and the eval table — and,
without a price, tokens and calls instead of a made-up number."""
from __future__ import annotations

import json

import pytest

from conftest import use_fake_embedder
from fake_openai import FakeOpenAI, Step
from test_judges_taxobench import _run_files
from scholarbench.cli import main
from scholarbench.core.cost import cost_cell, cost_line, run_cost
from scholarbench.errors import ScholarbenchError
from scholarbench.llm.config import resolve_role
from scholarbench.llm.prices import parse_price_flags, read_price_table

PROMPT, COMPLETION = 11, 7          # the tokens the fake server reports for every reply


def test_price_flags_parse_and_refuse_in_one_line():
    assert parse_price_flags(["gpt-4o=2.5/10", "org/m:v1=0/0.6"]) == {
        "gpt-4o": (2.5, 10.0), "org/m:v1": (0.0, 0.6)}
    for bad in ("gpt-4o", "gpt-4o=2.5", "=1/2", "m=a/1", "m=-1/2", "m=1/nan"):
        with pytest.raises(ScholarbenchError, match="--price"):
            parse_price_flags([bad])


def test_the_flag_wins_over_the_role_table_which_wins_over_the_price_table(tmp_path):
    config = tmp_path / "scholarbench.toml"
    config.write_text('[judge]\nmodel = "m"\n\n[prices]\n"m" = [1.0, 2.0]\n"n" = [3, 4]\n')
    judge = resolve_role("judge", {}, config_file=config, environ={})
    assert (judge.price_input_per_mtok, judge.price_output_per_mtok) == (1.0, 2.0)
    flagged = resolve_role("judge", {"prices": {"m": [5, 6]}}, config_file=config, environ={})
    assert (flagged.price_input_per_mtok, flagged.price_output_per_mtok) == (5.0, 6.0)
    own = tmp_path / "own.toml"
    own.write_text('[judge]\nmodel = "m"\nprice_input_per_mtok = 7\nprice_output_per_mtok = 8'
                   '\n\n[prices]\n"m" = [1.0, 2.0]\n')
    mine = resolve_role("judge", {}, config_file=own, environ={})
    assert (mine.price_input_per_mtok, mine.price_output_per_mtok) == (7.0, 8.0)
    other = resolve_role("judge", {"model": "x"}, config_file=config, environ={})
    assert other.price_input_per_mtok is None           # no price names it: none invented
    bad = tmp_path / "bad.toml"
    bad.write_text('[prices]\n"m" = [1.0]\n')
    with pytest.raises(ScholarbenchError, match=r"bad.toml \[prices\] m: give \[IN, OUT\]"):
        read_price_table(bad)


def test_run_cost_adds_the_priced_roles_and_says_when_one_is_unpriced():
    manifest = {"usage": {
        "generate": {"agent": {"calls": 4, "prompt_tokens": 400, "completion_tokens": 100,
                               "cost_usd": 0.002}},
        "judge": {"judge": {"calls": 2, "prompt_tokens": 50, "completion_tokens": 10,
                            "cost_usd": 0.0005},
                  "judge_2": {"calls": 2, "prompt_tokens": 50, "completion_tokens": 10,
                              "cost_usd": None}},
        "oracle": {"judge": {"calls": 0, "prompt_tokens": 0, "completion_tokens": 0}}}}
    cost = run_cost(manifest, n_samples=4)
    assert cost["usd"] == 0.0025 and cost["agent_usd"] == 0.002 and cost["judges_usd"] == 0.0005
    assert cost["per_sample_usd"] == 0.000625 and cost["priced"] is False
    assert cost["calls"] == 8 and cost["tokens"] == 620 and "oracle" not in cost["stages"]
    assert cost_cell(cost) == "$0.0025+?"               # a partial sum is marked as one
    assert "unpriced: judge.judge_2" in cost_line(cost)
    unpriced = run_cost({"usage": {"generate": {"agent": {"calls": 3, "prompt_tokens": 2000,
                                                          "completion_tokens": 500}}}}, 3)
    assert unpriced["usd"] is None and cost_cell(unpriced) == "2.5k tok"
    assert "no price given" in cost_line(unpriced)
    assert run_cost({"usage": {}}, 3) is None and run_cost({}, 3) is None


def taxo_fake(body):
    dims = ("semantic_coverage", "sibling_organization", "hierarchical_logic",
            "structural_topology")
    return Step(text=json.dumps({d: {"score": 3, "reasoning": "r"} for d in dims}))


@pytest.fixture
def judged_run(tmp_path, monkeypatch):
    monkeypatch.setenv("SCHOLARBENCH_CACHE", str(tmp_path / "cache"))
    use_fake_embedder(monkeypatch)
    server = FakeOpenAI(default=taxo_fake).start()
    gold, pred = _run_files(tmp_path)       # 4 instances: 2 taxonomies, 1 malformed, 1 absent

    def run(out, *extra):
        return main(["run", "taxobench", "--mode", "bottom-up", "--agent", "replay",
                     "--agent-arg", f"path={pred}", "--gold", str(gold), "--out", str(out),
                     "--quiet", "--with-judge", "--judge", "fake-judge", "--judge-base-url",
                     server.base_url, "--no-llm-cache", *extra])
    yield run
    server.stop()


def test_a_priced_judge_gives_each_request_and_the_run_their_cost(judged_run, tmp_path,
                                                                   capsys):
    out = tmp_path / "priced"
    assert judged_run(out, "--price", "fake-judge=1000/2000") == 0
    printed = capsys.readouterr().out
    per_call = (PROMPT * 1000 + COMPLETION * 2000) / 1e6                 # $0.025
    records = [json.loads(x) for p in out.glob("judge.*.jsonl")
               for x in p.read_text().splitlines()]
    assert len(records) == 2 and all(r["usage"]["cost_usd"] == pytest.approx(per_call)
                                     for r in records)
    summary = json.loads((out / "summary.json").read_text())
    cost = summary["cost"]
    assert cost["judges_usd"] == pytest.approx(2 * per_call) and cost["agent_usd"] is None
    assert cost["usd"] == pytest.approx(2 * per_call) and cost["priced"] is True
    assert cost["per_sample_usd"] == pytest.approx(2 * per_call / 4)
    assert cost["calls"] == 2 and cost["tokens"] == 2 * (PROMPT + COMPLETION)
    assert "cost: $0.0500 (agent —, judges $0.0500; $0.0125 per sample)" in printed
    assert main(["aggregate", str(out), "--check"]) == 0           # rebuilt from the files


def test_without_a_price_the_cost_is_tokens_and_calls_never_a_number(judged_run, tmp_path,
                                                                      capsys):
    out = tmp_path / "unpriced"
    assert judged_run(out) == 0
    printed = capsys.readouterr().out
    cost = json.loads((out / "summary.json").read_text())["cost"]
    assert cost["usd"] is None and cost["priced"] is False
    assert cost["tokens"] == 2 * (PROMPT + COMPLETION)
    assert "cost: no price given (--price MODEL=IN/OUT); 2 calls, 36 tokens" in printed


def test_the_eval_table_prints_each_runs_cost_under_its_row():
    from scholarbench.core.status import COLUMNS
    from scholarbench.core.suite import format_table
    entry = {"benchmark": "taxobench", "subtask": "bottom-up", "status": "complete",
             "samples": 4, "counts": {c: 0 for c in COLUMNS}, "reasons": {},
             "headline": {"f1": 0.5}, "headline_ci95": {"f1": None},
             "cost": run_cost({"usage": {"judge": {"judge": {
                 "calls": 2, "prompt_tokens": 22, "completion_tokens": 14,
                 "cost_usd": 0.05}}}}, 4)}
    table = format_table([entry, {**entry, "subtask": "deep-research", "cost": None}])
    lines = table.splitlines()
    row = next(i for i, x in enumerate(lines) if x.startswith("taxobench      bottom-up"))
    assert lines[row + 1].strip() == ("cost: $0.0500 (agent —, judges $0.0500; $0.0125 per "
                                      "sample); 2 calls, 36 tokens")
    assert table.count("cost:") == 1                  # a run without model calls: no line


def test_pareto_keeps_the_runs_no_other_run_beats_on_both_axes():
    from types import SimpleNamespace
    from scholarbench.report.cost import CostPoint, pareto

    def point(name, x, score, higher=True):
        return CostPoint(SimpleNamespace(name=name), "m", score, x, higher)
    runs = [point("cheap-weak", 0.01, 0.30), point("mid", 0.02, 0.50),
            point("dominated", 0.03, 0.45), point("tie-costlier", 0.02, 0.50),
            point("best", 0.05, 0.70), point("no-cost", None, 0.99)]
    assert [p.run.name for p in pareto(runs)] == ["cheap-weak", "mid", "tie-costlier", "best"]
    lower = [point("a", 0.01, 0.30, False), point("b", 0.02, 0.20, False),
             point("c", 0.03, 0.25, False)]          # lower is better: c is beaten by b
    assert [p.run.name for p in pareto(lower)] == ["a", "b"]


def test_the_report_plots_score_against_cost_with_the_pareto_front(judged_run, tmp_path,
                                                                    capsys):
    cheap, dear = tmp_path / "cheap", tmp_path / "dear"
    assert judged_run(cheap, "--price", "fake-judge=100/200") == 0
    assert judged_run(dear, "--price", "fake-judge=1000/2000") == 0     # same scores
    capsys.readouterr()
    html = tmp_path / "r.html"
    assert main(["report", str(cheap), str(dear), "--html", str(html)]) == 0
    page = html.read_text()
    assert 'data-chart="cost"' in page and 'data-front="yes"' in page
    assert page.count('data-front="no"') == 1           # the dearer run, no better score
    out = tmp_path / "t.md"
    assert main(["report", str(cheap), str(dear), "--format", "markdown", "--out",
                 str(out)]) == 0
    table = out.read_text()
    assert "### Cost — taxobench bottom-up" in table
    rows = {line.split("|")[1].strip(): line for line in table.splitlines()
            if line.startswith("| cheap") or line.startswith("| dear")}
    assert rows["cheap"].rstrip(" |").endswith("yes") and "$0.0013" in rows["cheap"]
    assert rows["dear"].rstrip(" |").endswith("no") and "$0.0125" in rows["dear"]
