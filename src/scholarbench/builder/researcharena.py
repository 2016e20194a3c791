"""ResearchArena tasks from a survey through `scholarbench build`: the upstream `survey.jsonl`
that `run researcharena --tasks-from FILE` reads (`records.read_survey_jsonl`), checked by
loading it back with the run's own reader (`tasks.tasks_from_upstream`).

One line per survey (ResearchArena §3: a task is a survey; topic = its title, gold = its
references that resolve, the leakage cut-off = its date):
- `id`: the survey's corpus paper_id when the survey itself is in the corpus (by `--arxiv-id`,
  else its title), so agents are told to leave it out; else the build's slug of its title;
- `title`; `publicationDate`: `--survey-date` (else null: the run takes the survey's corpus
  date, or has no cut-off);
- `references`: `{"influential": [], "relevant": [corpus paper_id, …]}`: the survey's cited
  works (`builder.works`) that resolve in the corpus, each paper once. No source labels
  influential citations, so every reference is `relevant` (grade 1; as corpus-built tasks);
- `typology`: null (the survey's mind-map is not drafted here; organisation cannot score it).
Ids that are not digits are looked up in the corpus as written (`tasks.corpus_key`), so the file
is tied to the corpus it was built with (`manifest.json` → `corpus`).

Counts per survey (`manifest.json` → `benchmarks.researcharena.counts`, and `review.md`):
`cited_works` = `resolved` + `duplicates` (two works naming one corpus paper) + `unresolved`;
`resolved` = `searchable` + the unsearchable ones by reason (survey, undated,
not_before_cutoff), as the run classifies them.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any, Sequence

from scholarbench.benchmarks.researcharena.records import read_survey_jsonl
from scholarbench.benchmarks.researcharena.tasks import tasks_from_upstream
from scholarbench.builder.source import SurveyDoc
from scholarbench.builder.works import Work, cited_works
from scholarbench.corpus.resolve import resolve_ref
from scholarbench.errors import ScholarbenchError

FILE = "survey.jsonl"


@dataclass
class Written:
    review: list[str]
    tasks: int


def check_dates(dates: Sequence[str], ids: Sequence[str], n: int
                ) -> tuple[list[date | None], list[str | None]]:
    """`--survey-date` and `--arxiv-id`: none, or one per SOURCE."""
    if len(dates) not in (0, n) or len(ids) not in (0, n):
        raise ScholarbenchError(f"researcharena: give --survey-date (and --arxiv-id) once per "
                                f"SOURCE ({n}) or not at all")
    out: list[date | None] = []
    for day in dates:
        try:
            out.append(date.fromisoformat(day))
        except ValueError:
            raise ScholarbenchError(f"--survey-date {day!r}: not a YYYY-MM-DD date") from None
    arxiv = [None if i == "none" else i for i in ids]     # `none`: not on arXiv (reportbench)
    return out or [None] * n, arxiv or [None] * n


def _survey_paper(corpus: Any, doc: SurveyDoc, arxiv: str | None) -> str | None:
    return resolve_ref(corpus, f"arxiv:{arxiv}" if arxiv else doc.title)


def survey_line(doc: SurveyDoc, task_id: str, works: Sequence[Work], day: date | None,
                survey_pid: str | None) -> tuple[dict[str, Any], list[Work], list[Work]]:
    """The survey.jsonl line; the works left out as unresolved, and as duplicates."""
    refs: list[str] = []
    unresolved, duplicates = [], []
    for work in works:
        if not work.paper_id:
            unresolved.append(work)
        elif work.paper_id in refs:
            duplicates.append(work)
        else:
            refs.append(work.paper_id)
    line = {"id": survey_pid or task_id, "title": doc.title,
            "publicationDate": day.isoformat() if day else None,
            "references": {"influential": [], "relevant": refs}, "typology": None}
    return line, unresolved, duplicates


def build_researcharena(docs: Sequence[SurveyDoc], ids: Sequence[str], sources: Sequence[Any],
                        folder: Path, corpus: Any, manifest: Any, dates: Sequence[date | None],
                        arxiv_ids: Sequence[str | None], taken: Sequence[str] = (),
                        space: Any = None) -> Written:
    """`taken`: ids other surveys of the build hold (a survey paper among them keeps its
    slug), when the surveys are built one at a time (`builder.units`); `space`: the corpus's
    leakage rule (`SearchSpace`) when the build read it once for every unit."""
    if corpus is None:
        raise ScholarbenchError("researcharena: a task's references are corpus papers; give "
                                "--corpus DIR (or import data so the default corpus exists)")
    folder.mkdir(parents=True, exist_ok=True)
    lines, review, counts, parts = [], [], {}, []
    taken: set[str] = set(ids) | set(taken)
    for doc, iid, src, day, arxiv in zip(docs, ids, sources, dates, arxiv_ids):
        works, _ = cited_works(doc.gt, corpus)
        pid = _survey_paper(corpus, doc, arxiv)
        line, unresolved, duplicates = survey_line(doc, iid, works, day,
                                                   pid if pid not in taken else None)
        taken.add(line["id"])
        parts.append((doc, iid, src, line, works, unresolved, duplicates))
        if line["references"]["relevant"]:
            lines.append(line)
    path = folder / FILE
    path.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines),
                    encoding="utf-8")
    loaded = {t.id: t for t in tasks_from_upstream(read_survey_jsonl(path), corpus,
                                                   space=space)}
    for doc, iid, src, line, works, unresolved, duplicates in parts:
        task = loaded.get(line["id"])
        c = {"cited_works": len(works), "resolved": len(line["references"]["relevant"]),
             "unresolved": len(unresolved), "duplicates": len(duplicates),
             "searchable": task.counts.searchable if task else 0,
             "unsearchable": dict(task.counts.unsearchable) if task else {},
             "cutoff": task.cutoff.isoformat() if task and task.cutoff else None,
             "survey_in_corpus": task.survey_id if task else None}
        counts[line["id"]] = c
        review.append(_review(doc, src, line, c, unresolved, duplicates, task))
    manifest.add_benchmark("researcharena", path, folder.parent, len(lines), counts)
    return Written(review, len(lines))


def _review(doc: SurveyDoc, src: Any, line: dict, c: dict, unresolved: list[Work],
            duplicates: list[Work], task: Any) -> str:
    out = [f"## ResearchArena `{line['id']}`: {doc.title}", "",
           f"Source: `{src}`. Topic = the title; gold = the cited works resolved in the corpus "
           "(all grade 1: nothing labels influential citations); the cut-off = "
           f"{c['cutoff'] or 'none (no --survey-date and no corpus date: flagged no_cutoff)'}.",
           "",
           f"- cited works: {c['cited_works']} = resolved {c['resolved']} + duplicates "
           f"{c['duplicates']} + unresolved {c['unresolved']}",
           f"- resolved {c['resolved']} = searchable {c['searchable']} + unsearchable "
           + ", ".join(f"{k} {v}" for k, v in c["unsearchable"].items()), ""]
    if task is None:
        out += ["**No task written: no cited work resolves in the corpus.**", ""]
    out += ["- [ ] the cut-off date is the survey's (its references after it are left out of "
            "the gold as unsearchable)",
            "- [ ] the survey is in the corpus (agents are told to leave it out)"
            if c["survey_in_corpus"] else
            "- [ ] the survey is not in the corpus (found neither by --arxiv-id nor by title)",
            "", "### Unresolved cited works (not in the gold)", ""]
    out += [f"- [ ] `{w.keys[0]}` {w.title or '(no title)'} ({', '.join(w.ids) or 'no id'})"
            for w in unresolved] or ["(none)"]
    out += ["", "### Duplicates (another cited work names the same corpus paper)", ""]
    out += [f"- [ ] `{w.keys[0]}` {w.title} -> {w.paper_id}" for w in duplicates] or ["(none)"]
    return "\n".join(out + [""])
