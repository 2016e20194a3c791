"""Judge panels and repeats on ReportBench's statement judges (issue 27): two scripted judges on
loopback servers that disagree in a known way on two reports, every number computed by hand
here — each judge's per-report rates, the panel's (majority per statement item, ties apart),
Krippendorff's α between the judges (interval, the reports as units), a judge's repeats'
spread and α — a judge failing on one item, `aggregate --check`, the command line."""
from __future__ import annotations

import json
import re
import statistics

import pytest

from fake_openai import FakeOpenAI, Step
from test_judge_panel import alpha_by_hand
from test_reportbench_llm import RUN_DATA, build_tiny_corpus, make_client, quoted, user_text
from scholarbench.benchmarks.reportbench import ReportBench
from scholarbench.benchmarks.reportbench.summary import format_summary
from scholarbench.core.engine import Models, run_benchmark
from scholarbench.core.engine import score_run as engine_score_run
from scholarbench.llm.roles import LLMRoles
from test_reportbench_run import GT

CM, CK, NA, NU = ("cited_match_rate", "cited_match_rate_checkable", "noncited_accuracy",
                  "noncited_accuracy_upstream")
S1, S2 = "2101.00001", "2101.00002"
REFS_1 = ("[1] Vaswani, A. et al. (2017). Attention is all you need. arXiv:1706.03762\n"
          "[2] He, K. et al. (2016). Deep residual learning for image recognition. "
          "doi:10.1109/CVPR.2016.90\n")
REFS_2 = "[1] Kingma, D. and Ba, J. (2015). Adam: A method for stochastic optimization. " \
         "arXiv:1412.6980\n"
CITED = {S1: [("Claim C11 on attention.", "[1]"), ("Claim C12 on residual nets.", "[2]")],
         S2: [("Claim C21 on Adam.", "[1]"), ("Claim C22 on Adam moments.", "[1]")]}
NONCITED = {S1: ["Fact N11 about 2017.", "Fact N12 about ImageNet."],
            S2: ["Fact N21 about optimisers.", "Fact N22 about momentum."]}
# each judge's verdict on each item: cited pairs (match) and non-cited statements (decision);
# judge a's repeat 1 (seed 1) differs from its repeat 0, judge b answers alike every time
A = {0: {"C11": True, "C12": True, "C21": True, "C22": False,
         "N11": True, "N12": True, "N21": True, "N22": False},
     1: {"C11": True, "C12": False, "C21": True, "C22": True,
         "N11": False, "N12": True, "N21": True, "N22": True}}
B = {"C11": True, "C12": False, "C21": False, "C22": False,
     "N11": True, "N12": False, "N21": False, "N22": False}


def report(sid: str) -> str:
    tag = "ALPHA-REPORT" if sid == S1 else "BETA-REPORT"
    cited = " ".join(f"{s[:-1]} {c}." for s, c in CITED[sid])
    return (f"# {tag}\n\n{cited}\n\n{' '.join(NONCITED[sid])}\n\n## References\n\n"
            + (REFS_1 if sid == S1 else REFS_2))


def item(statement: str) -> str:
    return re.search(r"[CN]\d\d", statement)[0]


def judge_route(verdicts, fail: set[str] = frozenset()):
    """A scripted judge: the extraction prompts answered from the report's tag, the passage
    step with the source, consistency and fact check from `verdicts(seed)`; items in `fail`
    get an unusable reply (also after the repair turn)."""
    def route(body: dict) -> Step:
        text = user_text(body)
        sid = S1 if "ALPHA-REPORT" in text else S2
        if "Identify every statement that cites" in text:
            return Step(text=json.dumps({"statements": [{"statement": s, "citation": c}
                                                        for s, c in CITED[sid]]}))
        if "Already cited statements" in text:
            return Step(text=json.dumps({"statements": [{"statement": s}
                                                        for s in NONCITED[sid]]}))
        if "Return any relevant content from the source document" in text:
            return Step(text="SUPPORT: " + quoted(text, "source").strip()[:100])
        key = item(quoted(text, "statement"))
        if key in fail:
            return Step(text="no idea")
        verdict = verdicts(body.get("seed") or 0)[key]
        if "You will decide whether a claim" in text:
            return Step(text=json.dumps({"reason": "r", "match": verdict}))
        if "verifying the accuracy of a factual statement" in text:
            return Step(text=json.dumps({"reason": "r", "decision": verdict}))
        raise AssertionError(text[:200])
    return route


