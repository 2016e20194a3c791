"""docs/tools.md lists every tool and every argument it takes (the schemas are the code's)."""
from __future__ import annotations

from pathlib import Path

from scholarbench.tools.schemas import TOOLS

DOC = Path(__file__).resolve().parents[1] / "docs" / "tools.md"


def test_the_tools_doc_names_every_tool_and_argument():
    text = DOC.read_text(encoding="utf-8")
    table = {line.split("|")[1].strip().strip("`"): line for line in text.splitlines()
             if line.startswith("| `")}
    assert set(TOOLS) <= set(table)
    for name, spec in TOOLS.items():
        for arg in spec.args.model_fields:
            assert f"`{arg}`" in table[name], f"{name}: {arg} is not in docs/tools.md"
