"""ResearchArena on the engine, on the hand-made corpus: a user's plain function and a
family-schema replay file on every sub-task (REFs resolved offline and counted), an agent that
raises (exit 3, `error`, only it redone), a run killed mid-generate and resumed to the scores of
an uninterrupted run, `--agent endpoint` against a scripted OpenAI-compatible server, the task
prompts and fields, `corpus resolve`, `--measures`."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import FakeEmbedder, kill_after_lines
from fake_openai import FakeOpenAI, Step
from test_researcharena_fixtures import build_tiny
from scholarbench.benchmarks.researcharena import ResearchArena
from scholarbench.benchmarks.researcharena.runs import ArenaRunConfig, run
from scholarbench.cli import main

HERE = Path(__file__).parent
SRC = HERE.parent / "src"
S, T, U = "arxiv:2106.00100", "arxiv:2001.00200", "s2corpus:300"
A, B, C, G = "doi:10.1/a", "doi:10.1/b", "arxiv:2105.00003", "arxiv:1903.00007"
TOPIC_S = "Graph learning: a survey"
N_SURVEYS = 12


@pytest.fixture(scope="module")
def corpus_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("tiny-arena-engine")
    build_tiny(out)
    return out


@pytest.fixture(scope="module")
def surveys(tmp_path_factory):
    """Upstream survey.jsonl: N_SURVEYS surveys citing A, C and G (S2 ids 1, 3, 7), all
    searchable before 2021-06-15; survey 100 has a typology (organisation ground truth)."""
    path = tmp_path_factory.mktemp("arena-surveys") / "survey.jsonl"
    lines = []
    for i in range(N_SURVEYS):
        lines.append(json.dumps({
            "id": 100 + i, "title": f"Graph topic {i}: a survey", "publicationDate": "2021-06-15",
            "references": {"influential": [1], "relevant": [3, 7]},
            "typology": json.dumps({"Graph": {"Attention": None, "Contrastive": None}})
            if i == 0 else None}))
    path.write_text("\n".join(lines) + "\n")
    return path


def _lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines()]


def _by_id(path: Path) -> dict[str, dict]:
    return {r["id"]: r for r in _lines(path)}


@pytest.fixture
def no_entities(monkeypatch):
    import scholarbench.benchmarks.researcharena.measures.organisation as org

    class NoEntities:
        model_id = "none"

        def extract(self, texts):
            return [[] for _ in texts]
    monkeypatch.setattr(org, "default_entity_extractor", lambda: NoEntities())


# ---- a user's plain function and a family-schema replay file ---------------------------------

def test_a_plain_function_answers_with_refs_resolved_and_counted(tmp_path, corpus_dir):
    out = tmp_path / "run"
    summary = run(ArenaRunConfig("discovery", "arena_user_agent:solve", out, corpus_dir,
                                 progress=False))
    gen = _by_id(out / "generate.jsonl")
    # title → A, DOI → B (not searchable: not relevant), arXiv id with a version → C, the
    # unknown title keeps its rank as a placeholder, s2corpus:7 → G
    assert [pid for pid, _ in gen[S]["ranking"]] == [A, B, C, "unresolved:4", G]
    assert gen[S]["ranking"][2][1] == 0.5                       # the agent's own score kept
    assert gen[S]["info"] == {"agent_note": TOPIC_S, "refs": 5, "refs_unresolved": 1,
                              "unresolved_examples": ["A paper nobody wrote"]}
    assert gen[S].get("status", "ok") == "ok"
    rows = _by_id(out / "scores.jsonl")
    assert rows[S]["status"] == "scored" and rows[S]["R@10"] == 1.0 and rows[S]["RR"] == 1.0
    assert rows[S]["P@10"] == pytest.approx(0.3)
    assert rows[T]["status"] == "unscorable"
    assert summary["status"] == {"scored": 2, "unscorable": 1} and summary["complete"]
    assert summary["references_answered"] == {"refs": 10, "refs_unresolved": 2}
    # run.trec holds the resolved ids, so trec_eval on the run's files agrees
    assert "unresolved:4" in (out / "run.trec").read_text()


def test_a_family_schema_replay_file_on_every_subtask(tmp_path, corpus_dir, surveys,
                                                       no_entities):
    answers = tmp_path / "answers.jsonl"
    answers.write_text(json.dumps({"id": S, "papers": ["doi:10.1/a", "1903.00007"]}) + "\n"
                       + json.dumps({"id": U, "papers": [{"id": "nope"}]}) + "\n")
    summary = run(ArenaRunConfig("selection", "replay", tmp_path / "sel", corpus_dir,
                                 agent_params={"path": str(answers)}, progress=False))
    rows = _by_id(tmp_path / "sel" / "scores.jsonl")
    assert rows[S]["RR"] == 1.0 and rows[S]["n_retrieved"] == 2
    assert rows[U]["n_retrieved"] == 1 and rows[U]["RR"] == 0.0      # "nope" kept, unresolved
    assert summary["references_answered"] == {"refs": 3, "refs_unresolved": 1}

    maps = tmp_path / "maps.jsonl"
    maps.write_text(json.dumps({"id": "100", "taxonomy": {"name": "", "subtopics": [
        {"name": "Graph", "subtopics": [{"name": "Attention"}, {"name": "Contrastive"}],
         "papers": ["Graph attention networks", "No such paper"]}]}}) + "\n")
    summary = run(ArenaRunConfig("organisation", "replay", tmp_path / "org", corpus_dir,
                                 tasks_from=str(surveys), agent_params={"path": str(maps)},
                                 progress=False), FakeEmbedder())
    gen = _by_id(tmp_path / "org" / "generate.jsonl")
    assert gen["100"]["mindmap"] == {"name": "", "children": [{"name": "Graph", "children": [
        {"name": "Attention", "children": []}, {"name": "Contrastive", "children": []}]}]}
    assert gen["100"]["info"] == {"refs": 2, "refs_unresolved": 1,
                                  "unresolved_examples": ["No such paper"]}
    rows = _by_id(tmp_path / "org" / "scores.jsonl")
    assert rows["100"]["status"] == "scored" and rows["100"]["tree_semantic_distance"] == 0
    assert summary["n_unscorable"] == {"no_mindmap": N_SURVEYS - 1}


def test_a_plain_function_organises_the_references_it_is_given(tmp_path, corpus_dir, surveys,
                                                                no_entities):
    out = tmp_path / "org"
    summary = run(ArenaRunConfig("organisation", "arena_user_agent:organise", out, corpus_dir,
                                 tasks_from=str(surveys), progress=False), FakeEmbedder())
    gen = _by_id(out / "generate.jsonl")
    top = gen["100"]["mindmap"]["children"][0]
    assert top["name"] == "Graph topic 0: a survey"
    assert [c["name"] for c in top["children"]] == ["Attention", "Contrastive"]
    assert gen["100"]["info"] == {"refs": 4, "refs_unresolved": 1,
                                  "unresolved_examples": ["A paper nobody wrote"]}
    assert summary["status"] == {"scored": 1, "unscorable": N_SURVEYS - 1}


def test_a_malformed_family_answer_is_scored_empty_and_counted(tmp_path, corpus_dir):
    answers = tmp_path / "answers.jsonl"
    answers.write_text(json.dumps({"id": S, "paperz": [A]}) + "\n")
    summary = run(ArenaRunConfig("discovery", "replay", tmp_path / "run", corpus_dir,
                                 agent_params={"path": str(answers)}, progress=False))
    rows = _by_id(tmp_path / "run" / "scores.jsonl")
    assert rows[S]["status"] == "malformed" and "ranking answer, field papers" in rows[S]["error"]
    assert rows[S]["R@100"] == 0.0
    assert rows[U]["status"] == "missing" and rows[U]["R@100"] == 0.0
    assert summary["n_malformed"] == 1 and summary["n_missing"] == 1 and summary["complete"]


def test_an_upstream_trec_run_resolves_s2_ids_in_the_corpus(tmp_path, corpus_dir, surveys):
    trec = tmp_path / "upstream.trec"
    trec.write_text("100 Q0 1 1 3.0 bm25\n100 Q0 3 2 2.0 bm25\n100 Q0 999 3 1.0 bm25\n")
    run(ArenaRunConfig("discovery", "replay", tmp_path / "run", corpus_dir,
                       tasks_from=str(surveys), agent_params={"path": str(trec)},
                       progress=False))
    gen = _by_id(tmp_path / "run" / "generate.jsonl")
    assert [pid for pid, _ in gen["100"]["ranking"]] == [A, C, "999"]
    assert gen["100"]["info"]["refs_unresolved"] == 1
    assert _by_id(tmp_path / "run" / "scores.jsonl")["100"]["R@10"] == pytest.approx(2 / 3)


# ---- errors: exit 3, `error`, only the errored sample redone --------------------------------

def test_an_agent_raising_is_an_error_and_the_rerun_retries_only_it(tmp_path, corpus_dir,
                                                                    surveys, monkeypatch,
                                                                    capsys):
    out = tmp_path / "run"
    args = ["run", "researcharena", "--task", "discovery", "--agent", "arena_user_agent:solve",
            "--corpus", str(corpus_dir), "--tasks-from", str(surveys), "--out", str(out),
            "--quiet"]
    monkeypatch.setenv("ARENA_FAIL_ON", "103")
    assert main(args) == 3
    assert "1 sample(s) errored" in capsys.readouterr().err
    summary = json.loads((out / "summary.json").read_text())
    assert summary["status"] == {"scored": N_SURVEYS - 1, "error": 1}
    assert summary["complete"] is False and summary["n_error"] == 1
    assert summary["metrics"]["R@10"]["n"] == N_SURVEYS - 1             # not in the means
    rows = _by_id(out / "scores.jsonl")
    assert rows["103"]["status"] == "error" and rows["103"]["R@10"] is None
    assert "ConnectionError" in rows["103"]["error"]
    qrels = (out / "qrels.trec").read_text().splitlines()
    assert not [q for q in qrels if q.split()[0] == "103"]               # nor in qrels.trec
    monkeypatch.delenv("ARENA_FAIL_ON")
    assert main(args) == 0
    ids = [g["id"] for g in _lines(out / "generate.jsonl")]
    assert ids == [str(100 + i) for i in range(N_SURVEYS)] + ["103"]     # only 103 redone
    summary = json.loads((out / "summary.json").read_text())
    assert summary["status"] == {"scored": N_SURVEYS} and summary["complete"] is True


class Raises:
    """A built-in agent (the benchmark's own protocol) that raises on every sample."""
    name = "test-raises"
    tasks = ("discovery", "selection")
    needs_corpus = False
    needs_embedder = False

    def config(self):
        return {}

    def generate(self, query, ctx):
        raise RuntimeError(f"boom on {query.id}")


def test_a_built_in_agent_raising_is_an_error_too(tmp_path, corpus_dir):
    from scholarbench.core.registry import REGISTRY
    if REGISTRY.find("agent", "researcharena/test-raises") is None:
        REGISTRY.register("agent", "researcharena/test-raises")(Raises)
    summary = run(ArenaRunConfig("discovery", "test-raises", tmp_path / "run", corpus_dir,
                                 progress=False))
    assert summary["status"] == {"error": 2, "unscorable": 1} and not summary["complete"]
    gen = _by_id(tmp_path / "run" / "generate.jsonl")
    assert gen[S]["status"] == "error" and "RuntimeError: boom on" in gen[S]["error"]
    from scholarbench.errors import ScholarbenchError
    with pytest.raises(ScholarbenchError, match="replay"):       # a set-up error: no folder
        run(ArenaRunConfig("discovery", "replay", tmp_path / "other", corpus_dir,
                           agent_params={"path": str(tmp_path / "absent.trec")},
                           progress=False))
    assert not (tmp_path / "other").exists()


def test_a_dead_endpoint_makes_llm_agent_samples_errors(tmp_path, corpus_dir):
    from test_researcharena_llm_agents import client
    from scholarbench.llm.roles import LLMRoles
    fake = FakeOpenAI(default=Step(status=503)).start()
    try:
        summary = run(ArenaRunConfig("discovery", "zero-shot", tmp_path / "run", corpus_dir,
                                     progress=False,
                                     llm=LLMRoles(agent=client(fake, max_retries=0))))
    finally:
        fake.stop()
    assert summary["status"] == {"error": 2, "unscorable": 1} and not summary["complete"]
    assert summary["metrics"]["R@10"] == {"mean": None, "n": 0, "n_null": 0, "ci95": None}


# ---- kill mid-generate, resume: the scores of an uninterrupted run --------------------------

def _cli(args: list[str], tmp_path: Path, delay: float) -> subprocess.Popen:
    env = dict(os.environ, ARENA_DELAY=str(delay), SCHOLARBENCH_DATA=str(tmp_path / "data"))
    env["PYTHONPATH"] = os.pathsep.join([str(SRC), str(HERE), env.get("PYTHONPATH", "")])
    return subprocess.Popen([sys.executable, "-m", "scholarbench", *args], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def test_sigkill_mid_generate_resumes_to_the_same_scores(tmp_path, corpus_dir, surveys):
    def args(out: Path) -> list[str]:
        return ["run", "researcharena", "--task", "selection", "--agent",
                "arena_user_agent:solve", "--corpus", str(corpus_dir), "--tasks-from",
                str(surveys), "--out", str(out), "--quiet"]
    killed = tmp_path / "killed"
    proc = _cli(args(killed), tmp_path, 0.4)
    gen = killed / "generate.jsonl"
    done_before = kill_after_lines(proc, gen)
    assert 3 <= done_before < N_SURVEYS, "the kill must land mid-generate"
    assert not (killed / "scores.jsonl").exists()
    resumed = _cli(args(killed), tmp_path, 0)
    assert resumed.wait(timeout=300) == 0, resumed.stderr.read()
    ids = [json.loads(x)["id"] for x in gen.read_text().splitlines()]
    assert sorted(ids) == sorted(str(100 + i) for i in range(N_SURVEYS))   # each exactly once
    clean = tmp_path / "clean"
    uninterrupted = _cli(args(clean), tmp_path, 0)
    assert uninterrupted.wait(timeout=300) == 0, uninterrupted.stderr.read()
    assert _lines(killed / "scores.jsonl") == _lines(clean / "scores.jsonl")
    summary = json.loads((killed / "summary.json").read_text())
    assert summary == json.loads((clean / "summary.json").read_text())
    assert summary["complete"] and summary["status"] == {"scored": N_SURVEYS}


# ---- --agent endpoint: plain-text replies become scored answers -----------------------------

REPLY = ("Here are the papers I would cite:\n\n1. **Graph attention networks** (2020)\n"
         "2. \"Graph contrastive learning\", arXiv:2105.00003\n3. Something unrelated entirely\n")


def test_the_endpoint_agent_answers_from_plain_text(tmp_path, corpus_dir, capsys):
    fake = FakeOpenAI(default=Step(text=REPLY)).start()
    out = tmp_path / "run"
    try:
        code = main(["run", "researcharena", "--task", "discovery", "--agent", "endpoint",
                     "--model", "fake-model", "--base-url", fake.base_url, "--no-llm-cache",
                     "--corpus", str(corpus_dir), "--out", str(out), "--quiet",
                     "--max-samples", "1"])         # the script's replies are in sample order
    finally:
        fake.stop()
    assert code == 0, capsys.readouterr().err
    sent = [b["messages"][-1]["content"] for b in fake.requests]
    assert len(sent) == 2                                   # S and U; T is unscorable
    assert sent[0].startswith("Find academic papers that gather supporting materials for "
                              f"writing a survey paper on the following topic: {TOPIC_S}.")
    gen = _by_id(out / "generate.jsonl")
    assert [pid for pid, _ in gen[S]["ranking"]] == [A, C, "unresolved:3"]
    assert gen[S]["info"]["refs"] == 3 and gen[S]["info"]["refs_unresolved"] == 1
    rows = _by_id(out / "scores.jsonl")
    assert rows[S]["status"] == "scored" and rows[S]["RR"] == 1.0
    assert rows[S]["R@10"] == pytest.approx(2 / 3)          # A and C of the gold A, C, G
    summary = json.loads((out / "summary.json").read_text())
    assert summary["status"] == {"scored": 2, "unscorable": 1}
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["usage"]["generate"]["agent"]["calls"] == 2
    assert set(manifest["task_prompts"]) == {"discovery", "selection", "organisation"}


def test_the_endpoint_agent_builds_a_mind_map_from_headings(tmp_path, corpus_dir, surveys,
                                                           no_entities):
    from test_researcharena_llm_agents import client
    from scholarbench.llm.roles import LLMRoles
    reply = ("# Graph topic 0\n## Attention\n- Graph attention networks\n## Contrastive\n"
             "- Graph contrastive learning\n")
    fake = FakeOpenAI(default=Step(text=reply)).start()
    try:
        summary = run(ArenaRunConfig("organisation", "endpoint", tmp_path / "org", corpus_dir,
                                     tasks_from=str(surveys), progress=False,
                                     llm=LLMRoles(agent=client(fake))), FakeEmbedder())
    finally:
        fake.stop()
    prompt = fake.requests[0]["messages"][-1]["content"]
    assert prompt.startswith("Provided a topic, your task is to construct a mind-map style "
                             "typology that presents a systematic understanding of the topic.")
    assert prompt.endswith("1. Graph convolution for recommendation\n2. Graph contrastive "
                           "learning\n3. Graph attention networks")
    gen = _by_id(tmp_path / "org" / "generate.jsonl")
    top = gen["100"]["mindmap"]["children"][0]
    assert top["name"] == "Graph topic 0"
    assert [c["name"] for c in top["children"]] == ["Attention", "Contrastive"]
    assert gen["100"]["info"]["refs"] == 2 and gen["100"]["info"]["refs_unresolved"] == 0
    rows = _by_id(tmp_path / "org" / "scores.jsonl")
    assert rows["100"]["status"] == "scored" and rows["100"]["tree_semantic_distance"] >= 0
    assert summary["complete"]


# ---- what an agent sees ---------------------------------------------------------------------

def _bench(corpus_dir: Path, **options) -> ResearchArena:
    bench = ResearchArena({"corpus": str(corpus_dir), **options})
    bench.discover_data = False
    return bench


def test_task_prompts_and_fields(corpus_dir, surveys):
    loaded = _bench(corpus_dir).load("discovery", None)
    task = next(s.task for s in loaded.samples if s.id == S)
    assert task.family == "ranking" and task.subtask == "discovery"
    assert task.fields == {"topic": TOPIC_S, "cutoff": "2021-06-15", "survey_title": TOPIC_S,
                           "survey_id": S, "k": 100}
    assert task.prompt == (
        "Find academic papers that gather supporting materials for writing a survey paper on "
        f"the following topic: {TOPIC_S}.\n\nOnly papers that are not surveys and were "
        f"published before 2021-06-15 count, and not the survey \"{TOPIC_S}\" itself.\n"
        "List up to 100 papers, the most relevant first.")
    nocut = next(s.task for s in loaded.samples if s.id == U)
    assert nocut.fields["cutoff"] is None and "published before" not in nocut.prompt
    selection = _bench(corpus_dir).load("selection", 1).samples[0].task
    assert "the most influential first" in selection.prompt
    org = _bench(corpus_dir, tasks_from=str(surveys)).load("organisation", 1).samples[0]
    assert org.task.family == "taxonomy"
    assert org.task.fields["references"] == [
        {"id": G, "title": "Graph convolution for recommendation"},
        {"id": C, "title": "Graph contrastive learning"},
        {"id": A, "title": "Graph attention networks"}]
    assert org.task.prompt.endswith("Topic: Graph topic 0: a survey\n\nThe papers to organise "
                                    "(the references of a survey on this topic):\n"
                                    "1. Graph convolution for recommendation\n"
                                    "2. Graph contrastive learning\n3. Graph attention networks")
    assert org.task.native.references == (G, C, A)
    assert "references" not in json.dumps(loaded.samples[0].task.as_json())


# ---- corpus resolve, --measures ----------------------------------------------------------------

def test_corpus_resolve_prints_one_line_per_reference(tmp_path, corpus_dir, capsys):
    refs = ["Graph attention networks", "doi:10.1/b", "arXiv:2105.00003v2",
            "CorpusId:7", "Graph attention networks (2020)", "Nothing at all"]
    assert main(["corpus", "resolve", "--corpus", str(corpus_dir), *refs]) == 0
    captured = capsys.readouterr()
    assert captured.out.splitlines() == [
        "Graph attention networks\tdoi:10.1/a", "doi:10.1/b\tdoi:10.1/b",
        "arXiv:2105.00003v2\tarxiv:2105.00003", "CorpusId:7\tarxiv:1903.00007",
        "Graph attention networks (2020)\tdoi:10.1/a", "Nothing at all\t-"]
    assert "1 reference(s) did not resolve" in captured.err
    listed = tmp_path / "refs.txt"
    listed.write_text("doi:10.1/h\n\n  Graph kernels: a survey  \n")
    assert main(["corpus", "resolve", "--corpus", str(corpus_dir), "--file", str(listed)]) == 0
    assert capsys.readouterr().out.splitlines() == ["doi:10.1/h\tdoi:10.1/h",
                                                    f"Graph kernels: a survey\t{T}"]
    assert main(["corpus", "resolve", "--corpus", str(tmp_path), "x"]) == 2
    assert "no corpus at" in capsys.readouterr().err
    assert main(["corpus", "resolve", "--corpus", str(corpus_dir)]) == 2


def test_score_files_take_any_ir_measures_names(tmp_path, capsys):
    (tmp_path / "q.trec").write_text("q1 0 a 2\nq1 0 b 1\nq2 0 c 1\n")
    (tmp_path / "r.trec").write_text("q1 Q0 b 1 2.0 s\nq1 Q0 a 2 1.0 s\nq2 Q0 x 1 1.0 s\n")
    out = tmp_path / "s.jsonl"
    args = ["score", "researcharena", "--qrels", str(tmp_path / "q.trec"), "--run",
            str(tmp_path / "r.trec"), "--out", str(out)]
    assert main(args + ["--measures", "P@20 R@1000, nDCG@20"]) == 0
    rows = _lines(out)
    assert [r["measure"] for r in rows[:3]] == ["P@20", "R@1000", "nDCG@20"] and len(rows) == 6
    assert "P@20" in capsys.readouterr().out
    assert main(args + ["--measures", "P@20 Bogus@3"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --measures:") and "Bogus@3" in err
    assert len(err.strip().splitlines()) == 1


def test_run_measures_are_scored_besides_the_papers(tmp_path, corpus_dir, capsys):
    out = tmp_path / "run"
    base = ["run", "researcharena", "--task", "discovery", "--agent", "title-bm25", "--corpus",
            str(corpus_dir), "--quiet", "--out"]
    assert main(base + [str(tmp_path / "bad"), "--measures", "Nope@1"]) == 2
    assert not (tmp_path / "bad").exists()
    assert main(base + [str(out), "--measures", "P@5"]) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert list(summary["metrics"])[-1] == "P@5" and "R@10" in summary["metrics"]
    assert _by_id(out / "scores.jsonl")[S]["P@5"] == pytest.approx(0.6)
    assert main(["score", str(out)]) == 0                    # re-scored with the same measures
    assert "P@5" in json.loads((out / "summary.json").read_text())["metrics"]


def test_replay_files_are_read_up_front_and_bad_entries_are_malformed(tmp_path, corpus_dir,
                                                                      surveys, no_entities):
    from scholarbench.errors import ScholarbenchError
    trec = tmp_path / "run.trec"
    trec.write_text("100 Q0 1 1 1.0 x\n")
    with pytest.raises(ScholarbenchError, match="TREC run; organisation replays JSON lines"):
        run(ArenaRunConfig("organisation", "replay", tmp_path / "a", corpus_dir,
                           tasks_from=str(surveys), agent_params={"path": str(trec)},
                           progress=False), FakeEmbedder())
    broken = tmp_path / "broken.trec"
    broken.write_text("100 Q0 1 1 high x\n")
    with pytest.raises(ScholarbenchError, match="line 1"):
        run(ArenaRunConfig("discovery", "replay", tmp_path / "b", corpus_dir,
                           tasks_from=str(surveys), agent_params={"path": str(broken)},
                           progress=False))
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()
    maps = tmp_path / "maps.jsonl"
    maps.write_text(json.dumps({"id": "100", "typology": json.dumps({"Graph": 3})}) + "\n")
    summary = run(ArenaRunConfig("organisation", "replay", tmp_path / "c", corpus_dir,
                                 tasks_from=str(surveys), agent_params={"path": str(maps)},
                                 progress=False), FakeEmbedder())
    rows = _by_id(tmp_path / "c" / "scores.jsonl")
    assert rows["100"]["status"] == "malformed" and "typology" in rows["100"]["error"]
    assert rows["100"]["heading_soft_recall"] == 0.0 and summary["complete"]


def test_eval_gives_organisation_its_taxobench_gold_when_imported(tmp_path):
    """`eval` takes organisation tasks from the imported TaxoBench instances (the mind-maps are
    the gold; rebuilt surveys have none), unless the user chose a task source."""
    data = tmp_path / "data"
    bench = ResearchArena({"data": str(data)})
    assert bench.eval_defaults().options("organisation", {}) == {}       # nothing imported
    assert "tasks_from=taxobench" in bench.eval_defaults().hint("organisation")
    folder = data / "taxobench"
    folder.mkdir(parents=True)
    (folder / "instances.jsonl").write_text(json.dumps({"id": "1", "gt": {}}) + "\n")
    assert bench.eval_defaults().options("organisation", {}) == {"tasks_from": "taxobench"}
    assert bench.eval_defaults().options("discovery", {}) == {}
    assert bench.eval_defaults().options("organisation", {"tasks_from": "corpus"}) == {}


def test_heading_entity_recall_carries_its_ner_model_and_caveat_everywhere(
        tmp_path, corpus_dir, surveys, monkeypatch):
    """HER is printed with the NER model the rows record and the FLAIR caveat: in
    summary.json (`ner_model`, `measure_notes`), the terminal summary, eval.json's entry and
    the eval table (issue 35)."""
    import scholarbench.benchmarks.researcharena.measures.organisation as org
    from scholarbench.benchmarks.researcharena.scoring import format_summary
    from scholarbench.core.suite import format_table, run_entry

    class Tagger:
        model_id = "hand-tagger 1.0"

        def extract(self, texts):
            return [[t] for t in texts]          # each heading is its own entity
    monkeypatch.setattr(org, "default_entity_extractor", lambda: Tagger())
    out = tmp_path / "org"
    summary = run(ArenaRunConfig("organisation", "arena_user_agent:organise", out, corpus_dir,
                                 tasks_from=str(surveys), progress=False), FakeEmbedder())
    assert summary["ner_model"] == "hand-tagger 1.0"
    note = summary["measure_notes"]["heading_entity_recall"]
    assert note.startswith("NER hand-tagger 1.0; ") and "FLAIR" in note
    assert json.loads((out / "summary.json").read_text())["measure_notes"] == {
        "heading_entity_recall": note}
    line = next(x for x in format_summary(summary).splitlines()
                if "heading_entity_recall" in x)
    assert line.endswith(f"({note})")
    soft = next(x for x in format_summary(summary).splitlines() if "heading_soft_recall" in x)
    assert "NER" not in soft
    entry = run_entry(ResearchArena({"tasks_from": str(surveys)}), "organisation", out)
    assert entry["measure_notes"] == {"heading_entity_recall": note}
    assert f"researcharena organisation: heading_entity_recall: {note}" in format_table([entry])
    # ranking runs have no such note
    assert "measure_notes" not in run(ArenaRunConfig("discovery", "arena_user_agent:solve",
                                                     tmp_path / "d", corpus_dir,
                                                     progress=False))
