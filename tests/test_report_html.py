"""The HTML report: leaderboard numbers, published rows, escaping, figures, taxonomy views,
ResearchArena sections, metadata of older runs, the CLI wiring. The run builders here are shared
by test_compare.py, test_exports.py and test_report_browser.py."""
from __future__ import annotations

import copy
import json
import re
from html import unescape
from html.parser import HTMLParser
from pathlib import Path

import pytest

from conftest import FakeEmbedder, shared_path
from scholarbench.data.demo import demo_records
from scholarbench.benchmarks.researcharena.records import ArenaTask, ReferenceCounts, write_tasks
from scholarbench.records import TaxoNode
from scholarbench.report.html import render_html_report, write_html_report
from scholarbench.benchmarks.taxobench.published import published_rows
from scholarbench.benchmarks.researcharena.published import PUBLISHED as ARENA_PUBLISHED
from scholarbench.benchmarks.researcharena.published import TABLE_KEYS as ARENA_KEYS
from scholarbench.report.sections import load_report_runs
from scholarbench.benchmarks.taxobench.tables import format_value
from scholarbench.report.treeview import (EXTRA, MATCHED, MISSING, RENAMED, EmbeddingSimilarity,
                                          StringSimilarity, compare_trees, render_comparison)
from scholarbench.core.manifest import new_manifest, write_manifest
from scholarbench.benchmarks.researcharena.runs import score_run as score_arena
from scholarbench.benchmarks.taxobench.runner import RunConfig, run

# ------------------------------------------------------------------------------ run builders


def _tree(node: dict) -> dict:
    """A demo record's gt → an upstream hierarchy_tree (titles only)."""
    out = {"name": node["name"]}
    if node.get("subtopics"):
        out["subtopics"] = [_tree(c) for c in node["subtopics"]]
    if node.get("papers"):
        out["papers"] = [p if isinstance(p, str) else p.get("title", p) for p in node["papers"]]
    return out


def gold_file(root: Path, records: list[dict] | None = None) -> tuple[Path, list[dict]]:
    records = records or demo_records()
    path = root / "gold.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path, records


def flat_prediction(rec: dict, retrieved: list[str] | None = None) -> dict:
    """Every expert paper in two categories (a real, imperfect answer)."""
    papers = [p["title"] for p in rec["pdfs"]]
    half = len(papers) // 2
    pred = {"id": rec["id"], "hierarchy_tree": {"name": rec["survey"], "subtopics": [
        {"name": "First half", "papers": papers[:half]},
        {"name": "Second half", "papers": papers[half:]}]}}
    if retrieved is not None:
        pred["retrieved_papers"] = retrieved
    return pred


