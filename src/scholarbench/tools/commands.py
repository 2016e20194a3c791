"""`scholarbench tools serve | list`.

    scholarbench tools serve --benchmark B [--task ID] [--subtask S] [--option KEY=VALUE …]
                             [--corpus DIR] [--http PORT] [--log FILE]
    scholarbench tools serve --session FILE      (made by the engine for a stdio MCP client)
    scholarbench tools list                      (the tools and their JSON schemas)

`--task ID` binds the server to one sample of the benchmark and its leakage rules; without it
the whole corpus is served (a warning says so). Stdio by default; `--http PORT` serves
streamable HTTP on 127.0.0.1 (0 = a free port, printed on stderr). Set-up output goes to
stderr, so stdout carries only the MCP protocol.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import sys
import threading
from pathlib import Path
from typing import Any, Callable

from scholarbench.errors import ScholarbenchError
from scholarbench.tools.source import offered


def add_tools_parser(sub: Any, open_benchmark: Callable[[argparse.Namespace], tuple[Any, str]]
                     ) -> None:
    """`open_benchmark(args) -> (benchmark, sub-task)` builds `--benchmark` with its options:
    the engine's job, passed in by the command line so the tools never import the engine."""
    tools = sub.add_parser("tools", help="the offline literature tools as an MCP server "
                           "(docs/tools.md)")
    tsub = tools.add_subparsers(dest="tools_cmd", required=True)
    serve = tsub.add_parser("serve", help="serve the tools over MCP (stdio, or --http PORT)")
    serve.add_argument("--benchmark", help="the benchmark whose task rules apply")
    serve.add_argument("--task", help="bind to this sample (task id) and its leakage rules")
    serve.add_argument("--subtask", help="the benchmark's sub-task the task belongs to "
                       "(default: its first)")
    serve.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                       help="a benchmark option as for `run`, e.g. tasks_from=survey.jsonl")
    serve.add_argument("--corpus", help="corpus directory (a benchmark option of the same name)")
    serve.add_argument("--data", help="data directory")
    serve.add_argument("--session", help=argparse.SUPPRESS)
    serve.add_argument("--http", type=int, metavar="PORT",
                       help="streamable HTTP on 127.0.0.1:PORT instead of stdio (0 = any)")
    serve.add_argument("--log", help="append one JSON line per tool call to this file")
    serve.set_defaults(func=cmd_tools, open_benchmark=open_benchmark)
    lst = tsub.add_parser("list", help="the tools and their argument schemas (JSON)")
    lst.set_defaults(func=cmd_tools)


def cmd_tools(args: argparse.Namespace) -> int:
    if args.tools_cmd == "list":
        # deferred: pulls in pydantic (`tools serve` starts without it)
        from scholarbench.tools.schemas import TOOLS
        print(json.dumps([{"name": s.name, "description": s.description,
                           "input_schema": s.json_schema()} for s in TOOLS.values()], indent=2))
        return 0
    with contextlib.redirect_stdout(sys.stderr):      # stdout is the protocol's
        session = _session(args)
    # deferred: pulls in the MCP SDK, DuckDB and numpy (not for `tools list`, `--help`)
    from scholarbench.tools.mcp_server import HttpServer, instructions, serve_stdio
    print(f"scholarbench tools: {instructions(session)}", file=sys.stderr)
    if args.http is None:
        serve_stdio(session)
        return 0
    server = HttpServer(session, port=args.http)
    print(f"serving MCP (streamable HTTP) at {server.start()}", file=sys.stderr, flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
    return 0


def _logger(path: str | None):
    if not path:
        return None
    lock = threading.Lock()

    def write(call: Any) -> None:
        with lock, open(path, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(call.as_json(), ensure_ascii=False) + "\n")
    return write


def _session(args: argparse.Namespace) -> Any:
    # deferred: pulls in DuckDB, pyarrow, numpy and pydantic
    from scholarbench.corpus.store import Corpus
    from scholarbench.tools.rules import AccessRules
    from scholarbench.tools.session import ToolSession
    log = _logger(args.log)
    if args.session:
        spec = json.loads(Path(args.session).read_text(encoding="utf-8"))
        return ToolSession(Corpus.open(spec["corpus"]), AccessRules(**spec["rules"]),
                           embedder_factory=_embedder, sample_id=spec.get("sample_id"),
                           on_call=_logger(spec.get("log")))
    if not args.benchmark:
        raise ScholarbenchError("tools serve needs --benchmark B (and --task ID for a task's "
                                "rules)")
    bench, subtask = args.open_benchmark(args)
    source = offered(bench, subtask)
    if args.task is None:               # no sample: the benchmark's tasks are not loaded
        corpus, _ = source.open_corpus()
        print("warning: no --task: the whole corpus is served, with no task's leakage rules",
              file=sys.stderr)
        return ToolSession(corpus, AccessRules(), embedder_factory=_embedder, on_call=log)
    sample = source.sample(args.task)   # its rules' inputs, never its gold
    if sample is None:
        raise ScholarbenchError(f"{bench.name} {subtask} has no task {args.task!r} "
                                f"({source.task_hint()})")
    corpus, _ = source.open_corpus()
    return ToolSession(corpus, source.rules(sample), embedder_factory=_embedder,
                       sample_id=sample.id, on_call=log)


def _embedder() -> Any:
    # deferred: pulls in numpy and the MiniLM encoder (a dense search only)
    from scholarbench.embed.minilm import default_embedder
    return default_embedder()
