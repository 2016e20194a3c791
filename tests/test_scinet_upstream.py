"""SciNet scored under its released scripts' rules (`--variant upstream`, tsinghua-fib-lab/SciNet
`Evaluation/` @ ed5c76f) next to the paper's rules, on hand cases of the hand-made graph
(test_scinet_core: B->A, C->B, C->A, D->C, E->D, E->C, F->E, F->A); values computed by hand."""
from __future__ import annotations

import json

import numpy as np
import pytest

from test_scinet_core import A, B, C, D, E, F, task, tiny_env
from scholarbench.benchmarks.scinet.answers import read_answer_file, record_fields
from scholarbench.benchmarks.scinet.metrics import aggregate, score_task
from scholarbench.benchmarks.scinet.scoring import score_rows, summarise
from scholarbench.benchmarks.scinet.upstream import score_task_upstream
from scholarbench.errors import ScholarbenchError


@pytest.fixture(scope="module")
def env():
    return tiny_env()


@pytest.fixture(scope="module")
def measured():
    """The hand graph with hand-set measures: novelty A..F = -4, -2, -2, 0, 1, 3; disruption
    A..F = undefined, 0.5, 0, -0.5, 0, 1."""
    e = tiny_env()
    e.__dict__["_measures"] = (np.array([np.nan, 0.5, 0.0, -0.5, 0.0, 1.0]),
                               np.array([-4.0, -2.0, -2.0, 0.0, 1.0, 3.0]))
    return e


def both(t, papers, env):
    return score_task(t, papers, env), score_task_upstream(t, papers, env)


# ---- ego: SoS (top 5, mean raw value, rank percentile) and Recall@50 ----------------------------
def test_novelty_sos_is_the_rank_percentile_of_the_mean_raw_value_of_the_top_5(measured):
    t = task("ego", "novel", {"measure": "novelty", "ranked": [A]})
    paper, up = both(t, [B, C], measured)
    # paper: each paper's weak SoS (5 of 6 at or above -2) -> 8.333, averaged
    assert paper["novelty_sos"] == pytest.approx(25 / 3)
    # upstream: mean raw -2, percentileofscore(-R, 2, "rank") = (3 + 5 + 1) / 2 / 6 -> 7.5
    assert up["novelty_sos_raw"] == -2.0 and up["novelty_sos"] == pytest.approx(7.5)
    # only papers[:5] count, a repeat each time: A (6th item) is not read upstream
    paper, up = both(t, [B, B, B, B, B, A], measured)
    assert paper["novelty_sos"] == pytest.approx((25 / 3 + 10) / 2)
    assert up["novelty_sos"] == pytest.approx(7.5)
    # nothing scorable / empty: upstream leaves the query out, the paper scores 0
    assert both(t, [], measured)[0]["novelty_sos"] == 0.0
    assert both(t, [], measured)[1]["novelty_sos"] is None


def test_disruption_sos_upstream(measured):
    t = task("ego", "disruptive", {"measure": "disruption", "ranked": [F]})
    paper, up = both(t, [C, E], measured)
    assert paper["disruption_sos"] == pytest.approx(6.0)       # 3 of 5 at or below 0
    assert up["disruption_sos"] == pytest.approx(5.0)          # (1 + 3 + 1) / 2 / 5
    paper, up = both(t, [A, B], measured)                      # A undefined: left out
    assert up["disruption_sos_raw"] == 0.5 and up["sos_scorable"] == 1


def test_recall_counts_a_repeated_id_twice(env):
    gold = [A, B, C] + [f"arxiv:9{i:03d}.00001" for i in range(47)]      # a top 50
    t = task("ego", "novel", {"measure": "novelty", "ranked": gold})
    paper, up = both(t, [A, A, B, D], env)
    assert paper["novelty_recall@50"] == pytest.approx(0.04)   # A, B once each: 2 / 50
    assert up["novelty_recall@50"] == pytest.approx(0.06)      # A twice + B: 3 / 50
    assert both(t, [], env)[1]["novelty_recall@50"] == 0.0      # empty: counted as 0


