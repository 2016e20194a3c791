"""Hostile input files against the readers of user files: bytes that are not UTF-8, JSON nested
10,000 deep, a line that is a number, an empty file, a line of bad JSON. Every one gives one
error line naming the file (and line) and exit status 2 — or, for an agent's output file, a
warning naming the line and the sample counted — never a traceback."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from conftest import shared_path
from scholarbench.cli import main

DEEP = ('{"id": 1, "task_id": 1, "hierarchy_tree": ' + '{"name": "n", "children": [' * 10_000
        + '{"name": "leaf"}' + ']}' * 10_000 + '}\n')
PROBES = {
    "bytes": b'{"id": 1, "task_id": 1, "title": "x\xff\xfe"}\n',
    "deep": DEEP.encode(),
    "number": b"5\n",
    "empty": b"",
    "badjson": b'{"id": 1, "title": \n',
    "list": b'[{"id": 1}]\n',
}
# what the error line must say for each probe (besides the file name)
SAYS = {"bytes": "line 1: not UTF-8", "deep": "line 1: JSON nested deeper than",
        "number": "line 1: expected a JSON object, got int", "empty": "empty",
        "badjson": "line 1: not valid JSON", "list": "line 1: expected a JSON object, got list"}


@pytest.fixture
def probes(tmp_path, monkeypatch):
    monkeypatch.setenv("SCHOLARBENCH_DATA", str(tmp_path / "data"))
    out = {}
    for name, content in PROBES.items():
        path = tmp_path / f"{name}.jsonl"
        path.write_bytes(content)
        out[name] = path
    return out


def _check(argv, capsys, *, status: int, says: str, path: Path) -> None:
    code = main([str(a) for a in argv])           # a traceback would raise here
    err = capsys.readouterr().err
    assert code == status, err
    assert str(path) in err and says in err, err


@pytest.mark.parametrize("probe", sorted(PROBES))
def test_data_import_taxobench(probe, probes, capsys):
    _check(["data", "import", "taxobench", probes[probe]], capsys, status=2,
           says=SAYS[probe], path=probes[probe])


@pytest.mark.parametrize("probe", sorted(PROBES))
def test_score_deepsynth_judged(probe, probes, capsys, tmp_path):
    _check(["score", "deepsynth", "--judged", probes[probe], "--out", tmp_path / "s.jsonl"],
           capsys, status=2, says=SAYS[probe], path=probes[probe])


@pytest.mark.parametrize("probe", sorted(PROBES))
def test_score_taxobench_gold(probe, probes, capsys, tmp_path):
    pred = tmp_path / "pred.jsonl"
    pred.write_text(json.dumps({"id": 1, "hierarchy_tree": {"name": "x"}}) + "\n")
    _check(["score", "taxobench", "--gold", probes[probe], "--pred", pred, "--out",
            tmp_path / "s.jsonl", "--no-llm-cache"], capsys, status=2, says=SAYS[probe],
           path=probes[probe])


@pytest.mark.parametrize("probe", sorted(PROBES))
def test_score_taxobench_predictions(probe, probes, capsys, tmp_path):
    """An agent's output file: a bad line is a warning naming it, its sample is counted as
    missing; an empty file is an error."""
    gold = shared_path("data", "taxobench", "taxobench_5_instances.jsonl")
    code = main(["score", "taxobench", "--gold", str(gold), "--pred", str(probes[probe]),
                 "--out", str(tmp_path / "s.jsonl"), "--no-llm-cache"])
    captured = capsys.readouterr()
    if probe == "empty":
        assert code == 2 and "no predictions in the file" in captured.err
        return
    assert code == 0, captured.err
    assert f"{probes[probe]}, {SAYS[probe]}" in captured.err
    assert "5 samples, 5 missing" in captured.out


@pytest.mark.parametrize("probe", ["bytes", "empty", "badjson", "number"])
def test_data_import_reportbench_validates_ground_truth(probe, probes, capsys, tmp_path):
    source = shared_path("data", "reportbench")
    copy = tmp_path / "rb"
    (copy / "ReportBench_v1.1_GT").mkdir(parents=True)
    shutil.copy(source / "ReportBench_v1.1.jsonl", copy)
    good = sorted((source / "ReportBench_v1.1_GT").glob("*.jsonl"))[:2]
    for path in good:
        shutil.copy(path, copy / "ReportBench_v1.1_GT")
    bad = copy / "ReportBench_v1.1_GT" / good[1].name
    bad.write_bytes(bad.read_bytes() + PROBES[probe] if probe != "empty" else b"")
    n = len(good[1].read_bytes().splitlines())
    says = "empty" if probe == "empty" else SAYS[probe].replace("line 1", f"line {n + 1}")
    _check(["data", "import", "reportbench", copy], capsys, status=2, says=says, path=bad)
    assert not (tmp_path / "data" / "reportbench").exists() or not any(
        (tmp_path / "data" / "reportbench").rglob("*.jsonl"))
