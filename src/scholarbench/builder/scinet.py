"""SciNet tasks about a survey's papers through `scholarbench build`: the existing constructions
of `benchmarks/scinet/tasks.py` (`pncites_task`, `cooccur_task`, `path_tasks`), given the
survey's cited works that resolve in the citation graph instead of a sampled or a category's
papers. Written as the SciNet task file `run scinet --tasks FILE --graph DIR` reads.

- The survey's works resolve in the graph by their ids, then their title (`SciNetEnv.resolve`,
  the resolver answers go through); a work naming a graph paper an earlier work named is a
  duplicate.
- Pair-wise (SciNet §4): every resolved paper with at least `min_citers` citers in the graph
  (most-cited first, at most `n_pair`) gets a pncites and a cooccur task; the gold is the
  graph's (all its citers, its co-cited papers), as for built tasks. A paper two surveys cite is
  one task (`info.surveys` lists both).
- Path-wise (SciNet §5): recent = the survey's `n_recent` most-cited resolved papers of the
  last `recent_years` of their years, classic = its `n_classic` most-cited among the others
  (built tasks take classic first; a bibliography of fewer than 50 graph papers would then
  have no recent one left); a pair is kept
  when the graph has a 3..`max_papers` citation path from classic to recent; the gold is the
  graph's maximum-citation path (its inner papers need not be cited by the survey: listed for
  review, as SciNet's experts checked each path's coherence). Field = the survey's title. Ids
  `path/<survey id>/<nnn>`; the pair order is seeded by the survey id.
- Ego-centric tasks are not built: SciNet's field is a subfield of thousands of papers ranked
  by a measure over the field; a survey's bibliography is neither a field nor large enough
  (`min_papers` 100) for a top-50 gold.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from scholarbench.benchmarks.scinet.records import write_tasks
from scholarbench.builder.source import SurveyDoc
from scholarbench.builder.works import Work, cited_works
from scholarbench.errors import ScholarbenchError

FILE = "tasks.jsonl"


@dataclass
class Written:
    review: list[str]
    tasks: int


def graph_papers(env: Any, works: Sequence[Work]) -> tuple[dict[str, Work], list[Work],
                                                           list[Work]]:
    """Graph id -> the first work naming it; the unresolved works; the duplicates."""
    found: dict[str, Work] = {}
    unresolved, duplicates = [], []
    for work in works:
        gid = next((g for ref in (*work.ids, work.title) if ref and (g := env.resolve(ref))),
                   None)
        if gid is None:
            unresolved.append(work)
        elif gid in found:
            duplicates.append(work)
        else:
            found[gid] = work
    return found, unresolved, duplicates


def _seed(survey_id: str) -> int:
    return int(hashlib.sha256(survey_id.encode("utf-8")).hexdigest()[:8], 16)


def survey_tasks(env: Any, doc: SurveyDoc, survey_id: str, papers: Sequence[str],
                 settings: Any) -> tuple[list[Any], list[str]]:
    """(pair tasks then path tasks about the survey's graph papers, the pair query papers)."""
    # deferred: pulls in pyarrow
    from scholarbench.benchmarks.scinet.tasks import cooccur_task, path_tasks, pncites_task
    s = settings
    listed = [p for p in papers if env.graph.listed[env.graph.pid(p)]
              and env.n_citations(p) >= s.min_citers]
    picked = sorted(listed, key=lambda p: (-env.n_citations(p), p))[: s.n_pair]
    tasks = [pncites_task(env, p, s) for p in picked] + [cooccur_task(env, p) for p in picked]
    years = [y for p in papers if (y := env.year(p)) is not None]
    if years:
        by_cites = sorted(papers, key=lambda p: (-env.n_citations(p), p))
        recent = [p for p in by_cites
                  if (env.year(p) or -1) > max(years) - s.recent_years][: s.n_recent]
        classic = [p for p in by_cites if p not in recent][: s.n_classic]
        rng = np.random.default_rng([s.seed, 4, _seed(survey_id)])
        tasks += path_tasks(env, classic, recent, s, rng, f"path/{survey_id}", doc.title, None)
    return tasks, picked


def build_scinet(docs: Sequence[SurveyDoc], ids: Sequence[str], sources: Sequence[Any],
                 folder: Path, env: Any, manifest: Any) -> Written:
    # deferred: pulls in pyarrow
    from scholarbench.benchmarks.scinet.tasks import BUILD_VERSION, BuildSettings
    if env is None:
        raise ScholarbenchError("scinet: the tasks are about papers of a citation graph; give "
                                "--graph DIR (or import arxiv2023)")
    s = BuildSettings()
    folder.mkdir(parents=True, exist_ok=True)
    tasks: dict[str, Any] = {}
    review, counts = [], {}
    for doc, iid, src in zip(docs, ids, sources):
        works, _ = cited_works(doc.gt)
        found, unresolved, duplicates = graph_papers(env, works)
        made, picked = survey_tasks(env, doc, iid, list(found), s)
        for task in made:
            if task.task_id in tasks:
                tasks[task.task_id].info["surveys"].append(iid)
                continue
            task.info.update({"build": BUILD_VERSION, "settings": s.as_dict(),
                              "env": env.describe(), "surveys": [iid]})
            tasks[task.task_id] = task
        paths = [t for t in made if t.family == "path"]
        c = {"cited_works": len(works), "resolved_in_graph": len(found),
             "duplicates": len(duplicates), "unresolved": len(unresolved),
             "pair_papers": len(picked), "pair_tasks": 2 * len(picked), "path_tasks": len(paths)}
        counts[iid] = c
        review.append(_review(env, doc, iid, src, c, found, paths))
    path = folder / FILE
    write_tasks(tasks.values(), path)
    manifest.add_benchmark("scinet", path, folder.parent, len(tasks), counts)
    return Written(review, len(tasks))


def _review(env: Any, doc: SurveyDoc, iid: str, src: Any, c: dict, found: dict[str, Work],
            paths: list[Any]) -> str:
    out = [f"## SciNet `{iid}`: {doc.title}", "",
           f"Source: `{src}`; graph: {env.name} ({env.graph.n_papers} papers). Tasks are "
           "about the survey's cited works found in the graph; their gold is the graph's.", "",
           f"- cited works: {c['cited_works']} = in the graph {c['resolved_in_graph']} + "
           f"duplicates {c['duplicates']} + not in the graph {c['unresolved']}",
           f"- pair: {c['pair_papers']} papers with at least 5 citers in the graph -> "
           f"{c['pair_tasks']} tasks (pncites, cooccur); path: {c['path_tasks']} tasks", ""]
    if not c["pair_tasks"] and not c["path_tasks"]:
        out += ["**No task written for this survey.**", ""]
    out += ["### Path tasks (check each path tells a coherent lineage, SciNet §5)", ""]
    for t in paths:
        outside = [p for p in t.gold["path"] if p not in found]
        out.append(f"- [ ] `{t.task_id}` {' -> '.join(env.title(p) or p for p in t.gold['path'])}"
                   + (f" (not cited by the survey: {', '.join(outside)})" if outside else ""))
    out += ["" if paths else "(none)", ""]
    return "\n".join(out)
