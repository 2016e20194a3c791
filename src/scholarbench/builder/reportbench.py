"""ReportBench tasks from a survey through `scholarbench build`: the existing constructions,
called as they are (no second code path).

- Ground truth: `reportbench.survey_gt` (the works the survey's main text cites) written by
  `write_gt_jsonl` as `ReportBench_v1.1_GT/<arxiv_id>.jsonl` (upstream's GT format).
- Prompt: `reportbench.construct.construct_prompt` (paper §2.1.2; its prompt files and cut-off
  check), given the survey's title, abstract, the date of its latest version (the cut-off's
  month) and its sections' text as (header path, text) pairs, through the judge role.
- Task line (`ReportBench_v1.1.jsonl`): `arxiv_id`, `title`, `abstract`, `prompt`,
  `application_domain` (empty), `versions` [{version "v1", created: the date}].
ReportBench keys tasks and GT by the survey's arXiv id (`--arxiv-id`, in SOURCE order); a
survey not on arXiv (`--arxiv-id none`, or no `--arxiv-id` at all) is keyed `local-<slug of its
title>`. Each SOURCE needs its date (`--survey-date`).
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any, Sequence

from scholarbench.builder.source import SurveyDoc
from scholarbench.errors import ScholarbenchError
from scholarbench.llm.usage import sample_scope
from scholarbench.benchmarks.reportbench.construct import (SurveySource, construct_prompt,
                                                           prompt_identity)
from scholarbench.benchmarks.reportbench.survey_gt import write_gt_jsonl
from scholarbench.data.sources.keys import id_key

GT_FOLDER = "ReportBench_v1.1_GT"


@dataclass
class Written:
    review: list[str]
    tasks: int


NOT_ON_ARXIV = "none"      # `--arxiv-id none`: this SOURCE is not on arXiv


def check_ids(arxiv_ids: Sequence[str], dates: Sequence[str], n: int
              ) -> list[tuple[str | None, date]]:
    """(arXiv id, or None for a survey not on arXiv — keyed `local-<slug>` by `survey_key` —,
    the date) per SOURCE: `--arxiv-id` once per SOURCE (`none` for one not on arXiv) or not
    at all (none is), `--survey-date` once per SOURCE."""
    if len(arxiv_ids) not in (0, n) or len(dates) != n:
        raise ScholarbenchError(f"reportbench: give one --survey-date per SOURCE ({n}) and "
                                f"--arxiv-id once per SOURCE or not at all (`--arxiv-id none` "
                                f"for a survey not on arXiv)")
    out: list[tuple[str | None, date]] = []
    for arxiv, day in zip(list(arxiv_ids) or [NOT_ON_ARXIV] * n, dates):
        key = id_key("arxiv", arxiv)
        if arxiv == NOT_ON_ARXIV:
            arxiv = None
        elif key is None or key.split(":", 1)[1] != arxiv:
            raise ScholarbenchError(f"--arxiv-id {arxiv!r}: not an arXiv id without version "
                                    f"(or `none` for a survey not on arXiv)")
        try:
            out.append((arxiv, date.fromisoformat(day)))
        except ValueError:
            raise ScholarbenchError(f"--survey-date {day!r}: not a YYYY-MM-DD date") from None
    return out


def survey_key(arxiv: str | None, survey_id: str) -> str:
    """The task's `arxiv_id`: the survey's arXiv id, else `local-<its build slug>`."""
    import re
    return arxiv if arxiv else "local-" + (re.sub(r"[^a-z0-9]+", "-", survey_id.lower())
                                          .strip("-") or "survey")


def build_reportbench(docs: Sequence[SurveyDoc], keys: Sequence[tuple[str, date]],
                      sources: Sequence[Any], folder: Path, corpus: Any, client: Any,
                      manifest: Any, granularity: str = "sentence") -> Written:
    if client is None:
        raise ScholarbenchError("reportbench: constructing the prompt needs a model (the judge "
                                "role)")
    (folder / GT_FOLDER).mkdir(parents=True, exist_ok=True)
    lines, review, counts, usage = [], [], {}, {}
    for doc, (arxiv, day), src in zip(docs, keys, sources):
        n_gt, untitled = write_gt_jsonl(doc.gt, folder / GT_FOLDER / f"{arxiv}.jsonl")
        paragraphs = tuple((" > ".join(p), s.text) for top in doc.sections
                           for p, s in top.walk() if s.text)
        with sample_scope() as u:
            made = construct_prompt(client, SurveySource(arxiv, doc.title, doc.abstract, day,
                                                         paragraphs), granularity)
        for k, v in u.as_dict().items():
            if isinstance(v, (int, float)):
                usage[k] = usage.get(k, 0) + v
        counts[arxiv] = {"gt_references": n_gt, "gt_untitled_left_out": untitled,
                         "cited_without_entry": len(doc.gt.missing),
                         "prompt": made.prompt is not None, "cutoff_ok": made.cutoff_ok,
                         "mentions_title": made.mentions_title}
        if made.prompt:
            lines.append({"arxiv_id": arxiv, "title": doc.title, "abstract": doc.abstract,
                          "prompt": made.prompt, "application_domain": "",
                          "versions": [{"version": "v1", "created": day.isoformat()}]})
        flags = ([] if made.cutoff_ok or not made.prompt else
                 [f"the prompt does not state the cut-off as \"published before …\" "
                  f"({made.cutoff_expected})"])
        flags += ["the prompt names the survey's title"] if made.mentions_title else []
        review.append("\n".join([
            f"## ReportBench `{arxiv}`: {doc.title}", "",
            f"Source: `{src}`. Ground truth: {n_gt} cited works with a title "
            f"({untitled} without a title left out, as upstream's GT never holds one); "
            f"prompt ({granularity}): "
            + (f"\"{made.prompt}\"" if made.prompt else f"NONE ({made.unscored})"), "",
            *([f"- [ ] {f}" for f in flags] or ["(no flags)"]), ""]))
    path = folder / "ReportBench_v1.1.jsonl"
    path.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines),
                    encoding="utf-8")
    manifest.add_stage("reportbench.prompt", getattr(client, "model_id", None),
                       prompt_identity(granularity), usage)
    manifest.add_benchmark("reportbench", path, folder.parent, len(lines), counts)
    return Written(review, len(lines))
