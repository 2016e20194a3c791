"""`--dry-run` (issue 27): the judge calls a run would make, per judge and stage, printed before
any model call and without a run directory — counted against what a real run then sends to a
loopback server (SciNet's judged path tasks with a panel of 2 judges × K = 3; TaxoBench's
judge in a run and in a re-score); and every judge's usage per stage in the terminal summary."""
from __future__ import annotations

import json
import re

import pytest

from conftest import use_fake_embedder
from fake_openai import FakeOpenAI, Step
from test_judges_taxobench import _run_files
from test_scinet_engine import run_args, tiny  # noqa: F401  (the module's fixture)
from scholarbench.benchmarks.scinet.records import read_tasks
from scholarbench.cli import main
from scholarbench.core.planning import PlannedCalls, expand

AGENT = "scinet_user_agent:solve"      # path tasks: a non-empty path for every task


@pytest.fixture
def fake():
    server = FakeOpenAI(default=Step(text=json.dumps({"score": 6, "reasoning": "r"}))).start()
    yield server
    server.stop()


def judge_flags(fake, *names: str, k: int = 1) -> list[str]:
    flags = ["--with-judge", "--no-llm-cache", "--judge-samples", str(k)]
    for name in names:
        flags += ["--judge", name, "--judge-base-url", fake.base_url]
    return flags


def counts(printed: str) -> dict[str, int]:
    """role → the count printed on its judge line (exact or at most)."""
    out = {}
    for line in printed.splitlines():
        m = re.match(r"\s+(judge(?:_\d+)?) \(\S+\)\s+\S+\s+(?:≤ )?(\d+) calls", line)
        if m:
            out[m[1]] = out.get(m[1], 0) + int(m[2])
    return out


def test_scinet_panel_dry_run_calls_nothing_and_counts_what_the_run_sends(tiny, tmp_path,
                                                                           fake, capsys):
    n_path = sum(t.family == "path" for t in read_tasks(tiny[2]))
    out = tmp_path / "path"
    one = judge_flags(fake, "judge-a")
    assert main(run_args(tiny, "path", AGENT, out, *one, "--dry-run")) == 0
    single = counts(capsys.readouterr().out)
    assert single == {"judge": n_path} and not fake.requests and not out.exists()

    panel = judge_flags(fake, "judge-a", "judge-b", k=3)
    assert main(run_args(tiny, "path", AGENT, out, *panel, "--dry-run")) == 0
    printed = capsys.readouterr().out
    planned = counts(printed)
    assert planned == {"judge": 3 * n_path, "judge_2": 3 * n_path}       # 2 judges × K = 3
    assert sum(planned.values()) == 6 * sum(single.values())
    assert f"total: ≤ {6 * n_path} judge calls (2 judge(s) × 3 sample(s) each)" in printed
    assert "agent" in printed and "the agent's own calls" in printed
    assert not fake.requests and not out.exists()

    assert main(run_args(tiny, "path", AGENT, out, *panel)) == 0
    assert len(fake.requests) == sum(planned.values())
    manifest = json.loads((out / "manifest.json").read_text())
    for role, n in planned.items():
        assert manifest["usage"]["path"][role]["calls"] == n
    summary = capsys.readouterr().out
    lines = [x for x in summary.splitlines() if "judge usage:" in x]
    assert len(lines) == 2
    assert f"judge (judge-a): path {3 * n_path} calls" in lines[0]
    assert f"judge_2 (judge-b): path {3 * n_path} calls" in lines[1]


def test_eval_dry_run_writes_no_suite_and_calls_nothing(tiny, tmp_path, fake, capsys):
    graph, unarxive, tasks = tiny
    out = tmp_path / "suite"
    assert main(["eval", "--benchmarks", "scinet", "--agent", AGENT, "--out", str(out),
                 "--option", f"scinet.graph={graph}", "--option", f"scinet.unarxive={unarxive}",
                 "--option", f"scinet.tasks={tasks}", "--option", "scinet.with_judge=true",
                 "--judge", "judge-a", "--judge-base-url", fake.base_url, "--dry-run"]) == 0
    printed = capsys.readouterr().out
    for sub in ("ego", "pair", "path"):
        assert f"scinet {sub}:" in printed
    assert "pair tasks are not judged" in printed
    assert not fake.requests and not out.exists()


