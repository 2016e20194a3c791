"""Whether a submitted run used the verifier's task set: the manifest's data and corpus
records (checksums, counts, task-set names: every field but paths, which differ between
machines) against the verifier's own load of the same benchmark, and the task ids."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from scholarbench.core.aggregate import differences
from scholarbench.core.benchmark import Loaded
from scholarbench.core.lookup import benchmark_class
from scholarbench.errors import ScholarbenchError
from scholarbench.submission.verdict import Check

PATH_KEYS = ("path", "dir", "root")


@dataclass
class TaskSet:
    """The verifier's side: its load of the run's benchmark (None when it failed) and its
    corpus record (None: none, or the benchmark names no corpus)."""
    loaded: Loaded | None
    corpus: dict[str, Any] | None
    check: Check


def comparable(value: Any) -> Any:
    """A data or corpus record without its paths (keys named or ending in `PATH_KEYS`)."""
    if isinstance(value, dict):
        return {k: comparable(v) for k, v in value.items()
                if not any(str(k) == p or str(k).endswith("_" + p) for p in PATH_KEYS)}
    if isinstance(value, list):
        return [comparable(v) for v in value]
    return value


def verifier_task_set(scope: str, manifest: dict[str, Any], submitted_ids: list[str],
                      data: str | None) -> TaskSet:
    """The `data` check of one run (module docstring)."""
    try:
        bench = benchmark_class(str(manifest.get("benchmark")))(
            {**(manifest.get("options") or {}), "data": data})
        loaded = bench.load(str(manifest.get("mode")), manifest.get("limit"))
        corpus = _corpus(bench) if manifest.get("corpus") else None
    except (ScholarbenchError, KeyError, OSError) as exc:
        return TaskSet(None, None, Check("data", scope, "refused", "the verifier cannot load "
                                         f"this run's tasks: {exc}"))
    diffs = [f"data.{d}: {_at(manifest.get('data'), d)} submitted, "
             f"{_at(loaded.data, d)} here"
             for d in differences(comparable(loaded.data), comparable(manifest.get("data")))]
    if manifest.get("corpus") and corpus is not None:
        diffs += [f"corpus.{d}: {_at(manifest['corpus'], d)} submitted, {_at(corpus, d)} here"
                  for d in differences(comparable(corpus), comparable(manifest["corpus"]))]
    elif manifest.get("corpus"):
        diffs.append("corpus: the run used a corpus; the verifier has none for this benchmark")
    ours = [s.id for s in loaded.samples]
    if only := sorted(set(submitted_ids) - set(ours)):
        diffs.append(f"tasks only in the submission: {', '.join(only[:20])}")
    if only := sorted(set(ours) - set(submitted_ids)):
        diffs.append(f"tasks only in the verifier's data: {', '.join(only[:20])}")
    if diffs:
        check = Check("data", scope, "refused", "the task set is not the verifier's data",
                      tuple(diffs))
    else:
        check = Check("data", scope, "ok", f"{len(ours)} tasks, data"
                      + (" and corpus" if corpus else "") + " records equal the verifier's")
    return TaskSet(loaded, corpus, check)


def _corpus(bench: Any) -> dict[str, Any] | None:
    corpus_dir = getattr(bench, "corpus_dir", None)
    if corpus_dir is None:
        return None
    # deferred: pulls in pyarrow, only for a run that recorded a corpus
    from scholarbench.corpus.build import corpus_info
    return corpus_info(corpus_dir(False))


def _at(value: Any, dotted: str) -> Any:
    for part in dotted.split("."):
        if isinstance(value, dict):
            value = value.get(part)
        elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            return None
    return value


__all__ = ["TaskSet", "comparable", "verifier_task_set"]
