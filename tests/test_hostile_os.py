"""Hostile paths and environments: an --out that is a file, a path under a file, /proc and
/sys, a full disk, a FIFO as an input or an output, data imports that hold the data directory or
a symlink loop, numbers past Python's int-digit limit, JSON nested past the recursion limit and
bytes that are not UTF-8 in OpenAlex files, a bug. Each is one line (no traceback) and a non-zero
exit; --debug (or SCHOLARBENCH_DEBUG=1) adds the traceback. The tests run as root, so a
read-only path is one the kernel refuses (/proc, /sys), not a chmod."""
from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import FakeEmbedder, shared_path, use_fake_embedder
from scholarbench.cli import main

SRC = Path(__file__).resolve().parents[1] / "src"
DIGITS = "7" * 5000                       # past Python's 4,300-digit int limit
DEEP = "[" * 100_000 + "]" * 100_000      # past the recursion limit of json's decoder


@pytest.fixture(autouse=True)
def _own_dirs(tmp_path, monkeypatch):
    monkeypatch.setenv("SCHOLARBENCH_DATA", str(tmp_path / "data"))
    monkeypatch.delenv("SCHOLARBENCH_DEBUG", raising=False)


def _one_line(argv, capsys, status: int = 2) -> str:
    code = main([str(a) for a in argv])            # a traceback would raise here
    err = capsys.readouterr().err
    assert code == status, err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    return err


def _trec(tmp_path: Path) -> tuple[Path, Path]:
    qrels, run = tmp_path / "q.trec", tmp_path / "r.trec"
    qrels.write_text("q1 0 d1 1\n")
    run.write_text("q1 Q0 d1 1 2.0 t\n")
    return qrels, run


def _score(tmp_path: Path, out, qrels=None) -> list:
    q, r = _trec(tmp_path)
    return ["score", "researcharena", "--qrels", qrels or q, "--run", r, "--out", out]


# -- outputs -----------------------------------------------------------------------------------

def test_out_under_a_file(tmp_path, capsys):
    (tmp_path / "afile").write_text("x")
    err = _one_line(_score(tmp_path, tmp_path / "afile" / "s.jsonl"), capsys)
    assert f"{tmp_path / 'afile'}: File exists (a file or folder of that name is in the " \
        "way) — choose another path" in err


def test_run_out_is_an_existing_file(tmp_path, capsys):
    gold = shared_path("data", "taxobench", "taxobench_5_instances.jsonl")
    assert main(["data", "import", "taxobench", str(gold)]) == 0
    answers = tmp_path / "a.jsonl"
    answers.write_text(json.dumps({"id": 1, "taxonomy": {"name": "x"}}) + "\n")
    out = tmp_path / "afile"
    out.write_text("x")
    capsys.readouterr()
    err = _one_line(["run", "taxobench", "--mode", "bottom-up", "--agent", "replay",
                     "--agent-arg", f"path={answers}", "--out", out, "--quiet"], capsys)
    assert str(out) in err and "File exists" in err and "choose another path" in err


@pytest.mark.parametrize("where, named, says", [
    ("/proc/scholarbench-x/s.jsonl", "/proc/scholarbench-x", "No such file or directory"),
    ("/sys/scholarbench-x.jsonl", "/sys/scholarbench-x.jsonl", "not writable")])
def test_out_where_the_kernel_refuses(where, named, says, tmp_path, capsys):
    err = _one_line(_score(tmp_path, where), capsys)
    assert err.startswith(f"error: {named}: ") and says in err and " — " in err, err


def test_out_is_a_fifo_is_refused_not_replaced(tmp_path, capsys):
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    err = _one_line(_score(tmp_path, fifo), capsys)
    assert str(fifo) in err and "is a FIFO, not a regular file" in err
    assert stat.S_ISFIFO(fifo.stat().st_mode)      # an atomic rename would have replaced it


def test_disk_full_mid_write(tmp_path, capsys):
    gold = shared_path("data", "taxobench", "taxobench_5_instances.jsonl")
    assert main(["data", "import", "taxobench", str(gold)]) == 0
    answers = tmp_path / "a.jsonl"
    answers.write_text(json.dumps({"id": 1, "taxonomy": {"name": "x"}}) + "\n")
    run = tmp_path / "run"
    assert main(["run", "taxobench", "--mode", "bottom-up", "--agent", "replay", "--agent-arg",
                 f"path={answers}", "--out", str(run), "--quiet"]) == 0
    capsys.readouterr()
    err = _one_line(["report", run, "--format", "markdown", "--out", "/dev/full"], capsys)
    assert "disk full" in err and "No space left on device" in err


# -- inputs ------------------------------------------------------------------------------------

