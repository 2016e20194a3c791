"""The registry's lazy `module:attr` entries and the entries the shared floors look up (data
sets, exports) instead of importing a benchmark."""
from __future__ import annotations

import sys

import pytest

from scholarbench.data.store import datasets, import_dataset, read_index
from scholarbench.errors import ScholarbenchError
from scholarbench.registry import REGISTRY, Lazy, Registry


@pytest.fixture()
def plugin(tmp_path, monkeypatch):
    """A module `sb_lazy_probe` on sys.path, not yet imported; it registers `thing` itself."""
    (tmp_path / "sb_lazy_probe.py").write_text(
        "from scholarbench.registry import REGISTRY\n"
        "LOADS = []\n"
        "def thing(source, target):\n"
        "    LOADS.append((source, target))\n"
        "    target.mkdir(parents=True, exist_ok=True)\n"
        "    (target / 'copied.txt').write_text(source.read_text())\n"
        "    return {'copied.txt': {'lines': 1}}\n"
        "other = object()\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "sb_lazy_probe", raising=False)
    yield "sb_lazy_probe"
    sys.modules.pop("sb_lazy_probe", None)


def _bare() -> Registry:
    reg = Registry()
    reg._benchmarks_loaded = reg._loaded = True          # no package scan in these tests
    return reg


def test_a_lazy_entry_is_imported_on_its_first_lookup_only(plugin):
    reg = _bare()
    reg.lazy("dataset", "toy", f"{plugin}:thing", note="x")
    assert plugin not in sys.modules                  # registering imports nothing
    assert reg.names("dataset") == ["toy"]            # nor does listing the names
    assert plugin not in sys.modules
    thing = reg.get("dataset", "toy")
    assert thing is sys.modules[plugin].thing
    assert reg.find("dataset", "toy") is thing and reg.items("dataset") == [("toy", thing)]
    assert reg.meta("dataset", "toy") == {"note": "x"}


def test_a_module_registering_itself_keeps_its_lazy_promise(plugin, tmp_path):
    (tmp_path / "sb_self_reg.py").write_text(
        "from scholarbench.registry import Registry\n"
        "import sb_lazy_probe as p\n"
        "def make(reg):\n"
        "    reg.register('agent', 'a', benchmarks=('b',))(p.thing)\n")
    reg = _bare()
    reg.lazy("agent", "a", f"{plugin}:thing", external=True)
    import sb_self_reg
    sb_self_reg.make(reg)                             # the decorator replaces the promise
    assert reg.get("agent", "a") is sys.modules[plugin].thing
    assert reg.meta("agent", "a") == {"external": True, "benchmarks": ("b",)}
    sys.modules.pop("sb_self_reg", None)


def test_two_targets_for_one_name_are_an_error(plugin):
    reg = _bare()
    reg.lazy("export", "x", f"{plugin}:thing")
    reg.lazy("export", "x", f"{plugin}:thing")        # the same promise twice is fine
    with pytest.raises(ValueError, match="registered twice"):
        reg.lazy("export", "x", f"{plugin}:other")
    with pytest.raises(ValueError, match="module:attr"):
        reg.lazy("export", "y", plugin)
    reg.add("export", "z", object())
    with pytest.raises(ValueError, match="registered twice"):
        reg.add("export", "z", object())


def test_an_unknown_lazy_target_fails_on_lookup_naming_it(plugin):
    reg = _bare()
    reg.lazy("dataset", "gone", f"{plugin}:no_such_attr")
    with pytest.raises(AttributeError, match="no_such_attr"):
        reg.get("dataset", "gone")
    assert Lazy(f"{plugin}:thing").load() is sys.modules[plugin].thing


def test_data_import_takes_a_benchmark_s_registered_dataset(plugin, tmp_path, monkeypatch):
    """`data import NAME` reaches a benchmark's data through its "dataset" entry (a plug-in
    here), so `data.store` names no benchmark."""
    monkeypatch.setitem(REGISTRY._entries["dataset"], "toyset", Lazy(f"{plugin}:thing"))
    assert "toyset" in datasets() and {"reportbench", "deepsynth"} <= set(datasets())
    source = tmp_path / "in.txt"
    source.write_text("hello\n")
    entry = import_dataset("toyset", source, tmp_path / "data")
    assert entry["files"] == {"copied.txt": {"lines": 1}}
    assert sys.modules[plugin].LOADS == [(source, tmp_path / "data" / "toyset")]
    assert (tmp_path / "data" / "toyset" / "copied.txt").read_text() == "hello\n"
    stored = read_index(tmp_path / "data")["toyset"]["files"]
    assert list(stored) == ["copied.txt"] and stored["copied.txt"]["lines"] == 1
    # The index keeps, per file, which import wrote it (several imports of one kind add up).
    assert stored["copied.txt"]["source"] == str(source) and stored["copied.txt"]["imported"]
    with pytest.raises(ScholarbenchError, match="unknown dataset 'nope'.*toyset"):
        import_dataset("nope", source, tmp_path / "data")


def test_benchmark_packages_register_data_sets_exports_and_sections_lazily():
    """The built-in entries are promises until looked up (what `--help` pays for is the
    packages' `__init__`s only)."""
    reg = REGISTRY
    reg.load("benchmark")
    for kind, name, target in [
            ("dataset", "reportbench",
             "scholarbench.benchmarks.reportbench.ground_truth:import_dataset"),
            ("dataset", "deepsynth", "scholarbench.benchmarks.deepsynth.data:import_tasks"),
            ("export", "taxobench", "scholarbench.benchmarks.taxobench.exports:EXPORT")]:
        entry = reg._entries[kind][name]
        assert entry == Lazy(target) or entry is Lazy(target).load()
    from scholarbench.benchmarks.taxobench.exports import EXPORT
    assert reg.get("export", "taxobench") is EXPORT


def test_the_command_line_lists_the_registered_data_sets():
    from scholarbench.cli import build_parser
    args = build_parser().parse_args(["data", "import", "deepsynth", "somewhere"])
    assert args.name == "deepsynth"
    with pytest.raises(SystemExit):
        build_parser().parse_args(["data", "import", "nosuchset", "somewhere"])


def test_core_registry_is_the_same_registry():
    from scholarbench.core import registry as core_registry
    assert core_registry.REGISTRY is REGISTRY and core_registry.Registry is Registry
