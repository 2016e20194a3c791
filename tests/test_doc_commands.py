"""Every `scholarbench` command line in README.md, docs/agents.md and docs/judges.md runs as
written and exits 0.

The commands run in the order the pages give them, each page in a fresh folder of its own with
`../shared` beside it, all on one fresh data directory (the README's imports), so a page's later
commands see what its earlier ones made (`runs/bu-cluster`, …). What a command names but cannot exist on a test machine is
supplied, never skipped:
- a model endpoint (`https://api.openai.com/v1`, `https://host/v1`, …) is a scripted
  OpenAI-compatible server on 127.0.0.1 that answers each benchmark's judge in its own format;
  commands that name no model get it through `$SCHOLARBENCH_MODEL*`/`$SCHOLARBENCH_JUDGE*`
  (the documented second place a role is bound);
- a file a command reads (`answers.jsonl`, `gold.jsonl`, `survey-folder/`, `edges.parquet`, …)
  is written just before the command, in the format its page describes;
- placeholders (`TASK_ID`, `DIR`, `/path/to/data`, `A`, `B`) are replaced by real values;
- `run`/`eval` get `--limit 2` where they have no `--limit`;
- servers (`tools serve`, `llm serve`) must start and answer, then are stopped.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import SHARED, require_extra, shared_path
from fake_openai import FakeOpenAI, Step
from test_readme import commands

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
PAGES = ("README.md", "docs/agents.md", "docs/judges.md")
TESTS = Path(__file__).resolve().parent
# The answer family of each benchmark (and sub-task where it differs): docs/agents.md's table.
FAMILY = {"taxobench": "taxonomy", ("researcharena", "organisation"): "taxonomy",
          "researcharena": "ranking", "deepsynth": "report", "reportbench": "report",
          ("scinet", "path"): "path", "scinet": "ranking"}
REMOTE = re.compile(r"^https?://(api\.openai\.com|api\.example\.com|host|127\.0\.0\.1:8000)/v1$")


def _criteria_count(text: str) -> int:
    criteria = text.split("=== Input Data: Criteria ===")[1].split("=== Evaluation")[0]
    return len([line for line in criteria.strip().splitlines() if line.strip()])


def _reply(body: dict) -> Step:
    """Each judge and build prompt answered in the form it asks for; anything else (an agent's
    prompt) gets a short report, which a taxonomy or paper-list reader counts as malformed."""
    text = "\n".join(str(m.get("content") or "") for m in body["messages"])
    if "=== Input Data: Criteria ===" in text:                  # DeepSynth's checklist judge
        return Step(text=json.dumps(["mentioned_correct"] * _criteria_count(text)))
    if "General Question Generation" in text:
        return Step(text="Provide a comprehensive survey on the topic of this survey.")
    if "This is the first step: the topics" in text:
        heads = text.split("Section headers:\n")[1].split("\n\nOpening text:")[0].splitlines()
        return Step(text=json.dumps({"topics": [{"name": "Opening", "headings": [heads[0]]},
                                                {"name": "Closing", "headings": [heads[-1]]}]}))
    if "Topic Anchor" in text:
        topic = re.search(r'The topic is "([^"]+)"', text).group(1)
        return Step(text=json.dumps({"sub_groups": [
            {"sub_group_name": topic, "requirements": [f"{topic}: a fact of the survey"]}]}))
    if "Structure Anchor" in text:
        return Step(text=json.dumps({
            "constraint_question": "Include a glossary table of the terms.",
            "sub_groups": [{"sub_group_name": "A term", "requirements": ["A definition."]}]}))
    return Step(text="# A report\n\nA survey of the field [1].\n\n## References\n\n"
                     "[1] Attention is all you need")


class Sandbox:
    """One folder the pages' commands run in, in order."""

    def __init__(self, tmp: Path, fake: FakeOpenAI) -> None:
        self.tmp, self.fake = tmp, fake
        (tmp / "shared").symlink_to(SHARED)
        readme = (ROOT / "README.md").read_text(encoding="utf-8")
        self.agent = re.search(r"```python\n(\"\"\"mypkg_agent\.py.*?)```", readme,
                               re.S).group(1)
        (tmp / "mypkg_agent_for_replay.py").write_text(self.agent)
        sys.path.insert(0, str(tmp))
        self.env = dict(
            os.environ, SCHOLARBENCH_DATA=str(tmp / "data"),
            OPENAI_API_KEY="sk-doc-test-not-a-key-0", PRODUCT_KEY="sk-doc-test-not-a-key-1",
            SCHOLARBENCH_MODEL="scripted-agent", SCHOLARBENCH_MODEL_BASE_URL=fake.base_url,
            SCHOLARBENCH_JUDGE="scripted-judge", SCHOLARBENCH_JUDGE_BASE_URL=fake.base_url)
        self.env.pop("SCHOLARBENCH_CONFIG", None)
        self.ran: list[str] = []
        self.use_page("README.md")

    def use_page(self, page: str) -> None:
        """Each page's commands run in a folder of their own (a page's `runs/mine` is its own,
        as for a reader who follows that page), beside `../shared`, on the one data directory
        the README's imports filled."""
        self.work = self.tmp / ("repo" if page == "README.md" else "repo-" + Path(page).stem)
        self.work.mkdir(exist_ok=True)
        (self.work / "mypkg_agent.py").write_text(self.agent)
        (self.work / "mypkg").mkdir(exist_ok=True)
        (self.work / "mypkg" / "__init__.py").write_text("")
        (self.work / "mypkg" / "agent.py").write_text(self.agent)
        self.env["PYTHONPATH"] = os.pathsep.join([str(self.work), str(ROOT / "src"),
                                                  os.environ.get("PYTHONPATH", "")])

    # -- what a command needs ------------------------------------------------------------------
    def prepare(self, argv: list[str]) -> list[str]:
        """The command as it will run: endpoints, placeholders and `--limit` filled in, the
        files it reads written."""
        out = [self.fake.base_url if REMOTE.match(a) else a for a in argv]
        if out[:1] in (["run"], ["eval"]) and "--limit" not in out:
            out += ["--limit", "2"]
        if out[:2] == ["score", "taxobench"]:
            shutil.copy(shared_path("data", "taxobench", "toy_reference.jsonl"),
                        self.work / "gold.jsonl")
            shutil.copy(shared_path("data", "taxobench", "toy_prediction.jsonl"),
                        self.work / "preds.jsonl")
        elif out[:2] == ["score", "researcharena"]:
            (self.work / "qrels.trec").write_text("q1 0 p1 1\nq1 0 p2 1\nq2 0 p3 1\n")
            (self.work / "run.trec").write_text(
                "q1 Q0 p1 1 2.0 mine\nq1 Q0 p9 2 1.0 mine\nq2 Q0 p3 1 1.0 mine\n")
        elif out[:2] == ["score", "reportbench"]:
            shutil.rmtree(self.work / "ReportBench_v1.1_GT", ignore_errors=True)
            shutil.copytree(TESTS / "data" / "reportbench" / "gt",
                            self.work / "ReportBench_v1.1_GT")
            shutil.copy(TESTS / "data" / "reportbench" / "run" / "reports.jsonl",
                        self.work / "reports.jsonl")
        elif out[:2] == ["score", "deepsynth"]:
            shutil.copy(TESTS / "data" / "deepsynth" / "edge_judged.jsonl",
                        self.work / "judged.jsonl")
        elif out[:2] == ["score", "scinet"]:
            from scinet_files import write_tiny_tasks
            _, _, tasks = write_tiny_tasks(self.tmp / "scinet-files")
            shutil.copy(tasks, self.work / "tasks.jsonl")
            ids = [json.loads(line)["task_id"] for line in tasks.read_text().splitlines()]
            self._lines("answers.jsonl", [{"task_id": i, "papers": []} for i in ids])
        elif "replay" in out and "path=answers.jsonl" in out:
            self._replay_answers(suite="--benchmarks" in out)
        elif out[:1] == ["build"]:
            shutil.rmtree(self.work / "survey-folder", ignore_errors=True)
            shutil.copytree(TESTS / "data" / "reportbench" / "latex_survey",
                            self.work / "survey-folder")
        elif out[:2] in (["graph", "metrics"], ["graph", "path"]):
            self._graph_files()
            if out[:2] == ["graph", "path"]:        # A and B: two papers a path joins
                out = ["R1" if a == "A" else "G" if a == "B" else a for a in out]
        elif out[:1] == ["compare"] and not (self.work / "runs" / "bu-other").exists():
            self._cli(["run", "taxobench", "--mode", "bottom-up", "--agent", "cluster",
                       "--agent-arg", "branching=2", "--out", "runs/bu-other", "--limit", "2"])
        elif out[:2] == ["tools", "serve"]:
            out = [self._task_id() if a == "TASK_ID" else a for a in out]
            out = [str(self.tmp / "data" / "corpus" / "default") if a == "DIR" else a
                   for a in out]
        elif out[:2] == ["judge", "validate"]:
            out = [str(shared_path("data")) if a == "/path/to/data" else a for a in out]
        return out

    def _lines(self, name: str, rows: list[dict]) -> None:
        (self.work / name).write_text("".join(json.dumps(r) + "\n" for r in rows))

    def _replay_answers(self, suite: bool) -> None:
        """A replay file as docs/agents.md describes it, answering every sample the page's
        earlier evals ran (runs/*/) with the README's own plain function: tagged by benchmark and
        sub-task for a suite, TaxoBench Bottom-Up's lines alone, untagged, otherwise."""
        import mypkg_agent_for_replay as agent
        rows, seen = [], set()
        for path in sorted(self.work.glob("runs/*/*/manifest.json")):
            run_dir = path.parent
            manifest = json.loads(path.read_text())
            bench, sub = manifest["benchmark"], manifest.get("mode")
            if not suite and (bench, sub) != ("taxobench", "bottom-up"):
                continue
            family = FAMILY.get((bench, sub), FAMILY.get(bench))
            for line in (run_dir / "generate.jsonl").read_text().splitlines():
                record = json.loads(line)         # the run's id key: `id`, or SciNet's
                sample_id = str(record["id"] if "id" in record else record["task_id"])
                if (bench, sub, sample_id) in seen:
                    continue
                seen.add((bench, sub, sample_id))
                tags = {"benchmark": bench, "subtask": sub} if suite else {}
                answer = agent.solve({"family": family, "prompt": f"task {sample_id}"})
                rows.append({**tags, "id": sample_id, **answer})
        assert rows, "the README's own eval left no samples to replay"
        self._lines("answers.jsonl", rows)

    def _graph_files(self) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq
        from test_graph_cli import EDGES, PAPERS
        pq.write_table(pa.table({"citing": [e[0] for e in EDGES],
                                 "cited": [e[1] for e in EDGES]}), self.work / "edges.parquet")
        with open(self.work / "papers.csv", "w", encoding="utf-8") as f:
            f.write("id,year,venue\n" + "".join(",".join(map(str, p)) + "\n" for p in PAPERS))

    def _task_id(self) -> str:
        """A discovery task id, as a user reads it off a run's generate.jsonl."""
        generated = self.work / "runs" / "mine" / "researcharena-discovery" / "generate.jsonl"
        assert generated.exists(), "the README's eval left no ResearchArena discovery run"
        return json.loads(generated.read_text().splitlines()[0])["id"]

    # -- running ---------------------------------------------------------------------------------
    def _cli(self, argv: list[str], check: bool = True, **kw) -> subprocess.CompletedProcess:
        done = subprocess.run([sys.executable, "-m", "scholarbench", *argv], cwd=self.work,
                              env=self.env, capture_output=True, text=True, timeout=1500, **kw)
        if check:
            assert done.returncode == 0, (f"scholarbench {' '.join(argv)} exited "
                                          f"{done.returncode}\n{done.stdout[-2500:]}\n"
                                          f"{done.stderr[-2500:]}")
        return done

    def run(self, page: str, argv: list[str]) -> None:
        argv = self.prepare(argv)
        self.ran.append(f"{page}: scholarbench {' '.join(argv)}")
        if argv[:2] == ["tools", "serve"]:
            self._serve_stdio(argv)
        elif argv[:2] == ["llm", "serve"]:
            self._serve_http(argv)
        else:
            self._cli(argv)

    def _serve_stdio(self, argv: list[str]) -> None:
        """An MCP stdio server, driven by the official SDK's client: it lists the tools and
        answers a search."""
        import asyncio
        from mcp import Client, StdioServerParameters
        params = StdioServerParameters(command=sys.executable,
                                       args=["-m", "scholarbench", *argv], env=self.env,
                                       cwd=str(self.work))

        async def session() -> tuple[set[str], bool]:
            async with Client(params, read_timeout_seconds=300) as client:
                names = {t.name for t in (await client.list_tools()).tools}
                found = await client.call_tool("search", {"query": "neural networks", "k": 3})
                return names, not found.is_error

        names, searched = asyncio.run(session())
        assert {"search", "get_paper", "references"} <= names, names
        assert searched

    def _serve_http(self, argv: list[str]) -> None:
        """`llm serve`: on a free port, it answers /v1/models, then stops on SIGINT."""
        require_extra("llama_cpp", "local")
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        argv = [str(port) if a == "8080" else a for a in argv]
        proc = subprocess.Popen([sys.executable, "-m", "scholarbench", *argv], cwd=self.work,
                                env=self.env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                text=True)
        import urllib.request
        deadline, answered = time.time() + 300, None
        try:
            while time.time() < deadline and proc.poll() is None and answered is None:
                try:
                    with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models",
                                                timeout=5) as reply:
                        answered = json.loads(reply.read())
                except OSError:
                    time.sleep(1)
        finally:
            if proc.poll() is None:
                proc.send_signal(signal.SIGINT)
                try:
                    proc.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    proc.kill()
        assert answered and answered.get("data"), \
            f"llm serve did not answer on port {port}: {proc.stdout.read()[-1500:]}"


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory):
    shared_path("data", "taxobench")
    fake = FakeOpenAI(default=_reply).start()
    try:
        yield Sandbox(tmp_path_factory.mktemp("doc-commands"), fake)
    finally:
        fake.stop()


def test_every_command_of_the_pages_runs_as_written(sandbox):
    found = {page: commands((ROOT / page).read_text(encoding="utf-8")) for page in PAGES}
    assert len(found["README.md"]) >= 40 and found["docs/agents.md"] and \
        found["docs/judges.md"], {p: len(c) for p, c in found.items()}
    for page in PAGES:
        sandbox.use_page(page)
        for argv in found[page]:
            sandbox.run(page, argv)
    assert len(sandbox.ran) == sum(len(c) for c in found.values())
