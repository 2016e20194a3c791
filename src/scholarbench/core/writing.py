"""Writing a stage record that JSON may not hold, without ever raising on its content.

What an agent returns reaches generate.jsonl; what JSON cannot write (`rundir.record_line`: a set,
a cycle, a non-string key, an int past Python's digit limit, a lone surrogate) must not stop the
writer, nor every later resume on the same sample. The policy: an agent `info` that is the trouble
is dropped (`info_dropped` says why, the caller warns and counts); otherwise the sample is
`malformed` with the reason (an `error` record stays `error`, retried on resume). A tool call
JSON cannot write keeps its place in the sample's trajectory as its step, tool and the reason.
"""
from __future__ import annotations

import sys
from typing import Any

from scholarbench.core.rundir import NotJSON, RunDir, plain_text, record_line

TRANSCRIPTS = "transcripts.jsonl"   # each sample's chat calls (llm.transcript), one line
TRANSCRIPT_KEY = "_transcript"      # a generate record's transcript until `SampleWriter` takes it


def write_record(run: RunDir, name: str, record: dict[str, Any], id_key: str = "id"
                 ) -> str | None:
    """Append `record` to stage file `name`; never raises on what the record holds. One JSON
    cannot write (`rundir.record_line`) is written without its `info` if that was the trouble
    (returns the warning), else as the sample's `malformed` record naming the reason (`error`
    stays `error`, so it is retried)."""
    try:
        run.append(name, record)
        return None
    except NotJSON as exc:
        reason = str(exc)
    if "info" in record:
        trimmed = {k: v for k, v in record.items() if k != "info"}
        trimmed["info_dropped"] = f"agent info is not JSON: {reason}"
        try:
            run.append(name, trimmed)
            return trimmed["info_dropped"] + "; dropped"
        except NotJSON as exc:
            reason = str(exc)
    failed = record.get("status") == "error"
    settled: dict[str, Any] = {
        id_key: plain_text(str(record.get(id_key))),
        "status": "error" if failed else "malformed",
        "error": plain_text(str(record.get("error")))[:2000] if failed
        else f"answer is not JSON: {reason}"}
    for key in ("missing", "seconds", "usage"):
        if key in record:
            settled[key] = record[key]
    try:
        run.append(name, settled)
    except NotJSON:           # only our own numbers are left: write the bare minimum
        run.append(name, {k: settled[k] for k in (id_key, "status", "error")})
    return None


def write_trajectory(run: RunDir, name: str, sample_id: str, calls: list[Any]) -> None:
    """Append one sample's tool trajectory; a call JSON cannot write is replaced by its step,
    tool and the reason (so the line, and the generate line after it, are always written)."""
    try:
        run.append(name, {"id": sample_id, "calls": calls})
        return
    except NotJSON:
        pass
    kept: list[Any] = []
    for call in calls:
        try:
            record_line(call)
            kept.append(call)
        except NotJSON as exc:
            head = call if isinstance(call, dict) else {}
            kept.append({"step": head.get("step") if isinstance(head.get("step"), int) else None,
                         "tool": plain_text(str(head.get("tool"))),
                         "error": f"this call is not JSON: {exc}"})
    run.append(name, {"id": plain_text(str(sample_id)), "calls": kept})


class SampleWriter:
    """generate's writer: each sample's tool trajectory (if any), then its record; it warns
    for each agent `info` dropped and, on `close`, says how many were."""

    def __init__(self, run: RunDir, name: str, id_key: str = "id") -> None:
        self.run, self.name, self.id_key, self.dropped = run, name, id_key, 0

    def write(self, sample_id: str, record: dict[str, Any], calls: list[Any] | None) -> None:
        exchange = record.pop(TRANSCRIPT_KEY, None)
        if exchange is not None:         # the sample's chat calls (llm.transcript)
            write_record(self.run, TRANSCRIPTS, {self.id_key: sample_id, **exchange},
                         self.id_key)
        if calls is not None:
            # deferred: loaded only by the path that needs it (a light CLI start)
            from scholarbench.tools.provider import TRAJECTORIES
            write_trajectory(self.run, TRAJECTORIES, sample_id, calls)
        if warning := write_record(self.run, self.name, record, self.id_key):
            self.dropped += 1
            from tqdm import tqdm
            tqdm.write(f"warning: sample {plain_text(str(sample_id))}: {warning}",
                       file=sys.stderr)

    def close(self) -> None:
        if self.dropped:
            print(f"warning: {self.dropped} sample(s) had their agent info dropped (not JSON; "
                  f"`info_dropped` in {self.name})", file=sys.stderr)
