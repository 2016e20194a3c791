"""The package layering of docs/architecture (DESIGN.md "Layers"), read from the source with `ast`.

A package is the first two components of a module name (`scholarbench.core`), or three under
`scholarbench.benchmarks` (`scholarbench.benchmarks.taxobench`); every import counts, at the
top of a file and inside functions alike (an import inside a function is still a dependency).
"""
from __future__ import annotations

import ast
from collections import defaultdict
from functools import lru_cache
from pathlib import Path
from typing import Iterator

import scholarbench

SRC = Path(scholarbench.__file__).parent
BENCHMARKS = "scholarbench.benchmarks"

# The shared floors: everything a benchmark builds on. None of them names a benchmark; a
# benchmark brings its own data sets, exports and hooks through its registry entries.
FLOORS = {f"scholarbench.{name}" for name in (
    "data", "corpus", "graph", "embed", "llm", "text", "metrics",   # the ground floor
    "tools", "agents", "report", "injection", "core",               # above it, below benchmarks
    "registry", "errors", "failures", "files", "paths", "procs", "records", "lazy", "leakage",
    "references", "confine", "hosts")}
# Above the benchmarks: the command line and the commands built on whole benchmarks (the demo,
# `build` of a benchmark's tasks from one's own surveys, `judges` checking a benchmark's judge,
# `export inspect` reading each benchmark's task files, `inspect_tasks` the benchmarks as
# Inspect tasks, `pack` / `verify` re-scoring any benchmark's submitted runs, `leaderboard`
# ranking verified submissions).
ABOVE = {f"scholarbench.{name}" for name in ("cli", "__main__", "demo", "builder", "judges",
                                            "export", "inspect_tasks", "submission",
                                            "leaderboard")}
# The container of the benchmark packages: the registry imports it to find them (its
# `__init__` imports nothing).
CONTAINER = {BENCHMARKS}


def _package(module: str) -> str:
    parts = module.split(".")
    return ".".join(parts[:3] if parts[:2] == BENCHMARKS.split(".") and len(parts) > 2
                    else parts[:2])