# ---- pair: duplicates, empty answers --------------------------------------------------------------
def test_cite_acc_counts_every_item(env):
    t = task("pair", "pncites", {"citers": [B, C, F], "positive": [C], "cocited": []}, source=A)
    paper, up = both(t, [B, B, D], env)
    assert paper["cite_acc"] == pytest.approx(1 / 2)           # distinct B, D
    assert up["cite_acc"] == pytest.approx(2 / 3)              # every item: B, B, D
    assert up["cite_sentiment"] == 0.0 and up["cite_sentiment_den"] == 3
    empty = score_task_upstream(t, [], env)
    assert empty["cite_acc"] == 0.0 and empty["cite_sentiment"] is None


def test_comention_macro_leaves_empty_answers_out(env):
    cocited = {"cocited": [B, E], "comentioned": None}
    rows_p, rows_u = [], []
    for papers in ([B], [B, D], []):
        p, u = both(task("pair", "cooccur", cocited, source=A), papers, env)
        rows_p.append(p)
        rows_u.append(u)
    assert aggregate(rows_p)["comention_acc"]["macro"] == pytest.approx(0.5)    # 1, .5, 0
    up = aggregate(rows_u)["comention_acc"]
    assert up["macro"] == pytest.approx(0.75) and up["n_null"] == 1           # 1, .5
    assert up["micro"] == pytest.approx(2 / 3)                                # 2 hits / 3


def test_comention_upstream_counts_the_query_paper_itself(env):
    """`task2-comention-acc.py` counts the query paper as co-cited with itself (it shares its
    own citers B, C, F); our default leaves it out (not co-mentioned with itself)."""
    assert A not in env.cocited(A)
    t = task("pair", "cooccur", {"cocited": [B, E], "comentioned": None}, source=A)
    paper, up = both(t, [A, B, D], env)
    assert paper["comention_acc"] == pytest.approx(1 / 3)      # B of A, B, D
    assert up["comention_acc"] == pytest.approx(2 / 3)         # A and B of A, B, D
    assert up["comention_acc_hits"] == 2
    # a query paper no graph paper cites shares no citer: not counted, upstream either
    lone = task("pair", "cooccur", {"cocited": [], "comentioned": None}, source=F)
    assert env.citers(F) == []
    assert both(lone, [F, D], env)[1]["comention_acc"] == 0.0


# ---- path: consistency over every item, connectivity of the top 5 without endpoints --------------
def test_connectivity_top_5_without_endpoints(env):
    t = task("path", "path", {"path": [A, B, C, D, E, F]}, classic=A, recent=F)
    paper, up = both(t, [C, B], env)
    assert paper["path_connectivity"] == 0.0      # A, B, C, F: F does not cite C
    assert up["path_connectivity"] == 1.0         # B then C (C cites B)
    assert both(t, [B], env)[1]["path_connectivity"] == 0.0          # one paper fails
    # the 6th item is not read upstream; the paper's rule sees a paper that is not in the graph
    paper, up = both(t, [B, C, D, E, F, "not a paper"], env)
    assert paper["path_connectivity"] == 0.0 and up["path_connectivity"] == 1.0
    assert up["path_consistency"] == pytest.approx(5 / 6)
    paper, up = both(t, [B, B, "x"], env)
    assert paper["path_consistency"] == pytest.approx(1 / 2)          # distinct B, "x"
    assert up["path_consistency"] == pytest.approx(2 / 3)
    empty = score_task_upstream(t, [], env)
    assert empty["path_consistency"] is None and empty["path_connectivity"] == 0.0


def test_missing_answer_is_left_out_upstream(env):
    t = task("pair", "pncites", {"citers": [B], "positive": None, "cocited": []}, source=A)
    paper, up = both(t, None, env)
    assert paper["cite_acc"] == 0.0 and paper["missing_answer"]
    assert up["cite_acc"] is None and up["missing_answer"]