@pytest.fixture(scope="module")
def corpus_dir(tmp_path_factory):
    path = tmp_path_factory.mktemp("panel-corpus")
    build_tiny_corpus(path).close()
    return path


@pytest.fixture
def judges():
    a = FakeOpenAI(default=judge_route(lambda seed: A[seed])).start()
    b = FakeOpenAI(default=judge_route(lambda seed: B)).start()
    yield a, b
    a.stop()
    b.stop()


def reports_file(tmp_path):
    path = tmp_path / "reports.jsonl"
    path.write_text("".join(json.dumps({"arxiv_id": s, "report": report(s)}) + "\n"
                            for s in (S1, S2)))
    return path


def bench(corpus_dir) -> ReportBench:
    return ReportBench({"tasks": str(RUN_DATA), "gt_dir": str(GT), "corpus": str(corpus_dir),
                        "statements": True, "samples": 1, "evidence": "none"})


def run(tmp_path, corpus_dir, judges, samples=1, panel=True, out="run", cache=None,
        vote_judges=()):
    a, b = judges
    ca, cb = make_client(a, "judge-a", cache), make_client(b, "judge-b", cache)
    models = Models(lambda need_agent, need_judge: LLMRoles(
        judge=ca, judges=[ca, cb] if panel else None))
    models.judge_samples = samples
    benchmark = bench(corpus_dir)
    benchmark.vote_judges = list(vote_judges)
    result = run_benchmark(benchmark, "shipped", "replay", tmp_path / out,
                           params={"path": str(reports_file(tmp_path))}, models=models,
                           progress=False)
    return result.summary, tmp_path / out


def rows_of(out) -> dict[str, dict]:
    return {r["arxiv_id"]: r for r in map(json.loads,
                                          (out / "scores.jsonl").read_text().splitlines())}


def check(out) -> None:
    from scholarbench.cli import main
    assert main(["aggregate", str(out), "--check"]) == 0


def judge_calls(manifest: dict, role: str) -> int:
    """A judge's calls over every stage of the manifest's usage."""
    return sum(roles.get(role, {}).get("calls", 0) for roles in manifest["usage"].values())


