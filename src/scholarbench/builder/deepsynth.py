"""DeepSynth-Eval tasks drafted from a survey (DeepSynth-Eval paper §3.2–3.3).

Stages (each an LLM call through the judge role's client — building data is not the agent
under test — with its prompt in `benchmarks/deepsynth/prompts/build_*_v1.txt`; the paper
publishes no construction prompt, so ours quote its §3.2 wording and ask for JSON):

1. `general_request`: title + abstract -> the reverse-engineered general question `q_gen`.
2. `topics` (Topic Anchor, step 1): section headers + the opening text -> topics, each naming
   the headers it is based on. Headers that are not the survey's are dropped; a topic left with
   none is rejected (repair turn, then the stage is unscored for the survey).
3. `topic_items` (Topic Anchor, step 2): per topic, the text of its sections -> sub-groups of
   requirements: one general group per topic (`strict` false, `clip_factor` 1.0).
4. `constraints` (Structure Anchor): each table of the survey (Markdown pipe table or LaTeX
   table environment, found by `builder.source`, not by the model) -> a constraint question
   (`detailed_prompt`) and its checklist: one strict group per table (`clip_factor` 0.8).
   The paper's anchors also include taxonomies; only tables are anchors here.
The `clip_factor` values are upstream's defaults (score.py; `benchmarks/deepsynth/loader`).

Screens (§3.3 names two reasons its annotators discarded candidates) become review flags:
- over-specification: a constraint question that already contains most of its checklist —
  flagged when ≥ `OVERSPEC_SHARE` (0.5) of its items have ≥ 80% of their content words in the
  question;
- contextual ambiguity: an item that is, or contains, a bare table symbol (✓ ✔ ✗ ✘ × –,
  `\\checkmark`, `\\times`, or only yes/no).

Oracle Context (§3.4: "the full text of the reference bibliography"): the survey's cited works
(`builder.works`, resolved in the corpus) minus those the corpus does not resolve (counted),
written as a reference-list file `oracle/references.jsonl` (`{task_id, references: [{title,
ids}]}`, with the corpus paper_id first in `ids`) that `scholarbench run deepsynth
--references FILE` reads (`benchmarks/deepsynth/oracle`).

Every group carries its anchor in `anchors/trace.jsonl` (`task_id`, `group`, `anchor`: the topic and
its headers, or the table's file:line), so a reviewer sees where each came from.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from scholarbench.builder.source import Section, SurveyDoc, Table
from scholarbench.builder.works import cited_works
from scholarbench.llm.prompts import Prompt, load_package_prompt
from scholarbench.llm.structured import ask_json
from scholarbench.llm.usage import sample_scope
from scholarbench.benchmarks.reportbench.llm_common import quote
from scholarbench.errors import ScholarbenchError
from scholarbench.llm.client import LLMCallError

PACKAGE = "scholarbench.benchmarks.deepsynth"
PROMPTS = {"general_request": "build_general_request_v1", "topics": "build_topics_v1",
           "topic_items": "build_topic_items_v1", "constraints": "build_constraint_pair_v1"}
GENERAL_CLIP, STRICT_CLIP = 1.0, 0.8
OVERSPEC_SHARE = 0.5
SYMBOLS = re.compile(r"[✓✔✗✘×]|\\checkmark|\\times|\\xmark|^\s*(?:yes|no|-|–)\s*\.?\s*$",
                     re.IGNORECASE)
_WORD = re.compile(r"\w\w+")


def prompt(stage: str) -> Prompt:
    return load_package_prompt(PACKAGE, PROMPTS[stage], strip_final_newline=True)


@dataclass
class Settings:
    min_topics: int = 4
    max_topics: int = 8
    max_items: int = 20
    excerpt_chars: int = 6000
    section_chars: int = 12000
    table_chars: int = 8000


@dataclass
class DeepSynthDraft:
    task: dict[str, Any] | None                      # None when a needed stage was unscored
    trace: list[dict[str, Any]] = field(default_factory=list)
    flags: list[str] = field(default_factory=list)
    unscored: list[str] = field(default_factory=list)
    references: list[dict[str, Any]] = field(default_factory=list)
    oracle: dict[str, int] = field(default_factory=dict)


def _paths(doc: SurveyDoc) -> list[tuple[tuple[str, ...], Section]]:
    return [x for top in doc.sections for x in top.walk()]


def _user(text: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": text}]


def _need_list(value: Any, key: str) -> list:
    if not isinstance(value, dict) or not isinstance(value.get(key), list):
        raise ValueError(f"expected an object with a list '{key}'")
    return value[key]


def _sub_groups(value: Any, max_items: int) -> list[dict[str, Any]]:
    out = []
    for i, sub in enumerate(_need_list(value, "sub_groups")):
        if not isinstance(sub, dict) or not isinstance(sub.get("sub_group_name"), str):
            raise ValueError(f"sub_groups[{i}] needs a string 'sub_group_name'")
        reqs = sub.get("requirements")
        if not isinstance(reqs, list) or not all(isinstance(r, str) for r in reqs):
            raise ValueError(f"sub_groups[{i}].requirements must be a list of strings")
        reqs = [" ".join(r.split()) for r in reqs if r.strip()]
        if reqs:
            out.append({"sub_group_name": sub["sub_group_name"].strip() or f"part {i + 1}",
                        "requirements": [{"content": r, "reward": 1.0} for r in reqs]})
    if not out:
        raise ValueError("no requirements")
    n = 0
    for sub in out:                                   # keep at most max_items, in order
        sub["requirements"] = sub["requirements"][:max(0, max_items - n)]
        n += len(sub["requirements"])
    return [s for s in out if s["requirements"]]


def general_request(client: Any, doc: SurveyDoc) -> str | None:
    text = prompt("general_request").fill(title=quote(doc.title),
                                          abstract=quote(doc.abstract or "(none)"))
    try:
        reply = client.complete(_user(text)).text.strip()
    except LLMCallError:
        return None
    return reply.strip('"“” ') or None


def topics(client: Any, doc: SurveyDoc, s: Settings) -> tuple[list[tuple[str, list]], str]:
    """[(topic name, [heading paths])], or ([], why unscored)."""
    by_line = {" > ".join(p): p for p, _ in _paths(doc)}
    outline = "\n".join(by_line)
    excerpt = "\n\n".join(sec.text for _, sec in _paths(doc))[:s.excerpt_chars]

    def validate(value: Any) -> list[tuple[str, list]]:
        out = []
        for i, t in enumerate(_need_list(value, "topics")):
            if not isinstance(t, dict) or not isinstance(t.get("name"), str) \
                    or not isinstance(t.get("headings"), list):
                raise ValueError(f"topics[{i}] needs 'name' and a list 'headings'")
            heads = [by_line[h.strip()] for h in t["headings"]
                     if isinstance(h, str) and h.strip() in by_line]
            if not heads:
                raise ValueError(f"topic {t['name']!r} names none of the section headers "
                                 "(copy whole header lines)")
            out.append((t["name"].strip(), list(dict.fromkeys(heads))))
        if not out:
            raise ValueError("no topics")
        return out[:s.max_topics]

    text = prompt("topics").fill(title=quote(doc.title), outline=quote(outline),
                                 excerpt=quote(excerpt), min_topics=s.min_topics,
                                 max_topics=s.max_topics)
    got = ask_json(client, _user(text), validate=validate, name="topics")
    return (got.value, "") if got.ok else ([], got.unscored or "unscored")


def _sections_text(doc: SurveyDoc, heads: list, limit: int) -> str:
    by_path = dict(_paths(doc))
    parts = []
    for path in heads:
        parts.append(f"## {' > '.join(path)}\n{by_path[path].text}")
        for sub_path, sub in by_path[path].walk(path[:-1]):
            if sub_path != path:
                parts.append(f"## {' > '.join(sub_path)}\n{sub.text}")
    return "\n\n".join(dict.fromkeys(parts))[:limit]


def topic_group(client: Any, doc: SurveyDoc, name: str, heads: list, s: Settings):
    text = prompt("topic_items").fill(title=quote(doc.title), topic=quote(name),
                                      sections=quote(_sections_text(doc, heads,
                                                                    s.section_chars)),
                                      max_items=s.max_items)
    got = ask_json(client, _user(text), validate=lambda v: _sub_groups(v, s.max_items),
                   name="topic_items")
    if not got.ok:
        return None, got.unscored
    return {"group_name": name, "strict": False, "clip_factor": GENERAL_CLIP, "weight": 1.0,
            "sub_groups": got.value}, None


def constraint_group(client: Any, doc: SurveyDoc, path: tuple, table: Table, s: Settings):

    def validate(value: Any):
        question = value.get("constraint_question") if isinstance(value, dict) else None
        if not isinstance(question, str) or not question.strip():
            raise ValueError("missing 'constraint_question'")
        return " ".join(question.split()), _sub_groups(value, s.max_items)

    text = prompt("constraints").fill(title=quote(doc.title), section=quote(" > ".join(path)),
                                      caption=quote(table.caption or "(none)"),
                                      table=quote(table.text[:s.table_chars]),
                                      max_items=s.max_items)
    got = ask_json(client, _user(text), validate=validate, name="constraint_pair")
    if not got.ok:
        return None, got.unscored
    question, subs = got.value
    name = table.caption or f"Table in {path[-1]}"
    return {"group_name": name, "strict": True, "clip_factor": STRICT_CLIP, "weight": 1.0,
            "detailed_prompt": question, "sub_groups": subs}, None


def screens(group: dict[str, Any]) -> list[str]:
    """Review flags for one group (module docstring)."""
    flags = []
    items = [r["content"] for sub in group["sub_groups"] for r in sub["requirements"]]
    for item in items:
        if SYMBOLS.search(item):
            flags.append(f"contextual ambiguity: bare symbol in item \"{item}\"")
    if group.get("strict"):
        question = set(_WORD.findall(group["detailed_prompt"].lower()))
        inferable = 0
        for item in items:
            words = set(_WORD.findall(item.lower()))
            if words and len(words & question) / len(words) >= 0.8:
                inferable += 1
        if items and inferable / len(items) >= OVERSPEC_SHARE:
            flags.append(f"over-specification: {inferable} of {len(items)} items are mostly "
                         "words of the constraint question")
    return flags


def _add(total: dict[str, Any], usage: dict[str, Any]) -> None:
    for key, value in usage.items():
        if isinstance(value, (int, float)):
            total[key] = total.get(key, 0) + value


def draft_deepsynth(doc: SurveyDoc, task_id: str, client: Any, corpus: Any = None,
                    settings: Settings | None = None,
                    usage: dict[str, dict[str, Any]] | None = None) -> DeepSynthDraft:
    """One task (see the module docstring); `usage` collects per-stage usage."""
    s = settings or Settings()
    usage = usage if usage is not None else {}
    draft = DeepSynthDraft(None)
    with sample_scope() as u:
        request = general_request(client, doc)
    _add(usage.setdefault("general_request", {}), u.as_dict())
    with sample_scope() as u:
        found, why = topics(client, doc, s)
    _add(usage.setdefault("topics", {}), u.as_dict())
    if request is None:
        draft.unscored.append("general_request: no usable reply")
    if why:
        draft.unscored.append(f"topics: {why}")
    groups: list[dict[str, Any]] = []
    with sample_scope() as u:
        for name, heads in found:
            group, why = topic_group(client, doc, name, heads, s)
            if group is None:
                draft.unscored.append(f"topic {name!r}: {why}")
                continue
            groups.append(group)
            draft.trace.append({"task_id": task_id, "group": name, "anchor": {
                "kind": "topic", "headings": [" > ".join(h) for h in heads]}})
    _add(usage.setdefault("topic_items", {}), u.as_dict())
    with sample_scope() as u:
        for path, section in _paths(doc):
            for table in section.tables:
                group, why = constraint_group(client, doc, path, table, s)
                if group is None:
                    draft.unscored.append(f"table at {table.where}: {why}")
                    continue
                groups.append(group)
                draft.trace.append({"task_id": task_id, "group": group["group_name"],
                                    "anchor": {"kind": "table", "where": table.where,
                                               "section": " > ".join(path)}})
    _add(usage.setdefault("constraints", {}), u.as_dict())
    for group in groups:
        draft.flags += [f"{group['group_name']}: {f}" for f in screens(group)]
    works, _ = cited_works(doc.gt, corpus)
    resolved = [w for w in works if w.paper_id]
    draft.references = [{"title": w.title, "ids": [w.paper_id, *w.ids]} for w in resolved]
    draft.oracle = {"bibliography": len(works), "resolved": len(resolved),
                    "unresolved": len(works) - len(resolved)}
    if request is not None and any(not g["strict"] for g in groups):
        draft.task = {"task_id": task_id, "general_prompt": request,
                      "checklist": groups}
    return draft


@dataclass
class Written:
    review: list[str]
    tasks: int


def _review(draft: DeepSynthDraft, task_id: str, title: str, source: str) -> str:
    o = draft.oracle
    lines = [f"## DeepSynth-Eval `{task_id}`: {title}", "",
             f"Source: `{source}`. Drafted by a model (DeepSynth-Eval §3.2); the paper's "
             "tasks passed two rounds of expert screening (§3.3): read every group.", "",
             f"- task written: {'yes' if draft.task else 'NO (see unscored stages)'}",
             f"- Oracle Context: {o.get('resolved', 0)} of {o.get('bibliography', 0)} cited "
             f"works resolved in the corpus; {o.get('unresolved', 0)} unresolved (left out)", "",
             "### Screens (§3.3)", ""]
    lines += [f"- [ ] {f}" for f in draft.flags] or ["(none flagged)"]
    lines += ["", "### Unscored stages", ""]
    lines += [f"- {u}" for u in draft.unscored] or ["(none)"]
    return "\n".join(lines + [""])


def build_deepsynth(docs: Sequence[SurveyDoc], ids: Sequence[str], sources: Sequence[Any],
                    folder: Path, corpus: Any, client: Any, manifest: Any,
                    settings: Settings | None = None) -> Written:
    if client is None:
        raise ScholarbenchError("deepsynth: building needs a model (the judge role)")
    folder.mkdir(parents=True, exist_ok=True)
    usage: dict[str, dict[str, Any]] = {}
    tasks, refs, trace, review = [], [], [], []
    counts: dict[str, Any] = {}
    for doc, task_id, src in zip(docs, ids, sources):
        draft = draft_deepsynth(doc, task_id, client, corpus, settings, usage)
        review.append(_review(draft, task_id, doc.title, str(src)))
        counts[task_id] = {**draft.oracle, "flags": len(draft.flags),
                           "unscored": len(draft.unscored), "written": draft.task is not None}
        if draft.task is not None:
            tasks.append(draft.task)
            trace += draft.trace
            refs.append({"task_id": task_id, "references": draft.references})
    path = folder / "tasks.jsonl"
    path.write_text("".join(json.dumps(t, ensure_ascii=False) + "\n" for t in tasks),
                    encoding="utf-8")
    for sub, rows in (("oracle/references.jsonl", refs), ("anchors/trace.jsonl", trace)):
        (folder / sub).parent.mkdir(exist_ok=True)
        (folder / sub).write_text("".join(json.dumps(r, ensure_ascii=False) + "\n"
                                          for r in rows), encoding="utf-8")
    model = getattr(client, "model_id", None)
    for stage in PROMPTS:
        manifest.add_stage(f"deepsynth.{stage}", model, prompt(stage).identity(),
                           usage.get(stage, {}))
    manifest.add_benchmark("deepsynth", path, folder.parent, len(tasks), counts)
    return Written(review, len(tasks))
