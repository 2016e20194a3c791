"""The README cannot drift from the command line: every `scholarbench …` command in its bash
blocks must parse with the real parser, and the blocks marked to run (the set-up, Using it and
bring-your-own-agent blocks) run on small data and exit 0."""
from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import SHARED, shared_path

README = Path(__file__).resolve().parents[1] / "README.md"
BLOCK = re.compile(r"```bash\n(.*?)```", re.S)


def commands(text: str) -> list[list[str]]:
    """The `scholarbench` commands of every bash block, continuation lines joined, comments
    and leading environment assignments dropped."""
    out = []
    for block in BLOCK.findall(text):
        joined = re.sub(r"\\\n\s*", " ", block)
        for line in joined.splitlines():
            for part in re.split(r"\s&&\s|;\s", line):
                words = shlex.split(part, comments=True)
                while words and re.fullmatch(r"[A-Z_]+=.*", words[0]):
                    words = words[1:]
                if words[:1] == ["scholarbench"]:
                    out.append(words[1:])
    return out


def test_every_readme_command_parses():
    from scholarbench.cli import build_parser
    from scholarbench.core.commands import normalise_argv
    parser = build_parser()
    found = commands(README.read_text(encoding="utf-8"))
    assert len(found) >= 20, "the README lost its command examples"
    for argv in found:
        try:
            parser.parse_args(normalise_argv(list(argv)))
        except SystemExit as exc:
            pytest.fail(f"README command does not parse: scholarbench {shlex.join(argv)} "
                        f"(exit {exc.code})")


@pytest.mark.slow
def test_the_runnable_readme_blocks_run_on_small_data(tmp_path):
    """Blocks whose first line is `# runs in the README test` run as written (in a fresh data
    directory, from a directory with ../shared beside it, `--limit 2` added to runs)."""
    shared_path("data", "taxobench")
    text = README.read_text(encoding="utf-8")
    blocks = [b for b in BLOCK.findall(text) if b.startswith("# runs in the README test")]
    assert blocks, "no runnable README block"
    work = tmp_path / "repo"
    work.mkdir()
    (tmp_path / "shared").symlink_to(SHARED)
    (work / "mypkg_agent.py").write_text(_user_agent(text))
    env = dict(os.environ, SCHOLARBENCH_DATA=str(tmp_path / "data"),
               PYTHONPATH=os.pathsep.join([str(work), os.environ.get("PYTHONPATH", "")]))
    for block in blocks:
        for argv in commands("```bash\n" + block + "```"):
            if argv[0] in ("run", "eval") and "--limit" not in argv:
                argv = argv + ["--limit", "2"]
            done = subprocess.run([sys.executable, "-m", "scholarbench", *argv], cwd=work,
                                  env=env, capture_output=True, text=True, timeout=1200)
            assert done.returncode == 0, (f"scholarbench {shlex.join(argv)}\n"
                                          f"{done.stdout[-2000:]}\n{done.stderr[-2000:]}")


def _user_agent(text: str) -> str:
    """The plain-function agent the README shows (docs/agents.md has the same one)."""
    match = re.search(r"```python\n(\"\"\"mypkg_agent\.py.*?)```", text, re.S)
    assert match, "the README lost its mypkg_agent.py example"
    return match.group(1)