def test_two_judges_per_judge_rates_panel_majority_and_alpha(tmp_path, corpus_dir, judges):
    summary, out = run(tmp_path, corpus_dir, judges)
    rows = rows_of(out)
    one, two = rows[S1], rows[S2]
    # judge a: C11 ✓ C12 ✓ | C21 ✓ C22 ✗ ; judge b: C11 ✓ C12 ✗ | C21 ✗ C22 ✗ (same pattern
    # for N11..N22): a's rates 1, 1/2; b's 1/2, 0
    assert one["judges"] == {
        "judge-a": {CM: 1.0, f"{CM}_unscored": 0, CK: 1.0, f"{CK}_unscored": 0,
                    NA: 1.0, f"{NA}_unscored": 0, NU: 1.0, f"{NU}_unscored": 0,
                    "cited_verdicts": ["match", "match"],
                    "noncited_verdicts": ["correct", "correct"]},
        "judge-b": {CM: 0.5, f"{CM}_unscored": 0, CK: 0.5, f"{CK}_unscored": 0,
                    NA: 0.5, f"{NA}_unscored": 0, NU: 0.5, f"{NU}_unscored": 0,
                    "cited_verdicts": ["match", "no match"],
                    "noncited_verdicts": ["correct", "incorrect"]}}
    assert {j: two["judges"][j][CM] for j in two["judges"]} == {"judge-a": 0.5, "judge-b": 0.0}
    # the panel, per item the majority: C11 ✓✓ match, C12 ✓✗ tie | C21 ✓✗ tie, C22 ✗✗ no
    # match — ties out of the rates: S1 1/1, S2 0/1; non-cited alike: S1 1/1 (upstream, ties
    # in: 1/2), S2 0/1 (0/2)
    assert (one[CM], one[CK], one["n_cited_tie"], one["n_cited_checked"]) == (1.0, 1.0, 1, 1)
    assert (two[CM], two["n_cited_tie"], two["n_cited_matched"]) == (0.0, 1, 0)
    assert (one[NA], one[NU], one["n_noncited_tie"]) == (1.0, 0.5, 1)
    assert (two[NA], two[NU]) == (0.0, 0.0)
    assert summary["metrics"][CM]["mean"] == pytest.approx(0.5)
    st = summary["statements"]
    assert st[CM]["judges"] == {"judge-a": pytest.approx(0.75), "judge-b": pytest.approx(0.25)}
    assert st["counts"]["n_cited_tie"] == 2
    panel = summary["judge_panel"][CM]
    assert (panel["judge-a"]["mean"], panel["judge-a"]["n"]) == (pytest.approx(0.75), 2)
    assert panel["judge-b"]["mean"] == pytest.approx(0.25)
    # α (interval) over the two reports: a = [1, .5], b = [.5, 0]; values 1, .5, .5, 0 (n = 4)
    # D_o = ((1-.5)² + (.5-0)²)·2/(m-1)/n = .5·2/4 = .25
    # D_e = Σ over all value pairs (x-y)²·2/(n(n-1)) = (2·.25 + 1 + 2·.25)·2/12 = 1/3
    # α = 1 - .25/(1/3) = .25
    for rate in (CM, CK, NA, NU):
        agreement = summary["judge_agreement"][rate]
        assert agreement["level"] == "interval" and agreement["n_judges"] == 2
    assert summary["judge_agreement"][CM]["alpha"] == pytest.approx(
        alpha_by_hand([[1, .5], [.5, 0]])) == pytest.approx(0.25)
    assert "judges cited_match_rate: α 0.250 between 2 judges" in format_summary(summary)
    # nominal α per statement item: a = m m | m n, b = m n | n n (m match, n no match; the
    # non-cited verdicts alike); 8 pairable values, 4 m and 4 n; two units disagree:
    # D_o = (2 + 2)/8 = 1/2, D_e = 2·4·4/(8·7) = 4/7, α = 1 - (1/2)/(4/7) = 1/8
    assert st["agreement"] == {kind: {"level": "nominal", "n_judges": 2, "n_items": 4,
                                      "alpha": pytest.approx(1 / 8)}
                               for kind in ("cited", "noncited")}
    assert "judges per statement (nominal α): cited 0.125 over 4 items; noncited 0.125" \
        in format_summary(summary)
    # only the first judge extracts; both judge every pair and vote on every statement
    a, b = judges
    assert not any("Identify every statement" in user_text(r) or "Already cited statements"
                   in user_text(r) for r in b.requests)
    assert sum("You will decide whether a claim" in user_text(r) for r in b.requests) == 4
    assert sum("verifying the accuracy" in user_text(r) for r in b.requests) == 4
    manifest = json.loads((out / "manifest.json").read_text())
    assert [(j["label"], j["usage_role"], j["model"]) for j in manifest["models"]["judges"]] \
        == [("judge-a", "judge", "judge-a"), ("judge-b", "judge_2", "judge-b")]
    # the statements' judge stages (checks, votes): `usage.<item>.<role>`
    assert judge_calls(manifest, "judge_2") == len(b.requests)
    assert manifest["judge"]["samples"] == 1
    assert [p["label"] for p in manifest["judge"]["panel"]] == ["judge-a", "judge-b"]
    assert [v.rsplit("|", 1)[1] for v in manifest["statements"]["vote_judges"]] == \
        ["judge-a", "judge-b"]                       # the panel is the non-cited vote's voters
    check(out)
    # scored again without a judge: every judge's verdicts replayed, the same summary
    again = engine_score_run(out, progress=False).summary
    assert again["judge_panel"] == summary["judge_panel"]
    assert again["statements"] == summary["statements"]