# ---- upstream's answer items ---------------------------------------------------------------------
def test_upstream_answer_items_are_read(env, tmp_path):
    t = task("pair", "pncites", {"citers": [B, C, F], "positive": None, "cocited": []},
             source=A)
    path = tmp_path / "answers.jsonl"
    path.write_text(json.dumps({"task_id": t.task_id, "papers": [
        {"id": "https://openalex.org/W1", "title": "Convolutional networks for images"},  # B
        None,
        {"id": C, "title": "whatever it says"},
        {"id": "https://openalex.org/W2", "title": "Not in the graph"}]}) + "\n")
    answer = read_answer_file(path)[t.task_id]
    fields = record_fields("pair", answer, env)
    assert fields["papers"] == [B, C, "Not in the graph"]
    assert fields["info"]["null_items"] == 1 and fields["info"]["unresolved"] == 1
    rows = score_rows([t], {t.task_id: (fields["papers"], "scored")}, {}, env, "upstream")
    assert rows[0]["cite_acc"] == pytest.approx(2 / 3)


def _upstream_fields(env, t, items, tmp_path):
    path = tmp_path / "answers.jsonl"
    path.write_text(json.dumps({"task_id": t.task_id, "papers": items}) + "\n")
    return record_fields(t.family, read_answer_file(path)[t.task_id], env)


def test_idless_path_items_are_dropped_upstream(env, tmp_path):
    """`task3-path-connectivity.py` drops `{"id": null, …}` items before scoring: [B, ?, C]
    is [B, C] there (consistency 2/2; C cites B: connected); our rules keep the title (a miss
    in the denominator, and a paper not in the graph breaks the chain)."""
    t = task("path", "path", {"path": [A, B, C, D, E, F]}, classic=A, recent=F)
    fields = _upstream_fields(env, t, [{"id": B, "title": "x"},
                                       {"id": None, "title": "A survey nobody wrote"},
                                       {"id": C, "title": "y"}], tmp_path)
    assert fields["papers"] == [B, "A survey nobody wrote", C]
    assert fields["info"]["idless_items"] == [1]
    answers = {t.task_id: (fields["papers"], "scored")}
    records = {t.task_id: fields}
    up = score_rows([t], answers, records, env, "upstream")[0]
    assert up["path_consistency"] == 1.0 and up["path_connectivity"] == 1.0
    assert up["returned"] == 2
    paper = score_rows([t], answers, records, env)[0]
    assert paper["path_consistency"] == pytest.approx(2 / 3)
    assert paper["path_connectivity"] == 0.0
    # an id-less item whose title names a graph paper: a hit by our rules, dropped upstream
    fields = _upstream_fields(env, t, [{"id": None, "title": "Attention models"},
                                       {"id": B, "title": "x"}], tmp_path)
    assert fields["papers"] == [D, B]
    up = score_rows([t], {t.task_id: (fields["papers"], "scored")}, {t.task_id: fields}, env,
                    "upstream")[0]
    assert up["path_consistency"] == 1.0 and up["path_connectivity"] == 0.0   # B alone
    # without the recorded positions (our family schema's answers) nothing is dropped
    up = score_rows([t], {t.task_id: ([B, "A survey nobody wrote", C], "scored")}, {}, env,
                    "upstream")[0]
    assert up["path_consistency"] == pytest.approx(2 / 3)


def test_idless_items_dropped_after_the_sos_cut_upstream(measured, tmp_path):
    """The SoS scripts cut to 5 first, then drop items without an id: [C, C, C, C, ?F, D]
    -> C four times (mean raw -2; D, the 6th, is never read). Dropping first would read D
    (mean -1.6); keeping the title would read F (mean -1). [?B, D] -> D alone (0) upstream,
    B and D (-1) when the title is kept."""
    t = task("ego", "novel", {"measure": "novelty", "ranked": [A]})
    items = [{"id": C, "title": "t"}] * 4 + [{"id": None, "title": "Pretrained language models"},
                                             {"id": D, "title": "t"}]
    fields = _upstream_fields(measured, t, items, tmp_path)
    assert fields["info"]["idless_items"] == [4]
    up = score_rows([t], {t.task_id: (fields["papers"], "scored")}, {t.task_id: fields},
                    measured, "upstream")[0]
    assert up["novelty_sos_raw"] == -2.0 and up["sos_scorable"] == 4
    kept = score_task_upstream(t, fields["papers"], measured)     # no positions: title kept
    assert kept["novelty_sos_raw"] == pytest.approx(-1.0)
    fields = _upstream_fields(measured, t, [{"id": None, "title": "Convolutional networks for "
                                             "images"}, {"id": D, "title": "t"}], tmp_path)
    rec = {t.task_id: fields}
    ans = {t.task_id: (fields["papers"], "scored")}
    assert score_rows([t], ans, rec, measured, "upstream")[0]["novelty_sos_raw"] == 0.0
    assert score_task_upstream(t, fields["papers"], measured)["novelty_sos_raw"] == -1.0