def make_taxobench_run(root: Path, name: str, mode: str = "bottom-up",
                       preds: list[dict] | None = None, records: list[dict] | None = None,
                       embedder=None) -> Path:
    """A real run directory (manifest, generate, scores, summary) via the runner + replay."""
    gold, records = gold_file(root, records)
    if preds is None:
        preds = []
        for i, rec in enumerate(records):
            papers = [p["title"] for p in rec["pdfs"]]
            retrieved = (papers[: max(1, len(papers) * (i + 1) // (len(records) + 1))]
                         + [f"A distractor paper number {i} about something else"]
                         if mode == "deep-research" else None)
            preds.append(flat_prediction(rec, retrieved))
    pred_path = root / f"{name}.pred.jsonl"
    pred_path.write_text("".join(json.dumps(p) + "\n" for p in preds))
    out = root / name
    run(RunConfig(gold, mode, "replay", out, agent_params={"path": str(pred_path)},
                  run_name=name, progress=False), embedder or FakeEmbedder())
    return out


def arena_task(tid: str, topic: str, gold: dict[str, int], mindmap: TaxoNode | None = None
               ) -> ArenaTask:
    return ArenaTask(id=tid, topic=topic, source="survey.jsonl", survey_id=None, cutoff=None,
                     references=dict(sorted(gold.items())), unsearchable={},
                     counts=ReferenceCounts(None, len(gold), None, None, None, len(gold)),
                     mindmap=mindmap, mindmap_source="typology" if mindmap else None)


ARENA_TASKS = [
    arena_task("q1", "graph neural networks", {"p1": 1, "p2": 1, "p3": 1, "p4": 1}),
    arena_task("q2", "dense retrieval", {"p5": 1, "p6": 1}),
    arena_task("q3", "an unscorable task", {}),
]


class _NoEntities:
    model_id = "none"

    def extract(self, texts):
        return [[] for _ in texts]


def make_arena_run(root: Path, name: str, rankings: dict[str, list[str] | None],
                   task: str = "discovery", tasks: list[ArenaTask] | None = None,
                   mindmaps: dict[str, dict] | None = None) -> Path:
    """A ResearchArena run directory in the runner's formats, scored by the runner."""
    tasks = tasks or ARENA_TASKS
    out = root / name
    out.mkdir(parents=True)
    manifest = new_manifest(benchmark="researcharena", mode=task, agent=name,
                            agent_config={}, run_name=name,
                            data={"tasks_from": "test", "sha256": "t", "n_tasks": len(tasks),
                                  "qrels": "searchable"},
                            limit=None, n_samples=len(tasks), embedder="fake", corpus=None)
    write_manifest(out, manifest)
    write_tasks(out / "tasks.jsonl", tasks)
    lines = []
    for tid, ranking in rankings.items():
        if task == "organisation":
            lines.append({"id": tid, "mindmap": (mindmaps or {}).get(tid), "error": None})
        else:
            lines.append({"id": tid, "ranking": None if ranking is None else
                          [[pid, float(len(ranking) - i)] for i, pid in enumerate(ranking)],
                          "error": None})
    (out / "generate.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    score_arena(out, FakeEmbedder() if task == "organisation" else None,
                extractor=_NoEntities(), progress=False)
    return out


@pytest.fixture(scope="module")
def taxo_runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("taxo-runs")
    return (make_taxobench_run(root, "flat-bu"),
            make_taxobench_run(root, "flat-dr", mode="deep-research"))


@pytest.fixture(scope="module")
def arena_runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("arena-runs")
    a = make_arena_run(root, "arena-a", {"q1": ["p1", "x", "p2", "p9"], "q2": ["x", "p5"]})
    b = make_arena_run(root, "arena-b", {"q1": ["p3", "p1"], "q2": None})
    mind_gold = TaxoNode("", [TaxoNode("Graph neural networks", [
        TaxoNode("Spectral methods"), TaxoNode("Spatial methods"), TaxoNode("Applications")])])
    tasks = [arena_task("m1", "graph neural networks", {"p1": 1}, mind_gold)]
    org = make_arena_run(root, "arena-org", {"m1": None}, task="organisation", tasks=tasks,
                         mindmaps={"m1": {"name": "", "children": [
                             {"name": "Graph neural networks", "children": [
                                 {"name": "Spectral methods", "children": []},
                                 {"name": "Benchmarks", "children": []}]}]}})
    return a, b, org


# ------------------------------------------------------------------------------- HTML parsing

class Cells(HTMLParser):
    """Every leaderboard row: (table title, row class, data-run, [(key, value, text)])."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[dict] = []
        self.table = None
        self.row = None
        self.cell = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table" and "lb" in (a.get("class") or "").split():
            self.table = a.get("data-title")
        elif tag == "tr" and self.table is not None:
            self.row = {"table": self.table, "kind": a.get("class"), "run": a.get("data-run"),
                        "cells": [], "text": ""}
        elif tag in ("td", "th") and self.row is not None:
            self.cell = {"key": a.get("data-key"), "value": a.get("data-value"), "text": ""}

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self.cell is not None and self.row is not None:
            self.row["cells"].append(self.cell)
            self.cell = None
        elif tag == "tr" and self.row is not None:
            self.rows.append(self.row)
            self.row = None
        elif tag == "table":
            self.table = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell["text"] += data
        if self.row is not None:
            self.row["text"] += data


def leaderboard_rows(html: str) -> list[dict]:
    parser = Cells()
    parser.feed(html)
    return parser.rows


# ------------------------------------------------------------------------------------- tests

def test_leaderboard_numbers_equal_the_summary(taxo_runs, tmp_path):
    out = write_html_report(taxo_runs, tmp_path / "r.html")
    html = out.read_text(encoding="utf-8")
    rows = leaderboard_rows(html)
    for run_dir in taxo_runs:
        summary = json.loads((run_dir / "summary.json").read_text())
        ours = [r for r in rows if r["kind"] == "ours" and r["run"] == str(run_dir)]
        assert ours, run_dir
        seen = set()
        for row in ours:
            for cell in row["cells"]:
                if cell["key"] is None:
                    continue
                mean = summary["metrics"][cell["key"]]["mean"]
                shown, _, half = cell["text"].strip().partition(" ±")
                assert shown == format_value(cell["key"], mean)
                ci = summary["metrics"][cell["key"]].get("ci95")
                if ci and mean is not None:       # ± half the 95% interval, same unit
                    scale = 100 if shown.endswith("%") else 1
                    assert half == f"{(ci[1] - ci[0]) / 2 * scale:.2f}"
                else:
                    assert half == ""
                assert (cell["value"] == "") if mean is None else float(cell["value"]) == mean
                seen.add(cell["key"])
        mode_keys = {"bottom-up": {"ari", "homogeneity", "completeness", "v_measure", "us_ted",
                                   "us_nted", "sem_path", "nsr", "nsp", "soft_f1"},
                     "deep-research": {"recall", "precision", "f1", "ari", "v_measure",
                                       "ari_cap", "v_measure_cap", "us_ted", "us_nted",
                                       "sem_path", "nsr", "nsp", "soft_f1"}}[summary["mode"]]
        assert seen == mode_keys


def test_published_rows_are_marked_and_can_be_left_out(taxo_runs):
    runs = load_report_runs(taxo_runs)
    rows = leaderboard_rows(render_html_report(runs))
    published = [r for r in rows if r["kind"] == "published"]
    expected = sum(len(published_rows(t, m)) for t, m in
                   [(2, "deep-research"), (3, "deep-research"), (5, "deep-research"),
                    (4, "bottom-up"), (5, "bottom-up")])
    assert len(published) == expected
    assert all(r["text"].strip().split()[-1] == "published" or "published" in r["text"]
               for r in published)
    o3 = next(r for r in published if r["table"].startswith("Table 2")
              and r["cells"][0]["text"].startswith("o3"))
    assert [c["text"] for c in o3["cells"][2:]] == ["20.92%", "29.29%", "24.41%"]
    assert 'class="badge">published</span>' in render_html_report(runs)
    bare = render_html_report(runs, published=False)
    assert not [r for r in leaderboard_rows(bare) if r["kind"] == "published"]
    assert "(published)" not in bare and 'class="badge"' not in bare


def test_untrusted_text_is_escaped(tmp_path):
    records = copy.deepcopy(demo_records())
    evil = "<script>alert('x')</script>"
    records[0]["survey"] = evil + " survey"
    records[0]["gt"]["subtopics"][0]["name"] = '<img src=x onerror="alert(1)">'
    preds = [flat_prediction(r) for r in records]
    preds[0]["hierarchy_tree"]["subtopics"][0]["name"] = evil
    run_dir = make_taxobench_run(tmp_path, "evil-run", preds=preds, records=records)
    manifest = json.loads((run_dir / "manifest.json").read_text())
    manifest["run_name"] = "<b>bold</b> & co"
    (run_dir / "manifest.json").write_text(json.dumps(manifest))
    html = render_html_report(load_report_runs([run_dir]))
    assert "<script" not in html.lower()
    assert "<img" not in html and "<b>bold</b>" not in html
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in html
    assert "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;" in html
    assert "&lt;b&gt;bold&lt;/b&gt; &amp; co" in html


def test_figures_are_inline_svg_and_nothing_is_fetched(taxo_runs):
    html = render_html_report(load_report_runs(taxo_runs))
    kinds = set(re.findall(r'<svg [^>]*data-chart="([^"]+)"', html))
    assert {"ari-gap", "f1-sem-path", "f1-sem-path-samples", "hom-comp", "dist-ari",
            "dist-f1", "dist-completeness"} <= kinds
    assert len(re.findall(r"<figure ", html)) >= 6
    assert not re.search(r'(src|href)="(https?:)?//', html)          # no network
    assert "<script" not in html and "<link" not in html
    # Fig. 4 with the paper's agents: their Spearman rho is the paper's (0.89, p = 0.007)
    assert ("the paper's 7 agents alone: Spearman ρ = 0.89 (p = 0.007, n = 7 agents)"
            in unescape(html))


def test_drilldown_has_every_sample_with_its_metric_values(taxo_runs):
    html = render_html_report(load_report_runs(taxo_runs[:1]))
    scores = [json.loads(x) for x in (taxo_runs[0] / "scores.jsonl").read_text().splitlines()]
    samples = re.findall(r'<details class="sample" data-sample="([^"]+)"', html)
    assert samples == [str(r["id"]) for r in scores]
    first = html.split('<details class="sample"')[1]
    for key in ("ari", "sem_path"):
        value = re.search(rf'data-key="{key}" data-value="([^"]*)"', first).group(1)
        assert float(value) == pytest.approx(scores[0][key])
    assert first.count('class="tree-compare"') == 1


def test_a_long_drilldown_goes_to_pages_next_to_the_report(taxo_runs, tmp_path, monkeypatch):
    """Issue 37: past DRILL_PAGE samples the report holds no drill-down block: it lists the
    pages (written beside it, each linking back) and carries a search box whose index maps
    every sample id to its page; every sample is on exactly one page, in order. A report
    rewritten with every drill-down inline leaves no stale pages and nothing else is removed."""
    from scholarbench.report import htmlkit
    scores = [json.loads(x) for x in (taxo_runs[0] / "scores.jsonl").read_text().splitlines()]
    ids = [str(r["id"]) for r in scores]
    assert len(ids) >= 3
    monkeypatch.setattr(htmlkit, "DRILL_PAGE", 2)
    out = write_html_report(taxo_runs[:1], tmp_path / "big.html")
    main = out.read_text()
    assert '<details class="sample"' not in main
    folder = tmp_path / "big_files"
    pages = sorted(folder.glob("drill-*.html"), key=lambda f: int(f.stem.rsplit("-", 1)[1]))
    assert len(pages) == (len(ids) + 1) // 2
    found = []
    for page in pages:
        text = page.read_text()
        assert '<a href="../big.html">back to the report</a>' in text
        assert f'href="big_files/{page.name}"' in main
        found += re.findall(r'<details class="sample" data-sample="([^"]+)"', text)
    assert found == ids
    (script,) = folder.glob("drill-*-index.js")
    last = script.read_text().strip().splitlines()[-1]
    index = json.loads(last.split(" = ", 1)[1].rstrip(";"))
    assert index == {sid: i // 2 + 1 for i, sid in enumerate(ids)}
    assert f'<script src="big_files/{script.name}"></script>' in main and "sbFind" in main
    assert f"{len(ids)} samples: the drill-down is in {len(pages)} pages" in main
    # the command line writes the same pages (`report RUN --html OUT`) and says where
    from test_exports import wired_main
    cli_out = tmp_path / "cli" / "r.html"
    assert wired_main(["report", str(taxo_runs[0]), "--html", str(cli_out)]) == 0
    cli_pages = sorted(p.name for p in (tmp_path / "cli" / "r_files").glob("drill-*.html"))
    assert cli_pages == sorted(p.name for p in pages)
    assert '<details class="sample"' not in cli_out.read_text()
    (folder / "mine.txt").write_text("the user's own file")
    monkeypatch.setattr(htmlkit, "DRILL_PAGE", 100)
    main = write_html_report(taxo_runs[:1], tmp_path / "big.html").read_text()
    assert re.findall(r'<details class="sample" data-sample="([^"]+)"', main) == ids
    assert sorted(f.name for f in folder.iterdir()) == ["mine.txt"]


def _gold() -> TaxoNode:
    return TaxoNode("Survey", [
        TaxoNode("Dense Retrieval", papers=["Paper A", "Paper B"]),
        TaxoNode("Sparse Retrieval", papers=["Paper C", "Paper D"]),
        TaxoNode("Evaluation", papers=["Paper E"]),
    ])


def test_tree_view_marks_a_dropped_node_missing():
    gold = _gold()
    model = TaxoNode("Survey", [TaxoNode("Dense Retrieval", papers=["Paper A", "Paper B"]),
                                TaxoNode("Sparse Retrieval", papers=["Paper C", "Paper D"])])
    cmp = compare_trees(gold, model, StringSimilarity())
    assert cmp.expert_marks[(2,)].status == MISSING
    assert cmp.expert_marks[(0,)].status == MATCHED and cmp.expert_marks[(1,)].status == MATCHED
    assert cmp.counts[MISSING] == 1 and cmp.counts[EXTRA] == 0
    assert cmp.expert_paper_placed["paper e"] is False
    html = render_comparison(cmp)
    missing = re.findall(r'<li class="node st-missing" data-status="missing" data-pos="2">'
                         r'<span class="sym">−</span><span class="label">([^<]*)</span>', html)
    assert missing == ["Evaluation"]
    assert 'data-missing="1"' in html
    assert re.search(r'class="paper lost"[^>]*><span class="psym">✗</span>Paper E', html)


def test_tree_view_renamed_by_paper_overlap_or_label_similarity_and_extra():
    gold = _gold()
    model = TaxoNode("Survey", [
        TaxoNode("Neural retrievers", papers=["Paper A", "Paper B"]),    # same papers
        TaxoNode("Lexical retrieval", papers=["Paper C"]),              # close label (vectors)
        TaxoNode("Benchmarks and metrics", papers=["Paper E", "Paper D"]),  # overlap 1/2
        TaxoNode("Future work", papers=["Paper Z"]),
    ])
    vectors = {"Sparse Retrieval": [1.0, 0.1], "Lexical retrieval": [1.0, 0.2],
               "Evaluation": [0.0, 0.0, 1.0], "Benchmarks and metrics": [0.0, 0.0, 0.0, 1.0]}
    sim = EmbeddingSimilarity.of_embedder(FakeEmbedder(vectors))
    cmp = compare_trees(gold, model, sim)
    dense, sparse, evaluation = (cmp.expert_marks[(i,)] for i in range(3))
    assert (dense.status, dense.partner_label, dense.paper_overlap) == (RENAMED,
                                                                      "Neural retrievers", 1.0)
    assert sparse.status == RENAMED and sparse.label_similarity > 0.9
    assert evaluation.status == MISSING                  # overlap 0.5 < 0.6, labels unrelated
    assert cmp.model_marks[(3,)].status == EXTRA and cmp.model_marks[(2,)].status == EXTRA
    html = render_comparison(cmp)
    assert "≈ model: Neural retrievers" in html and "≈ expert: Dense Retrieval" in html
    assert 'class="tag tag-singleton"' in html          # "Lexical retrieval": one paper
    # the string fallback cannot see "Lexical" ≈ "Sparse"
    assert compare_trees(gold, model, StringSimilarity()).expert_marks[(1,)].status == MISSING


def test_tree_view_without_a_model_tree_and_deep_trees():
    gold = _gold()
    cmp = compare_trees(gold, None)
    assert cmp.counts[MISSING] == 3
    assert "No model taxonomy" in render_comparison(cmp)
    deep = TaxoNode("root")
    node = deep
    for i in range(1500):                  # deeper than the recursion limit: no recursion
        child = TaxoNode(f"level {i}")
        node.children.append(child)
        node = child
    html = render_comparison(compare_trees(deep, deep))
    assert html.count('data-status="matched"') == 2 * 1500


def test_tree_similarity_uses_the_runs_stored_embeddings_without_a_model(tmp_path):
    import numpy as np
    from scholarbench.embed import CachedEmbedder
    from scholarbench.report.treeview import similarity_for

    class Enc:
        model_id = "enc"

        def encode(self, texts):
            return np.stack([np.eye(4, dtype=np.float32)[len(t) % 4] for t in texts])

    cache = tmp_path / "embeddings.sqlite"
    CachedEmbedder(Enc(), cache).embed(["alpha", "beta"])
    sim = similarity_for(["alpha", "beta"], "enc", cache_path=cache)
    assert isinstance(sim, EmbeddingSimilarity) and "stored" in sim.description
    assert sim.matrix(["alpha"], ["beta"])[0, 0] == pytest.approx(0.0)
    assert isinstance(similarity_for(["alpha", "gamma"], "enc", cache_path=cache),
                      StringSimilarity)                    # one label not stored: fallback
    assert isinstance(similarity_for(["alpha"], "other-model", cache_path=cache),
                      StringSimilarity)


def test_researcharena_section(arena_runs):
    a, b, org = arena_runs
    runs = load_report_runs([a, b, org])
    html = render_html_report(runs)
    rows = leaderboard_rows(html)
    for run_dir in (a, b, org):
        summary = json.loads((run_dir / "summary.json").read_text())
        ours = [r for r in rows if r["kind"] == "ours" and r["run"] == str(run_dir)]
        for row in ours:
            for cell in row["cells"]:
                if cell["key"]:
                    mean = summary["metrics"][cell["key"]]["mean"]
                    assert (cell["value"] == "" if mean is None
                            else float(cell["value"]) == mean)
    published = [r for r in rows if r["kind"] == "published"]
    assert len(published) == len([p for p in ARENA_PUBLISHED if p.table in (1, 3)])
    assert "1 task unscorable (1 empty_gold; excluded from the means)" in html
    assert "1 missing output (scored as an empty ranking)" in html
    assert 'data-chart="recall-at-k"' in html
    # organisation: ground truth vs agent mind-map, the dropped heading marked missing
    org_part = html.split('data-mode="organisation"')[1]
    assert re.search(r'data-status="missing"[^>]*><span class="sym">−</span>'
                     r'<span class="label">Spatial methods', org_part)
    assert re.search(r'data-status="extra"[^>]*><span class="sym">\+</span>'
                     r'<span class="label">Benchmarks', org_part)


def test_recall_curve_matches_the_recall_measures(arena_runs):
    from scholarbench.benchmarks.researcharena.report import recall_curve
    from scholarbench.benchmarks.researcharena.records import read_tasks
    from scholarbench.data.jsonl import read_jsonl_tolerant
    for run_dir in arena_runs[:2]:
        [r] = load_report_runs([run_dir])
        tasks = {t.id: t for t in read_tasks(run_dir / "tasks.jsonl")}
        generated = {x["id"]: x for x in read_jsonl_tolerant(run_dir / "generate.jsonl")}
        curve = dict(recall_curve(r, tasks, generated))
        last = curve[max(curve)]
        assert curve.get(10, last) == pytest.approx(r.summary.metrics["R@10"].mean)
        assert curve.get(100, last) == pytest.approx(r.summary.metrics["R@100"].mean)


def test_every_researcharena_published_value_matches_the_paper():
    text = shared_path("papers", "001_80d49084e655d83b.txt").read_text(encoding="utf-8")
    printed: dict[tuple[int, str], list[float]] = {}
    n_rows = 0
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 9 and re.fullmatch(r"[0-9.]+", cells[1] or "x"):
            n_rows += 1                       # Table 1's five rows come first, then Table 2's
            printed[(1 if n_rows <= 5 else 2, cells[0])] = [float(c) for c in cells[1:]]
        elif len(cells) == 5 and re.fullmatch(r"[0-9.]+", cells[2] or "x"):
            printed[(3, cells[1])] = [float(c) for c in cells[2:]]
    ours = [p for p in ARENA_PUBLISHED]
    assert len(ours) == 5 * 2 + 5 * 2 + 5          # Table 3: all five rows (STORM.BM25/.BGE too)
    assert {r.system for r in ours if r.table == 3} == {s for t, s in printed if t == 3}
    for row in ours:
        if row.table == 3:
            assert list(row.values.values()) == printed[(3, row.system)]
            continue
        system, retriever = row.system.rsplit(" (", 1)
        values = printed[(row.table, system)]
        offset = 0 if retriever == "BM25)" else 1
        assert [row.values[k] for k in ARENA_KEYS[row.table]] == values[offset::2], row


def test_metadata_of_an_old_minimal_run_and_of_a_run_with_usage(tmp_path):
    from test_report import make_run
    old = make_run(tmp_path, "old", mode="bottom-up")         # manifest with 4 keys, no scores
    rich = make_run(tmp_path, "rich", mode="bottom-up", agent="llm")
    manifest = json.loads((rich / "manifest.json").read_text())
    manifest.update(judge="judge-model-x", usage={"prompt_tokens": 1200,
                                                  "completion_tokens": 300}, cost_usd=0.42,
                    models={"agent": "model-y"})
    (rich / "manifest.json").write_text(json.dumps(manifest))
    html = render_html_report(load_report_runs([old, rich]))
    meta = html.split('id="run-metadata"')[1]
    assert "judge-model-x" in meta and "prompt_tokens=1200" in meta and "0.42" in meta
    assert "model-y" in meta
    assert "the manifest names no gold file" in html          # the old run: noted, no crash


def test_cli_wiring_report_html_and_formats(taxo_runs, arena_runs, tmp_path, capsys):
    from test_exports import wired_main
    out = tmp_path / "report.html"
    assert wired_main(["report", *map(str, taxo_runs), str(arena_runs[0]), "--html",
                       str(out)]) == 0
    assert out.is_file() and "wrote" in capsys.readouterr().out
    assert wired_main(["report", str(taxo_runs[0]), "--format", "markdown"]) == 0
    assert "### Table 4 layout — Organisation" in capsys.readouterr().out
    assert wired_main(["report", str(taxo_runs[0]), "--out", str(tmp_path / "t.tex")]) == 0
    assert "\\begin{tabular}" in (tmp_path / "t.tex").read_text()
    assert wired_main(["report", str(taxo_runs[0]), str(arena_runs[0]), "--format",
                       "csv"]) == 2
    assert "one benchmark" in capsys.readouterr().err


def test_a_missing_prediction_is_flagged_and_shown_without_a_model_tree(tmp_path):
    records = demo_records()
    preds = [flat_prediction(r) for r in records[:-1]]          # the last sample: no output
    run_dir = make_taxobench_run(tmp_path, "gappy", preds=preds, records=records)
    html = render_html_report(load_report_runs([run_dir]), max_samples=None)
    last_id = records[-1]["id"]
    last = html.split(f'<details class="sample" data-sample="{last_id}"')[1]
    assert "No model taxonomy" in last
    assert re.search(r"<td class='flags'>missing", last)
    assert "1 missing prediction (scored as an empty taxonomy)" in html
    limited = render_html_report(load_report_runs([run_dir]), max_samples=1)
    assert limited.count('<details class="sample"') == 1 and "--max-samples" in limited


def test_unknown_benchmarks_get_a_clear_error(tmp_path):
    from scholarbench.errors import ScholarbenchError
    d = tmp_path / "run"
    d.mkdir()
    (d / "manifest.json").write_text(json.dumps({"benchmark": "no-such-bench"}))
    with pytest.raises(ScholarbenchError, match="no report section for benchmark "
                                                "'no-such-bench'"):
        load_report_runs([d])


# --------------------------------------------------------------------------------- LLM judge

JUDGE_DIMS = ("semantic_coverage", "sibling_organization", "hierarchical_logic",
              "structural_topology")
EVIL_REASONING = "<script>alert('judge')</script> & <b>bold</b> claims"


def make_judged_taxobench_run(root: Path, name: str, mode: str = "bottom-up",
                              model: str = "gpt-4o-mini") -> Path:
    """A run scored by the real judge path against a scripted server: sample 1 gets scores
    4/3/3/2 with `EVIL_REASONING`, sample 2's judge replies are not JSON (unscored after the
    repair turn), sample 3 has no prediction (never sent)."""
    from fake_openai import FakeOpenAI, Step
    from scholarbench.llm.client import ChatClient
    from scholarbench.llm.config import ModelConfig
    from scholarbench.benchmarks.taxobench.runner import score_run
    records = demo_records()
    root.mkdir(parents=True, exist_ok=True)
    run_dir = make_taxobench_run(root, name, mode,
                                 preds=[flat_prediction(r) for r in records[:-1]],
                                 records=records)
    choke = records[1]["survey"]

    def script(body):
        model_tree = body["messages"][1]["content"].split("<model_tree>")[1]
        if choke in model_tree:
            return Step(text="not json")
        return Step(text=json.dumps({d: {"score": s, "reasoning": EVIL_REASONING}
                                     for d, s in zip(JUDGE_DIMS, (4, 3, 3, 2))}))

    server = FakeOpenAI(default=script).start()
    try:
        config = ModelConfig(role="judge", model=model, base_url=server.base_url,
                             max_retries=1)
        score_run(run_dir, FakeEmbedder(), progress=False,
                  judge=ChatClient(config, retry_wait=(0.01, 0.02)))
    finally:
        server.stop()
    return run_dir


@pytest.fixture(scope="module")
def judged_run(tmp_path_factory):
    return make_judged_taxobench_run(tmp_path_factory.mktemp("judged"), "judged-bu")


def test_judge_table_only_when_a_run_was_judged(taxo_runs, judged_run):
    plain_html = render_html_report(load_report_runs(taxo_runs))
    assert "Table 7" not in plain_html and 'class="judge"' not in plain_html
    assert 'data-key="judge_avg"' not in plain_html
    runs = load_report_runs([judged_run, taxo_runs[0], taxo_runs[1]])
    html = render_html_report(runs)
    rows = [r for r in leaderboard_rows(html) if r["table"] == "Table 7 layout — LLM-as-Judge"]
    summary = json.loads((judged_run / "summary.json").read_text())
    ours = {r["run"]: r for r in rows if r["kind"] == "ours"}
    assert set(ours) == {str(judged_run), str(taxo_runs[0])}        # Bottom-Up only
    for cell in ours[str(judged_run)]["cells"][2:]:
        mean = summary["metrics"][cell["key"]]["mean"]
        assert cell["text"] == format_value(cell["key"], mean) and float(cell["value"]) == mean
    assert [c["text"] for c in ours[str(judged_run)]["cells"][2:]] == ["4.00", "3.00", "3.00",
                                                                      "2.00", "3.00"]
    assert [(c["text"], c["value"]) for c in ours[str(taxo_runs[0])]["cells"][2:]] == \
        [("—", "")] * 5                                              # not judged
    assert len([r for r in rows if r["kind"] == "published"]) == len(published_rows(7,
                                                                                   "bottom-up"))
    text = unescape(html)
    assert "flat-bu: not judged (re-score the run with" in text
    assert ("judged-bu: judge gpt-4o-mini, prompt taxobench_judge_v1; 1 of 3 samples unscored "
            "(the judge's reply was unusable after a repair turn; excluded from the means); 1 of "
            "3 samples without a prediction to judge") in text
    assert "Published rows were judged by GPT-4o" in text and "not directly comparable" in text
    assert 'data-chart="dist-judge_avg"' in html


def test_drilldown_shows_the_judges_scores_and_escaped_reasoning(judged_run):
    html = render_html_report(load_report_runs([judged_run]))
    assert "<script" not in html.lower() and "<b>bold</b>" not in html
    blocks = dict(re.findall(r'<div class="judge" data-run="[^"]*" data-sample="([^"]+)">(.*?)'
                             r"</div>", html, re.S))
    assert set(blocks) == {"1", "2", "3"}
    first = blocks["1"]
    assert first.count("&lt;script&gt;alert(&#x27;judge&#x27;)&lt;/script&gt; &amp; "
                       "&lt;b&gt;bold&lt;/b&gt; claims") == 4        # one per dimension
    scores = dict(re.findall(r'<tr data-key="(judge_\w+)"><th>[^<]*</th><td class="score" '
                             r'data-value="([^"]*)"', first))
    assert scores == {"judge_coverage": "4.0", "judge_organization": "3.0",
                      "judge_logic": "3.0", "judge_topology": "2.0", "judge_avg": "3.0"}
    assert "gpt-4o-mini, prompt taxobench_judge_v1" in first
    assert 'class="judge-unscored">Unscored (2 calls)' in blocks["2"]
    assert "not valid JSON" in blocks["2"] and "Excluded from the means" in blocks["2"]
    assert "Not sent to the judge" in blocks["3"]
    # inside the side-by-side taxonomy view, and the judge columns in the sample table
    sample_1 = html.split('<details class="sample" data-sample="1"')[1].split(
        '<details class="sample"')[0]
    tree = sample_1.split('<details class="tree-details"')[1]
    assert 'class="tree-compare"' in tree and '<div class="judge"' in tree
    assert re.search(r'<td data-key="judge_avg" data-value="3.0">3.00</td>', sample_1)
    sample_2 = html.split('<details class="sample" data-sample="2"')[1]
    assert re.search(r"<td class='flags'>judge unscored: [^<]*not valid JSON", sample_2)


def test_run_metadata_names_the_judge_its_usage_and_unscored_count(judged_run):
    html = render_html_report(load_report_runs([judged_run]))
    meta = unescape(html.split('id="run-metadata"')[1])
    manifest = json.loads((judged_run / "manifest.json").read_text())
    usage = manifest["llm_usage"]["judge"]
    assert usage["calls"] == 3
    facts = dict(re.findall(r"<dt>([^<]*)</dt><dd>(.*?)</dd>", meta, re.S))
    assert "gpt-4o-mini" in facts["LLM judge"] and "prompt taxobench_judge_v1" in facts[
        "LLM judge"]
    assert facts["judge usage"].startswith(
        f"3 calls (0 answered from the cache, 0 failed), {usage['prompt_tokens']:,} prompt + "
        f"{usage['completion_tokens']:,} completion tokens")
    assert facts["judge samples"] == ("1 of 3 scored; 1 unscored (unusable reply); 1 without a "
                                      "prediction to judge — both excluded from the means")
    runs_table = unescape(html.split('<table class="runs">')[1].split("</table>")[0])
    assert "2 scored; 1 missing" in runs_table           # core.status: one status per sample
    assert "unscored (judge): 1 sample(s) without judge scores, 1× after N repair(s): not " \
        "valid JSON" in runs_table


def test_a_judged_run_without_its_judge_file_is_noted(judged_run, tmp_path):
    import shutil
    copy_dir = tmp_path / "copy"
    shutil.copytree(judged_run, copy_dir)
    (copy_dir / "judge.judge.jsonl").unlink()
    html = render_html_report(load_report_runs([copy_dir]))
    assert "judge.judge.jsonl is missing (the judge&#x27;s reasoning cannot be shown)" in html
    assert "No judge record for this sample." in html
    assert "Table 7 layout" in html                     # the means come from summary.json


def test_compare_includes_the_judge_metrics_only_when_both_runs_have_them(judged_run,
                                                                         taxo_runs):
    from scholarbench.report.compare import compare_runs, format_comparison
    both = compare_runs(judged_run, judged_run, n_boot=200)
    by = {m.metric: m for m in both.metrics}
    assert by["judge_avg"].n == 1 and by["judge_avg"].mean_a == 3.0
    assert "judge_avg↑" in format_comparison(both)
    mixed = compare_runs(judged_run, taxo_runs[0], n_boot=200)
    assert not [m for m in mixed.metrics if m.metric.startswith("judge_")]


def test_sample_flags_name_the_samples_status_and_an_errored_sample_shows_no_values():
    """The drill-down says `malformed: why` for a malformed answer (not `error:`), and an
    errored sample (no result) shows no metric value."""
    from scholarbench.report.htmlkit import sample_metric_table
    from scholarbench.core.measure import Measure
    html = sample_metric_table(
        [("a", {"status": "malformed", "malformed": True, "f1": 0.0,
                "error": "taxonomy answer, field taxonomy: Field required"}),
         ("b", {"status": "error", "f1": 0.0, "error": "agent raised ConnectionError: down"}),
         ("c", {"status": "missing", "missing": True, "f1": 0.0})],
        [Measure("taxobench", "f1", label="F1")])
    rows = html.split("<tr>")[2:]
    assert "<td class='flags'>malformed: taxonomy answer" in rows[0] and "0.0000" in rows[0]
    assert "<td class='flags'>error: agent raised" in rows[1]
    assert 'data-value="">—</td>' in rows[1] and "0.0000" not in rows[1]
    assert "<td class='flags'>missing</td>" in rows[2]
