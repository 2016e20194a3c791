"""Every file input is a regular file of bounded size, and bad values are one line (issue 34).

Built like the probe: hostile files (a FIFO from os.mkfifo, a symlink to /dev/zero, a sparse
file past the size limit) handed to `build`, `aggregate`, `aggregate --check` and `report`, and
a real run directory (a quick `scholarbench run` of TaxoBench bottom-up with the replay agent)
whose scores.jsonl, manifest.json and summary.json are tampered with. Each command runs in a
subprocess with a timeout (a hang fails the test) and must exit 2 with one line naming the file
(and line and field where there is one), never a traceback."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import shared_path

SRC = Path(__file__).resolve().parents[1] / "src"
TIMEOUT = 180      # generous on a loaded 2-core machine; a hang still fails
SKIP_NO_FIFO = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs os.mkfifo")


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SCHOLARBENCH_DATA")}
    env.update(HOME=str(home), PYTHONPATH=os.pathsep.join(
        [str(SRC)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else [])),
        XDG_DATA_HOME=str(home / "share"), SCHOLARBENCH_DATA=str(home / "data"))
    return env


REPORT = ["report", "--html", "HTML", "--no-published"]      # HTML: the drill-downs read scores


def _cli(args: list, home: Path, timeout: int = TIMEOUT) -> subprocess.CompletedProcess:
    args = [str(home / "r.html") if a == "HTML" else a for a in args]
    return subprocess.run([sys.executable, "-m", "scholarbench", *map(str, args)],
                          env=_env(home), capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL)


def _refused(proc: subprocess.CompletedProcess, *names: str) -> str:
    """The one error line of a refused command (exit 2), which names every one of `names`."""
    err = proc.stderr.strip()
    assert proc.returncode == 2, (proc.returncode, proc.stdout[-500:], err[-2000:])
    assert "Traceback" not in proc.stderr, err
    assert len(err.splitlines()) == 1, err
    for name in names:
        assert name in err, (name, err)
    return err


def _hostile(path: Path, kind: str) -> Path:
    """Put a FIFO (nobody writes it) or a symlink to /dev/zero at `path`."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists() or path.is_symlink():
        path.unlink()
    if kind == "fifo":
        os.mkfifo(path)
    else:
        path.symlink_to("/dev/zero")
    return path


KINDS = ["fifo", "zero"]
SAYS = {"fifo": "is a FIFO, not a regular file", "zero": "is a character device"}


# -- build: every reader of a survey's source ------------------------------------------------

MAIN = ("\\documentclass{article}\n\\begin{document}\n\\section{Intro}\nA \\cite{a} b \\cite{b}.\n"
        "%INPUT%\n\\section{More}\nC \\cite{a}.\n%BIB%\n\\end{document}\n")
BIB = ("@article{a, title={Graph {N}etworks for \\'{E}cole}, doi={10.1/a}}\n"
       "@article{b, title={Second paper}, doi={10.1/b}}\n")


def _latex(folder: Path, *, bib: bool = True, include: bool = False) -> Path:
    folder.mkdir(parents=True)
    (folder / "main.tex").write_text(MAIN.replace("%BIB%", "\\bibliography{refs}" if bib else "")
                                     .replace("%INPUT%", "\\input{chap}" if include else ""))
    (folder / "chap.tex").write_text("\\subsection{Chapter}\nD \\cite{b}.\n")
    (folder / "refs.bib").write_text(BIB)
    return folder


def _build(source: Path, home: Path, *extra) -> subprocess.CompletedProcess:
    return _cli(["build", source, "--benchmarks", "taxobench", "--out", home / "out",
                 "--no-corpus", *extra], home)


@SKIP_NO_FIFO
def test_a_clean_latex_source_builds(tmp_path):
    """The baseline the hostile cases below change one file of."""
    proc = _build(_latex(tmp_path / "src", include=True), tmp_path)
    assert proc.returncode == 0, proc.stderr
    task = json.loads((tmp_path / "out" / "taxobench" / "taxobench.jsonl").read_text())
    assert "Graph Networks for École" in json.dumps(task, ensure_ascii=False)


@SKIP_NO_FIFO
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("case", ["bib", "bib_without_bibliography", "input", "main_search",
                                  "bbl", "bib_flag", "manubot"])
