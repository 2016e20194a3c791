"""`run reportbench` (the engine's `run_benchmark` with `benchmarks.reportbench.ReportBench`)
against a fake OpenAI server: replay and registry writers, constructed prompts, reference and
statement scores, resume (limit 1 then all; a torn line), a second identical run making no
request, both models and their usage in the manifest."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from fake_openai import Step
from scholarbench.agents.writers.base import WrittenReport
from scholarbench.errors import ScholarbenchError
from scholarbench.llm.cache import ReplyCache
from scholarbench.llm.roles import LLMRoles
from scholarbench.benchmarks.reportbench import ReportBench
from scholarbench.benchmarks.reportbench.summary import format_summary
from scholarbench.core.engine import Models, run_benchmark
from scholarbench.core.engine import score_run as engine_score_run
from scholarbench.core.registry import REGISTRY
from test_reportbench_llm import (RUN_DATA, build_tiny_corpus, fake, make_client,  # noqa: F401
                                  route, user_text)

GT = Path(__file__).parent / "data" / "reportbench" / "gt"
REPORTS = RUN_DATA / "reports.jsonl"


@pytest.fixture(scope="module")
def corpus_dir(tmp_path_factory):
    path = tmp_path_factory.mktemp("rbrun-corpus")
    build_tiny_corpus(path).close()
    return path


@pytest.fixture
def server(fake):
    fake.default = route
    fake.script.clear()
    yield fake
    fake.default = Step(text="ok")


class Factory:
    """roles_factory for the runner: clients on the fake server sharing one reply cache."""

    def __init__(self, fake, cache_path: Path, judge: str = "judge-a") -> None:
        self.fake, self.cache_path, self.judge = fake, cache_path, judge
        self.calls: list[tuple[bool, bool]] = []
        self.roles: LLMRoles | None = None

    def __call__(self, *, need_agent: bool, need_judge: bool) -> LLMRoles:
        self.calls.append((need_agent, need_judge))
        cache = ReplyCache(self.cache_path)
        self.roles = LLMRoles(
            agent=make_client(self.fake, "agent-model", cache, role="agent") if need_agent
            else None,
            judge=make_client(self.fake, self.judge, cache) if need_judge else None, cache=cache)
        return self.roles


def config(out: Path, corpus_dir: Path, **kw) -> dict:
    """A run's settings (what the former ReportBenchRunConfig held): `run_reportbench` turns
    them into the benchmark's options and `run_benchmark`'s arguments."""
    base = dict(data=RUN_DATA, agent="replay", out=out, gt_dir=GT,
                agent_params={"path": str(REPORTS)}, corpus_dir=corpus_dir, samples=1,
                granularity="shipped", statements=False, llm_titles=False, limit=None,
                run_name=None)
    base.update(kw)
    return base


def models_of(factory) -> Models:
    return Models(None if factory is None else (
        lambda need_agent, need_judge: factory(need_agent=need_agent, need_judge=need_judge)))


def run_reportbench(cfg: dict, factory=None, outcome: bool = False):
    """The run as `scholarbench run reportbench` makes it; returns its summary (or outcome)."""
    bench = ReportBench({"tasks": str(cfg["data"]), "gt_dir": str(cfg["gt_dir"]),
                         "corpus": str(cfg["corpus_dir"]) if cfg["corpus_dir"] else None,
                         "statements": cfg["statements"], "llm_titles": cfg["llm_titles"],
                         "samples": cfg["samples"], "allow_network": False, "match": "exact",
                         "unresolved": "exclude", "evidence": "corpus"})
    result = run_benchmark(bench, cfg["granularity"], cfg["agent"], cfg["out"],
                           params=dict(cfg["agent_params"]), models=models_of(factory),
                           limit=cfg["limit"], name=cfg["run_name"], progress=False)
    return result if outcome else result.summary


def score_run(out: Path, judge=None, llm_titles: bool = False, statements: bool = False):
    """`scholarbench score RUN_DIR [--with-judge]` with `judge` as the judge role (the run's
    recorded options say what is judged; `judge_statements` as `statements` asks)."""
    options = {"with_judge": True, "judge_statements": statements} if judge is not None else {}
    return engine_score_run(out, options=options, progress=False,
                            models=Models(lambda **need: LLMRoles(judge=judge))).summary


def rows(out: Path) -> dict[str, dict]:
    return {r["arxiv_id"]: r for r in map(json.loads, (out / "scores.jsonl").read_text()
                                          .splitlines())}


def lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines()] if path.exists() else []


def test_replay_run_with_statements_resumes_and_reuses(server, corpus_dir, tmp_path):
    out = tmp_path / "run"
    factory = Factory(server, tmp_path / "cache.sqlite")
    start = len(server.requests)
    first = run_reportbench(config(out, corpus_dir, statements=True, limit=1), factory)
    assert factory.calls == [(False, True)]          # replay: no agent model
    after_first = len(server.requests)
    assert first["n_tasks"] == 1 and after_first > start
    asked_first = [json.dumps(b["messages"], sort_keys=True)
                   for b in server.requests[start:after_first]]
    summary = run_reportbench(config(out, corpus_dir, statements=True), factory)
    new = server.requests[after_first:]
    # the second survey's report went to the judge; of the first (not regenerated) only the
    # item the judge left unscored was asked again (its verdicts came from the reply cache)
    assert new and all("Adam" in user_text(b)
                       or json.dumps(b["messages"], sort_keys=True) in asked_first
                       for b in new)
    assert any("Adam" not in user_text(b) for b in new)
    assert [r["id"] for r in lines(out / "generate.jsonl")] == ["2101.00001", "2101.00002"]
    assert [r["id"] for r in lines(out / "statements.jsonl")] == ["2101.00001", "2101.00001",
                                                                  "2101.00002"]
    scores = rows(out)
    one, two = scores["2101.00001"], scores["2101.00002"]
    # GT 2101.00001: Attention, BERT, ResNet (3 titles); the report cites those + 1 other
    assert (one["ref_count"], one["n_gt"], one["ref_recall"]) == (4, 3, 1.0)
    assert one["ref_precision"] == pytest.approx(3 / 4)
    assert one["n_cited"] == 7 and one["cited_match_rate"] == pytest.approx(1 / 6)
    assert one["cited_unreachable_reasons"] == {"citation not in report": 1,
                                                "no text in corpus": 1, "not in corpus": 1}
    assert one["n_noncited"] == 4 and one["statements"] == "judged"
    assert (two["ref_precision"], two["ref_recall"]) == (1.0, 0.5)     # Adam of {Adam, LeCun}
    assert two["cited_match_rate"] == 1.0 and two["n_noncited"] == 0
    assert two["noncited_accuracy"] is None
    st = summary["statements"]
    assert st["n_judged"] == 2 and st["noncited_accuracy"]["n_undefined"] == 1
    assert st["cited_match_rate"]["mean"] == pytest.approx((1 / 6 + 1) / 2)
    assert st["micro"]["cited_match_rate"] == pytest.approx(2 / 7)
    assert st["counts"]["n_cited_unscored"] == 1
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["models"]["judge"]["model"] == "judge-a" and "agent" not in manifest["models"]
    usage = manifest["llm_usage"]["judge"]
    assert usage["calls"] == len(server.requests) - start
    assert manifest["statements"]["config"]["samples"] == 1
    text = format_summary(summary)
    assert "cited_match_rate" in text and "1 unscored" in text and "unreachable" in text


def test_second_identical_run_asks_only_what_was_left_unscored(server, corpus_dir, tmp_path):
    """Judged verdicts are resumed from the files or served from the reply cache; a reply that
    did not parse was not kept, so only those requests are sent again (llm.cache)."""
    factory = Factory(server, tmp_path / "cache.sqlite")
    first = run_reportbench(config(tmp_path / "a", corpus_dir, statements=True), factory)
    assert first["statements"]["counts"]["n_cited_unscored"] == 1
    n = len(server.requests)
    asked_first = [json.dumps(b["messages"], sort_keys=True) for b in server.requests]
    # the same directory: the unscored item is asked again, nothing else
    again = run_reportbench(config(tmp_path / "a", corpus_dir, statements=True), factory)
    reasked = server.requests[n:]
    assert 0 < len(reasked) < n
    assert all(json.dumps(b["messages"], sort_keys=True) in asked_first for b in reasked)
    n = len(server.requests)
    # a new directory with the same reply cache: the same re-asks, every verdict a cache hit
    other = run_reportbench(config(tmp_path / "b", corpus_dir, statements=True), factory)
    assert len(server.requests) - n == len(reasked)
    for summary in (again, other):
        assert summary["statements"]["micro"] == first["statements"]["micro"]
        assert summary["means"] == first["means"]
    manifest = json.loads((tmp_path / "b" / "manifest.json").read_text())
    assert manifest["llm_usage"]["judge"]["calls"] == len(reasked)
    assert manifest["llm_usage"]["judge"]["cache_hits"] > 0
    assert rows(tmp_path / "a") == rows(tmp_path / "b")


@REGISTRY.register("agent", "test-reportbench-writer")
class ScriptedWriter:
    """Asks the agent model for a report; the request it got is kept for the test."""
    name = "test-reportbench-writer"
    uses_llm = True
    seen: list = []

    def __init__(self, style: str = "plain") -> None:
        self.style = style

    def config(self):
        return {"style": self.style}

    def write(self, request, ctx):
        ScriptedWriter.seen.append(request)
        if request.task_id == "2101.00002":
            raise RuntimeError("the writer broke")
        text = ctx.llm.complete([{"role": "user", "content": request.prompt}]).text
        return WrittenReport(text, cited=["arxiv:1706.03762"], info={"calls": 1})


def agent_route(body):
    if body["model"] == "agent-model":
        return Step(text="# R\n\nThe Transformer relies solely on attention mechanisms [1].\n\n"
                         "## References\n[1] Vaswani (2017). Attention is all you need. "
                         "arXiv:1706.03762\n")
    return route(body)


def test_registry_writer_with_constructed_prompts(server, corpus_dir, tmp_path):
    server.default = agent_route
    ScriptedWriter.seen.clear()
    out = tmp_path / "run"
    factory = Factory(server, tmp_path / "cache.sqlite")
    summary = run_reportbench(config(out, corpus_dir, agent="test-reportbench-writer",
                                     agent_params={"style": "plain"}, granularity="sentence"),
                              factory)
    assert factory.calls == [(True, True)]
    prompts = {r["id"]: r for r in lines(out / "prompts.jsonl")}
    one = prompts["2101.00001"]
    assert one["cutoff_ok"] and one["attempts"] == 2 and one["cutoff_expected"] == "2021-03-01"
    assert one["comparison"]["cutoff_agrees"] and one["shipped_prompt"].startswith("Please help")
    assert prompts["2101.00002"]["cutoff_expected"] == "2021-01-01"
    request = ScriptedWriter.seen[0]
    assert request.topic == one["prompt"] and request.cutoff.isoformat() == "2021-03-01"
    assert request.prompt.startswith(one["prompt"] + "\n\nYou also need to follow")
    assert 'Do not refer to the survey titled "Deep Architectures' in request.prompt
    assert "Deep Architectures" not in request.topic
    assert request.exclude_ids == ("arxiv:2101.00001", "doi:10.1000/survey.1")
    generated = {r["id"]: r for r in lines(out / "generate.jsonl")}
    # CHANGED with the move onto the engine (brief: an agent exception is `error`, never a
    # result): the writer that raised is no longer "missing, scored 0 in the means" but an
    # errored sample, left out of the means and retried when the run is resumed.
    assert generated["2101.00002"]["status"] == "error"
    assert "raised RuntimeError: the writer broke" in generated["2101.00002"]["error"]
    scores = rows(out)
    assert scores["2101.00002"]["status"] == "error" and scores["2101.00002"]["ref_count"] is None
    assert scores["2101.00001"]["ref_precision"] == 1.0
    assert summary["n_error"] == 1 and summary["means"]["ref_precision"] == 1.0
    assert summary["complete"] is False and summary["n_missing"] == 0
    assert summary["prompts"]["n"] == 2 and summary["prompts"]["n_cutoff_ok"] == 2
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["models"]["agent"]["model"] == "agent-model"
    assert manifest["models"]["prompt"]["model"] == "judge-a"
    assert manifest["llm_usage"]["agent"]["calls"] == 1
    assert manifest["llm_usage"]["judge"]["calls"] == 4     # 2 prompts, each with a repair
    assert manifest["agent_config"] == {"style": "plain"}
    assert "prompts: 2 constructed" in format_summary(summary)
    # another writer configuration may not resume into this directory
    with pytest.raises(ScholarbenchError, match="different 'agent_config'"):
        run_reportbench(config(out, corpus_dir, agent="test-reportbench-writer",
                               agent_params={"style": "other"}, granularity="sentence"),
                        factory)


def test_replay_problems_are_counted_and_a_torn_line_is_redone(server, corpus_dir, tmp_path):
    reports = tmp_path / "reports.jsonl"
    first = REPORTS.read_text().splitlines()[0]
    reports.write_text("\n".join([first, "{not json", json.dumps({"arxiv_id": "2101.00002"}),
                                  json.dumps({"arxiv_id": "2101.00001", "report": "dup"})])
                       + "\n")
    out = tmp_path / "run"
    summary = run_reportbench(config(out, corpus_dir, agent_params={"path": str(reports)}))
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["agent_config"]["malformed_lines"] == 2
    assert manifest["agent_config"]["duplicate_lines"] == 1
    scores = rows(out)
    assert scores["2101.00002"]["status"] == "missing"
    assert "no report for 2101.00002" in scores["2101.00002"]["error"]
    assert summary["n_missing"] == 1 and "statements" not in summary
    # a torn last line (killed writer) is redone on resume
    gen = out / "generate.jsonl"
    data = gen.read_text().splitlines()
    gen.write_text(data[0] + "\n" + data[1][:25])
    run_reportbench(config(out, corpus_dir, agent_params={"path": str(reports)}))
    assert [r["id"] for r in lines(gen)] == ["2101.00001", "2101.00002"]


def test_llm_titles_are_recorded_and_replayed_without_the_cache(server, corpus_dir, tmp_path):
    reports = tmp_path / "reports.jsonl"
    reports.write_text(json.dumps({"arxiv_id": "2101.00001",
                                   "report": "Transformers [1] and more [2]."}) + "\n")
    out = tmp_path / "run"

    class NoCache(Factory):
        def __call__(self, *, need_agent, need_judge):
            self.roles = LLMRoles(judge=make_client(self.fake, "judge-a"))
            return self.roles

    factory = NoCache(server, tmp_path / "unused.sqlite")
    n = len(server.requests)
    summary = run_reportbench(config(out, corpus_dir, agent_params={"path": str(reports)},
                                     llm_titles=True, limit=1), factory)
    assert len(server.requests) == n + 1
    row = rows(out)["2101.00001"]
    assert row["n_resolved"] == 1 and row["ref_precision"] == 1.0      # [1] -> Attention
    assert row["title_extractor"] == {"titles": 1, "unscored": []}
    assert summary["title_extractor"]["titles"] == 1
    recorded = lines(out / "judge.titles.jsonl")          # the engine's judge stage
    assert recorded[0]["verdict"]["titles"] == [{"ref": 0, "title": "Attention Is All You Need"}]
    # re-scoring (no reply cache) replays the recorded titles: no request
    again = score_run(out, judge=factory.roles.judge, llm_titles=True)
    assert len(server.requests) == n + 1 and again["title_extractor"]["replayed"] == 1
    assert rows(out)["2101.00001"]["ref_precision"] == 1.0


def test_bad_configurations_are_refused(corpus_dir, tmp_path):
    with pytest.raises(ScholarbenchError, match="no sub-task 'essay'"):
        run_reportbench(config(tmp_path / "x", corpus_dir, granularity="essay"))
    with pytest.raises(ScholarbenchError, match="needs chat models"):
        run_reportbench(config(tmp_path / "x", corpus_dir, statements=True))
    with pytest.raises(ValueError, match="replay needs the reports file"):
        run_reportbench(config(tmp_path / "x", corpus_dir, agent_params={}))


def test_rescoring_replays_judged_statements_and_with_judge_redoes_them(server, corpus_dir,
                                                                         tmp_path):
    out = tmp_path / "run"
    factory = Factory(server, tmp_path / "cache.sqlite")
    first = run_reportbench(config(out, corpus_dir, statements=True), factory)
    before, n = rows(out), len(server.requests)
    # `score RUN_DIR` binds no model: the recorded judgements are replayed
    plain = engine_score_run(out, progress=False)
    assert rows(out) == before and len(server.requests) == n
    assert plain.summary["statements"] == first["statements"] and plain.exit_code == 0
    # `score RUN_DIR --with-judge` with another judge model: judged again, recorded again
    other = Factory(server, tmp_path / "cache.sqlite", judge="judge-b")
    judged = engine_score_run(out, options={"with_judge": True}, progress=False,
                              models=models_of(other))
    assert len(server.requests) > n and other.calls == [(False, True)]
    assert judged.summary["statements"]["n_judged"] == 2
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["models"]["judge"]["model"] == "judge-b"
    assert manifest["usage"]["statement_checks"]["judge"]["calls"] > 0
    assert len(lines(out / "statements.jsonl")) == 4
    # a run without statements gets them from `score RUN_DIR --with-judge`
    bare = tmp_path / "bare"
    run_reportbench(config(bare, corpus_dir), factory)
    assert "statements" not in rows(bare)["2101.00001"]
    added = engine_score_run(bare, options={"with_judge": True}, progress=False,
                             models=models_of(factory))
    assert added.summary["statements"]["n_judged"] == 2
    assert rows(bare)["2101.00001"]["statements"] == "judged"


def test_a_failed_prompt_construction_is_an_error_retried_on_resume(server, corpus_dir,
                                                                    tmp_path):
    server.push(Step(status=500), Step(status=500))          # both surveys' first call fails
    out = tmp_path / "run"
    factory = Factory(server, tmp_path / "cache.sqlite")
    outcome = run_reportbench(config(out, corpus_dir, granularity="detail"), factory,
                              outcome=True)
    assert outcome.exit_code == 3
    prompts = lines(out / "prompts.jsonl")
    assert [p.get("status", "ok") for p in prompts] == ["error", "error"]
    assert "call failed" in prompts[0]["error"]
    scores = rows(out)
    assert {r["status"] for r in scores.values()} == {"error"}
    assert not (out / "generate.jsonl").exists()            # the replay was never asked
    again = run_reportbench(config(out, corpus_dir, granularity="detail"), factory,
                            outcome=True)
    assert again.exit_code == 0
    assert [p.get("status", "ok") for p in lines(out / "prompts.jsonl")] == ["error", "error", "ok", "ok"]
    assert {r["status"] for r in rows(out).values()} == {"scored"}
    assert again.summary["prompts"]["n"] == 2 and again.summary["granularity"] == "detail"


def test_a_failed_extraction_call_is_an_error_and_an_unusable_reply_unscored(
        server, corpus_dir, tmp_path):
    """The statement extraction is the engine's judged items (judge.cited_statements.jsonl,
    judge.noncited_statements.jsonl): the judge endpoint failing on a report's cited extraction
    is `error` and the run is incomplete; an unusable non-cited reply is `unscored`. Either way
    the chunk counts in `n_extraction_unscored`, and the same run again asks only those."""
    def failing(body):
        text = user_text(body)
        if "Identify every statement that cites" in text and "Adam combines momentum" in text:
            return Step(status=500, text="down")
        if "Already cited statements" in text and "Adam" not in text:
            return Step(text="no statements here")
        return route(body)

    server.default = failing
    out = tmp_path / "run"
    factory = Factory(server, tmp_path / "cache.sqlite")
    outcome = run_reportbench(config(out, corpus_dir, statements=True), factory, outcome=True)
    assert outcome.exit_code != 0                       # a judge call failed: incomplete
    cited = {r["id"]: r for r in lines(out / "judge.cited_statements.jsonl")}
    noncited = {r["id"]: r for r in lines(out / "judge.noncited_statements.jsonl")}
    assert (cited["2101.00002"]["status"], cited["2101.00001"]["status"]) == ("error", "ok")
    assert cited["2101.00002"]["reason"].startswith("call failed")
    assert len(cited["2101.00001"]["verdict"]["pairs"]) == 7        # 8 items, 1 empty dropped
    assert cited["2101.00001"]["verdict"]["dropped"] == 1
    assert (noncited["2101.00001"]["status"], noncited["2101.00002"]["status"]) == (
        "unscored", "ok")
    one, two = rows(out)["2101.00001"], rows(out)["2101.00002"]
    assert (one["n_extraction_unscored"], one["n_cited"], one["n_noncited"]) == (1, 7, 0)
    assert (two["n_extraction_unscored"], two["n_cited"]) == (1, 0)
    assert two["cited_match_rate"] is None
    server.default = route                              # the endpoint is back: asked again
    n = len(server.requests)
    again = run_reportbench(config(out, corpus_dir, statements=True), factory, outcome=True)
    extraction = [b for b in server.requests[n:]
                  if "Identify every statement that cites" in user_text(b)
                  or "Already cited statements" in user_text(b)]
    # the failed cited one, the unscored non-cited one, and the non-cited one of the report
    # whose cited reply failed: it was asked with no cited statements, now with its one
    assert len(extraction) == 3
    assert sum("Adam combines momentum" in user_text(b) for b in extraction) == 2
    assert again.exit_code == 0
    assert rows(out)["2101.00001"]["n_noncited"] == 4
    assert rows(out)["2101.00002"]["cited_match_rate"] == 1.0


def test_a_run_checked_before_the_engine_asked_the_pairs_replays_its_statements_file(
        server, corpus_dir, tmp_path):
    """A run scored before the pairs' checks and the votes were engine items has only
    statements.jsonl (each report's result under the fingerprint of its inputs, as
    `scoring.RecordedStatements` wrote it): a plain re-score replays that file, asking nothing."""
    from scholarbench.benchmarks.reportbench.refscore import references_for
    from scholarbench.benchmarks.reportbench.scoring import fingerprint, open_corpus, sha
    out = tmp_path / "run"
    run_reportbench(config(out, corpus_dir, statements=True),
                    Factory(server, tmp_path / "cache.sqlite"))
    manifest = json.loads((out / "manifest.json").read_text())
    for item in ("statement_checks", "noncited_votes"):   # what the earlier version left
        del manifest["judged"][item]
        (out / f"judge.{item}.jsonl").unlink()
    (out / "manifest.json").write_text(json.dumps(manifest))
    corpus = open_corpus(corpus_dir)
    answers = {r["id"]: r for r in lines(out / "generate.jsonl")}
    old = []
    for record in {r["id"]: r for r in lines(out / "statements.jsonl")}.values():
        answer = answers[record["id"]]
        refs = references_for(answer, corpus).references
        record["fingerprint"] = fingerprint({
            "report": sha(answer["report"]), "judge": manifest["statements"],
            "corpus": corpus.papers_sha256, "llm_titles": False,
            "refs": [(r.label, r.paper_id, tuple(r.urls), tuple(r.ids)) for r in refs]})
        record["metrics"]["cited_match_rate"] = 0.125      # only this file says so
        old.append(record)
    corpus.close()
    (out / "statements.jsonl").write_text("".join(json.dumps(r) + "\n" for r in old))
    n = len(server.requests)
    plain = engine_score_run(out, progress=False)
    assert plain.exit_code == 0 and len(server.requests) == n
    assert [r["cited_match_rate"] for r in rows(out).values()] == [0.125] * len(old)
    assert all(r["statements"] == "judged" for r in rows(out).values())
