"""`scholarbench tools serve` as a subprocess, driven by the `mcp` SDK's own client (stdio and
streamable HTTP), on the hand-made ResearchArena corpus (test_researcharena_fixtures): the tools
are listed and each is called; for survey S's task (cut-off 2021-06-15) the survey itself and
every paper after its date (and every other paper the rule hides) is unreachable by search, by
id, by title and through references, citations, co-citation, coupling and citation contexts;
bad arguments are tool errors and the server goes on; calls are logged."""
from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from test_researcharena_fixtures import PAPERS, build_tiny
from tools_sweep import leaked, sweep_calls

HERE = Path(__file__).parent
SRC = HERE.parent / "src"
S = "arxiv:2106.00100"
IDS = {name: p.ids[0] for name, p in PAPERS.items()}
# survey S's rule: non-surveys known to exist before 2021-06-15, never S
VISIBLE = {IDS[n] for n in ("A", "C", "G", "H", "N")}
HIDDEN = {IDS[n]: {"title": PAPERS[n].title, "ids": list(PAPERS[n].ids)}
          for n in ("S", "B", "D", "E", "F", "L", "T", "U", "V")}
AFTER_THE_SURVEY = {IDS["L"], IDS["B"], IDS["D"]}       # known only after 2021-06-15
TOOLS = {"search", "get_paper", "references", "citations", "co_cited", "coupled",
         "citation_contexts"}


@pytest.fixture(scope="module")
def corpus_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("tiny-tools")
    build_tiny(out)
    return out


def _env(tmp_path: Path) -> dict[str, str]:
    env = dict(os.environ, SCHOLARBENCH_DATA=str(tmp_path / "data"))
    env["PYTHONPATH"] = os.pathsep.join([str(SRC), env.get("PYTHONPATH", "")])
    return env


def _serve_args(corpus_dir: Path, *extra: str) -> list[str]:
    return ["-m", "scholarbench", "tools", "serve", "--benchmark", "researcharena", "--subtask",
            "discovery", "--task", S, "--corpus", str(corpus_dir), *extra]


async def _sweep(client, log: list) -> tuple[list, int]:
    calls = sweep_calls(HIDDEN, VISIBLE)
    results = []
    for name, args in calls:
        result = await client.call_tool(name, args)
        log.append((name, args, result.is_error))
        results.append(result.content[0].text if result.is_error
                       else json.loads(result.content[0].text))
    return results, len(calls)


