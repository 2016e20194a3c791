"""TaxoBench's retrieved-paper export (`export trec` / `export bibtex` of Deep Research runs),
registered as its "export" entry; the id scheme and ranks are described in `report.exports`."""
from __future__ import annotations

from pathlib import Path

from scholarbench.benchmarks.taxobench.runner import load_generated
from scholarbench.data.taxobench import load_instances
from scholarbench.errors import ScholarbenchError
from scholarbench.report.exports import (RetrievalExport, RetrievedList, ReportRun,
                                         title_docids)
from scholarbench.text.normalize import normalize_title


def retrieved_lists(run: ReportRun) -> list[RetrievedList]:
    """One query per sample: the agent's retrieved papers in its order, a repeated docid
    keeping its first rank."""
    if run.mode != "deep-research":
        raise ScholarbenchError(f"{run.run_dir}: a Bottom-Up run retrieves nothing (the "
                                "expert papers are given); export a Deep Research run")
    preds = load_generated(run.run_dir)
    titles = [t for p in preds.values() if p is not None for t in p.retrieved_titles]
    docids = title_docids(run, titles)
    out = []
    for sid, pred in preds.items():
        if pred is None:
            continue
        seen = set()
        papers, dropped = [], 0
        for title in pred.retrieved_titles:
            norm = normalize_title(title)
            if not norm:
                continue
            docid = docids[norm]
            if docid in seen:
                dropped += 1
                continue
            seen.add(docid)
            papers.append((docid, title))
        out.append(RetrievedList(sid, papers, dropped))
    return out


def qrels(run: ReportRun) -> dict[str, dict[str, int]]:
    """The expert papers of the run's samples (grade 1), with the same ids as the run."""
    data = run.manifest.get("data") or {}
    path = Path(str(data.get("path", "")))
    if not path.is_file():
        raise ScholarbenchError(f"the run's gold file {path} is gone: cannot write qrels")
    tasks = load_instances(path)
    limit = run.manifest.get("limit")
    tasks = tasks[:limit] if isinstance(limit, int) else tasks
    titles = [t for task in tasks for t in task.gold.all_papers()]
    docids = title_docids(run, titles)
    return {task.id: {docids[normalize_title(t)]: 1 for t in task.gold.all_papers()
                      if normalize_title(t)} for task in tasks}


EXPORT = RetrievalExport(retrieved_lists, qrels)
