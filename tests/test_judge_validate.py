"""`judge validate`: SciNet's citation-sentiment judge against human-labelled contexts, with a
scripted loopback judge whose answers are known, so accuracy and kappa are computed by hand."""
from __future__ import annotations

import json

import pytest

from fake_openai import FakeOpenAI, Step
from scholarbench.cli import main

# (text, SciCite label, what the scripted judge answers)
SCICITE = [
    ("alpha cites [1] as background", "background", "Neutral"),
    ("beta cites [2] as background", "background", "Neutral"),
    ("gamma cites [3] as background", "background", "Neutral"),
    ("delta cites [4] as background", "background", "Positive"),      # judge wrong
    ("epsilon uses the tool of [5]", "method", "Positive"),
    ("zeta uses the data of [6]", "method", " positive.\n"),           # tolerated spelling
    ("eta uses the method of [7]", "method", "Neutral"),               # judge wrong
    ("theta compares with [8]", "result", "Negative"),                 # left out, never asked
]
ACL_ARC = [
    ("iota extends [9]", "Extends", "Positive"),
    ("kappa uses [10]", "Uses", "Positive"),
    ("lambda background [11]", "Background", "Negative"),
    ("mu contrasts with [12]", "CompareOrContrast", "Negative"),
    ("nu motivates by [13]", "Motivation", "Neutral"),
    ("xi future [14]", "Future", "Neutral"),
]
ANSWERS = {text: answer for text, _, answer in SCICITE + ACL_ARC}


def _write(root, name, rows):
    folder = root / "citation_intent"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text("".join(json.dumps({"text": t, "label": lab, "metadata": {}})
                                       + "\n" for t, lab, _ in rows))


@pytest.fixture
def data(tmp_path):
    root = tmp_path / "data"
    _write(root, "scicite_test.jsonl", SCICITE)
    _write(root, "acl_arc_test.jsonl", ACL_ARC)
    ann = root / "clscisumm" / "Training-Set-2018" / "X00-0001" / "annotation"
    ann.mkdir(parents=True)
    (ann / "X00-0001.ann.txt").write_text(
        "Citance Number: 1 | Citation Text: <S>a</S> | Discourse Facet:  Method_Citation | "
        "Annotator:  A |\n\n"
        "Citance Number: 2 | Citation Text: <S>b</S> | Discourse Facet:  ['Results_Citation',"
        "'Method_Citation'] | Annotator:  A |\n")
    return root


@pytest.fixture
def judge(tmp_path, monkeypatch):
    monkeypatch.setenv("SCHOLARBENCH_CACHE", str(tmp_path / "cache"))
    server = FakeOpenAI().start()

    def answer(body):
        prompt = body["messages"][0]["content"]
        hits = [a for t, a in ANSWERS.items() if t in prompt]
        return Step(text=hits[0] if hits else "??")
    server.default = answer
    yield server
    server.stop()


def _flags(server):
    return ["--judge", "fake-judge", "--judge-base-url", server.base_url, "--quiet"]


def test_accuracy_and_kappa_match_the_hand_computation(data, judge, tmp_path, capsys):
    out = tmp_path / "v.json"
    assert main(["judge", "validate", "--data", str(data), "--datasets", "scicite,acl-arc",
                 "--out", str(out), *_flags(judge)]) == 0
    result = json.loads(out.read_text())
    sci, acl = result["datasets"]
    # SciCite: human N N N N P P P, judge N N N P P P N → 5/7 right;
    # p_o = 5/7, marginals human (N 4, P 3), judge (N 4, P 3): p_e = 25/49,
    # kappa = (5/7 - 25/49) / (1 - 25/49) = 10/24
    assert sci["accuracy"] == pytest.approx(5 / 7)
    assert sci["kappa"] == pytest.approx(10 / 24)
    assert (sci["n_used"], sci["n_left_out"], sci["n_unscored"]) == (7, 1, 0)
    assert sci["left_out"] == {"result": 1}
    assert sci["confusion"]["Neutral"] == {"Positive": 1, "Negative": 0, "Neutral": 3}
    assert sci["confusion"]["Positive"] == {"Positive": 2, "Negative": 0, "Neutral": 1}
    # ACL-ARC: human P P N, judge P P Neg → 2/3; p_e = (2*2 + 1*0 + 0*1)/9 = 4/9,
    # kappa = (2/3 - 4/9) / (5/9) = 2/5
    assert acl["accuracy"] == pytest.approx(2 / 3) and acl["kappa"] == pytest.approx(0.4)
    assert acl["left_out"] == {"CompareOrContrast": 1, "Motivation": 1, "Future": 1}
    assert len(judge.requests) == 7 + 3          # left-out items are never asked
    assert result["usage"]["calls"] == 10
    printed = capsys.readouterr().out
    assert "71.4%" in printed and "0.417" in printed and "98% agreement" in printed
    assert "0.8909" in printed and "Table 6" in printed
    assert "no human labels: deepsynth" in printed and "no human labels: reportbench" in printed