def test_variant_names_and_summary_keys(env):
    t = task("pair", "pncites", {"citers": [B], "positive": None, "cocited": []}, source=A)
    rows = score_rows([t], {t.task_id: ([B, B, D], "scored")}, {}, env, "upstream")
    s = summarise(rows, "upstream")
    assert s["variant"] == "upstream" and "cite_acc(upstream=1)" in s["metrics"]
    assert s["metrics"]["cite_acc(upstream=1)"]["mean"] == pytest.approx(2 / 3)
    assert "cite_acc" in summarise(score_rows([t], {t.task_id: ([B], "scored")}, {}, env),
                                   "paper")["metrics"]
    with pytest.raises(ScholarbenchError, match="variant"):
        score_rows([t], {}, {}, env, "scinet")


# ---- the judge under upstream's rules: the first 5 items, an empty answer left out ---------------
def test_upstream_judge_reads_the_first_5_items(env, tmp_path):
    from test_scinet_llm import by_title, client, ego
    from fake_openai import FakeOpenAI
    from scinet_judging import judged
    server = FakeOpenAI().start()
    try:
        server.default = by_title

        def judge(papers, options, out):
            return judged(env, client(server), ego(), papers, tmp_path / out, options)
        upstream = {"variant": "upstream"}
        row = judge(["x1", "x2", "x3", "x4", A, B], upstream, "up")   # A, B are items 5, 6
        assert row["novelty_llm"] == 1 and row["novelty_llm_judged"] == 1      # A only
        assert judge([], upstream, "up")["novelty_llm"] is None
        assert judge(["x1", "x2", "x3", "x4", A, B], {}, "paper")["novelty_llm"] == 2
        assert judge([], {}, "paper")["novelty_llm"] == 0.0
    finally:
        server.stop()


# ---- the command line --------------------------------------------------------------------------
def test_score_scinet_files_variant_upstream(tmp_path, capsys):
    from test_scinet_engine import SETTINGS
    from scinet_files import write_tiny_graph
    from scholarbench.benchmarks.scinet.env import EnvSettings, SciNetEnv
    from scholarbench.benchmarks.scinet.records import write_tasks
    from scholarbench.benchmarks.scinet.tasks import build_tasks
    from scholarbench.cli import main
    graph, unarxive = write_tiny_graph(tmp_path)
    tenv = SciNetEnv.from_arxiv2023(graph, unarxive, EnvSettings(randomisations=3))
    tasks = tmp_path / "tasks.jsonl"
    built = build_tasks(tenv, settings=SETTINGS)
    write_tasks(built, tasks)
    pn = next(t for t in built if t.kind == "pncites" and t.source == A)
    answers = tmp_path / "a.jsonl"
    answers.write_text(json.dumps({"task_id": pn.task_id, "papers": [B, B, D]}) + "\n")
    out = {}
    for variant in ("paper", "upstream"):
        s = tmp_path / f"{variant}.jsonl"
        assert main(["score", "scinet", "--tasks", str(tasks), "--answers", str(answers),
                     "--out", str(s), "--graph", str(graph), "--unarxive", str(unarxive),
                     "--variant", variant]) == 0
        out[variant] = json.loads(s.with_suffix(".summary.json").read_text())
        row = next(json.loads(x) for x in s.read_text().splitlines()
                   if json.loads(x)["task_id"] == pn.task_id)
        out[variant]["row"] = row["cite_acc"]
    printed = capsys.readouterr().out
    assert "Evaluation/ @ ed5c76f" in printed
    assert out["paper"]["row"] == pytest.approx(1 / 2)
    assert out["upstream"]["row"] == pytest.approx(2 / 3)
    # unanswered tasks: scored 0 by the paper's rules, left out by upstream's
    up = out["upstream"]["metrics"]["cite_acc(upstream=1)"]
    assert up["mean"] == pytest.approx(2 / 3) and up["n"] == 1
    assert out["paper"]["metrics"]["cite_acc"]["n"] > 1
    assert "cite_acc" not in out["upstream"]["metrics"]
    assert out["upstream"]["variant"] == "upstream"