def taxo_fake(body):
    dims = ("semantic_coverage", "sibling_organization", "hierarchical_logic",
            "structural_topology")
    return Step(text=json.dumps({d: {"score": 3, "reasoning": "r"} for d in dims}))


def test_taxobench_dry_run_counts_equal_the_run_and_the_rescore(tmp_path, fake, monkeypatch,
                                                                 capsys):
    monkeypatch.setenv("SCHOLARBENCH_CACHE", str(tmp_path / "cache"))
    use_fake_embedder(monkeypatch)
    fake.default = taxo_fake
    gold, pred = _run_files(tmp_path)       # 4 instances: 2 taxonomies, 1 malformed, 1 absent
    out = tmp_path / "run"
    args = ["run", "taxobench", "--mode", "bottom-up", "--agent", "replay", "--agent-arg",
            f"path={pred}", "--gold", str(gold), "--out", str(out), "--quiet",
            *judge_flags(fake, "fake-judge")]
    cached = [a for a in args if a != "--no-llm-cache"]
    assert main([*cached, "--dry-run"]) == 0
    printed = capsys.readouterr().out
    assert not (tmp_path / "cache").exists()               # no reply cache opened
    assert counts(printed) == {"judge": 4}                 # at most: one per sample
    assert re.search(r"agent\s+generate\s+0 calls", printed)
    assert not fake.requests and not out.exists()
    assert main(args) == 0
    assert len(fake.requests) == 2          # the two taxonomies; ≤ 4 as printed
    capsys.readouterr()

    before = {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()}
    # the engine's judge stage asks a verdict again only of another judge (its fingerprint:
    # model, base URL, temperature, seed): the re-score's judge samples at temperature 0.5
    config = tmp_path / "judge.toml"
    config.write_text("[judge]\ntemperature = 0.5\n")
    rescore = ["score", str(out), "--with-judge", "--judge", "fake-judge", "--judge-base-url",
               fake.base_url, "--no-llm-cache", "--llm-config", str(config)]
    assert main([*rescore, "--dry-run"]) == 0
    printed = capsys.readouterr().out
    assert counts(printed) == {"judge": 2} and "total: 2 judge calls" in printed   # exact
    assert len(fake.requests) == 2
    assert {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()} == before
    assert main(rescore) == 0
    assert len(fake.requests) == 4          # the 2 printed
    # the line counts what this re-score sent (issue 35: it showed the directory's 4)
    line = next(x for x in capsys.readouterr().out.splitlines() if "judge usage:" in x)
    assert "judge usage: judge (fake-judge): judge 2 calls" in line
    assert line.endswith("(this invocation; calls over every invocation on this directory: "
                         "judge 4)")


def test_a_stage_without_panel_is_asked_of_the_first_judge_once():
    planned = [PlannedCalls("score", calls=5), PlannedCalls("prompts", calls=2, panel=False),
               PlannedCalls("generate", "agent", calls=5, panel=False)]
    got = expand(planned, ["a", "b"], 3, panel=True)
    assert [(p.role, p.stage, p.calls, p.model) for p in got] == [
        ("judge", "score", 15, "a"), ("judge_2", "score", 15, "b"), ("judge", "prompts", 2, "a"),
        ("agent", "generate", 5, None)]
    alone = expand(planned, ["a", "b"], 3, panel=False)     # a benchmark that has no panels
    assert [(p.role, p.calls) for p in alone] == [("judge", 5), ("judge", 2), ("agent", 5)]


def test_scinet_ego_rescore_dry_run_counts_the_distinct_papers_the_judge_is_asked(
        tiny, tmp_path, fake, capsys):
    out = tmp_path / "ego"
    assert main(run_args(tiny, "ego", "relation-aware", out)) == 0      # no judge yet
    rescore = ["score", str(out), *judge_flags(fake, "judge-a", "judge-b", k=2)]
    assert main([*rescore, "--dry-run"]) == 0
    planned = counts(capsys.readouterr().out)
    assert planned["judge"] == planned["judge_2"] > 0 and not fake.requests
    assert main(rescore) == 0
    assert len(fake.requests) == sum(planned.values())


