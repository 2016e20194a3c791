"""The command line end to end (real MiniLM; marked slow)."""
import json
import subprocess
import sys

import pytest

from scholarbench.cli import main

from conftest import shared_path

pytestmark = pytest.mark.slow


@pytest.fixture(autouse=True)
def isolated_dirs(tmp_path, monkeypatch):
    monkeypatch.setenv("SCHOLARBENCH_DATA", str(tmp_path / "data"))
    monkeypatch.setenv("SCHOLARBENCH_CACHE", str(tmp_path / "cache"))


def test_python_dash_m_entry_point():
    out = subprocess.run([sys.executable, "-m", "scholarbench", "list", "agent"],
                         capture_output=True, text=True, check=True).stdout.split()
    assert {"cluster", "bm25-title", "replay"} <= set(out)


def test_demo_without_data_writes_its_own_set_and_reports(tmp_path, capsys):
    assert main(["demo", "--out", str(tmp_path / "runs")]) == 0
    text = capsys.readouterr().out
    assert "built-in demo set" in text
    assert "Table 4 layout" in text and "Table 2 layout" in text and "(published)" in text
    for run in ("bottom-up-cluster", "deep-research-bm25-title"):
        rows = [json.loads(l) for l in (tmp_path / "runs" / run / "scores.jsonl").read_text().splitlines()]
        assert len(rows) == 3 and not any(r["missing"] or r["malformed"] for r in rows)


def test_score_files_on_upstream_toy_fixture(tmp_path, capsys):
    gold = shared_path("data", "taxobench", "toy_reference.jsonl")
    pred = shared_path("data", "taxobench", "toy_prediction.jsonl")
    out = tmp_path / "s.jsonl"
    assert main(["score", "taxobench", "--gold", str(gold), "--pred", str(pred), "--out", str(out)]) == 0
    row = json.loads(out.read_text())
    # upstream's scorer prints ARI 1.0, V 1.0, R/P/F1 1.0 on this fixture; Sem-Path differs by
    # design (docs/metrics.md): ours uses MiniLM label similarity as the paper defines
    for key in ("ari", "v_measure", "recall", "precision", "f1"):
        assert row[key] == pytest.approx(1.0)
    assert 0.6 < row["sem_path"] < 0.9 and row["id"] == "toy-0"
    assert "sem_path" in capsys.readouterr().out


def test_run_rescore_and_report_on_real_data(tmp_path, capsys):
    src = shared_path("data", "taxobench", "taxobench_5_instances.jsonl")
    assert main(["data", "import", "taxobench", str(src)]) == 0
    out = tmp_path / "run"
    assert main(["run", "taxobench", "--mode", "bottom-up", "--agent", "cluster", "--limit", "2",
                 "--out", str(out)]) == 0
    first = (out / "scores.jsonl").read_text()
    assert len(first.splitlines()) == 2
    assert main(["score", str(out)]) == 0
    assert (out / "scores.jsonl").read_text() == first
    capsys.readouterr()
    assert main(["report", str(out), "--format", "markdown"]) == 0
    md = capsys.readouterr().out
    assert "### Table 4 layout" in md and "| cluster" in md
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["embedder"] == "all-MiniLM-L6-v2" and manifest["versions"]["scikit-learn"]