def test_repeats_spread_and_within_judge_alpha(tmp_path, corpus_dir, judges):
    from scholarbench.llm.cache import ReplyCache
    cache = ReplyCache(tmp_path / "cache.sqlite")
    summary, out = run(tmp_path, corpus_dir, judges, samples=2, cache=cache)
    a, b = judges
    # judge a's repeat 1: cited checks with seed 1; its vote (N = 1) with seed 0 + 1·N = 1
    seeds = sorted((r.get("seed") or 0) for r in a.requests
                   if "You will decide whether a claim" in user_text(r))
    assert seeds == [0] * 4 + [1] * 4
    assert sorted(r["seed"] for r in a.requests if "verifying the accuracy" in user_text(r)) \
        == [0] * 4 + [1] * 4
    rows = rows_of(out)
    # repeat 0: S1 1, S2 1/2; repeat 1 (C11 ✓ C12 ✗ | C21 ✓ C22 ✓): S1 1/2, S2 1
    assert [rows[s]["judges"]["judge-a"][f"{CM}_samples"] for s in (S1, S2)] == \
        [[1.0, 0.5], [0.5, 1.0]]
    assert [rows[s]["judges"]["judge-b"][f"{CM}_samples"] for s in (S1, S2)] == \
        [[0.5, 0.5], [0.0, 0.0]]
    # a's own verdict per pair, the majority of its two repeats: C11 ✓✓, C12 tie | C21 ✓✓,
    # C22 tie → S1 1/1, S2 1/1
    assert [rows[s]["judges"]["judge-a"][CM] for s in (S1, S2)] == [1.0, 1.0]
    # the panel per pair over 4 verdicts (a0, a1, b, b): C11 ✓✓✓✓; C12 ✓✗✗✗ → no match |
    # C21 ✓✓✗✗ tie; C22 ✗✓✗✗ → no match
    assert (rows[S1][CM], rows[S1]["n_cited_tie"]) == (0.5, 0)
    assert (rows[S2][CM], rows[S2]["n_cited_tie"]) == (0.0, 1)
    panel = summary["judge_panel"][CM]
    # spread: the mean over reports of the repeats' sd: sd(1, .5) = sd(.5, 1) = √2/4
    spread = statistics.mean([statistics.stdev([1, .5]), statistics.stdev([.5, 1])])
    assert panel["judge-a"]["spread"] == pytest.approx(spread) == pytest.approx(2 ** .5 / 4)
    assert (panel["judge-a"]["repeats"], panel["judge-a"]["spread_n"]) == (2, 2)
    assert panel["judge-b"]["spread"] == 0
    # α across a's repeats: rep 0 = [1, .5], rep 1 = [.5, 1]: D_o = (.25+.25)·2/4 = .25,
    # D_e = 4·.25·2/12 = 1/6, α = 1 - .25·6 = -.5
    assert panel["judge-a"]["alpha_repeats"] == pytest.approx(
        alpha_by_hand([[1, .5], [.5, 1]])) == pytest.approx(-0.5)
    # between the judges: each judge's value (a [1, 1], b [.5, 0])
    assert summary["judge_agreement"][CM]["alpha"] == pytest.approx(
        alpha_by_hand([[1, 1], [.5, 0]]))
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["judge"]["samples"] == 2
    assert manifest["judge"]["panel"][0]["seeds"] == [0, 1]         # configured seed 0
    assert manifest["judge"]["panel"][0]["vote_seeds"] == [[0], [1]]
    check(out)
    # each repeat is its own reply-cache entry (above: repeat 1 reached the server although
    # repeat 0's reply was cached); a new run directory on the same cache asks nothing
    asked = len(a.requests) + len(b.requests)
    again, _ = run(tmp_path, corpus_dir, judges, samples=2, cache=cache, out="again")
    assert len(a.requests) + len(b.requests) == asked
    assert again["judge_panel"] == summary["judge_panel"]