def test_env_novelty_variants_are_settings():
    """EnvSettings(novelty_rule, novelty_pairing) reach the measure and the recorded settings
    (only when chosen: task files built before keep their checksum)."""
    from scholarbench.benchmarks.scinet.env import EnvSettings, SciNetEnv
    from scholarbench.graph import novelty
    rng = np.random.default_rng(3)
    papers = [{"id": f"p{i}", "title": f"t{i}", "year": 2020, "venue": f"v{i % 4}"}
              for i in range(30)]
    edges = [(f"p{a}", f"p{b}") for a, b in zip(rng.integers(0, 30, 400),
                                                 rng.integers(0, 30, 400)) if a != b]
    base = SciNetEnv.from_tables(papers, edges, settings=EnvSettings(randomisations=4))
    assert "novelty_rule" not in base.settings.as_dict()
    s = EnvSettings(randomisations=4, novelty_rule="linear", novelty_pairing="paper")
    e = SciNetEnv.from_tables(papers, edges, settings=s)
    assert s.as_dict()["novelty_rule"] == "linear" and s.as_dict()["novelty_pairing"] == "paper"
    expected = novelty(e.graph, randomisations=4, seed=0, percentile_rule="linear",
                       pairing="paper").values
    assert np.isfinite(expected).sum() > 10
    np.testing.assert_array_equal(e.novelty_values, expected)
    assert not np.allclose(expected, base.novelty_values, equal_nan=True)


def test_sentiment_paragraph_window():
    """SciNet's task2-sentiment-context-acc.py reads the whole paragraph: "Prior work [x]
    studied graphs." alone is Neutral; its paragraph "… We build on it." is Positive."""
    from scholarbench.benchmarks.scinet.contexts import store_from_records
    from scholarbench.benchmarks.scinet.env import EnvSettings, SciNetEnv
    from test_scinet_core import EDGES, PAPERS
    from scholarbench.benchmarks.scinet.tasks import BuildSettings, build_tasks, positive_citers
    para = "Prior work {{cite:x}} studied graphs. We build on it for images."
    ctx = store_from_records([{"citing": C, "cited": A, "text": "Prior work {{cite:x}} studied "
                               "graphs.", "paragraph": para}], [])
    e = SciNetEnv.from_tables(PAPERS, EDGES, ctx, EnvSettings(randomisations=3))
    assert positive_citers(e, A) == ([], [C])
    assert positive_citers(e, A, "paragraph") == ([C], [C])
    s = BuildSettings(min_papers=2, n_pair=1, min_citers=1, sentiment_window="paragraph")
    t = next(t for t in build_tasks(e, "pair", s) if t.kind == "pncites")
    assert t.gold["positive"] == [C] and t.info["sentiment_window"] == "paragraph"
    assert t.info["settings"]["sentiment_window"] == "paragraph"
    d = next(t for t in build_tasks(e, "pair", BuildSettings(min_papers=2, n_pair=1,
                                                            min_citers=1)) if t.kind == "pncites")
    assert d.gold["positive"] == [] and "sentiment_window" not in d.info["settings"]


# ---- SciNet's judge prompts verbatim (`--judge-prompt upstream`) ---------------------------------
# sha256 prefixes of the system prompts of task1-novelty-llm.py, task1-disruptive-llm.py and
# task3-path-llm.py @ ed5c76f, as upstream's `_create_prompt` builds them (checked against
# upstream's own code when the files were made)
UPSTREAM_SYSTEM_SHA = {"novelty_llm": "443f23b067242fcd", "disruption_llm": "f537842a18286af7",
                       "path_rationality_llm": "e9b1a083f426f44b"}