def test_errors_are_one_line_with_exit_code_2(tmp_path, capsys):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": 1, "survey": "S", "gt": {"name": "S", "subtopics": [{"name": 4}]}}\n')
    assert main(["score", "taxobench", "--gold", str(bad), "--pred", str(bad), "--out",
                 str(tmp_path / "o.jsonl")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "line 1" in err and "gt.subtopics[0].name" in err
    assert main(["run", "taxobench", "--mode", "bottom-up", "--agent", "nope"]) == 2
    assert "no TaxoBench data" in capsys.readouterr().err      # says how to get some
    good = tmp_path / "good.jsonl"
    good.write_text('{"id": 1, "survey": "S", "gt": {"name": "S", "papers": ["T"]}}\n')
    assert main(["run", "taxobench", "--mode", "bottom-up", "--agent", "nope", "--gold", str(good)]) == 2
    assert "unknown agent 'nope'" in capsys.readouterr().err
    assert main(["run", "taxobench", "--mode", "deep-research", "--agent", "cluster",
                 "--gold", str(good), "--corpus", str(tmp_path)]) == 2
    assert "does not support deep-research" in capsys.readouterr().err


TOOLS_SERVE_ARGVS = [
    ["tools", "serve", "--benchmark", "researcharena", "--subtask", "discovery", "--task", "T",
     "--corpus", "C", "--data", "D", "--option", "a=b", "--option", "c=d", "--http", "0",
     "--log", "calls.jsonl"],
    ["tools", "serve", "--session", "s.json"],
    ["tools", "serve"],
]
ONE_COMMAND_ARGVS = TOOLS_SERVE_ARGVS + [
    ["tools", "list"], ["data", "--data", "d", "import", "taxobench", "p"], ["data", "list"],
    ["corpus", "resolve", "a", "--file", "f"], ["corpus", "dense", "--fields", "title"],
    ["demo", "--limit", "2"], ["run", "taxobench", "--mode", "bottom-up", "--agent", "x"],
    ["score", "runs/x", "--with-judge", "--judge", "j"], ["score", "taxobench", "--data", "d"],
    ["eval", "--agent", "x", "--benchmarks", "scinet"], ["aggregate", "r", "--check"],
    ["report", "a", "b", "--format", "csv"], ["compare", "a", "b", "--metric", "m"],
    ["export", "a", "--trec", "t"], ["llm", "config", "--judge", "x"],
    ["judge-check", "r", "--limit", "2"], ["judge", "validate", "--limit", "3"],
    ["graph", "path", "--edges", "e", "--papers", "p", "--from", "a", "--to", "b"],
    ["build", "s", "--benchmarks", "taxobench", "--out", "o"], ["list", "agent"],
    ["--debug", "list", "measure"],
]


def test_a_command_parses_alike_with_only_its_own_parser():
    """The parser built for an argv has only the command argv reaches (`cli.COMMANDS`); it
    parses argv to the same arguments as the parser of every command."""
    from scholarbench.cli import build_parser, normalised
    full = build_parser()
    for argv in ONE_COMMAND_ARGVS:
        argv = normalised(argv)
        assert vars(build_parser(argv).parse_args(argv)) == vars(full.parse_args(argv)), argv


def test_every_command_is_listed_with_the_help_line_of_its_parser():
    """`--help` lists every command from the table alone, in the same words as the parser of
    every command; each table entry adds its own command, and only it."""
    import argparse
    from scholarbench.cli import COMMANDS, build_parser
    full, light = build_parser(), build_parser(["--help"])
    assert light.format_help() == full.format_help()
    for argv in (["tools", "serve"], ["llm"], ["nope"], ["-h", "llm"]):  # an error's usage line
        assert build_parser(argv).format_usage() == full.format_usage()
    sub = next(a for a in full._actions if isinstance(a, argparse._SubParsersAction))
    assert list(sub.choices) == list(COMMANDS)
    assert {a.dest: a.help for a in sub._choices_actions} == \
        {name: command.help for name, command in COMMANDS.items()}


def test_a_command_builds_only_its_own_parser(monkeypatch, capsys):
    import scholarbench.cli as cli
    resolved = []
    real = cli._resolve
    monkeypatch.setattr(cli, "_resolve", lambda target: resolved.append(target) or real(target))
    assert cli.main(["tools", "serve"]) == 2
    assert "tools serve needs --benchmark" in capsys.readouterr().err
    assert resolved == [cli.COMMANDS["tools"].parser]
    resolved.clear()
    assert cli.main(["score", "no/such/run"]) == 2
    assert resolved == [cli.COMMANDS["score"].normalise, cli.COMMANDS["score"].parser]
    resolved.clear()
    with pytest.raises(SystemExit):
        cli.build_parser(["--help"]).parse_args(["--help"])
    assert resolved == []


def test_help_and_tools_serve_import_no_other_command():
    """`--help` imports no command's module (nothing beyond `scholarbench.cli` itself); `tools
    serve` only the tools' commands, which the command line imports anyway."""
    code = ("import sys, io, contextlib\nfrom scholarbench.cli import build_parser\n"
            "before = set(sys.modules)\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            "    try: build_parser(['--help']).parse_args(['--help'])\n"
            "    except SystemExit: pass\n"
            "print(sorted(set(sys.modules) - before))\n"
            "argv = ['tools', 'serve', '--session', 'x']\n"
            "build_parser(argv).parse_args(argv)\n"
            "print([m for m in ('scholarbench.core.engine', 'scholarbench.report', "
            "'scholarbench.graph.build', 'bm25s') if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.splitlines()
    assert out == ["[]", "[]"]


def test_an_answer_that_does_not_parse_is_malformed_in_every_file(tmp_path, capsys, monkeypatch):
    """One sample, one status: an agent answering `{}` on TaxoBench is malformed in
    generate.jsonl, scores.jsonl, summary.json, eval.json, the eval table and the report."""
    src = shared_path("data", "taxobench", "taxobench_5_instances.jsonl")
    assert main(["data", "import", "taxobench", str(src)]) == 0
    user = tmp_path / "user"
    user.mkdir()
    (user / "empty_answer.py").write_text("def solve(task):\n    return {}\n")
    monkeypatch.syspath_prepend(str(user))
    out = tmp_path / "suite"
    capsys.readouterr()
    main(["eval", "--agent", "empty_answer:solve", "--benchmarks", "taxobench", "--limit", "2",
          "--out", str(out), "--quiet"])
    table = capsys.readouterr().out
    run = out / "taxobench-bottom-up"
    lines = lambda name: [json.loads(x) for x in (run / name).read_text().splitlines()]
    assert {g["status"] for g in lines("generate.jsonl")} == {"malformed"}
    assert {r["status"] for r in lines("scores.jsonl")} == {"malformed"}
    summary = json.loads((run / "summary.json").read_text())
    assert summary["status"] == {"malformed": 2} and summary["n_malformed"] == 2
    entry = json.loads((out / "eval.json").read_text())["runs"][0]
    assert entry["counts"]["malformed"] == 2 and entry["counts"]["missing"] == 0
    assert entry["malformed"] == 2 and entry["reasons"]["malformed"].startswith("2× ")
    head, row = next((table.splitlines()[i - 2], line) for i, line in
                     enumerate(table.splitlines()) if line.startswith("taxobench      bottom-up"))
    cells = dict(zip(head.split()[3:], row.split()[3:]))
    assert cells["malf"] == "2" and cells["miss"] == "0" and cells["scored"] == "0"
    assert main(["report", str(out), "--format", "markdown"]) == 0
    md = capsys.readouterr().out
    assert "| taxobench bottom-up | complete | 2 | 0 | 0 | 2 | 0 |" in md     # n scored miss malf
    assert "taxobench bottom-up: malformed: 2× taxonomy answer" in md
    assert main(["report", str(out), "--format", "csv"]) == 0      # CSV: the runs' table only
    assert capsys.readouterr().out.startswith("system,")
    html = tmp_path / "r.html"
    assert main(["report", str(out), "--html", str(html)]) == 0
    text = html.read_text()
    start = text.index('data-run="' + str(run) + '"')
    assert "<td>2</td>" in text[start:start + 300] and "Suite overview" in text


def _benchmark_modules_after(argv: list[str]) -> list[str]:
    """Which `benchmarks/<name>/benchmark.py` a fresh process imports to parse `argv`."""
    code = ("import sys, io, contextlib\nfrom scholarbench.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            f"    try: main({argv!r})\n    except SystemExit: pass\n"
            "print(' '.join(sorted(m.split('.')[2] for m in sys.modules "
            "if m.startswith('scholarbench.benchmarks.') and m.endswith('.benchmark'))))")
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True).stdout.split()


def test_a_command_imports_only_the_benchmarks_it_names():
    """The packages register their classes lazily and the command line builds only the
    benchmark parsers a command reaches (docs/layers.md)."""
    assert _benchmark_modules_after(["data", "list", "--help"]) == []
    assert _benchmark_modules_after(["eval", "--help"]) == []
    assert _benchmark_modules_after(["run", "taxobench", "--help"]) == ["taxobench"]
    assert _benchmark_modules_after(["score", "scinet", "--help"]) == ["scinet"]
    assert _benchmark_modules_after(["run", "--help"]) == \
        ["deepsynth", "reportbench", "researcharena", "scinet", "taxobench"]
