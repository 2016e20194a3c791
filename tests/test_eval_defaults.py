"""`Benchmark.eval_defaults` (core/eval_defaults.py): one record says what `eval` does with a
benchmark unless told otherwise — the sub-tasks it runs, the options it sets per sub-task
where the user set none, and the hint beside a sub-task none of whose samples is scorable.

The base default runs every sub-task with nothing added; a plug-in's own record is what `eval`
follows, end to end: a sub-task it leaves out is not run, its options point a sub-task at its
items unless `--option` named them, and its hint is written beside the skipped sub-task."""
from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path

import pytest

from scholarbench.cli import main
from scholarbench.core.benchmark import Benchmark, Loaded
from scholarbench.core.eval_defaults import EvalDefaults

PLUGINS = Path(__file__).parent / "plugins"

AGENT = '''
def solve(task):
    return {"papers": ["GCN", "GAT"]}
'''


def test_the_base_default_runs_every_sub_task_and_adds_nothing():
    class PlugIn(Benchmark):
        name = "plug-in"
        subtasks = {"a": "ranking", "b": "report"}

    defaults = PlugIn().eval_defaults()
    assert defaults.subtasks == ("a", "b")
    assert defaults.options("a", {}) == {} and defaults.options("b", {"x": 1}) == {}
    assert defaults.hint("a") == ""
    with pytest.raises(dataclasses.FrozenInstanceError):
        defaults.subtasks = ()          # type: ignore[misc]


@pytest.fixture()
def toy_defaults(monkeypatch, tmp_path):
    """A toy plug-in whose `eval_defaults` runs `rank` and `held` (not `off`), points `rank`
    at an items file, and says how to give `held` gold; registrations undone after."""
    from scholarbench.core.registry import REGISTRY
    REGISTRY.load()
    monkeypatch.setattr(REGISTRY, "_entries", {k: dict(v) for k, v in REGISTRY._entries.items()})
    monkeypatch.setattr(REGISTRY, "_meta", dict(REGISTRY._meta))
    monkeypatch.syspath_prepend(str(PLUGINS))
    agents = tmp_path / "agents"
    agents.mkdir()
    (agents / "defaults_agent.py").write_text(AGENT)
    monkeypatch.syspath_prepend(str(agents))
    for name in ("toybench", "defaults_agent"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    from toybench import ToyBench
    items = tmp_path / "two.json"
    items.write_text(json.dumps([{"id": "x1", "topic": "gnn", "gold": ["GCN"]},
                                 {"id": "x2", "topic": "gnn", "gold": ["GAT"]}]))

    class ToyDefaults(ToyBench):
        name = "toy-defaults"
        subtasks = {"rank": "ranking", "held": "ranking", "off": "ranking"}
        headline = {}

        def load(self, subtask, limit):
            loaded = super().load(subtask, limit)
            if subtask == "held":
                for sample in loaded.samples:
                    sample.unscorable = "no gold for held"
            return Loaded(loaded.samples, loaded.data)

        def score_sample(self, sample, rec, ctx):
            if sample.unscorable:
                return {"id": sample.id, "status": "unscorable",
                        "unscorable": sample.unscorable}
            return super().score_sample(sample, rec, ctx)

        def eval_defaults(self):
            return EvalDefaults(
                ("rank", "held"),
                options=lambda s, given: {"items": str(items)}
                if s == "rank" and "items" not in given else {},
                hint=lambda s: f"import gold for {s}")

    REGISTRY.add("benchmark", "toy-defaults", ToyDefaults)
    yield tmp_path
    sys.modules.pop("toybench", None)
    sys.modules.pop("defaults_agent", None)


def _runs(out: Path) -> dict[str, dict]:
    return {r["subtask"]: r for r in json.loads((out / "eval.json").read_text())["runs"]}


def test_eval_follows_a_plug_ins_own_defaults(toy_defaults, capsys):
    out = toy_defaults / "suite"
    assert main(["eval", "--benchmarks", "toy-defaults", "--agent", "defaults_agent:solve",
                 "--out", str(out), "--quiet"]) == 0
    runs = _runs(out)
    assert sorted(runs) == ["held", "rank"]                  # `off` is not an eval default
    assert runs["rank"]["status"] == "complete" and runs["rank"]["samples"] == 2   # its items
    assert runs["held"]["status"] == "skipped"
    assert runs["held"]["reason"] == ("every sample unscorable (3× no gold for held); "
                                      "import gold for held")
    assert "import gold for held" in capsys.readouterr().out


def test_the_users_option_wins_over_the_defaults_options(toy_defaults):
    three = toy_defaults / "three.json"
    three.write_text(json.dumps([{"id": f"y{i}", "topic": "t", "gold": ["GCN"]}
                                 for i in range(3)]))
    out = toy_defaults / "mine"
    assert main(["eval", "--benchmarks", "toy-defaults", "--agent", "defaults_agent:solve",
                 "--out", str(out), "--quiet", "--option", f"toy-defaults.items={three}"]) == 0
    assert _runs(out)["rank"]["samples"] == 3