def _module_name(path: Path, src: Path = SRC) -> str:
    parts = list(path.relative_to(src.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path, src: Path = SRC) -> list[tuple[str, int]]:
    """(imported module, line) for every import of `path`, anywhere in the file."""
    module = _module_name(path, src)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            out += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            out.append((target, node.lineno))
    return out


@lru_cache(maxsize=None)
def package_edges(src: Path = SRC) -> dict[tuple[str, str], list[str]]:
    """(importing package, imported package) → where ("module:line")."""
    edges: dict[tuple[str, str], list[str]] = defaultdict(list)
    for path in sorted(src.rglob("*.py")):
        module = _module_name(path, src)
        for target, line in _imports(path, src):
            if target.split(".")[0] != "scholarbench":
                continue
            a, b = _package(module), _package(target)
            if a != b:
                edges[(a, b)].append(f"{module}:{line}")
    return edges


def cycles(edges: dict[tuple[str, str], list[str]]) -> list[list[str]]:
    """The strongly connected components of more than one package (Tarjan)."""
    graph: dict[str, set[str]] = defaultdict(set)
    for a, b in edges:
        graph[a].add(b)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_every_package_has_a_layer():
    """A new package must say where it sits (FLOORS, ABOVE, or a benchmark)."""
    packages = {_package(_module_name(p)) for p in SRC.rglob("*.py")} - {"scholarbench"}
    unplaced = sorted(p for p in packages - FLOORS - ABOVE - CONTAINER
                      if not p.startswith(BENCHMARKS + "."))
    assert not unplaced, f"packages with no layer in this test: {unplaced}"


def test_no_shared_floor_imports_a_benchmark():
    bad = [f"{a} -> {b} ({', '.join(where)})" for (a, b), where in sorted(package_edges().items())
           if a in FLOORS and b.startswith(BENCHMARKS + ".")]
    assert not bad, "shared floors importing a benchmark:\n" + "\n".join(bad)


def test_no_benchmark_imports_another_or_the_layers_above():
    bad = [f"{a} -> {b} ({', '.join(where)})" for (a, b), where in sorted(package_edges().items())
           if a.startswith(BENCHMARKS + ".") and (b.startswith(BENCHMARKS + ".") or b in ABOVE)]
    assert not bad, "\n".join(bad)


def test_no_floor_imports_the_layers_above():
    bad = [f"{a} -> {b} ({', '.join(where)})" for (a, b), where in sorted(package_edges().items())
           if a in FLOORS and b in ABOVE]
    assert not bad, "\n".join(bad)


def test_no_cycle_among_packages():
    edges = package_edges()
    found = cycles(edges)
    detail = [f"{a} -> {b} ({', '.join(edges[(a, b)][:3])})" for c in found for a in c
              for b in c if (a, b) in edges]
    assert not found, f"package cycles {found}:\n" + "\n".join(detail)


def test_the_checks_see_imports_inside_functions_and_relative_ones(tmp_path):
    """The graph counts an import in a function body (the way the old loops were hidden) and
    resolves relative imports; a loop through them is a cycle."""
    src = tmp_path / "scholarbench"
    (src / "data").mkdir(parents=True)
    (src / "core").mkdir()
    (src / "data" / "__init__.py").write_text("")
    (src / "data" / "store.py").write_text(
        "import json\n\ndef f():\n    from scholarbench.benchmarks.taxobench import runner\n")
    (src / "data" / "loop.py").write_text("def g():\n    import scholarbench.core.engine\n")
    (src / "core" / "__init__.py").write_text("from ..data import store\n")
    edges = package_edges(src)
    assert edges == {("scholarbench.data", "scholarbench.benchmarks.taxobench"):
                     ["scholarbench.data.store:4"],
                     ("scholarbench.data", "scholarbench.core"): ["scholarbench.data.loop:2"],
                     ("scholarbench.core", "scholarbench.data"): ["scholarbench.core:1"]}
    assert cycles(edges) == [["scholarbench.core", "scholarbench.data"]]


# -- files inside one package ----------------------------------------------------------------

# Circles of files inside one package still to be cut (issue 36); the list may only shrink.
KNOWN_FILE_CYCLES = {
    "scholarbench.report", "scholarbench.builder", "scholarbench.benchmarks.scinet",
    "scholarbench.benchmarks.researcharena", "scholarbench.benchmarks.deepsynth",
    "scholarbench.benchmarks.taxobench", "scholarbench.benchmarks.reportbench"}


@lru_cache(maxsize=None)
def module_edges(src: Path = SRC) -> dict[tuple[str, str], list[str]]:
    """(importing module, imported module) → where, for two files of one package; `from P
    import m` of a submodule `m` is an import of `m` (not of P's `__init__`)."""
    modules = {_module_name(p, src) for p in src.rglob("*.py")}
    edges: dict[tuple[str, str], list[str]] = defaultdict(list)
    for path in sorted(src.rglob("*.py")):
        module = _module_name(path, src)
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node in ast.walk(tree):
            if not isinstance(node, ast.ImportFrom) or node.level:
                targets = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            else:
                subs = [f"{node.module}.{a.name}" for a in node.names
                        if f"{node.module}.{a.name}" in modules]
                targets = subs if len(subs) == len(node.names) else [node.module or ""] + subs
            for target in targets:
                if target in modules and target != module and \
                        _package(target) == _package(module):
                    edges[(module, target)].append(f"{module}:{node.lineno}")
    return edges


def test_no_cycle_of_files_inside_a_package():
    """Core's 13-file circle (benchmark → engine for `Models`, planning and suite → commands,
    status → engine) is cut; a new circle anywhere fails, and the known ones may only go."""
    edges = module_edges()
    found = cycles(edges)
    new = [c for c in found if _package(c[0]) not in KNOWN_FILE_CYCLES]
    detail = [f"{a} -> {b} ({edges[(a, b)][0]})" for c in new for a in c for b in c
              if (a, b) in edges]
    assert not new, f"file cycles {new}:\n" + "\n".join(detail)
    gone = KNOWN_FILE_CYCLES - {_package(c[0]) for c in found}
    assert not gone, f"no file cycle left in {sorted(gone)}: take them off KNOWN_FILE_CYCLES"
    assert not any(_package(c[0]) == "scholarbench.core" for c in found)


# Modules every part of the tool imports anyway: deferring them defers nothing.
LIGHT = ("scholarbench.paths", "scholarbench.registry", "scholarbench.errors",
         "scholarbench.core.registry")


def deferred_imports(src: Path = SRC) -> list[tuple[str, int, str, bool]]:
    """(file, line, imported module, whether the file also imports it at the top) for every
    import of the project's own modules inside a function."""
    out = []
    for path in sorted(src.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        top = {n.module for n in tree.body if isinstance(n, ast.ImportFrom) and n.module}
        for func in ast.walk(tree):
            if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(func):
                if isinstance(node, ast.ImportFrom) and not node.level and \
                        (node.module or "").startswith("scholarbench."):
                    out.append((str(path.relative_to(src)), node.lineno, node.module,
                                node.module in top))
    return sorted(set(out))


def test_a_deferred_import_defers_something():
    """An import inside a function defers a heavy dependency or keeps the command line's
    start light (docs/layers.md); one that repeats the file's own top-level import, or
    imports a module everything loads anyway, defers nothing."""
    pointless = [f"{f}:{line} {m}" for f, line, m, at_top in deferred_imports()
                 if at_top or m in LIGHT]
    assert not pointless, pointless


def test_the_deferred_import_check_sees_repeats_and_light_modules(tmp_path):
    pkg = tmp_path / "scholarbench"
    pkg.mkdir()
    (pkg / "a.py").write_text("from scholarbench.b import x\n\ndef f():\n"
                              "    from scholarbench.b import y\n"
                              "    from scholarbench.paths import data_dir\n"
                              "    from scholarbench.c import z\n")
    found = {(m, top) for _, _, m, top in deferred_imports(pkg)}
    assert found == {("scholarbench.b", True), ("scholarbench.paths", False),
                     ("scholarbench.c", False)}


# What is left to defer, at most (issue: "in-function imports of the project's own modules only
# where they defer a heavy optional dependency"; 163 before the command line's lazy command
# table, 134 after). Lower it when deferred imports go; never raise it to make room.
MAX_DEFERRED = 150


def uncommented_deferred_imports(src: Path = SRC) -> list[str]:
    """Every import of the project's own modules inside a function (relative ones included)
    that does not say why: a `# deferred: …` comment on the line above it (or above the run of
    imports it belongs to: one comment for a run), or on its own lines."""
    out = []
    for path in sorted(src.rglob("*.py")):
        lines = path.read_text(encoding="utf-8").splitlines()
        tree = ast.parse("\n".join(lines), str(path))
        for block in _blocks_in_functions(tree):
            said = False                # the run of imports this statement belongs to says why
            for i, stmt in enumerate(block):
                if not isinstance(stmt, (ast.Import, ast.ImportFrom)):
                    continue
                in_run = i > 0 and isinstance(block[i - 1], (ast.Import, ast.ImportFrom))
                said = lines[stmt.lineno - 2].strip().startswith("# deferred:") or \
                    (in_run and said)
                own = stmt.level or (stmt.module or "").startswith("scholarbench.") \
                    if isinstance(stmt, ast.ImportFrom) else \
                    any(a.name.startswith("scholarbench.") for a in stmt.names)
                here = any("# deferred:" in line
                           for line in lines[stmt.lineno - 1:stmt.end_lineno])
                if own and not (said or here):
                    out.append(f"{path.relative_to(src)}:{stmt.lineno}")
    return sorted(set(out), key=lambda where: (where.split(":")[0], int(where.split(":")[1])))


def _blocks_in_functions(tree: ast.AST) -> Iterator[list[ast.stmt]]:
    """Each statement list inside a function, once (nested functions included; expressions,
    which hold no statement, are not walked)."""
    holders = (ast.stmt, ast.excepthandler, ast.match_case)
    stack: list[tuple[ast.AST, bool]] = [(tree, False)]
    while stack:
        node, inside = stack.pop()
        inside = inside or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        if inside:
            yield from _blocks(node)
        stack.extend((child, inside) for child in ast.iter_child_nodes(node)
                     if isinstance(child, holders))


def _blocks(node: ast.AST) -> list[list[ast.stmt]]:
    """The statement lists directly under `node` (bodies, else and finally branches, handlers,
    match cases)."""
    blocks = [getattr(node, name) for name in ("body", "orelse", "finalbody")
              if isinstance(getattr(node, name, None), list)]
    blocks += [h.body for h in getattr(node, "handlers", [])]
    blocks += [c.body for c in getattr(node, "cases", [])]
    return [b for b in blocks if b and isinstance(b[0], ast.stmt)]


def test_every_deferred_import_says_why_and_there_are_few():
    """docs/layers.md "Imports inside functions": each one has a reason, written beside it."""
    silent = uncommented_deferred_imports()
    assert not silent, f"in-function imports of our modules with no `# deferred:` comment: {silent}"
    count = len(deferred_imports())
    assert count <= MAX_DEFERRED, f"{count} in-function imports of our modules (at most " \
        f"{MAX_DEFERRED}): import at the top unless a heavy dependency or a cycle says otherwise"


def test_the_comment_check_sees_a_silent_import(tmp_path):
    pkg = tmp_path / "scholarbench"
    pkg.mkdir()
    (pkg / "a.py").write_text("def f():\n"
                              "    # deferred: pulls in DuckDB\n"
                              "    from scholarbench.b import x\n"
                              "    from scholarbench.c import (y,\n"
                              "                                z)\n"
                              "    w = 1\n"
                              "    from scholarbench.d import v\n"
                              "    from scholarbench.e import u  # deferred: a cycle\n"
                              "    from . import t\n"
                              "    if w:\n"
                              "        import json\n"
                              "        import scholarbench.f\n")
    assert uncommented_deferred_imports(pkg) == ["a.py:7", "a.py:9", "a.py:12"]
