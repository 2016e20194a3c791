"""`scholarbench build --benchmarks researcharena,scinet` on the shared deep-review survey, the
LaTeX test survey and a small Markdown survey: the files it writes are what `run` reads, `run`
and `score` complete on them with built-in agents, every task paper is a resolved cited work of
its survey, and the counts in the manifest and the review file add up. No LLM is used."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import shared_path
from scholarbench.builder import read_source
from scholarbench.builder.works import cited_works
from scholarbench.cli import main

LATEX = Path(__file__).parent / "data" / "reportbench" / "latex_survey"
# works of the deep-review bibliography that are arXiv papers of arxiv-2023 too, and one DOI
# that names no paper anywhere
SMALL = """---
title: "Attention and adversarial examples: a small survey"
---

# Introduction

Attention for translation [@arxiv:1409.0473] and for captions [@arxiv:1502.03044].

# Robustness

Adversarial examples [@arxiv:1312.6199]; visualising recurrent networks [@arxiv:1506.02078].
Generative models [@arxiv:1511.06434] and TensorFlow [@arxiv:1603.04467].
An unknown work [@doi:10.9999/not-a-paper-anywhere].
"""


@pytest.fixture(scope="module")
def sources(tmp_path_factory):
    small = tmp_path_factory.mktemp("small") / "small.md"
    small.write_text(SMALL, encoding="utf-8")
    return [shared_path("data", "survey_source_deep_review"), LATEX, small]


@pytest.fixture(scope="module")
def corpus_dir(sources, tmp_path_factory):
    """A corpus of the deep-review bibliography alone (about a second to build)."""
    from scholarbench.corpus.build import build_default_corpus
    root = tmp_path_factory.mktemp("src")
    (root / "survey_source_deep_review").symlink_to(sources[0])
    out = tmp_path_factory.mktemp("corpus")
    build_default_corpus(out, root)
    return out


@pytest.fixture(scope="module")
def graph():
    return (shared_path("data", "arxiv2023_citation_graph"),
            shared_path("data", "unarxive_sample"))


@pytest.fixture(scope="module")
def built(sources, corpus_dir, graph, tmp_path_factory):
    out = tmp_path_factory.mktemp("build")
    rc = main(["build", *map(str, sources), "--benchmarks", "researcharena,scinet",
               "--out", str(out), "--corpus", str(corpus_dir), "--graph", str(graph[0]),
               "--unarxive", str(graph[1])])
    assert rc == 0
    return out


def _counts(built: Path, bench: str) -> dict:
    return json.loads((built / "manifest.json").read_text())["benchmarks"][bench]["counts"]


# ---- ResearchArena ---------------------------------------------------------------------------

def test_researcharena_run_and_score_complete(built, corpus_dir, tmp_path, capsys):
    from scholarbench.benchmarks.researcharena.records import read_tasks
    tasks = built / "researcharena" / "survey.jsonl"
    for subtask, agent in (("discovery", "title-bm25"), ("selection", "citation-expand")):
        run = tmp_path / subtask
        assert main(["run", "researcharena", "--task", subtask, "--tasks-from", str(tasks),
                     "--corpus", str(corpus_dir), "--agent", agent, "--out", str(run),
                     "--data", str(tmp_path / "data")]) == 0, capsys.readouterr().err
        assert main(["score", str(run)]) == 0, capsys.readouterr().err
        scored = read_tasks(run / "tasks.jsonl")
        assert len(scored) == 2 and all(t.gold for t in scored)
        rows = [json.loads(x) for x in (run / "scores.jsonl").read_text().splitlines()]
        assert {r["id"] for r in rows} == {t.id for t in scored}


def test_researcharena_references_are_resolved_cited_works(built, sources, corpus_dir):
    from scholarbench.benchmarks.researcharena.tasks import load_survey_jsonl
    from scholarbench.corpus.store import Corpus
    corpus = Corpus.open(corpus_dir)
    lines = [json.loads(x) for x in
             (built / "researcharena" / "survey.jsonl").read_text().splitlines()]
    # the LaTeX survey cites nothing of this corpus: no task, said so in the review
    assert [x["title"] for x in lines] == [read_source(sources[0]).title,
                                          read_source(sources[2]).title]
    assert lines[0]["id"] == "doi:10.1098/rsif.2017.0387"     # the survey is in its corpus
    tasks = {t.id: t for t in load_survey_jsonl(built / "researcharena" / "survey.jsonl",
                                                corpus)}
    counts = _counts(built, "researcharena")
    for line, src in zip(lines, (sources[0], sources[2])):
        works, _ = cited_works(read_source(src).gt, corpus)
        refs = line["references"]["relevant"]
        assert line["references"]["influential"] == [] and len(set(refs)) == len(refs)
        assert set(refs) <= {w.paper_id for w in works if w.paper_id}
        task, c = tasks[line["id"]], counts[line["id"]]
        assert set(task.references) == set(refs)             # the run resolves every one
        assert c["cited_works"] == len(works) == c["resolved"] + c["duplicates"] + \
            c["unresolved"]
        assert c["resolved"] == len(refs) == c["searchable"] + sum(c["unsearchable"].values())
        assert c["searchable"] == len(task.gold)
    assert counts["doi:10.1098/rsif.2017.0387"]["unresolved"] == 19
    small = counts[lines[1]["id"]]
    assert (small["cited_works"], small["resolved"], small["unresolved"]) == (7, 6, 1)
    review = (built / "review.md").read_text()
    assert "`doi:10.9999/not-a-paper-anywhere`" in review
    assert "## ResearchArena `a-tiny-survey`: A tiny survey" in review
    assert "No task written: no cited work resolves in the corpus." in review


def test_researcharena_survey_date_is_the_cutoff(sources, corpus_dir, tmp_path):
    from scholarbench.benchmarks.researcharena.tasks import load_survey_jsonl
    from scholarbench.corpus.store import Corpus
    out = tmp_path / "o"
    assert main(["build", str(sources[2]), "--benchmarks", "researcharena", "--out", str(out),
                 "--corpus", str(corpus_dir), "--survey-date", "2016-01-01"]) == 0
    (line,) = [json.loads(x) for x in (out / "researcharena" / "survey.jsonl").read_text()
               .splitlines()]
    assert line["publicationDate"] == "2016-01-01"
    (task,) = load_survey_jsonl(out / "researcharena" / "survey.jsonl", Corpus.open(corpus_dir))
    assert task.cutoff.isoformat() == "2016-01-01"
    # the corpus dates these three (their latest arXiv versions) in 2016
    assert sorted(p for p, r in task.unsearchable.items() if r == "not_before_cutoff") == \
        ["arxiv:1409.0473", "arxiv:1502.03044", "arxiv:1603.04467"]
    c = _counts(out, "researcharena")[line["id"]]
    assert c["unsearchable"]["not_before_cutoff"] == 3 and c["searchable"] == 3


def test_researcharena_needs_a_corpus(sources, tmp_path, capsys):
    assert main(["build", str(sources[2]), "--benchmarks", "researcharena", "--out",
                 str(tmp_path / "o"), "--no-corpus"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "researcharena" in err and "--corpus" in err


# ---- SciNet ------------------------------------------------------------------------------------

def test_scinet_run_and_score_complete(built, graph, tmp_path, capsys):
    from scholarbench.benchmarks.scinet.records import read_tasks
    tasks = built / "scinet" / "tasks.jsonl"
    for subtask, agent in (("pair", "relation-aware"), ("path", "bm25")):
        run = tmp_path / f"{subtask}-{agent}"
        assert main(["run", "scinet", "--task", subtask, "--tasks", str(tasks), "--graph",
                     str(graph[0]), "--unarxive", str(graph[1]), "--agent", agent,
                     "--out", str(run), "--data", str(tmp_path / "data")]) == 0, \
            capsys.readouterr().err
        assert main(["score", str(run)]) == 0, capsys.readouterr().err
        rows = [json.loads(x) for x in (run / "scores.jsonl").read_text().splitlines()]
        assert {r["task_id"] for r in rows} == {t.task_id for t in read_tasks(tasks)
                                                if t.family == subtask}
        assert rows and all(r["status"] == "scored" for r in rows)


def test_scinet_task_papers_are_resolved_cited_works(built, sources, graph):
    from scholarbench.benchmarks.scinet.env import SciNetEnv
    from scholarbench.benchmarks.scinet.metrics import connected_chain
    from scholarbench.benchmarks.scinet.records import read_tasks
    from scholarbench.builder.scinet import graph_papers
    env = SciNetEnv.from_arxiv2023(*graph)
    tasks = read_tasks(built / "scinet" / "tasks.jsonl")
    counts = _counts(built, "scinet")
    ids = list(counts)
    found = {}
    for iid, src in zip(ids, sources):
        works, _ = cited_works(read_source(src).gt)
        papers, unresolved, duplicates = graph_papers(env, works)
        found[iid] = set(papers)
        c = counts[iid]
        assert c["cited_works"] == len(works) == c["resolved_in_graph"] + c["duplicates"] + \
            c["unresolved"]
        assert c["resolved_in_graph"] == len(papers)
        assert c["pair_tasks"] == 2 * c["pair_papers"]
        mine = [t for t in tasks if iid in t.info["surveys"]]
        assert sum(t.family == "pair" for t in mine) == c["pair_tasks"]
        assert sum(t.family == "path" for t in mine) == c["path_tasks"]
    assert counts[ids[0]]["resolved_in_graph"] == 80 and counts[ids[0]]["path_tasks"] > 0
    assert len({t.task_id for t in tasks}) == len(tasks)
    for t in tasks:
        assert t.family in ("pair", "path") and t.info["env"]["name"] == "arxiv-2023"
        cited = set().union(*(found[s] for s in t.info["surveys"]))
        if t.family == "pair":
            assert t.source in cited
            if t.kind == "pncites":
                assert t.gold["citers"] == sorted(env.citers(t.source))
        else:
            (survey,) = t.info["surveys"]
            assert t.task_id.startswith(f"path/{survey}/")
            assert t.classic in found[survey] and t.recent in found[survey]
            p = t.gold["path"]
            assert p[0] == t.classic and p[-1] == t.recent and 3 <= len(p) <= 6
            assert connected_chain(env, t.classic, t.recent, p[1:-1])
    review = (built / "review.md").read_text()
    assert "## SciNet `opportunities-and-obstacles-for-deep-learning-in-biology-and`" in review
    assert "= in the graph 80 + duplicates 0 + not in the graph 535" in review


def test_scinet_needs_a_graph(sources, tmp_path, capsys):
    assert main(["build", str(sources[2]), "--benchmarks", "scinet", "--out",
                 str(tmp_path / "o"), "--no-corpus", "--graph", str(tmp_path / "none")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no citation graph" in err


def test_scinet_on_a_hand_made_graph_build_run_score(tmp_path, capsys):
    """Without the shared data: a survey citing four papers of the hand-made graph (one by
    title) and a work outside it; the path task's ends are the survey's papers."""
    from scinet_files import write_tiny_graph
    from scholarbench.benchmarks.scinet.records import read_tasks
    graph, unarxive = write_tiny_graph(tmp_path / "g")
    md = tmp_path / "tiny.md"
    md.write_text("# Tiny lineage\n\n## Old\nFoundations [@arxiv:1001.00001], residual "
                  "[@arxiv:1201.00001].\n\n## New\nTransformers [@arxiv:1401.00001] and "
                  "pretraining [@arxiv:1501.00001]; elsewhere [@doi:10.9999/x].\n",
                  encoding="utf-8")
    out = tmp_path / "o"
    assert main(["build", str(md), "--benchmarks", "scinet", "--out", str(out), "--no-corpus",
                 "--graph", str(graph), "--unarxive", str(unarxive)]) == 0
    tasks = read_tasks(out / "scinet" / "tasks.jsonl")
    cited = {"arxiv:1001.00001", "arxiv:1201.00001", "arxiv:1401.00001", "arxiv:1501.00001"}
    assert tasks and all(t.family == "path" for t in tasks)    # no paper has 5 citers
    for t in tasks:
        assert t.task_id.startswith("path/tiny-lineage/") and t.field == "Tiny lineage"
        # recent: the last two years' papers (2014, 2015); classic: the others
        assert t.classic in {"arxiv:1001.00001", "arxiv:1201.00001"}
        assert t.recent in {"arxiv:1401.00001", "arxiv:1501.00001"}
        assert t.gold["path"][0] == t.classic and t.gold["path"][-1] == t.recent
    c = json.loads((out / "manifest.json").read_text())["benchmarks"]["scinet"]["counts"]
    assert c["tiny-lineage"] == {"cited_works": 5, "resolved_in_graph": 4, "duplicates": 0,
                                 "unresolved": 1, "pair_papers": 0, "pair_tasks": 0,
                                 "path_tasks": len(tasks)}
    assert {p for t in tasks for p in (t.classic, t.recent)} <= cited
    run = tmp_path / "run"
    assert main(["run", "scinet", "--task", "path", "--tasks", str(out / "scinet" /
                 "tasks.jsonl"), "--graph", str(graph), "--unarxive", str(unarxive), "--agent",
                 "relation-aware", "--out", str(run), "--data", str(tmp_path / "data")]) == 0, \
        capsys.readouterr().err
    assert main(["score", str(run)]) == 0
    rows = [json.loads(x) for x in (run / "scores.jsonl").read_text().splitlines()]
    assert {r["task_id"] for r in rows} == {t.task_id for t in tasks}
    assert all(r["status"] == "scored" for r in rows)