def test_build_refuses_a_source_file_that_is_not_regular(case, kind, tmp_path):
    extra: list = []
    if case == "bib":
        src = _latex(tmp_path / "src")
        bad = _hostile(src / "refs.bib", kind)
    elif case == "bib_without_bibliography":          # found by the folder search for *.bib
        src = _latex(tmp_path / "src", bib=False)
        bad = _hostile(src / "refs.bib", kind)
    elif case == "input":
        src = _latex(tmp_path / "src", include=True)
        bad = _hostile(src / "chap.tex", kind)
    elif case == "main_search":                       # the folder's search for the main file
        src = _latex(tmp_path / "src")
        bad = _hostile(src / "appendix.tex", kind)
    elif case == "bbl":
        src = _latex(tmp_path / "src", bib=False)
        (src / "refs.bib").unlink()
        bad = _hostile(src / "main.bbl", kind)
    elif case == "bib_flag":
        src = _latex(tmp_path / "src", bib=False)
        bad = _hostile(tmp_path / "given.bib", kind)
        extra = ["--bib", bad]
    else:                                             # a Manubot folder's content/*.md
        src = tmp_path / "src"
        (src / "content").mkdir(parents=True)
        (src / "content" / "01.intro.md").write_text("# Intro\n\nText [@doi:10.1/a].\n")
        (tmp_path / "refs.json").write_text(json.dumps([{"id": "doi:10.1/a", "title": "T",
                                                         "DOI": "10.1/a"}]))
        bad = _hostile(src / "content" / "02.more.md", kind)
        extra = ["--bib", tmp_path / "refs.json"]
    proc = _build(src, tmp_path, *extra)
    if case == "bib_flag":                            # a file the user named: exit 2, one line
        _refused(proc, str(bad.name), SAYS[kind])
        return
    # A file the source names or holds (`confine`, issue 34: read only regular files inside
    # the source folder): refused in one line naming it and the reason, listed in review.md,
    # and the build goes on without it — never a hang, never a traceback.
    assert "Traceback" not in proc.stderr, proc.stderr[-2000:]
    if case == "main_search":                         # not a candidate for the main file
        assert proc.returncode == 0, proc.stderr[-2000:]
        return
    lines = [line for line in proc.stderr.splitlines() if bad.name in line]
    assert len(lines) == 1 and "refused:" in lines[0], proc.stderr[-2000:]
    assert ("FIFO" if kind == "fifo" else "outside the source folder") in lines[0], lines[0]
    review = tmp_path / "out" / "review.md"
    assert review.exists() and bad.name in review.read_text(), proc.stdout[-1000:]


# -- a real run directory, tampered -------------------------------------------------------------

@pytest.fixture(scope="module")
def made_run(tmp_path_factory) -> tuple[Path, Path]:
    """(home, run directory) of a finished TaxoBench bottom-up replay run (5 samples)."""
    home = tmp_path_factory.mktemp("hostile-files")
    gold = shared_path("data", "taxobench", "taxobench_5_instances.jsonl")
    assert _cli(["data", "import", "taxobench", gold], home, 120).returncode == 0
    answers = home / "answers.jsonl"
    answers.write_text(json.dumps({"id": 1, "taxonomy": {"name": "x", "children": [
        {"name": "a"}, {"name": "b"}]}}) + "\n")
    run = home / "run"
    proc = _cli(["run", "taxobench", "--mode", "bottom-up", "--agent", "replay", "--agent-arg",
                 f"path={answers}", "--out", run, "--quiet"], home, 300)
    assert proc.returncode == 0, proc.stderr
    return home, run


@pytest.fixture
def run(made_run, tmp_path) -> Path:
    """A fresh copy of the finished run to tamper with."""
    copy = tmp_path / "run"
    shutil.copytree(made_run[1], copy)
    manifest = copy / "manifest.json"
    manifest.write_text(manifest.read_text().replace(str(made_run[1]), str(copy)))
    return copy


def _home(made_run) -> Path:
    return made_run[0]


def _rows(run: Path) -> list[dict]:
    return [json.loads(line) for line in (run / "scores.jsonl").read_text().splitlines()]


def _write_rows(run: Path, rows: list, raw: list[str] | None = None) -> None:
    lines = [json.dumps(r) for r in rows] + (raw or [])
    (run / "scores.jsonl").write_text("\n".join(lines) + "\n")


def test_the_untampered_run_aggregates_checks_and_reports(made_run, run):
    home = _home(made_run)
    assert _cli(["aggregate", run, "--check"], home).returncode == 0
    proc = _cli([REPORT[0], run, *REPORT[1:]], home)
    assert proc.returncode == 0, proc.stderr


