"""The build manifest: what a set of built tasks was made from and with.

`manifest.json`: `format_version`; `created` (UTC); `scholarbench` version; `sources` (each
source as given, its kind and title, and every file read with its sha256); `corpus` (its folder
and the sha256 its own manifest records, or null: abstracts from the bibliographies only);
`benchmarks` (per benchmark: the task file relative to the output folder, its sha256, the
instance count, per-instance counts and `units`: each unit's status and usage,
`builder.units`); `models` and `prompts` (per stage: the model and the prompt's versioned
identity); `usage` (per stage: calls and tokens as the LLM client counted, summed over the
units); `build` (units in all, built by this invocation, kept from an earlier one, rebuilt
because their source or options changed, errored; units at once).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Sequence

from scholarbench.files import sha256_file
from scholarbench import __version__
from scholarbench.core.rundir import atomic_write_json

FORMAT_VERSION = 1


@dataclass
class BuildManifest:
    data: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def start(cls, sources: Sequence[str | Path], docs: Sequence[Any], corpus: Any
              ) -> "BuildManifest":
        return cls({
            "format_version": FORMAT_VERSION,
            "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "scholarbench": __version__,
            "sources": [{"source": str(src), "kind": doc.kind, "title": doc.title,
                         "files": [{"path": str(p), "sha256": sha256_file(p)}
                                   for p in doc.files]}
                        for src, doc in zip(sources, docs)],
            "corpus": corpus_identity(corpus), "benchmarks": {}, "models": {}, "prompts": {},
            "usage": {}})

    def add_benchmark(self, name: str, path: Path, out: Path, instances: int,
                      counts: dict[str, Any]) -> None:
        self.data["benchmarks"][name] = {"file": str(path.relative_to(out)),
                                         "sha256": sha256_file(path), "instances": instances,
                                         "counts": counts}

    def add_stage(self, stage: str, model: str | None, prompt: str | None,
                  usage: dict[str, Any]) -> None:
        self.data["models"][stage] = model
        self.data["prompts"][stage] = prompt
        self.data["usage"][stage] = usage

    def write(self, path: Path) -> dict[str, Any]:
        atomic_write_json(path, self.data)
        return self.data


def corpus_identity(corpus: Any) -> dict[str, Any] | None:
    """The corpus's folder and the sha256 its own manifest records (None: no corpus)."""
    if corpus is None:
        return None
    own = corpus.manifest() if callable(getattr(corpus, "manifest", None)) else {}
    return {"path": str(getattr(corpus, "directory", "")), "sha256": own.get("sha256")}
