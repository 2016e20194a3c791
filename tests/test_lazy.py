"""scholarbench.lazy: the packages' lazy re-exports."""
import importlib
import sys

import pytest


@pytest.mark.parametrize("package", ["scholarbench.benchmarks.deepsynth",
                                     "scholarbench.benchmarks.reportbench",
                                     "scholarbench.benchmarks.scinet", "scholarbench.report"])
def test_every_public_name_resolves_and_an_unknown_one_is_an_attribute_error(package):
    module = importlib.import_module(package)
    for name in module.__all__:
        assert getattr(module, name) is not None
    with pytest.raises(AttributeError, match=f"module '{package}' has no attribute 'nope'"):
        module.nope


def test_a_name_is_taken_from_its_module_and_then_kept_in_the_package(monkeypatch):
    from scholarbench.lazy import lazy_getattr
    package = importlib.import_module("scholarbench.benchmarks.reportbench")
    monkeypatch.delitem(package.__dict__, "parse_cutoff", raising=False)
    getattr_ = lazy_getattr("scholarbench.benchmarks.reportbench", {"parse_cutoff": "tasks"})
    value = getattr_("parse_cutoff")
    tasks = sys.modules["scholarbench.benchmarks.reportbench.tasks"]
    assert value is tasks.parse_cutoff
    assert package.__dict__["parse_cutoff"] is value