def _cli(*args: str, env: dict | None = None, timeout: float = 60) -> subprocess.CompletedProcess:
    env = {**os.environ, **(env or {}), "PYTHONPATH": str(SRC)}
    return subprocess.run([sys.executable, "-m", "scholarbench", *args], capture_output=True,
                          text=True, timeout=timeout, env=env)


@pytest.mark.parametrize("command", ["import", "qrels", "graph"])
def test_a_fifo_as_input_returns_at_once(command, tmp_path):
    fifo = tmp_path / "in.jsonl"
    os.mkfifo(fifo)                       # nobody writes: opening it to read would wait forever
    papers = tmp_path / "p.csv"
    papers.write_text("id,year\na,2000\n")
    args = {"import": ["data", "import", "taxobench", str(fifo)],
            "qrels": [str(a) for a in _score(tmp_path, tmp_path / "s.jsonl", qrels=fifo)],
            "graph": ["graph", "metrics", "--edges", str(fifo), "--papers", str(papers),
                      "--out", str(tmp_path / "m.csv")]}[command]
    done = _cli(*args, env={"SCHOLARBENCH_DATA": str(tmp_path / "data")})
    assert done.returncode == 2, done.stderr
    assert f"{fifo}: is a FIFO, not a regular file" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_character_device_as_input(tmp_path, capsys):
    err = _one_line(_score(tmp_path, tmp_path / "s.jsonl", qrels="/dev/null"), capsys)
    assert "/dev/null: is a character device" in err


def test_a_number_past_the_int_digit_limit(tmp_path, capsys):
    bad = tmp_path / "t.jsonl"
    bad.write_text('{"id": 1, "task_id": ' + DIGITS + '}\n')
    err = _one_line(["data", "import", "taxobench", bad], capsys)
    assert f"{bad}, line 1: a number of more than 4300 digits" in err


def _openalex(tmp_path: Path, content: bytes) -> Path:
    folder = tmp_path / "oa"
    folder.mkdir()
    (folder / "works.json").write_bytes(content)
    return folder


@pytest.mark.parametrize("content, says", [
    (DEEP.encode(), "JSON nested deeper than"),
    (b'{"id": "W1", "title": "x\xff"}', "line 1: not UTF-8 text (byte 0xff"),
    (b'{"id": "W1",\n "publication_year": ' + DIGITS.encode() + b'}', "more than 4300 digits"),
])
def test_openalex_import_of_hostile_json(content, says, tmp_path, capsys):
    folder = _openalex(tmp_path, content)
    err = _one_line(["data", "import", "openalex", folder], capsys)
    assert f"{folder / 'works.json'}" in err and says in err, err


@pytest.mark.parametrize("content, says", [
    (DEEP.encode(), "JSON nested deeper than"),
    (b'{"id": "W1", "title": "x\xff"}', "line 1: not UTF-8 text"),
    (b'{"id": "W1", "cited_by_count": ' + DIGITS.encode() + b'}', "more than 4300 digits")])
def test_openalex_graph_ingestion_of_hostile_json(content, says, tmp_path):
    from scholarbench.errors import DataError
    from scholarbench.graph import ingest_openalex
    folder = _openalex(tmp_path, content)
    with pytest.raises(DataError) as caught:
        ingest_openalex([folder], tmp_path / "tables")
    assert str(caught.value).startswith(f"{folder / 'works.json'}") and says in str(caught.value)
    assert not list((tmp_path / "tables").rglob("*.parquet*"))     # no part left behind


# -- data import of a folder -------------------------------------------------------------------

def _good_openalex(tmp_path: Path) -> Path:
    work = {"id": "https://openalex.org/W1", "title": "A paper", "publication_year": 2020}
    return _openalex(tmp_path, json.dumps(work).encode())


def test_import_of_a_folder_holding_the_data_dir(tmp_path, capsys, monkeypatch):
    folder = _good_openalex(tmp_path)
    monkeypatch.setenv("SCHOLARBENCH_DATA", str(folder / "data"))
    err = _one_line(["data", "import", "openalex", folder], capsys)
    assert f"{folder}: holds the data directory" in err
    assert not (folder / "data").exists()                 # nothing was copied


def test_import_of_the_data_dir_itself(tmp_path, capsys, monkeypatch):
    folder = _good_openalex(tmp_path)
    err = _one_line(["data", "--data", folder, "import", "openalex", folder], capsys)
    assert "holds the data directory" in err


def test_import_through_a_symlink_to_the_data_dir(tmp_path, capsys):
    folder = _good_openalex(tmp_path)
    (tmp_path / "data").mkdir()
    (folder / "link").symlink_to(tmp_path / "data")
    err = _one_line(["data", "import", "openalex", folder], capsys)
    assert f"{folder / 'link'}: leads into the data directory" in err