@SKIP_NO_FIFO
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("command", [["aggregate"], ["aggregate", "--check"], REPORT])
@pytest.mark.parametrize("name", ["scores.jsonl", "summary.json", "manifest.json"])
def test_a_run_file_that_is_not_regular_is_refused(name, command, kind, made_run, run):
    """(aggregate does not read summary.json, but would replace it: refused as an output.)"""
    _hostile(run / name, kind)
    proc = _cli([command[0], run, *command[1:]], _home(made_run))
    _refused(proc, name, SAYS[kind])


@pytest.mark.parametrize("command", [["aggregate"], REPORT])
def test_a_run_file_past_the_size_limit_is_refused_before_it_is_read(command, made_run, run):
    from scholarbench.files import MAX_INPUT_BYTES
    path = run / "scores.jsonl"
    with path.open("r+b") as handle:            # sparse: no disk used, stat says it is huge
        handle.truncate(MAX_INPUT_BYTES + 1)
    proc = _cli([command[0], run, *command[1:]], _home(made_run))
    _refused(proc, "scores.jsonl", f"{MAX_INPUT_BYTES + 1:,} bytes", "limit")


# Each tamper: (what is done to row 2 of scores.jsonl, the field the error names, words in it)
TAMPERS = {
    "duplicate_id": (lambda rows: rows[1].update(id=rows[0]["id"]), "id", "duplicate id"),
    "nan": (None, None, "NaN is not JSON"),
    "infinity": (None, None, "Infinity is not JSON"),
    "minus_infinity": (None, None, "-Infinity is not JSON"),
    "huge_fraction": (lambda rows: rows[1].update(recall=1.7e308), "recall", "in [-1, 1]"),
    "bool_measure": (lambda rows: rows[1].update(recall=True), "recall", "expected a number"),
    "string_measure": (lambda rows: rows[1].update(f1="0.5"), "f1", "expected a number"),
    "list_measure": (lambda rows: rows[1].update(f1=[0.5]), "f1", "expected a number"),
    "dict_measure": (lambda rows: rows[1].update(us_ted={"v": 1}), "us_ted",
                     "expected a number"),
    "leak_yes": (lambda rows: rows[1].update(suspected_leak="yes"), "suspected_leak",
                 "valid dictionary"),
    "injection_true": (lambda rows: rows[1].update(suspected_injection=True),
                       "suspected_injection", "valid list"),
    "id_list": (lambda rows: rows[1].update(id=["1"]), "id", "string or an integer"),
    "id_bool": (lambda rows: rows[1].update(id=True), "id", "string or an integer"),
    "count_bool": (lambda rows: rows[1].update(n_refs=True), "n_refs", "valid integer"),
    "status_word": (lambda rows: rows[1].update(status="great"), "status", "Input should be"),
}


@pytest.mark.parametrize("tamper, check", [(t, False) for t in sorted(TAMPERS)]
                         + [(t, True) for t in ("duplicate_id", "nan", "leak_yes")])
def test_a_tampered_score_row_is_one_line_naming_file_line_and_field(tamper, check, made_run,
                                                                     run):
    change, field, says = TAMPERS[tamper]
    rows = _rows(run)
    if change is not None:
        change(rows)
        _write_rows(run, rows)
    else:                                       # NaN / Infinity written as Python's json does
        value = {"nan": "NaN", "infinity": "Infinity", "minus_infinity": "-Infinity"}[tamper]
        lines = (run / "scores.jsonl").read_text().splitlines()
        lines[1] = lines[1].replace('"recall": 0.0', f'"recall": {value}', 1)
        assert value in lines[1]
        (run / "scores.jsonl").write_text("\n".join(lines) + "\n")
    before = (run / "summary.json").read_bytes()
    proc = _cli(["aggregate", run] + (["--check"] if check else []), _home(made_run))
    err = _refused(proc, f"{run / 'scores.jsonl'}, line 2", says)
    if field is not None:
        assert f"field '{field}'" in err, err
    assert (run / "summary.json").read_bytes() == before      # nothing written


def test_a_duplicate_id_no_longer_moves_the_mean(made_run, run):
    """The probe's case: a row repeated made n 3 for a 2-sample run and moved a mean from 0 to
    0.33. Two rows (recall 0 and 1) give n 2 and mean 0.5; a third copy of one is refused."""
    rows = _rows(run)[:2]
    rows[0]["recall"], rows[1]["recall"] = 0.0, 1.0
    manifest = json.loads((run / "manifest.json").read_text())
    _write_rows(run, rows)
    home = _home(made_run)
    assert _cli(["aggregate", run], home).returncode == 0
    summary = json.loads((run / "summary.json").read_text())
    assert summary["metrics"]["recall"]["n"] == 2 and summary["metrics"]["recall"]["mean"] == 0.5
    _write_rows(run, rows + [rows[1]])
    _refused(_cli(["aggregate", run], home), "line 3", "duplicate id", "first on line 2")
    assert manifest["n_samples"] == 5


