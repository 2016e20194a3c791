"""What an agent and its judges did on one sample, in the HTML drill-down of every benchmark.

- The tool trajectory (tools.jsonl): one collapsed block per run that used the literature
  tools, its calls in order — tool, the arguments, how many papers came back (the first ids),
  latency, and the tool's error if any.
- The exchange (transcripts.jsonl, `llm.transcript`): the agent's chat calls in order — the
  messages sent, the reply, its tool calls, tokens, cache, latency or error — and its own
  steps (`AgentContext.note`).
- Each judge request's exchange (judge.<item>.jsonl `exchange`): the prompt the judge read and
  its reply.

Texts are cut at `SHOWN_CHARS` here (the files keep more); agent and judge texts are data,
escaped. Nothing is shown for a run that has none of these.
"""
from __future__ import annotations

import json
from typing import Any, Sequence

from scholarbench.report.htmlkit import e

MAX_CALLS = 200        # a drill-down shows at most this many calls per sample and run
MAX_IDS = 5
SHOWN_CHARS = 4000     # of one message or reply in the drill-down
MAX_STEPS_SHOWN = 50   # exchange steps shown per sample and run


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
    """The sample's trajectory, agent exchange and judge exchanges in each run that has them
    ("" when none has)."""
    out = []
    for run in runs:
        line = run.trajectories.get(str(sample_id))
        if line is not None:
            calls = line.get("calls") or []
            out.append(f'<details class="trajectory"><summary>{e(run.name)}: agent trajectory, '
                       f"{len(calls)} tool call{'' if len(calls) == 1 else 's'}</summary>"
                       + trajectory_table(calls) + "</details>")
        exchange = getattr(run, "transcripts", {}).get(str(sample_id))
        if exchange is not None:
            out.append(exchange_html(f"{run.name}: agent exchange", exchange))
        for record in getattr(run, "judge_exchanges", {}).get(str(sample_id), []):
            who = (f"{run.name}: judge {record.get('judge', '')} on {record['item']}"
                   f" ({record.get('subject', '')}, repeat {record.get('repeat', 0)})")
            out.append(exchange_html(who, record["exchange"]))
    return "".join(out)


def _cut(text: Any) -> str:
    body = str(text or "")
    if len(body) <= SHOWN_CHARS:
        return e(body)
    return e(body[:SHOWN_CHARS]) + f"<span class='muted'> … {len(body) - SHOWN_CHARS} more " \
        "characters in the run's files</span>"


def step_html(i: int, step: dict[str, Any]) -> str:
    """One step: a chat call (messages, reply, tool calls, tokens, latency) or an agent's own."""
    if step.get("kind") != "chat":
        data = {k: v for k, v in step.items() if k != "kind"}
        return (f"<li class='note'><b>{e(step.get('kind', ''))}</b> "
                f"<code>{_cut(json.dumps(data, ensure_ascii=False))}</code></li>")
    facts = [str(step.get("model", "")), f"{step.get('seconds', 0)} s"]
    if step.get("prompt_tokens") is not None:
        facts.append(f"{step['prompt_tokens']}+{step.get('completion_tokens', 0)} tokens")
    if step.get("cached"):
        facts.append("from the reply cache")
    parts = [f"<li class='chat'><b>#{i} chat</b> <span class='muted'>"
             f"{e(' · '.join(facts))}</span>"]
    for m in step.get("messages") or []:
        content = str(m.get("content") or "")
        asked = "".join(f"<div class='toolcall'>tool call <code>"
                        f"{e((c.get('function') or c).get('name', ''))}</code></div>"
                        for c in m.get("tool_calls") or [] if isinstance(c, dict))
        parts.append(f"<details><summary>{e(m.get('role', ''))} ({len(content):,} "
                     f"characters)</summary>"
                     + (f"<pre>{_cut(content)}</pre>" if content or not asked else "")
                     + asked + "</details>")
    if step.get("error"):
        parts.append(f"<p class='error'>call failed: {_cut(step['error'])}</p>")
    elif step.get("reply") or not step.get("tool_calls"):
        parts.append(f"<div class='reply'>reply: <pre>{_cut(step.get('reply'))}</pre></div>")
    for call in step.get("tool_calls") or []:
        parts.append(f"<div class='toolcall'>tool call <code>{e(call.get('name', ''))}"
                     f"({_cut(call.get('arguments', ''))})</code></div>")
    return "".join(parts) + "</li>"


def exchange_html(title: str, exchange: dict[str, Any]) -> str:
    """One transcript (`llm.transcript.Transcript.as_record`) as a collapsed, readable list."""
    steps = [s for s in exchange.get("steps") or [] if isinstance(s, dict)]
    chats = sum(1 for s in steps if s.get("kind") == "chat")
    cut = []
    if exchange.get("truncated_steps"):
        cut.append(f"{exchange['truncated_steps']} more steps not kept (size cap)")
    if exchange.get("truncated_chars"):
        cut.append(f"{exchange['truncated_chars']:,} characters cut when kept")
    if len(steps) > MAX_STEPS_SHOWN:
        cut.append(f"{len(steps) - MAX_STEPS_SHOWN} more steps in the run's files")
    items = "".join(step_html(i, s) for i, s in enumerate(steps[:MAX_STEPS_SHOWN], start=1))
    note = f"<p class='muted'>{e('; '.join(cut))}</p>" if cut else ""
    return (f"<details class='exchange'><summary>{e(title)}, {chats} chat "
            f"call{'' if chats == 1 else 's'}</summary><ol>{items}</ol>{note}</details>")
