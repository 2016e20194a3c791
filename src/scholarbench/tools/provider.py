"""The engine's side of the tools: one session per sample, its trajectory in the run directory.

For an agent that declares `needs.tools`, the engine makes a `ToolProvider` for the run (the
benchmark's `tools.source.ToolSource`, its corpus opened once) and, for each sample, a
`SampleTools` — the agent's `ctx.tools` — bound to that sample's rules (`ToolSource.rules`). An agent may use it:

- in process: `ctx.tools.call("search", {"query": …})` (the built-in agents, the endpoint loop),
  and for a plain function `task["tools"].search(…)` (`tools.handle.ToolsHandle`);
- over MCP streamable HTTP: `ctx.tools.mcp_url()` starts a loopback server for this sample and
  returns its URL (stopped when the sample ends);
- over MCP stdio: `ctx.tools.mcp_stdio()` gives the command and arguments an MCP client
  launches (`scholarbench tools serve --session FILE`); that process logs its calls to a file
  the engine folds into the sample's trajectory.

Every call, whichever way it came, lands in `tools.jsonl` (one line per sample: its id and its
calls in order — tool, arguments, result ids, latency, error), written before the sample's
generate line, so a resumed sample's newer line wins. `summarise` counts them for the manifest.
"""
from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path
from typing import Any

from scholarbench.embed.minilm import default_embedder
from scholarbench.tools.handle import ToolsHandle
from scholarbench.tools.rules import AccessRules
from scholarbench.tools.session import ToolSession
from scholarbench.tools.source import offered

TRAJECTORIES = "tools.jsonl"
SESSION_DIR = "tools-sessions"


class SampleTools:
    """`ctx.tools` for one sample (see the module docstring)."""

    def __init__(self, session: ToolSession, corpus_dir: Path | None, work_dir: Path | None
                 ) -> None:
        self.session = session
        self.corpus_dir = corpus_dir
        self.work_dir = work_dir
        self._http: Any = None
        self._logs: list[Path] = []

    @property
    def rules(self) -> AccessRules:
        return self.session.rules

    def call(self, name: str, arguments: dict[str, Any] | None = None, *,
             raw: str | None = None) -> dict[str, Any]:
        return self.session.call(name, arguments, raw=raw)

    def mcp_url(self) -> str:
        if self._http is None:
            # deferred: pulls in anyio
            from scholarbench.tools.mcp_server import HttpServer
            self._http = HttpServer(self.session)
            self._http.start()
        return self._http.url

    def mcp_stdio(self) -> dict[str, Any]:
        """{"command", "args", "env"} of a stdio MCP server bound to this sample's rules (the
        env: this process's PYTHONPATH and SCHOLARBENCH_* settings, never a key)."""
        if self.corpus_dir is None or self.work_dir is None:
            raise RuntimeError("stdio tools need the corpus directory and a run directory")
        self.work_dir.mkdir(parents=True, exist_ok=True)
        stem = re.sub(r"[^A-Za-z0-9_.-]", "_", self.session.sample_id or "sample")[:80]
        n = len(self._logs)
        spec, log = self.work_dir / f"{stem}.{n}.json", self.work_dir / f"{stem}.{n}.log.jsonl"
        spec.write_text(json.dumps({"corpus": str(self.corpus_dir), "sample_id":
                                    self.session.sample_id, "log": str(log),
                                    "rules": self.rules.model_dump(mode="json")}),
                        encoding="utf-8")
        self._logs.append(log)
        env = {k: v for k, v in os.environ.items()
               if k == "PYTHONPATH" or k.startswith("SCHOLARBENCH_")}
        return {"command": sys.executable,
                "args": ["-m", "scholarbench", "tools", "serve", "--session", str(spec)],
                "env": env}

    def describe(self) -> dict[str, Any]:
        """What a plain-function agent gets as `task["tools"]`: a `tools.handle.ToolsHandle`
        (`mcp_url`, `mcp_stdio`, `rules`, and synchronous methods `.search(…)` etc.)."""
        return ToolsHandle(self.session, {
            "mcp_url": self.mcp_url(), "mcp_stdio": self.mcp_stdio()
            if self.corpus_dir is not None and self.work_dir is not None else None,
            "rules": self.rules.describe()})

    def close(self) -> list[dict[str, Any]]:
        """Stop the sample's servers; its trajectory (in-process and HTTP calls, then the
        calls each stdio server logged)."""
        if self._http is not None:
            self._http.stop()
            self._http = None
        calls = self.session.trajectory()
        for log in self._logs:
            if log.exists():
                for line in log.read_text(encoding="utf-8").splitlines():
                    try:
                        calls.append(json.loads(line))
                    except ValueError:
                        continue          # a torn last line of a killed server
                log.unlink()
            spec = log.with_name(log.name.replace(".log.jsonl", ".json"))
            spec.unlink(missing_ok=True)
        for i, call in enumerate(calls, start=1):
            call["step"] = i
        return calls


class ToolProvider:
    """Sessions for the samples of one run (the corpus is the benchmark's, opened once: made
    after the agent's context, only for an agent that uses the tools)."""

    def __init__(self, bench: Any, subtask: str, embedder: Any = None) -> None:
        self.source = offered(bench, subtask)
        self.corpus, self.corpus_dir = self.source.open_corpus()
        self._embedder = embedder          # the run's (dense search); else MiniLM on first use

    def _embedder_factory(self) -> Any:
        if self._embedder is None:
            self._embedder = default_embedder()
        return self._embedder

    def for_sample(self, sample: Any, run_dir: Path | None) -> SampleTools:
        session = ToolSession(self.corpus, self.source.rules(sample),
                              embedder_factory=self._embedder_factory, sample_id=sample.id)
        return SampleTools(session, self.corpus_dir,
                           run_dir / SESSION_DIR if run_dir is not None else None)


def summarise(lines: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The manifest's `tools` counts from tools.jsonl's latest line per sample."""
    by_tool: dict[str, int] = {}
    errors = 0
    for line in lines.values():
        for call in line.get("calls", []):
            by_tool[call.get("tool", "?")] = by_tool.get(call.get("tool", "?"), 0) + 1
            errors += 1 if call.get("error") else 0
    return {"calls": sum(by_tool.values()), "errors": errors, "samples": len(lines),
            "samples_with_calls": sum(1 for line in lines.values() if line.get("calls")),
            "by_tool": dict(sorted(by_tool.items()))}
