"""Human-labelled citation contexts, mapped to SciNet's sentiment classes (docs/judges.md).

The human labels are citation *intent* (SciCite, ACL-ARC) or discourse *facet* (CL-SciSumm), not
sentiment. A label is mapped only where SciNet's own class definitions (appendix C prompt) and the
project's cue rule (`benchmarks/scinet/sentiment.py`: "we use", "following", "based on",
"extends" are Positive cues; background mention is Neutral) say the same thing:

- background (SciCite) / Background (ACL-ARC) → Neutral ("mentions … as background");
- method (SciCite: uses a method, tool or data set) / Uses / Extends (ACL-ARC) → Positive
  ("builds upon");
- everything else has no honest mapping and is left out, counted per label: result and
  CompareOrContrast (a comparison can confirm or contradict), Motivation, Future, and every
  CL-SciSumm facet (a facet names the part of the cited paper a citance is about — method,
  result, aim — not the citer's stance).

No data set here carries a Negative label, so the judge's Negatives are always errors here.
"""
from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from scholarbench.errors import ScholarbenchError

MAPPINGS: dict[str, dict[str, str]] = {
    "scicite": {"background": "Neutral", "method": "Positive"},
    "acl-arc": {"Background": "Neutral", "Uses": "Positive", "Extends": "Positive"},
    "clscisumm": {},
}
DATASETS = tuple(MAPPINGS)
SPLITS = ("train", "dev", "test")


@dataclass(frozen=True)
class Item:
    item_id: str
    text: str
    human: str          # the source's own label
    gold: str           # the mapped SciNet class


@dataclass
class Labelled:
    dataset: str
    source: str                                   # file(s) read
    items: list[Item] = field(default_factory=list)
    left_out: Counter = field(default_factory=Counter)   # unmapped source label → count


def load(dataset: str, data: Path, split: str = "test") -> Labelled:
    if dataset not in MAPPINGS:
        raise ScholarbenchError(f"unknown data set {dataset!r}; known: {', '.join(DATASETS)}")
    if dataset == "clscisumm":
        return _clscisumm(data / "clscisumm")
    if split not in SPLITS:
        raise ScholarbenchError(f"unknown split {split!r}; known: {', '.join(SPLITS)}")
    prefix = "scicite" if dataset == "scicite" else "acl_arc"
    path = data / "citation_intent" / f"{prefix}_{split}.jsonl"
    if not path.is_file():
        raise ScholarbenchError(f"{path}: not found (--data names the folder holding "
                                "citation_intent/ and clscisumm/)")
    out = Labelled(dataset, str(path))
    mapping = MAPPINGS[dataset]
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            text, label = row["text"], row["label"]
        except (ValueError, KeyError, TypeError) as exc:
            raise ScholarbenchError(f"{path}:{n}: not a {{text, label}} JSON line ({exc})")
        if not isinstance(text, str) or not isinstance(label, str):
            raise ScholarbenchError(f"{path}:{n}: 'text' and 'label' must be strings")
        if label in mapping:
            out.items.append(Item(f"{dataset}:{split}:{n}", text, label, mapping[label]))
        else:
            out.left_out[label] += 1
    return out


_FACET = re.compile(r"Discourse Facet:\s*([^|]*)")


def _clscisumm(root: Path) -> Labelled:
    """Counts the annotated citances' facets; none maps (see the module docstring)."""
    files = sorted(root.glob("Training-Set-2018/*/annotation/*.txt"))
    if not files:
        raise ScholarbenchError(f"{root}: no Training-Set-2018/*/annotation/*.txt found")
    out = Labelled("clscisumm", f"{root}/Training-Set-2018/*/annotation")
    for path in files:
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            found = _FACET.search(line)
            if found:
                for facet in re.findall(r"[A-Za-z_]+", found.group(1)) or ["(empty)"]:
                    out.left_out[facet] += 1
                    break                    # one count per citance: its first facet
    return out
