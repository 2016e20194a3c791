"""`build` reads only regular files inside the source folder it was given (issue 34): a hostile
LaTeX source folder (`\\input{../outside}`, `\\include{../…}`, `\\import{../}{…}`, an absolute
`\\input{/…}`, `chap.tex -> ../outside`, a FIFO named `pipe.tex`, `\\bibliography{../outside}`)
and a hostile Manubot folder (a content file, `output/references.json` and `metadata.yaml`
linked to outside files). The outside text appears in no output file, in no request to the
scripted endpoint, and each refused file is one line (file and reason) on stderr and in
review.md."""
from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from fake_openai import FakeOpenAI, Step
from scholarbench.benchmarks.reportbench.survey_gt import from_latex
from scholarbench.builder import read_source
from scholarbench.cli import main
from scholarbench.confine import Refused, inside

SECRET = "OUTSIDE-7f3a9c"      # in every file outside the source folder


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def latex(tmp_path):
    """(source folder, the refused paths as the source names them, the absolute outside file)."""
    for name in ("outside", "outside2", "outside4", "outside5"):
        _write(tmp_path / f"{name}.tex", f"\\section{{Leaked {name} {SECRET}}}\n"
               f"{SECRET} text of {name} \\cite{{outkey}}.\n")
    _write(tmp_path / "outside.bib",
           f"@article{{outkey, title={{{SECRET} a leaked paper}}, year={{2020}}}}\n")
    absolute = _write(tmp_path / "elsewhere" / "abs.tex",
                      f"\\section{{Absolute {SECRET}}}\n{SECRET} \\cite{{outkey}}.\n")
    src = tmp_path / "src"
    _write(src / "refs.bib", "@article{a, title={Deep learning for inside things}, "
           "year={2019}, doi={10.1000/inside}}\n@article{b, title={Another inside paper}, "
           "year={2018}}\n")
    _write(src / "sections" / "methods.tex", "\\section{Methods}\nInside methods \\cite{a}.\n")
    (src / "chap.tex").symlink_to(tmp_path / "outside4.tex")
    os.mkfifo(src / "pipe.tex")
    _write(src / "main.tex", "\\documentclass{article}\n\\title{A hostile survey}\n"
           "\\begin{document}\n\\section{Introduction}\nInside text \\cite{a,b}.\n"
           "\\input{../outside}\n\\include{../outside2}\n"
           f"\\input{{{absolute.with_suffix('')}}}\n\\input{{chap}}\n\\input{{pipe}}\n"
           "\\import{../}{outside5}\n\\input{sections/methods}\n"
           "\\section{More}\nMore inside \\cite{b}.\n\\bibliography{refs,../outside}\n"
           "\\end{document}\n")
    refused = {src / "../outside.tex": "outside the source folder",
               src / "../outside2.tex": "outside the source folder",
               absolute: "outside the source folder",
               src / "chap.tex": "a symbolic link to a file outside the source folder",
               src / "pipe.tex": "a FIFO, not a regular file",
               src / "../outside5.tex": "outside the source folder",
               src / "../outside.bib": "outside the source folder"}
    return src, refused


def _no_secret_under(folder: Path) -> list[str]:
    return [str(p) for p in folder.rglob("*") if p.is_file() and SECRET.encode() in p.read_bytes()]


def _refusal_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if ": refused: " in line]


def test_the_reader_refuses_every_outside_file_and_keeps_the_inside_ones(latex):
    src, refused = latex
    doc = read_source(src)
    assert sorted(doc.refused) == sorted(f"{p}: refused: {why}"
                                         + (f" {src.resolve()}" if "folder" in why else "")
                                         for p, why in refused.items())
    titles = [path for top in doc.sections for path, _ in top.walk()]
    assert titles == [("Introduction",), ("Methods",), ("More",)]
    assert [w.key for w in doc.gt.works] == ["a", "b"]             # `outkey` never seen
    assert SECRET not in repr(doc)
    assert not any("outside" in str(p) or p.name == "pipe.tex" for p in doc.files)


def test_reportbench_ground_truth_from_latex_is_confined_too(latex):
    src, _ = latex
    gt = from_latex(src / "main.tex")
    assert [w.key for w in gt.works] == ["a", "b"] and SECRET not in repr(gt)
    assert len(gt.refused) == 7


