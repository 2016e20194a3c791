"""No tracked text file holds a merge's conflict markers (a README once shipped with them)."""
from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MARKER = re.compile(r"^(<{7} |>{7} )", re.MULTILINE)    # (a line of 7 "=" can be Markdown)
TEXT = (".py", ".md", ".toml", ".txt", ".cfg", ".yaml", ".yml", ".json", ".html", ".css", ".js")


def tracked_text_files() -> list[Path]:
    try:
        out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True,
                             check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    return [ROOT / name for name in out.splitlines() if name.endswith(TEXT)]


def test_no_tracked_file_holds_conflict_markers():
    found = []
    for path in tracked_text_files():
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        found += [f"{path.relative_to(ROOT)}:{text.count(chr(10), 0, m.start()) + 1}"
                  for m in MARKER.finditer(text)]
    assert not found, found


def test_the_marker_pattern_finds_a_conflict():
    text = "a\n<<<<<<< HEAD\nb\n=======\nc\n>>>>>>> branch\n"
    assert len(MARKER.findall(text)) == 2
    assert not MARKER.findall("Title\n=======\n<<<<<<<< eight\n")