def test_import_of_a_symlink_loop(tmp_path, capsys):
    folder = _good_openalex(tmp_path)
    (folder / "sub").mkdir()
    (folder / "sub" / "up").symlink_to(folder)
    err = _one_line(["data", "import", "openalex", folder], capsys)
    assert f"{folder / 'sub' / 'up'}: a symlink loop" in err
    assert not (tmp_path / "data" / "openalex").exists()


def test_import_of_a_folder_with_a_fifo(tmp_path):
    folder = _good_openalex(tmp_path)
    os.mkfifo(folder / "pipe")
    done = _cli("data", "import", "openalex", str(folder),
                env={"SCHOLARBENCH_DATA": str(tmp_path / "data")})
    assert done.returncode == 2 and f"{folder / 'pipe'}: is a FIFO" in done.stderr, done.stderr


def test_a_good_folder_still_imports(tmp_path, capsys):
    folder = _good_openalex(tmp_path)
    assert main(["data", "import", "openalex", str(folder)]) == 0
    assert (tmp_path / "data" / "openalex" / "works.json").is_file()


# -- bugs and --debug --------------------------------------------------------------------------

def _boom(*args, **kwargs):
    raise RuntimeError("boom sk-abcdefghijklmnop")


def test_an_internal_error_is_one_line_with_status_1(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("scholarbench.data.commands.list_datasets", _boom)
    err = _one_line(["data", "list"], capsys, status=1)
    assert err.startswith("internal error: RuntimeError: boom") and "--debug" in err
    assert "abcdefghijklmnop" not in err                 # redacted like every error line


def _int_limit():
    return int(DIGITS)


@pytest.mark.parametrize("fail, says", [
    (lambda: _int_limit(), "more than 4300 digits (Python's limit) — remove or shorten it"),
    (lambda: b"\xff".decode("utf-8"), "input is not UTF-8 text (byte 0xff at byte 1)"),
    (lambda: json.loads(DEEP), "nested deeper than Python's recursion limit"),
    (lambda: (_ for _ in ()).throw(OSError(30, "Read-only file system", "/ro/x")),
     "error: /ro/x: Read-only file system (not writable) — choose a path on a writable disk"),
    (lambda: (_ for _ in ()).throw(OSError(28, "No space left on device")),
     "error: No space left on device (disk full) — free space"),
], ids=["int-digits", "not-utf8", "recursion", "read-only", "disk-full"])
def test_what_escapes_a_reader_is_still_one_line(fail, says, capsys, monkeypatch):
    """The boundary's own lines, for failures no reader catches first (a command raising)."""
    def command(*args, **kwargs):
        fail()
    monkeypatch.setattr("scholarbench.data.commands.list_datasets", command)
    err = _one_line(["data", "list"], capsys, status=2)
    assert says in err, err


@pytest.mark.parametrize("how", ["flag", "flag-after-the-command", "env"])
def test_debug_shows_the_traceback(how, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("scholarbench.data.commands.list_datasets", _boom)
    argv = {"flag": ["--debug", "data", "list"], "flag-after-the-command": ["data", "list",
                                                                              "--debug"],
            "env": ["data", "list"]}[how]
    if how == "env":
        monkeypatch.setenv("SCHOLARBENCH_DEBUG", "1")
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert "Traceback (most recent call last)" in err and "RuntimeError" in err
    assert err.strip().splitlines()[-1].startswith("internal error: RuntimeError")
    assert "abcdefghijklmnop" not in err


# -- dense search is never built inside a tool call --------------------------------------------

def test_dense_search_is_refused_until_corpus_dense_builds_it(tmp_path, capsys, monkeypatch):
    from test_researcharena_fixtures import build_tiny
    from scholarbench.corpus.store import Corpus
    from scholarbench.tools.session import ToolError, ToolSession
    corpus_dir = tmp_path / "corpus"
    build_tiny(corpus_dir)
    embedder = FakeEmbedder()
    session = ToolSession(Corpus.open(corpus_dir), embedder=embedder)
    for mode in ("dense", "hybrid"):
        with pytest.raises(ToolError, match=r"not built yet \(`scholarbench corpus dense "
                           rf"--corpus {corpus_dir}` builds it\)"):
            session.call("search", {"query": "graph", "mode": mode})
    assert embedder.calls == 0                            # nothing was embedded in the call
    use_fake_embedder(monkeypatch)          # every module that bound default_embedder
    assert main(["corpus", "dense", "--corpus", str(corpus_dir)]) == 0
    out = capsys.readouterr().out
    assert "dense-title: built" in out and "dense-title+abstract: built" in out
    session = ToolSession(Corpus.open(corpus_dir), embedder=embedder)   # a new process's view
    for mode in ("dense", "hybrid"):
        assert session.call("search", {"query": "graph", "mode": mode})["results"]
    assert main(["corpus", "dense", "--corpus", str(corpus_dir), "--fields", "title"]) == 0
    assert "dense-title: up to date" in capsys.readouterr().out