def test_deepsynth_dry_run_counts_the_checklist_sub_groups(tmp_path, monkeypatch, capsys):
    from test_deepsynth_oracle import kind_of, router, write_tasks
    from scholarbench.benchmarks.deepsynth import load_tasks
    monkeypatch.setenv("SCHOLARBENCH_CACHE", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    tasks = write_tasks(tmp_path / "tasks.jsonl")
    n = sum(1 for t in load_tasks(tasks) for g in t.checklist for sub in g.sub_groups
            if sub.requirements)
    replay = tmp_path / "reports.jsonl"
    replay.write_text("".join(json.dumps({"task_id": t.task_id,      # distinct requests
                                          "report": f"Widget methods, task {t.task_id}."})
                              + "\n" for t in load_tasks(tasks)))
    server = FakeOpenAI(default=router()).start()
    try:
        args = ["run", "deepsynth", "--agent", "replay", "--replay", str(replay), "--tasks",
                str(tasks), "--out", "runs/d", "--quiet", "--judge", "fake-judge",
                "--judge-base-url", server.base_url, "--no-llm-cache"]
        assert main([*args, "--dry-run"]) == 0
        printed = capsys.readouterr().out
        assert counts(printed) == {"judge": n} and "1 per checklist sub-group" in printed
        assert f"total: ≤ {n} judge calls" in printed         # no oracle for a replay
        assert not server.requests and not (tmp_path / "runs").exists()
        assert main(args) == 0
        assert [kind_of(b) for b in server.requests] == ["judge"] * n
    finally:
        server.stop()


def test_reportbench_dry_run_gives_the_rules_and_the_constructed_prompts(tmp_path, capsys):
    from test_reportbench_engine import GT
    from test_reportbench_llm import RUN_DATA, build_tiny_corpus
    corpus = tmp_path / "corpus"
    build_tiny_corpus(corpus).close()
    server = FakeOpenAI().start()
    out = tmp_path / "rb"
    try:
        base = ["run", "reportbench", "--agent", "rb_user_agent:solve", "--tasks", str(RUN_DATA),
                "--gt-dir", str(GT), "--corpus", str(corpus), "--out", str(out),
                "--judge", "fake-judge", "--judge-base-url", server.base_url, "--dry-run"]
        assert main([*base, "--granularity", "shipped", "--statements", "--samples", "5"]) == 0
        printed = capsys.readouterr().out
        assert "non-cited: 5 votes (--samples) per non-cited statement" in printed
        assert "cited: 2 per cited (statement, work) pair" in printed
        assert "total: those not known before the answers" in printed
        assert main([*base, "--granularity", "sentence"]) == 0
        printed = capsys.readouterr().out
        assert re.search(r"judge \(fake-judge\)\s+prompts\s+2 calls", printed)
        assert "total: 2 judge calls" in printed
        assert not server.requests and not out.exists()
    finally:
        server.stop()


def test_the_default_hook_says_the_count_is_not_known():
    """A plug-in that asks a judge in a stage of its own (no judged items): the count is not
    known before the answers."""
    from scholarbench.core.benchmark import Benchmark, Sample
    from scholarbench.core.agent import Task
    from scholarbench.core.planning import benchmark_plan

    class PlugIn(Benchmark):
        name = "plug-in"
        judge_options = ("own_judge",)
    samples = [Sample(str(i), Task(id=str(i), benchmark="plug-in", subtask="s", family="report",
                                   prompt="p")) for i in range(3)]
    lines = benchmark_plan(PlugIn({"own_judge": True}), "s", samples, agent_spec="endpoint",
                           params={}, judges=["a"], k=1)
    assert lines[0] == "plug-in s: 3 samples"
    assert re.search(r"agent\s+generate\s+≤ 3 calls", lines[1])
    assert re.search(r"judge \(a\)\s+score\s+\? calls\s+not known before the answers", lines[2])
    assert lines[3] == "  total: those not known before the answers"


def test_the_default_hook_plans_no_judge_call_for_a_benchmark_without_a_judge():
    """No judged item and no judge of its own (its judge option off, or none at all): the
    default plans no judge call, and the printout says so — for a plug-in, the toy with its
    non-LLM stage, and for TaxoBench and ResearchArena, which no longer override the hook."""
    from scholarbench.benchmarks.researcharena.benchmark import ResearchArena
    from scholarbench.benchmarks.taxobench.benchmark import TaxoBench
    from scholarbench.core.benchmark import Benchmark, Sample
    from scholarbench.core.agent import Task
    from scholarbench.core.planning import benchmark_plan

    class PlugIn(Benchmark):
        name = "plug-in"
        judge_options = ("own_judge",)
    samples = [Sample(str(i), Task(id=str(i), benchmark="plug-in", subtask="s", family="report",
                                   prompt="p")) for i in range(3)]
    for bench in (PlugIn(), PlugIn({"own_judge": False}), TaxoBench({}), ResearchArena({})):
        assert bench.planned_judge_calls("s", samples) == []
        assert bench.planned_judge_calls("s", samples, {}) == []          # a re-score
    lines = benchmark_plan(PlugIn(), "s", samples, agent_spec="endpoint", params={},
                           judges=["a"], k=1)
    assert lines[2:] == ["  no judge calls"]
    assert "planned_judge_calls" not in vars(TaxoBench)
    assert "planned_judge_calls" not in vars(ResearchArena)


def test_a_dry_run_refuses_what_the_run_would_refuse(tiny, tmp_path, fake, capsys):
    out = tmp_path / "x"
    assert main(run_args(tiny, "pair", "no-such-agent", out, "--dry-run")) == 2
    assert "unknown agent" in capsys.readouterr().err and not out.exists()
    assert main(run_args(tiny, "pair", AGENT, out, "--dry-run")) == 0      # no --with-judge
    assert "no judge calls" in capsys.readouterr().out and not fake.requests


def test_scinet_review_plans_one_judge_call_per_review():
    """The review sub-task is judged always: one call per review task before the run; after
    it, one per answer that is a review (a malformed one is not sent)."""
    from types import SimpleNamespace
    from scholarbench.benchmarks.scinet.benchmark import SciNet
    paper = SimpleNamespace(title="t")          # what the judge's request quotes of a task
    task = SimpleNamespace(query="q", start=paper, end=paper)
    samples = [SimpleNamespace(id=f"r{i}", unscorable=None, gold=task) for i in range(3)]
    before = SciNet({}).planned_judge_calls("review", samples)
    assert [(p.stage, p.bound) for p in before] == [("review", 3)]
    after = SciNet({}).planned_judge_calls("review", samples, {
        "r0": {"status": "ok", "review": "a"}, "r1": {"status": "malformed"},
        "r2": {"status": "ok", "review": "b"}})
    assert [p.calls for p in after] == [2]       # exact: the engine's plan of the answers


def test_reportbench_llm_titles_dry_run_counts_equal_what_the_rescore_sends(tmp_path, capsys):
    """The LLM titles are the engine's judged item `titles`: a re-score's dry run counts the
    requests not on file — exactly the titles requests the re-score then sends — and the same
    judge again asks nothing; a run's dry run gives the rule (the answers decide). (`score
    --with-judge` also judges the statements: their requests are told apart by prompt.)"""
    from test_reportbench_engine import GT
    from test_reportbench_llm import RUN_DATA, build_tiny_corpus, route, user_text
    corpus = tmp_path / "corpus"
    build_tiny_corpus(corpus).close()
    reports = tmp_path / "reports.jsonl"        # 1 unresolved listing + 1 report without refs
    reports.write_text(json.dumps({"arxiv_id": "2101.00001",
                                   "report": "Transformers [1] and more [2]."}) + "\n"
                       + json.dumps({"arxiv_id": "2101.00002", "report":
                                     "He et al. showed that residual learning works."}) + "\n")
    server = FakeOpenAI(default=route).start()
    out = tmp_path / "rb"
    judge = ["--judge", "fake-judge", "--judge-base-url", server.base_url, "--no-llm-cache"]

    def titles_asked() -> int:
        return sum(1 for body in server.requests
                   if "cites the works listed below" in user_text(body)
                   or "extract all cited academic paper titles" in user_text(body))

    try:
        run = ["run", "reportbench", "--agent", "replay", "--agent-arg", f"path={reports}",
               "--tasks", str(RUN_DATA), "--gt-dir", str(GT), "--corpus", str(corpus),
               "--out", str(out), "--llm-titles", "--quiet", *judge]
        assert main([*run, "--dry-run"]) == 0
        printed = capsys.readouterr().out
        assert re.search(r"judge \(fake-judge\)\s+titles\s+\? calls\s+LLM titles: 1 per "
                         r"report with unresolved references", printed)
        assert main(run) == 0
        assert titles_asked() == len(server.requests) == 2      # one per report
        capsys.readouterr()
        config = tmp_path / "judge.toml"              # another judge: temperature 0.5
        config.write_text("[judge]\ntemperature = 0.5\n")
        rescore = ["score", str(out), "--with-judge", *judge, "--llm-config", str(config)]
        assert main([*rescore, "--dry-run"]) == 0
        printed = capsys.readouterr().out
        assert re.search(r"judge \(fake-judge\)\s+titles\s+2 calls", printed)
        assert len(server.requests) == 2
        assert main(rescore) == 0
        assert titles_asked() == 4                        # the 2 printed
        capsys.readouterr()
        assert main([*rescore, "--dry-run"]) == 0         # the same judge: all on file
        assert re.search(r"judge \(fake-judge\)\s+titles\s+0 calls", capsys.readouterr().out)
        assert main(rescore) == 0 and titles_asked() == 4
        rows = [json.loads(x) for x in (out / "scores.jsonl").read_text().splitlines()]
        assert {r["arxiv_id"]: r["title_extractor"]["titles"] for r in rows} == {
            "2101.00001": 1, "2101.00002": 1}
    finally:
        server.stop()


def test_reportbench_statement_extraction_dry_run_counts_equal_what_the_rescore_sends(
        tmp_path, capsys):
    """The statements are four engine items: `cited_statements` (one request per report chunk),
    `noncited_statements` (whose requests carry the cited statements the first found), then
    `statement_checks` and `noncited_votes` (which read both). A re-score with another judge:
    the cited count is exact, the others bounds (the replies they read are not on file yet)
    that the calls sent stay within; the same judge again: every count 0, and 0 sent."""
    from test_reportbench_engine import GT
    from test_reportbench_llm import RUN_DATA, build_tiny_corpus, route, user_text
    from scholarbench.benchmarks.reportbench.llm_common import split_report
    corpus = tmp_path / "corpus"
    build_tiny_corpus(corpus).close()
    reports = RUN_DATA / "reports.jsonl"
    chunks = sum(len(split_report(json.loads(x)["report"], 16384))
                 for x in reports.read_text().splitlines())
    server = FakeOpenAI(default=route).start()
    out = tmp_path / "rb"
    judge = ["--judge", "fake-judge", "--judge-base-url", server.base_url, "--no-llm-cache"]

    def asked(marker: str) -> int:
        return sum(1 for body in server.requests if marker in user_text(body))

    def cited() -> int:
        return asked("Identify every statement that cites")

    def noncited() -> int:
        return asked("Already cited statements")

    def checks() -> int:       # the passage and consistency calls of the cited pairs
        return asked("Return any relevant content from the source document") + \
            asked("You will decide whether a claim")

    def votes() -> int:
        return asked("verifying the accuracy of a factual statement")

    def planned(printed: str, item: str) -> tuple[str, int]:
        m = re.search(rf"judge \(fake-judge\)\s+{item}\s+(≤ )?(\d+) calls", printed)
        return (m[1] or "", int(m[2]))

    try:
        run = ["run", "reportbench", "--agent", "replay", "--agent-arg", f"path={reports}",
               "--tasks", str(RUN_DATA), "--gt-dir", str(GT), "--corpus", str(corpus),
               "--out", str(out), "--statements", "--samples", "1", "--quiet", *judge]
        assert main([*run, "--dry-run"]) == 0
        printed = capsys.readouterr().out
        assert re.search(r"cited_statements\s+\? calls\s+cited statements: 1 per "
                         r"16,384-character chunk of each report", printed)
        assert main(run) == 0
        assert cited() == noncited() == chunks == 2             # one chunk per report
        for item in ("cited_statements", "noncited_statements"):
            assert len((out / f"judge.{item}.jsonl").read_text().splitlines()) == chunks
        capsys.readouterr()
        config = tmp_path / "judge.toml"              # another judge: temperature 0.5
        config.write_text("[judge]\ntemperature = 0.5\n")
        rescore = ["score", str(out), "--with-judge", *judge, "--llm-config", str(config)]
        n = len(server.requests)
        assert main([*rescore, "--dry-run"]) == 0
        printed = capsys.readouterr().out
        assert planned(printed, "cited_statements") == ("", chunks)           # exact
        assert planned(printed, "noncited_statements") == ("≤ ", chunks)      # a bound
        assert "the replies of cited_statements it reads are not on file" in printed
        assert len(server.requests) == n
        # the pairs' checks and the votes: how many depends on what the extraction replies
        for item in ("statement_checks", "noncited_votes"):
            assert re.search(rf"judge \(fake-judge\)\s+{item}\s+\? calls", printed)
        assert main(rescore) == 0
        assert (cited(), noncited()) == (2 * chunks, 2 * chunks)   # as printed (at the bound)
        capsys.readouterr()
        assert main([*rescore, "--dry-run"]) == 0          # the same judge: all on file
        printed = capsys.readouterr().out
        assert planned(printed, "cited_statements") == ("", 0)
        assert planned(printed, "noncited_statements") == ("", 0)
        # a check the judge's reply left unusable is asked again (2 calls at most): as printed
        fingerprint = json.loads((out / "manifest.json").read_text())[
            "judged"]["statement_checks"]["judges"][0]["fingerprint"]
        last = {r["key"]: r for r in map(json.loads, (out / "judge.statement_checks.jsonl")
                                         .read_text().splitlines())
                if r["fingerprint"] == fingerprint}
        unusable = sum(1 for r in last.values() if r["status"] != "ok")
        assert planned(printed, "statement_checks") == ("≤ ", 2 * unusable)
        assert planned(printed, "noncited_votes") == ("", 0)
        checks0, n = checks(), len(server.requests)
        assert main(rescore) == 0
        # (the bound is before repairs: the consistency reply may be repaired once more)
        assert unusable <= checks() - checks0 == len(server.requests) - n <= 3 * unusable
        capsys.readouterr()
        # the checks and votes gone, the extraction on file: counted from its replies
        for item in ("statement_checks", "noncited_votes"):
            (out / f"judge.{item}.jsonl").unlink()
        assert main([*rescore, "--dry-run"]) == 0
        printed = capsys.readouterr().out
        check_bound, vote_count = planned(printed, "statement_checks"), \
            planned(printed, "noncited_votes")
        assert check_bound[0] == "≤ " and vote_count[0] == "" and vote_count[1] > 0
        checks0, votes0 = checks(), votes()
        assert main(rescore) == 0
        assert votes() - votes0 == vote_count[1]                     # exact
        pairs = check_bound[1] // 2                        # ≤ 2 calls per pair, + a repair
        assert pairs > 0 and pairs <= checks() - checks0 <= 3 * pairs
        assert (cited(), noncited()) == (2 * chunks, 2 * chunks)    # the extraction: kept
        rows = [json.loads(x) for x in (out / "scores.jsonl").read_text().splitlines()]
        assert [r["statements"] for r in rows] == ["judged", "judged"]
        assert sum(r["n_cited"] for r in rows) > 0
    finally:
        server.stop()