def test_stdio_server_lists_and_answers_every_tool_and_hides_what_the_rule_hides(
        tmp_path, corpus_dir):
    from mcp import Client, StdioServerParameters
    log_file = tmp_path / "calls.jsonl"
    params = StdioServerParameters(command=sys.executable,
                                   args=_serve_args(corpus_dir, "--log", str(log_file)),
                                   env=_env(tmp_path))
    log: list = []

    async def main():
        async with Client(params, read_timeout_seconds=120) as client:
            names = {t.name for t in (await client.list_tools()).tools}
            results, n = await _sweep(client, log)
            each = {}
            for name, args in [("search", {"query": "graph attention", "k": 3}),
                               ("get_paper", {"paper": "Graph attention networks"}),
                               ("references", {"paper": IDS["N"]}),
                               ("citations", {"paper": IDS["A"]}),
                               ("co_cited", {"paper": IDS["A"]}),
                               ("coupled", {"paper": IDS["N"]}),
                               ("citation_contexts", {"paper": IDS["A"]})]:
                result = await client.call_tool(name, args)
                assert not result.is_error, (name, result.content[0].text)
                each[name] = result.structured_content
            bad = await client.call_tool("search", {"query": "x", "k": 10_000})
            unknown = await client.call_tool("no_such_tool", {})
            after = await client.call_tool("get_paper", {"paper": IDS["A"]})
            return names, results, n, each, bad, unknown, after

    names, results, n, each, bad, unknown, after = asyncio.run(main())
    assert names == TOOLS
    assert n > 150 and leaked(results, HIDDEN) == set()
    # the hidden papers were asked for and refused — not merely absent from the answers
    refused = [args["paper"] for name, args, err in log if name == "get_paper" and err]
    assert {S, "Graph learning: a survey", IDS["L"], "Graph benchmarks later"} <= set(refused)
    assert [r["id"] for r in each["search"]["results"]][0] == IDS["A"]
    assert each["get_paper"]["id"] == IDS["A"] and each["get_paper"]["year"] == 2020
    assert {r["id"] for r in each["references"]["results"]} == {IDS["A"], IDS["G"]}
    # A is cited by N, L (2022), V and S (surveys): only N is the task's to see
    assert [r["id"] for r in each["citations"]["results"]] == [IDS["N"]]
    assert each["citations"]["total"] == 1
    # G is co-cited with A by N only; S (hidden) cites both and must not count
    assert each["co_cited"]["results"] == [
        {"id": IDS["G"], "title": PAPERS["G"].title, "year": 2019, "category": None,
         "co_citations": 1}]
    assert bad.is_error and "k" in bad.content[0].text
    assert unknown.is_error and "unknown tool" in unknown.content[0].text
    assert not after.is_error                          # the server went on after errors
    lines = [json.loads(x) for x in log_file.read_text().splitlines()]
    assert len(lines) == len(log) + 7 + 3 and lines[0]["step"] == 1   # sweep, each, 3 more
    assert {"tool", "arguments", "result_ids", "latency_ms"} <= set(lines[0])


def test_every_paper_after_the_survey_is_hidden_by_the_date_rule_alone(tmp_path, corpus_dir):
    """The three papers known only after 2021-06-15 are not surveys: the date hides them."""
    from scholarbench.corpus.store import Corpus
    from scholarbench.benchmarks.researcharena.agents.base import ArenaQuery, access_rules
    from scholarbench.tools.session import ToolSession
    from datetime import date
    corpus = Corpus.open(corpus_dir)
    rules = access_rules(ArenaQuery(S, "Graph learning: a survey", date(2021, 6, 15), S, None))
    session = ToolSession(corpus, rules)
    assert {pid for pid in AFTER_THE_SURVEY if session.visible(pid)} == set()
    assert {pid for pid in VISIBLE if session.visible(pid)} == VISIBLE
    no_date = ToolSession(corpus, rules.model_copy(update={"before": None}))
    assert AFTER_THE_SURVEY <= {pid for pid in AFTER_THE_SURVEY if no_date.visible(pid)}