def test_a_failing_judge_is_unscored_for_that_judge_only(tmp_path, corpus_dir, judges):
    a, b = judges
    b.default = judge_route(lambda seed: B, fail={"C12", "N11"})
    summary, out = run(tmp_path, corpus_dir, judges)
    one = rows_of(out)[S1]
    # b answered C11 ✓ only and N12 ✗ only: its rates 1/1 and 0/1, one item unscored each
    assert one["judges"]["judge-b"] == {
        CM: 1.0, f"{CM}_unscored": 1, CK: 1.0, f"{CK}_unscored": 1,
        NA: 0.0, f"{NA}_unscored": 1, NU: 0.0, f"{NU}_unscored": 1,
        "cited_verdicts": ["match", None], "noncited_verdicts": [None, "incorrect"]}
    assert one["judges"]["judge-a"][CM] == 1.0 and one["judges"]["judge-a"][f"{CM}_unscored"] == 0
    # the panel takes a's verdict where b has none: C11 ✓✓, C12 ✓ → 2/2; N11 ✓, N12 ✓✗ tie → 1/1
    assert (one[CM], one["n_cited_unscored"], one["n_cited_tie"]) == (1.0, 0, 0)
    assert (one[NA], one["n_noncited_tie"], one["n_noncited_unscored"]) == (1.0, 1, 0)
    assert one["n_votes_unscored"] == 1
    check(out)


def test_one_judge_rows_and_summary_have_no_panel(tmp_path, corpus_dir, judges):
    summary, out = run(tmp_path, corpus_dir, judges, panel=False)
    rows = rows_of(out)
    assert not any("judges" in r or "n_cited_tie" in r for r in rows.values())
    assert "judge_panel" not in summary and "judge_agreement" not in summary
    assert "judges" not in summary["statements"][CM]
    assert (rows[S1][CM], rows[S2][CM]) == (1.0, 0.5)            # judge a alone
    manifest = json.loads((out / "manifest.json").read_text())
    assert "judge" not in manifest and "judges" not in manifest["models"]
    a, b = judges
    assert not b.requests and all(r.get("seed") in (None, 0) for r in a.requests)


def test_the_command_line_panel_and_repeats(tmp_path, corpus_dir, judges, capsys):
    from scholarbench.cli import main
    a, b = judges
    out = tmp_path / "cli"
    code = main(["run", "reportbench", "--agent", "replay", "--agent-arg",
                 f"path={reports_file(tmp_path)}", "--tasks", str(RUN_DATA), "--gt-dir",
                 str(GT), "--corpus", str(corpus_dir), "--statements", "--samples", "1",
                 "--evidence", "none", "--out", str(out), "--no-llm-cache", "--quiet",
                 "--judge", "judge-a", "--judge-base-url", a.base_url,
                 "--judge", "judge-b", "--judge-base-url", b.base_url, "--judge-samples", "2"])
    text = capsys.readouterr().out
    assert code == 0, text
    assert "judges cited_match_rate: α" in text and "spread 0.354 over 2 repeats" in text
    summary = json.loads((out / "summary.json").read_text())
    assert summary["judge_panel"][CM]["judge-a"]["spread"] == pytest.approx(2 ** .5 / 4)
    check(out)
    # score RUN_DIR --with-judge with the same panel: every verdict from statements.jsonl
    before = len(a.requests) + len(b.requests)
    assert main(["score", str(out), "--with-judge", "--no-llm-cache", "--quiet",
                 "--judge", "judge-a", "--judge-base-url", a.base_url,
                 "--judge", "judge-b", "--judge-base-url", b.base_url,
                 "--judge-samples", "2"]) == 0
    assert len(a.requests) + len(b.requests) == before
    assert json.loads((out / "summary.json").read_text())["judge_panel"] == \
        summary["judge_panel"]


def test_score_files_with_a_panel(tmp_path, corpus_dir, judges, capsys):
    """`score reportbench --statements` on a predictions file: the same panel, lines and α."""
    from scholarbench.cli import main
    a, b = judges
    out = tmp_path / "scores.jsonl"
    assert main(["score", "reportbench", "--gt-dir", str(GT), "--pred",
                 str(reports_file(tmp_path)), "--out", str(out), "--corpus", str(corpus_dir),
                 "--statements", "--samples", "1", "--no-llm-cache",
                 "--judge", "judge-a", "--judge-base-url", a.base_url,
                 "--judge", "judge-b", "--judge-base-url", b.base_url]) == 0
    assert "judges cited_match_rate: α 0.250 between 2 judges" in capsys.readouterr().out
    lines = {r["arxiv_id"]: r for r in map(json.loads, out.read_text().splitlines())}
    assert {j: e[CM] for j, e in lines[S1]["judges"].items()} == {"judge-a": 1.0,
                                                                  "judge-b": 0.5}
    assert lines[S1][CM] == 1.0 and lines[S1]["n_cited_tie"] == 1