def test_upstream_judge_prompts_render_as_upstream(env):
    import hashlib
    from scholarbench.benchmarks.scinet.judge import JudgePrompts
    from scholarbench.benchmarks.scinet.records import SciNetTask
    j = JudgePrompts("upstream")
    for metric, sha in UPSTREAM_SYSTEM_SHA.items():
        text = j.systems[metric].text
        assert hashlib.sha256(text.encode()).hexdigest()[:16] == sha
    msgs = j.messages("novelty_llm", j.paper_text("novelty_llm", C, env))
    assert [m["role"] for m in msgs] == ["system", "user"]
    assert msgs[0]["content"].startswith("You are an expert academic reviewer. Your task is to "
                                         "evaluate a scientific paper on its Novelty.\n\n")
    assert msgs[1]["content"] == (
        "Please evaluate the Novelty of the following paper based on the definition provided."
        "\n\n**Title**: Residual networks\n\n**Abstract**: [No abstract provided. Please "
        "evaluate based on the title alone.]\n\nYour response MUST be a single JSON object with "
        "'score' (an integer from 0 to 10) and 'reasoning' (a brief explanation).")
    t = SciNetTask("path/x", "path", "path", "Q?", classic=A, recent=D, gold=None)
    user = j.messages("path_rationality_llm", j.path_text(t, [A, "x y"], env))[1]["content"]
    assert user == (
        "Please evaluate the following citation path based on the detailed criteria provided."
        "\n\n**Original Request**: Q?\n\n--- Proposed Citation Path ---\n### Paper 1:\n"
        "**Title**: Deep learning foundations\n**Abstract**: \n\n### Paper 2:\n**Title**: x y\n"
        "**Abstract**: [Details not found in DB]\n\n------------------------------\n\nYour "
        "response MUST be a single JSON object with 'score' (an integer from 0 to 10) and "
        "'reasoning' (a detailed explanation for your score, critiquing the path based on the "
        "four key principles).")
    assert j.prompt_id("novelty_llm").startswith("novelty_judge_upstream_system@")


def test_upstream_judge_prompts_sent_with_temperature_0_2(env, tmp_path):
    from test_scinet_llm import client, ego, reply
    from fake_openai import FakeOpenAI
    from scinet_judging import judged
    server = FakeOpenAI().start()
    try:
        server.default = lambda body: reply(7)
        assert judged(env, client(server), ego(), [A], tmp_path / "up",
                      {"judge_prompt": "upstream"})["novelty_llm"] == 7
        body = server.requests[-1]
        assert body["temperature"] == 0.2
        assert [m["role"] for m in body["messages"]] == ["system", "user"]
        judged(env, client(server), ego(), [B], tmp_path / "ours")
        assert [m["role"] for m in server.requests[-1]["messages"]] == ["user"]
    finally:
        server.stop()


# ---- ego gold: tie rule, tie counts, seed stability, averaged seeds ------------------------------
def test_tie_rule_does_not_depend_on_id_order():
    from scholarbench.benchmarks.scinet.gold import rank, tie_stats
    vals = np.array([1.0, 1.0, 0.0, 1.0])
    # ascending (novelty): the 0.0 first; the three tied at 1.0 by citations (7, 3, 5)
    assert rank(["b", "a", "c", "d"], vals, False, citations=[7, 3, 0, 5]) == [2, 0, 3, 1]
    assert rank(["z", "y", "x", "w"], vals, False, citations=[7, 3, 0, 5]) == [2, 0, 3, 1]
    assert rank(["b", "a", "c", "d"], vals, False, ties="id") == [2, 1, 0, 3]
    # equal citations too: a seeded hash of the id decides, the same for any id order
    r1 = rank(["p", "q"], np.array([1.0, 1.0]), True, citations=[2, 2])
    r2 = rank(["q", "p"], np.array([1.0, 1.0]), True, citations=[2, 2])
    assert [["p", "q"][i] for i in r1] == [["q", "p"][i] for i in r2]
    # top 2 of {0, 1, 1, 1}: the cut falls inside the tie at 1 (3 tied, 1 kept)
    assert tie_stats(vals, [2, 0, 3, 1], 2) == {"distinct_values": 2, "tied_at_cut": 3,
                                                "tied_in_gold": 1, "cut_in_tie": True}
    assert tie_stats(vals, [2, 0, 3, 1], 4)["cut_in_tie"] is False
    with pytest.raises(ValueError, match="tie rule"):
        rank(["a"], np.array([1.0]), True, ties="random")


