"""The README cannot drift from the command line: every `scholarbench …` command in its bash
blocks must parse with the real parser. (That every one of them also runs as written and exits 0 is
tests/test_doc_commands.py, which runs all of them in order on small data.)"""
from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

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
    from scholarbench.cli import build_parser, normalised as normalise_argv
    parser = build_parser()
    found = commands(README.read_text(encoding="utf-8"))
    assert len(found) >= 20, "the README lost its command examples"
    for argv in found:
        try:
            parser.parse_args(normalise_argv(list(argv)))
        except SystemExit as exc:
            pytest.fail(f"README command does not parse: scholarbench {shlex.join(argv)} "
                        f"(exit {exc.code})")
