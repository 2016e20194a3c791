"""The agent's tool trajectory of one sample in the HTML drill-down (tools.jsonl of each run).

One collapsed block per run that used the literature tools: its calls in order — tool, the
arguments, how many papers came back (the first ids), latency, and the tool's error if any.
Nothing is shown for runs whose agent used no tools.
"""
from __future__ import annotations

import json
from typing import Any, Sequence

from scholarbench.report.htmlkit import e

MAX_CALLS = 200        # a drill-down shows at most this many calls per sample and run
MAX_IDS = 5


def _args(arguments: Any) -> str:
    text = json.dumps(arguments, ensure_ascii=False, default=str)
    return text if len(text) <= 300 else text[:299] + "…"


def trajectory_table(calls: Sequence[dict[str, Any]]) -> str:
    rows = []
    for call in calls[:MAX_CALLS]:
        ids = [str(i) for i in call.get("result_ids") or []]
        shown = ", ".join(ids[:MAX_IDS]) + (f", … ({len(ids)} in all)" if len(ids) > MAX_IDS
                                            else "")
        outcome = f"error: {call['error']}" if call.get("error") else shown or "no results"
        latency = call.get("latency_ms")
        tool = str(call.get("tool", "")) + (f" ({call['via']})" if call.get("via") else "")
        rows.append(f"<tr><td>{e(call.get('step', ''))}</td><td>{e(tool)}</td>"
                    f"<td><code>{e(_args(call.get('arguments', {})))}</code></td>"
                    f"<td>{e(outcome)}</td><td>{e(latency if latency is not None else '')}"
                    "</td></tr>")
    more = (f"<p class='muted'>{len(calls) - MAX_CALLS} more calls in tools.jsonl</p>"
            if len(calls) > MAX_CALLS else "")
    return ('<table class="trajectory"><thead><tr><th>#</th><th>tool</th><th>arguments</th>'
            '<th>result ids</th><th>ms</th></tr></thead><tbody>' + "".join(rows)
            + "</tbody></table>" + more)


def trajectories_html(runs: Sequence[Any], sample_id: str) -> str:
    """The sample's trajectory in each run that has one ("" when none has)."""
    out = []
    for run in runs:
        line = run.trajectories.get(str(sample_id))
        if line is None:
            continue
        calls = line.get("calls") or []
        out.append(f'<details class="trajectory"><summary>{e(run.name)}: agent trajectory, '
                   f"{len(calls)} tool call{'' if len(calls) == 1 else 's'}</summary>"
                   + trajectory_table(calls) + "</details>")
    return "".join(out)