def test_a_taxobench_build_writes_no_outside_text_and_lists_each_refusal(latex, tmp_path,
                                                                         capsys):
    src, refused = latex
    out = tmp_path / "out"
    assert main(["build", str(src), "--benchmarks", "taxobench", "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert _no_secret_under(out) == []
    assert {"taxobench.jsonl", "review.md", "units.jsonl", "manifest.json"} <= {
        p.name for p in out.rglob("*")}
    warned = _refusal_lines(err)
    assert len(warned) == len(refused) and all(line.startswith("warning: ") for line in warned)
    review = (out / "review.md").read_text()
    listed = _refusal_lines(review)
    assert len(listed) == len(refused)
    for path, why in refused.items():
        assert sum(f"{path}: refused: {why}" in line for line in listed) == 1, path
    instance = json.loads((out / "taxobench" / "taxobench.jsonl").read_text())
    assert sorted(p["title"] for p in instance["pdfs"]) == ["Another inside paper",
                                                           "Deep learning for inside things"]


def _scripted(body: dict) -> Step:
    """Answers every DeepSynth build stage, taking every section header offered, so each
    section's text is asked about."""
    text = body["messages"][0]["content"]
    if "General Question Generation" in text:
        return Step(text="Survey deep learning for inside things.")
    if "This is the first step: the topics" in text:
        heads = text.split("Section headers:\n")[1].split("\n\nOpening text:")[0].splitlines()
        return Step(text=json.dumps({"topics": [{"name": "All", "headings": heads}]}))
    if "Topic Anchor" in text:
        return Step(text=json.dumps({"sub_groups": [
            {"sub_group_name": "All", "requirements": ["a fact", "another fact"]}]}))
    return Step(text="{}")


def test_a_deepsynth_build_sends_no_outside_text_to_the_endpoint(latex, tmp_path, capsys):
    src, refused = latex
    fake = FakeOpenAI(default=_scripted).start()
    out = tmp_path / "out"
    try:
        rc = main(["build", str(src), "--benchmarks", "deepsynth", "--out", str(out),
                   "--judge", "judge-x", "--judge-base-url", fake.base_url, "--no-llm-cache"])
    finally:
        fake.stop()
    capsys.readouterr()
    assert rc == 0
    sent = [json.dumps(body) for body in fake.requests]
    assert any("Topic Anchor" in s and "Inside methods" in s for s in sent)  # section text sent
    assert [s for s in sent if SECRET in s] == []
    assert _no_secret_under(out) == []
    assert len(_refusal_lines((out / "review.md").read_text())) == len(refused)


def test_a_manubot_folder_with_links_to_outside_files(tmp_path, capsys):
    outside = tmp_path / "outside"
    _write(outside / "leak.md", f"## Leaked {SECRET}\n\n{SECRET} [@doi:10.1000/leak].\n")
    _write(outside / "references.json", json.dumps(
        [{"id": "x", "DOI": "10.1000/inside", "title": f"{SECRET} title"}]))
    _write(outside / "metadata.yaml", f"title: {SECRET} survey\n")
    src = tmp_path / "manubot"
    _write(src / "content" / "01.intro.md",
           "## Introduction\n\nInside text [@doi:10.1000/inside].\n")
    (src / "content" / "02.leak.md").symlink_to(outside / "leak.md")
    (src / "content" / "metadata.yaml").symlink_to(outside / "metadata.yaml")
    (src / "output").mkdir()
    (src / "output" / "references.json").symlink_to(outside / "references.json")
    bib = _write(src / "refs.json", json.dumps(
        [{"id": "i", "DOI": "10.1000/inside", "title": "Deep learning for inside things"}]))
    out = tmp_path / "out"
    assert main(["build", str(src), "--benchmarks", "taxobench", "--out", str(out),
                 "--bib", str(bib)]) == 0
    assert len(_refusal_lines(capsys.readouterr().err)) == 3
    assert _no_secret_under(out) == []
    listed = _refusal_lines((out / "review.md").read_text())
    assert sorted(re.sub(r": refused: .*", "", line.removeprefix("- ")) for line in listed) == \
        sorted(str(src / p) for p in ("content/02.leak.md", "content/metadata.yaml",
                                      "output/references.json"))
    assert all("a symbolic link to a file outside the source folder" in x for x in listed)


def test_inside_by_hand(tmp_path):
    root = tmp_path / "root"
    _write(root / "a.tex", "a")
    _write(tmp_path / "b.tex", "b")
    (root / "link-in.tex").symlink_to(root / "a.tex")
    (root / "link-out.tex").symlink_to(tmp_path / "b.tex")
    (root / "dir-out").symlink_to(tmp_path)
    assert inside(root, root / "a.tex") == root / "a.tex"
    assert inside(root, root / "sub" / ".." / "a.tex") == root / "sub" / ".." / "a.tex"
    assert inside(root, root / "link-in.tex") == root / "link-in.tex"   # a link that stays in
    assert inside(root, root / "missing.tex") == root / "missing.tex"   # reported by the reader
    for path, why in [(root / ".." / "b.tex", "outside the source folder"),
                      (tmp_path / "b.tex", "outside the source folder"),
                      (root / "link-out.tex", "a symbolic link to a file outside"),
                      (root / "dir-out" / "b.tex", "outside the source folder"),
                      (Path("/etc/passwd"), "outside the source folder")]:
        with pytest.raises(Refused, match=re.escape(f"{path}: refused: {why}")):
            inside(root, path)
    os.mkfifo(root / "fifo.tex")
    with pytest.raises(Refused, match="fifo.tex: refused: a FIFO, not a regular file"):
        inside(root, root / "fifo.tex")