@pytest.mark.parametrize("options", [[1, 2], "x", 3])
def test_manifest_options_that_are_not_an_object(options, made_run, run):
    manifest = json.loads((run / "manifest.json").read_text())
    manifest["options"] = options
    (run / "manifest.json").write_text(json.dumps(manifest))
    for command in (["aggregate"], ["aggregate", "--check"]):
        _refused(_cli([command[0], run, *command[1:]], _home(made_run)), "manifest.json",
                 "field 'options'", "expected an object")


# -- run format ---------------------------------------------------------------------------------

FORMATS = [0, "", None, "absent", 99, [3], "scholarbench-run/99"]


@pytest.mark.parametrize("fmt, command", [(f, ["aggregate"]) for f in FORMATS]
                         + [(f, REPORT) for f in FORMATS]
                         + [(f, ["aggregate", "--check"]) for f in (0, None)])
def test_a_format_that_is_not_one_this_version_reads_is_one_line(fmt, command, made_run, run):
    manifest = json.loads((run / "manifest.json").read_text())
    if fmt == "absent":
        del manifest["format"]
    else:
        manifest["format"] = fmt
    (run / "manifest.json").write_text(json.dumps(manifest))
    proc = _cli([command[0], run, *command[1:]], _home(made_run))
    err = _refused(proc, "manifest.json")
    assert "scholarbench-run/3" in err, err      # says which formats are read


def test_aggregate_check_passes_on_a_migrated_format_2_run(tmp_path):
    """A format-2 run (tests/data/runs-format-2) rebuilt by this version: the keys format 3
    adds (intervals, summary_version, ...) are not differences; its own values must match."""
    from scholarbench.data.demo import write_demo
    old = Path(__file__).parent / "data" / "runs-format-2" / "bottom-up-cluster"
    write_demo(tmp_path / "data" / "demo")
    run = tmp_path / "runs" / "bottom-up-cluster"
    shutil.copytree(old, run)
    path = run / "manifest.json"
    path.write_text(path.read_text().replace("@DATA@", str(tmp_path / "data")).replace(
        "@RUNS@", str(tmp_path / "runs")).replace("@HOME@", str(tmp_path)))
    proc = _cli(["aggregate", run, "--check"], tmp_path)
    assert proc.returncode == 0, proc.stderr
    summary = json.loads((run / "summary.json").read_text())
    summary["metrics"]["recall"]["mean"] = 0.123          # a value it holds still counts
    (run / "summary.json").write_text(json.dumps(summary))
    proc = _cli(["aggregate", run, "--check"], tmp_path)
    assert proc.returncode == 1 and "metrics.recall.mean" in proc.stderr, proc.stderr


# -- summary.json as report reads it --------------------------------------------------------------

SUMMARY_TAMPERS = {
    "judge_panel_string": (lambda s: s.update(judge_panel={"judge_avg": "x"}),
                           "judge_panel.judge_avg"),
    "judge_panel_mean": (lambda s: s.update(judge_panel={"judge_avg": {"j": {"mean": "x"}}}),
                         "judge_panel.judge_avg.j.mean"),
    "judge_agreement_alpha": (lambda s: s.update(judge_agreement={"judge_avg": {"alpha": [1]}}),
                              "judge_agreement.judge_avg.alpha"),
    "status_negative": (lambda s: s["status"].update(scored=-1), "status.scored"),
    "metric_mean_string": (lambda s: s["metrics"]["recall"].update(mean="0.5"),
                           "metrics.recall.mean"),
    "complete_string": (lambda s: s.update(complete="yes"), "complete"),
}


@pytest.mark.parametrize("tamper", sorted(SUMMARY_TAMPERS))
def test_report_checks_the_summary_it_reads(tamper, made_run, run):
    change, field = SUMMARY_TAMPERS[tamper]
    summary = json.loads((run / "summary.json").read_text())
    change(summary)
    (run / "summary.json").write_text(json.dumps(summary))
    proc = _cli([REPORT[0], run, *REPORT[1:]], _home(made_run))
    _refused(proc, "summary.json", f"field '{field}'")