def _random_env(settings=None):
    from scholarbench.benchmarks.scinet.env import EnvSettings, SciNetEnv
    rng = np.random.default_rng(5)
    papers = [{"id": f"arxiv:1{i:03d}.00001", "title": f"t{i}", "year": 2020 + i % 3,
               "venue": "cs.LG" if i % 2 else f"v{i % 5}"} for i in range(40)]
    edges = [(papers[a]["id"], papers[b]["id"]) for a, b in
             zip(rng.integers(0, 40, 500), rng.integers(0, 40, 500)) if a != b]
    return SciNetEnv.from_tables(papers, edges, settings=settings or EnvSettings(randomisations=4))


def test_ego_gold_reports_ties_and_seed_stability(capsys):
    from scholarbench.benchmarks.scinet.gold import format_ties
    from scholarbench.benchmarks.scinet.tasks import BuildSettings, build_tasks
    env = _random_env()
    s = BuildSettings(min_papers=5, k_gold=5, stability_seeds=(0, 7))
    ego = [t for t in build_tasks(env, "ego", s) if t.kind == "novel"]
    assert ego
    for t in ego:
        ties = t.info["ties"]
        vals = t.gold["values"]
        assert ties["tied_in_gold"] == sum(1 for v in vals if v == vals[-1])
        stab = t.info["seed_stability"]
        assert stab["overlap"]["0"] == 1.0             # the task's own seed: the same list
        assert 0.0 <= stab["overlap"]["7"] <= 1.0
        assert t.info["settings"]["stability_seeds"] == [0, 7]
    line = format_ties(ego)
    assert line.startswith("ego gold: ") and "across seeds" in line


def test_novelty_averaged_over_seeds():
    from scholarbench.benchmarks.scinet.env import EnvSettings
    from scholarbench.graph import novelty
    env = _random_env(EnvSettings(randomisations=4, novelty_seeds=2))
    a = novelty(env.graph, randomisations=4, seed=0).values
    b = novelty(env.graph, randomisations=4, seed=1).values
    both_ok = np.isfinite(a) & np.isfinite(b)
    assert both_ok.sum() > 5
    np.testing.assert_allclose(env.novelty_values[both_ok], (a[both_ok] + b[both_ok]) / 2)
    only_a = np.isfinite(a) & ~np.isfinite(b)
    np.testing.assert_allclose(env.novelty_values[only_a], a[only_a])
    assert env.settings.as_dict()["novelty_seeds"] == 2


def test_run_with_variant_upstream_and_rescore_keep_it(tmp_path, capsys):
    from test_scinet_engine import SETTINGS
    from scinet_files import write_tiny_graph
    from scholarbench.benchmarks.scinet.env import EnvSettings, SciNetEnv
    from scholarbench.benchmarks.scinet.records import write_tasks
    from scholarbench.benchmarks.scinet.tasks import build_tasks
    from scholarbench.cli import main
    graph, unarxive = write_tiny_graph(tmp_path)
    tenv = SciNetEnv.from_arxiv2023(graph, unarxive, EnvSettings(randomisations=3))
    write_tasks(build_tasks(tenv, settings=SETTINGS), tmp_path / "t.jsonl")
    run = tmp_path / "r"
    assert main(["run", "scinet", "--task", "path", "--agent", "bm25", "--graph", str(graph),
                 "--unarxive", str(unarxive), "--tasks", str(tmp_path / "t.jsonl"), "--out",
                 str(run), "--quiet", "--variant", "upstream"]) == 0
    for _ in range(2):       # the run, then `score RUN_DIR`: the recorded rules are kept
        s = json.loads((run / "summary.json").read_text())
        assert s["variant"] == "upstream" and "path_connectivity(upstream=1)" in s["metrics"]
        assert main(["score", str(run)]) == 0
    assert "scoring rules: SciNet's released scripts" in capsys.readouterr().out
