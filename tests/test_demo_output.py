"""`scholarbench demo` on the built-in set, as a new user reads it (issue 35): each of our rows
says on its own line that it is the demo set, the footer claims no list it does not print, and
no internal dict is printed."""
from __future__ import annotations

import re

import pytest

from scholarbench.cli import main


@pytest.fixture(autouse=True)
def isolated_dirs(tmp_path, monkeypatch):
    monkeypatch.setenv("SCHOLARBENCH_DATA", str(tmp_path / "data"))
    monkeypatch.setenv("SCHOLARBENCH_CACHE", str(tmp_path / "cache"))


def test_demo_rows_say_demo_set_and_the_footer_lists_nothing_it_does_not_show(tmp_path,
                                                                               capsys):
    assert main(["demo", "--out", str(tmp_path / "runs")]) == 0
    text = capsys.readouterr().out
    ours = [line for line in text.splitlines() if re.match(r"(cluster|bm25-title)\b", line)]
    assert ours and all("(demo set, not the paper's surveys)" in line for line in ours)
    assert any(line.startswith("bm25-title (demo set") for line in ours)
    # the paper's rows are printed under ours: the caveat is on our line, not only in a footer
    table2 = text[text.index("Table 2 layout"):]
    assert table2.index("bm25-title (demo set") < table2.index("o3 (published)")
    assert "instances listed" not in text
    assert "ours on 3 instance(s) of each run's own data" in text
    assert "embedding cache" not in text and "{'" not in text and "hit_rate" not in text