# -- an agent's info that JSON cannot hold ---------------------------------------------------------

@pytest.mark.parametrize("value", [float("nan"), float("inf"), float("-inf")])
def test_nan_in_an_agents_info_never_reaches_generate_jsonl(value, tmp_path):
    from scholarbench.core.rundir import RunDir
    from scholarbench.core.writing import write_record
    run = RunDir(tmp_path / "run")
    run.path.mkdir()
    warning = write_record(run, "generate.jsonl", {"id": "1", "ranking": ["a"],
                                                   "info": {"score": value}})
    assert warning is not None and "not JSON" in warning
    (line,) = (tmp_path / "run" / "generate.jsonl").read_text().splitlines()

    def refuse(name):
        raise AssertionError(f"{name} written into generate.jsonl")
    record = json.loads(line, parse_constant=refuse)
    assert record["ranking"] == ["a"] and "info" not in record and record["info_dropped"]


# -- the .bib and heading readers (their speed: bench/bench_readers.py) ---------------------------

LATEX_VALUES = [
    r"A study of {G}raph networks with \'{e}", r"Bj\o rn and Caf\'e",
    r"{\em Deep} learning -- a review",
    r"\textbf{Bold {nested} text} and $\alpha$-helix", r"Smith, J. and M{\"u}ller, K.",
    r"Proceedings of the {IEEE} \& ACM", r"``Quoted'' title", r"50\% of all",
    r"G\"{o}del's theorem",
    r"\c{c}a va", r"\ss{} x", r"Na\"ive Bayes", r"{\'E}cole Polytechnique", r"{GPT}-4 and {\LaTeX}",
    r"A~B", r"\url{https://x.org/a_b}", r"\emph{word}s", r"{\i}nd{\'\i}ce", r"x^2 and $x^2$",
    r"{T}he {\v{S}}koda", r"\textit{In} \textsc{Vivo}", r"Title --- subtitle", r"\& and &",
    r"Learning {\em{via}} graph", r"\relax x", r"O'Neil", "multi\n  line {T}itle", r"{\"a}{\"o}",
    r"Erd\H{o}s", r"\AA{}ngstr\"om", r"{\o}ystein", r"Dvo\v{r}\'ak", r"Ko\c{c}", r"L\'{\i}via",
    r"$\mathcal{O}(n)$ time", r"\textsuperscript{2}", r"{{Nested {Caps}}}", r"\mbox{X-ray}",
    r"\emph{A} and \emph{B}", "plain title, no LaTeX at all", r"unbalanced {brace \'e",
]


@pytest.mark.parametrize("value", LATEX_VALUES)
def test_the_linear_bib_decoder_gives_bibtexparsers_text(value):
    """Decoding only the LaTeX spans (linear) gives what the stock LatexDecodingMiddleware gives
    for the whole value (pylatexenc over every character), up to the braces and spaces
    `clean_field` drops anyway."""
    from bibtexparser.middlewares import LatexDecodingMiddleware
    from scholarbench.benchmarks.reportbench.bibliography import clean_field, decode_latex_value
    stock, error = LatexDecodingMiddleware()._transform_python_value_string(value)
    assert not error
    assert clean_field(decode_latex_value(value)) == clean_field(stock)


def test_a_bib_entry_is_decoded_by_hand_computed_example(tmp_path):
    from scholarbench.benchmarks.reportbench.bibliography import read_bibtex
    path = tmp_path / "r.bib"
    path.write_text("@article{k, title={{\\em Deep} {G}raph nets -- a review of G\\\"{o}del},\n"
                    "  author={M{\\\"u}ller, Anna}, doi={10.1000/ABC}}\n")
    entry = read_bibtex(path).entries["k"]
    assert entry.title == "Deep Graph nets – a review of Gödel"
    assert entry.fields["author"] == "Müller, Anna" and entry.ids == ("doi:10.1000/abc",)


def test_markdown_section_text_ends_at_the_next_heading_of_any_level(tmp_path):
    """The bisection that made heading reading linear keeps each section's own text."""
    from scholarbench.builder.source import read_source
    path = tmp_path / "s.md"
    path.write_text("# A\n\none [@doi:10.1/a]\n\n## B\n\ntwo\n\n# C\n\nthree\n")
    doc = read_source(path)
    texts = {p[-1]: s.text for top in doc.sections for p, s in top.walk()}
    assert texts == {"A": "one [@doi:10.1/a]", "B": "two", "C": "three"}
