"""Run scholarbench commands as if a benchmark declared one more measure (issue 36).

A measure is added by one declaration in the benchmark's measures module; the key lists, report
columns and registry entries are derived from that tuple when the module is imported. So the
commands run in a fresh interpreter in which the module's source is compiled with
`MEASURES = MEASURES + (DECLARATION,)` right after its own `MEASURES` statement (and `tail`, e.g.
the code giving the new row field, at its end): everything derived sees the new measure, as
after a real edit, and the source tree is not touched.

    results = run_declared(module, declaration, [["aggregate", RUN], ...], tail="")

gives (exit code, stdout, stderr) per command, run one after the other by `cli.main`.
"""
from __future__ import annotations

import ast
import contextlib
import importlib.abc
import importlib.util
import io
import json
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any, NamedTuple

HERE = Path(__file__).parent
SRC = HERE.parent / "src"


class Result(NamedTuple):
    code: int
    out: str
    err: str


def declared_source(source: str, declaration: str, tail: str = "") -> str:
    """`source` with the declaration added to its module-level `MEASURES` tuple."""
    statement = next(node for node in ast.parse(source).body
                     if isinstance(node, (ast.Assign, ast.AnnAssign)) and "MEASURES" in
                     [t.id for t in (node.targets if isinstance(node, ast.Assign)
                                     else [node.target]) if isinstance(t, ast.Name)])
    lines = source.splitlines(keepends=True)
    lines.insert(statement.end_lineno or 0, f"MEASURES = MEASURES + ({declaration},)\n")
    return "".join(lines) + "\n" + tail + "\n"


class _Declared(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Imports one module from the edited source instead of its file."""

    def __init__(self, name: str, declaration: str, tail: str) -> None:
        top, *parts = name.split(".")        # found without importing its package, which
        spec = importlib.util.find_spec(top)    # may import the module itself
        assert spec is not None and spec.submodule_search_locations, top
        origin = Path(list(spec.submodule_search_locations)[0], *parts).with_suffix(".py")
        self.name, self.origin = name, str(origin)
        self.source = declared_source(origin.read_text(encoding="utf-8"), declaration, tail)

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
        if fullname != self.name:
            return None
        return importlib.util.spec_from_loader(fullname, self, origin=self.origin)

    def create_module(self, spec: Any) -> None:
        return None

    def exec_module(self, module: ModuleType) -> None:
        module.__file__ = self.origin
        exec(compile(self.source, self.origin, "exec"), module.__dict__)


def run_declared(module: str, declaration: str, commands: list[list[str]], tail: str = "",
                 env: dict[str, str] | None = None) -> list[Result]:
    """Each command's (exit code, stdout, stderr) with the measure declared."""
    full = dict(os.environ, PYTHONPATH=os.pathsep.join([str(SRC), str(HERE)]), **(env or {}))
    proc = subprocess.run([sys.executable, __file__], input=json.dumps(
        {"module": module, "declaration": declaration, "tail": tail, "commands": commands}),
        env=full, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    return [Result(*r) for r in json.loads(proc.stdout)]


def _main() -> None:
    spec = json.loads(sys.stdin.read())
    sys.meta_path.insert(0, _Declared(spec["module"], spec["declaration"], spec["tail"]))
    from scholarbench.cli import main
    results = []
    for argv in spec["commands"]:
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(argv)
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else 1
        results.append((code, out.getvalue(), err.getvalue()))
    sys.stdout.write(json.dumps(results))


if __name__ == "__main__":
    _main()