def test_a_panel_without_statements_says_it_is_not_used(tmp_path, judges, capsys):
    from scholarbench.cli import main
    a, b = judges
    code = main(["run", "reportbench", "--agent", "replay", "--agent-arg",
                 f"path={reports_file(tmp_path)}", "--tasks", str(RUN_DATA), "--gt-dir",
                 str(GT), "--out", str(tmp_path / "r"), "--no-llm-cache", "--quiet",
                 "--judge", "judge-a", "--judge-base-url", a.base_url,
                 "--judge", "judge-b", "--judge-base-url", b.base_url])
    err = capsys.readouterr().err
    assert code == 0 and "warning: reportbench: a judge panel and --judge-samples judge the " \
        "statements (--statements), which this run does not judge; no judge is used" in err
    assert not a.requests and not b.requests


def test_an_api_vote_judge_votes_beside_the_panel(tmp_path, corpus_dir, judges):
    """`bench.vote_judges` (API) still vote on the non-cited statements with a panel: in the
    pooled vote and with its own non-cited rates (it judges no cited pair)."""
    c = FakeOpenAI(default=judge_route(lambda seed: {k: True for k in B})).start()
    try:
        summary, out = run(tmp_path, corpus_dir, judges, vote_judges=[make_client(c, "judge-c")])
    finally:
        c.stop()
    one = rows_of(out)[S1]
    assert list(one["judges"]) == ["judge-a", "judge-b", "judge-c"]
    assert one["judges"]["judge-c"] == {NA: 1.0, f"{NA}_unscored": 0, NU: 1.0,
                                        f"{NU}_unscored": 0,
                                        "noncited_verdicts": ["correct", "correct"]}
    # N12: a ✓, b ✗, c ✓ → correct (without c: a tie); the cited pairs as before (C12 a tie)
    assert (one[NA], one["n_noncited_tie"], one[CM], one["n_cited_tie"]) == (1.0, 0, 1.0, 1)
    assert not any("You will decide whether a claim" in user_text(r) for r in c.requests)
    manifest = json.loads((out / "manifest.json").read_text())
    assert judge_calls(manifest, "judge_3") == 2 + 2     # one vote per statement
    assert [v["model"] for v in manifest["models"]["vote_judges"]] == ["judge-c"]
    check(out)


def test_eval_scores_reportbench_with_the_panel(tmp_path, corpus_dir, judges, capsys):
    from scholarbench.cli import main
    a, b = judges
    options = [f"reportbench.{k}={v}" for k, v in (
        ("tasks", RUN_DATA), ("gt_dir", GT), ("corpus", corpus_dir), ("statements", "true"),
        ("samples", 1), ("evidence", "none"))]
    code = main(["eval", "--benchmarks", "reportbench", "--agent", "replay", "--agent-arg",
                 f"path={reports_file(tmp_path)}", "--out", str(tmp_path / "ev"),
                 "--no-llm-cache", "--quiet", *[x for o in options for x in ("--option", o)],
                 "--judge", "judge-a", "--judge-base-url", a.base_url,
                 "--judge", "judge-b", "--judge-base-url", b.base_url])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    # every built-in judge takes a panel (ResearchArena has none): no first-judge warning
    assert "first judge only" not in captured.err
    summaries = list((tmp_path / "ev").rglob("summary.json"))
    assert len(summaries) == 1
    summary = json.loads(summaries[0].read_text())
    assert summary["judge_agreement"][CM]["alpha"] == pytest.approx(0.25)
    # the eval table says it too, under the table: one line per panel-judged rate
    table = captured.out[captured.out.index("benchmark "):]
    assert f"  reportbench {summary['mode']}: judges {CM}: α 0.250 between 2 judges; " in table
    entry = json.loads((tmp_path / "ev" / "eval.json").read_text())["runs"][0]
    assert entry["judge_agreement"][CM]["alpha"] == pytest.approx(0.25)