def test_http_server_on_loopback_answers_the_sdk_client(tmp_path, corpus_dir):
    from mcp import Client
    proc = subprocess.Popen([sys.executable, *_serve_args(corpus_dir, "--http", "0")],
                            env=_env(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    try:
        url = None
        for line in proc.stderr:
            if m := re.search(r"(http://127\.0\.0\.1:\d+/mcp)", line):
                url = m.group(1)
                break
        assert url, "the server printed no URL"

        async def main():
            async with Client(url) as client:
                names = {t.name for t in (await client.list_tools()).tools}
                found = await client.call_tool("search", {"query": "graph survey", "k": 20})
                hidden = await client.call_tool("get_paper", {"paper": S})
                return names, found, hidden
        names, found, hidden = asyncio.run(main())
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    assert names == TOOLS
    ids = {r["id"] for r in found.structured_content["results"]}
    assert ids and ids <= VISIBLE
    assert hidden.is_error and "no paper matches" in hidden.content[0].text


def test_a_server_refuses_a_non_loopback_host(corpus_dir):
    from scholarbench.corpus.store import Corpus
    from scholarbench.errors import ScholarbenchError
    from scholarbench.tools.mcp_server import HttpServer
    from scholarbench.tools.session import ToolSession
    with pytest.raises(ScholarbenchError, match="loopback"):
        HttpServer(ToolSession(Corpus.open(corpus_dir)), host="0.0.0.0")


def test_serve_refuses_an_unknown_task_or_a_missing_benchmark(corpus_dir, capsys):
    from scholarbench.cli import main
    assert main(["tools", "serve", "--benchmark", "researcharena", "--task", "nope",
                 "--corpus", str(corpus_dir)]) == 2
    err = capsys.readouterr().err
    assert "has no task 'nope'" in err and S in err            # lists some real task ids
    assert main(["tools", "serve", "--task", S]) == 2
    assert "--benchmark" in capsys.readouterr().err


def test_tools_list_prints_every_schema(capsys):
    from scholarbench.cli import main
    assert main(["tools", "list"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert {t["name"] for t in listed} == TOOLS
    search = next(t for t in listed if t["name"] == "search")["input_schema"]
    assert search["required"] == ["query"] and search["additionalProperties"] is False


# -- every benchmark's tools, served standalone ------------------------------------------------

# the MCP SDK's stdio client gives the server a minimal environment (HOME, PATH, SHELL, TERM:
# no SCHOLARBENCH_DATA, no PYTHONPATH), so the server is started as a user's client starts it,
# importing this checkout's code without the environment and finding the data by `--data` only
BOOT = f"import sys; sys.path.insert(0, {str(SRC)!r}); from scholarbench.cli import main; " \
       "sys.exit(main())"
SPELLINGS = {"taxobench": ["--corpus", "{c}"], "researcharena": ["--corpus={c}"],
             "deepsynth": ["--option", "corpus={c}"], "reportbench": ["--corpus", "{c}"],
             "scinet": ["--corpus", "{c}"]}


@pytest.fixture(scope="module")
def imported_data(tmp_path_factory):
    """Each benchmark's shared data imported into one data directory (as a user does)."""
    from conftest import shared_path
    from scholarbench.cli import main
    data = tmp_path_factory.mktemp("serve-data")
    for name, parts in {"taxobench": ("taxobench", "taxobench_5_instances.jsonl"),
                        "reportbench": ("reportbench",),
                        "arxiv2023": ("arxiv2023_citation_graph",),
                        "unarxive": ("unarxive_sample",),
                        "deepsynth": ("deepsynth", "example_gen_result.jsonl")}.items():
        assert main(["data", "--data", str(data), "import", name,
                     str(shared_path("data", *parts))]) == 0
    return data


@pytest.mark.parametrize("bench_name", sorted(SPELLINGS))
def test_every_benchmark_serves_its_tools_standalone(bench_name, imported_data, corpus_dir,
                                                     tmp_path):
    from mcp import Client, StdioServerParameters
    spelling = [a.format(c=corpus_dir) for a in SPELLINGS[bench_name]]
    params = StdioServerParameters(      # env=None: the SDK's own minimal environment
        command=sys.executable, cwd=str(tmp_path),
        args=["-c", BOOT, "tools", "serve", "--benchmark", bench_name, "--data",
              str(imported_data), *spelling])

    async def main():
        async with Client(params, read_timeout_seconds=120) as client:
            names = {t.name for t in (await client.list_tools()).tools}
            found = await client.call_tool("get_paper", {"paper": IDS["A"]})
            return names, found
    names, found = asyncio.run(main())
    assert names == TOOLS
    assert not found.is_error and found.structured_content["id"] == IDS["A"]  # the --corpus


def test_reportbench_serves_a_task_with_its_rules_from_the_data_dir(imported_data, corpus_dir,
                                                                    capsys):
    """`--task` loads the benchmark's tasks from `--data` and binds the task's rules."""
    from scholarbench.tools import commands
    from scholarbench.cli import build_parser
    args = build_parser().parse_args(["tools", "serve", "--benchmark", "reportbench", "--task",
                                      "2312.04861", "--data", str(imported_data), "--corpus",
                                      str(corpus_dir)])
    session = commands._session(args)
    assert session.sample_id == "2312.04861" and session.rules.before is not None
