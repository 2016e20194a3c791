"""Shared fixtures: where ../shared is, a deterministic fake embedder, the real MiniLM."""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

SHARED = Path(__file__).resolve().parents[2] / "shared"

# Tests never read or fill the user's caches (embeddings, LLM replies, the assembled local
# model): each session gets its own, so no result depends on what an earlier run left behind.
if "SCHOLARBENCH_TEST_KEEP_CACHE" not in os.environ:
    import atexit
    import shutil
    import tempfile
    _session_cache = tempfile.mkdtemp(prefix="scholarbench-test-cache-")
    os.environ["SCHOLARBENCH_CACHE"] = _session_cache
    atexit.register(shutil.rmtree, _session_cache, True)

# Each pytest-xdist worker that meets the packaged local model starts its own llama.cpp server
# (and CLI subprocesses inherit this environment): the workers split the CPUs between their
# servers instead of each taking all of them. llama.cpp's threads wait for each other at every
# step, so two 2-thread servers (or one beside a busy worker) on 2 cores ran several times
# slower than two 1-thread servers (docs/models.md).
if "PYTEST_XDIST_WORKER_COUNT" in os.environ and "SCHOLARBENCH_LLAMA_THREADS" not in os.environ:
    from scholarbench.embed.threads import usable_cpus
    os.environ["SCHOLARBENCH_LLAMA_THREADS"] = str(
        max(1, usable_cpus() // max(1, int(os.environ["PYTEST_XDIST_WORKER_COUNT"]))))


def shared_path(*parts: str) -> Path:
    """A path under ../shared; skip when absent (a user's clone), fail when CI=true."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        if os.environ.get("CI") == "true":
            pytest.fail(f"{path} is missing: CI must run with ../shared beside the repo")
        pytest.skip(f"{path} not found: the shared benchmark data sits beside the repo only in "
                    "the project workspace and CI")
    return path


def require_extra(module: str, extra: str):
    """Import `module` from an optional extra; skip when it is absent (a light install), fail
    when CI=true (CI installs every extra)."""
    import importlib
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        if os.environ.get("CI") == "true":
            pytest.fail(f"{module} is missing ({exc}): CI installs scholarbench[{extra}]")
        pytest.skip(f"{module} is not installed: it comes with scholarbench[{extra}]")


def kill_after_lines(proc, path: Path, n: int = 3, timeout: float = 120.0) -> int:
    """SIGKILL `proc` once `path` holds `n` lines (or at the deadline); the lines it held."""
    import signal
    import time
    deadline = time.time() + timeout
    while time.time() < deadline:
        if path.exists() and len(path.read_text().splitlines()) >= n:
            break
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    return len(path.read_text().splitlines()) if path.exists() else 0


class FakeEmbedder:
    """Vectors fixed by the test: `vectors[label]`, else a fresh one-hot (orthogonal to all)."""
    model_id = "fake"

    def __init__(self, vectors: dict[str, list[float]] | None = None, dim: int = 256) -> None:
        self.dim = dim
        self.vectors = {k: np.asarray(v + [0.0] * (dim - len(v)), dtype=np.float32)
                        for k, v in (vectors or {}).items()}
        self.calls = 0

    def embed(self, texts):
        self.calls += 1
        out = []
        for text in texts:
            if text not in self.vectors:
                vec = np.zeros(self.dim, dtype=np.float32)
                vec[16 + len(self.vectors)] = 1.0
                self.vectors[text] = vec
            out.append(self.vectors[text])
        return np.stack(out) if out else np.zeros((0, self.dim), dtype=np.float32)


@pytest.fixture
def fake_embedder():
    return FakeEmbedder()


# the modules that bind `default_embedder` by name at import (`from … import default_embedder`)
EMBEDDER_USERS = ("scholarbench.embed", "scholarbench.embed.minilm",
                  "scholarbench.benchmarks.taxobench.benchmark",
                  "scholarbench.benchmarks.researcharena.benchmark",
                  "scholarbench.benchmarks.scinet.benchmark", "scholarbench.tools.provider",
                  "scholarbench.tools.commands", "scholarbench.corpus.commands",
                  "scholarbench.demo")


def use_fake_embedder(monkeypatch, make=None) -> None:
    """Every `default_embedder()` of this test returns `make()` (a new `FakeEmbedder`): each
    module that bound the name is imported first and patched where it looks it up, so the
    fake neither misses a module imported earlier nor outlives the test in one imported now."""
    import importlib
    modules = [importlib.import_module(name) for name in EMBEDDER_USERS]   # all, then patch:
    for module in modules:               # one imported after a patch would bind the fake
        if hasattr(module, "default_embedder"):
            monkeypatch.setattr(module, "default_embedder",
                                make or (lambda *a, **k: FakeEmbedder()))


@pytest.fixture(scope="session")
def minilm():
    from scholarbench.embed import CachedEmbedder, MiniLMEncoder
    return CachedEmbedder(MiniLMEncoder())