def test_junk_replies_are_unscored_and_counted(data, judge, tmp_path, capsys):
    judge.default = Step(text="It is somewhat positive, I think")
    out = tmp_path / "v.json"
    assert main(["judge", "validate", "--data", str(data), "--datasets", "scicite",
                 "--out", str(out), *_flags(judge)]) == 0
    (sci,) = json.loads(out.read_text())["datasets"]
    assert (sci["n_used"], sci["n_unscored"]) == (0, 7)
    assert sci["unscored"] == {"bad_label": 7}
    assert sci["accuracy"] is None and sci["kappa"] is None
    assert len(judge.requests) == 7 * 2            # each asked once, then repaired once
    assert "Reply again with only one word" in judge.requests[1]["messages"][-1]["content"]
    assert "unscored: bad_label 7" in capsys.readouterr().out


def test_clscisumm_facets_are_counted_as_left_out(data, judge, tmp_path, capsys):
    out = tmp_path / "v.json"
    assert main(["judge", "validate", "--data", str(data), "--datasets", "clscisumm",
                 "--out", str(out), *_flags(judge)]) == 0
    (cl,) = json.loads(out.read_text())["datasets"]
    assert cl["n_used"] == 0 and cl["left_out"] == {"Method_Citation": 1,
                                                    "Results_Citation": 1}
    assert not judge.requests


def test_limit_is_a_seeded_sample(data, judge, tmp_path):
    ids = []
    for n in range(2):
        out = tmp_path / f"v{n}.json"
        assert main(["judge", "validate", "--data", str(data), "--datasets", "scicite",
                     "--limit", "3", "--seed", "7", "--out", str(out), *_flags(judge)]) == 0
        (sci,) = json.loads(out.read_text())["datasets"]
        assert sci["n_sampled"] == 3 and sci["n_available"] == 7
        ids.append([row["id"] for row in sci["items"]])
    assert ids[0] == ids[1]


def test_bad_input_is_one_line_and_no_call(data, judge, tmp_path, capsys):
    assert main(["judge", "validate", "--data", str(tmp_path / "none"), *_flags(judge)]) == 2
    assert "not found" in capsys.readouterr().err
    assert main(["judge", "validate", "--data", str(data), "--datasets", "pubmed",
                 *_flags(judge)]) == 2
    assert "unknown data set 'pubmed'" in capsys.readouterr().err
    (data / "citation_intent" / "scicite_test.jsonl").write_text('{"text": 1}\n')
    assert main(["judge", "validate", "--data", str(data), "--datasets", "scicite",
                 *_flags(judge)]) == 2
    assert "scicite_test.jsonl:1:" in capsys.readouterr().err
    assert not judge.requests


# ---- the packaged local model, end to end (marker local_llm) -----------------------------------

@pytest.mark.local_llm
def test_local_model_validates_end_to_end(tmp_path, monkeypatch, capsys):
    """Its numbers are poor (docs/judges.md); this checks the pipeline, not the model, so a
    seeded sample of 4 items per data set will do (8 real calls; docs/judges.md's measurement
    used 20 each)."""
    from pathlib import Path
    from conftest import require_extra
    require_extra("llama_cpp", "local")
    monkeypatch.setenv("SCHOLARBENCH_CACHE", str(tmp_path / "sbcache"))
    data = Path(__file__).parent / "data"         # a 40-line excerpt of each test set
    out = tmp_path / "v.json"
    assert main(["judge", "validate", "--data", str(data), "--datasets", "scicite,acl-arc",
                 "--limit", "4", "--quiet", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    print(printed)
    result = json.loads(out.read_text())
    assert result["judge"]["model_id"].startswith("local:")
    for ds in result["datasets"]:
        assert ds["n_sampled"] == 4 and ds["n_used"] + ds["n_unscored"] == 4
        assert ds["n_used"] == 0 or 0.0 <= ds["accuracy"] <= 1.0
    assert "98% agreement" in printed and "kappa" in printed


def test_a_reply_mended_by_the_repair_turn_is_scored(data, judge, tmp_path):
    judge.push(Step(text="The sentiment here is neutral."))     # first reply: not a bare label
    out = tmp_path / "v.json"
    assert main(["judge", "validate", "--data", str(data), "--datasets", "scicite",
                 "--out", str(out), *_flags(judge)]) == 0
    (sci,) = json.loads(out.read_text())["datasets"]
    first = sci["items"][0]
    assert first["judge"] == "Neutral" and first["attempts"] == 2 and sci["n_unscored"] == 0
    assert sci["accuracy"] == pytest.approx(5 / 7)


def test_judge_prompt_keeps_every_line_of_the_papers_prompt_in_order():
    from importlib import resources
    from scholarbench.benchmarks.scinet.sentiment_judge import SentimentJudge
    folder = resources.files("scholarbench.benchmarks.scinet").joinpath("prompts")
    paper = folder.joinpath("citation_sentiment.v1.txt").read_text().splitlines()[1:]
    ours = SentimentJudge(object()).text("Prior work </context> [3] fails.\n</title>",
                                         "T").splitlines()
    at = 0
    for line in paper:
        if "[" in line or not line.strip():
            continue                                 # placeholders and blank lines
        at = ours.index(line, at) + 1                # ValueError if missing or out of order
    assert ours[-1] == "<context>Prior work &lt;/context> [3] fails. &lt;/title></context>"
    assert 'the target paper titled "<title>T</title>".' in ours
