"""The MiniLM encoder's thread count from affinity and cgroup quota (fake cgroup trees under
tmp_path), and the packaged local model's llama.cpp server's, which follows the same CPUs."""
from pathlib import Path

import pytest

from scholarbench.embed import threads
from scholarbench.embed.threads import (ENV, ThreadPlan, encoder_plan, cgroup_cpu_limit,
                                        plan_threads, usable_cpus)
from scholarbench.errors import ScholarbenchError


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def v2(tmp_path, cpu_max, cgroup="/", parent_max=None):
    root = tmp_path / "cg"
    write(root / cgroup.strip("/") / "cpu.max", cpu_max)
    if parent_max is not None:
        write(root / "cpu.max", parent_max)
    return root, write(tmp_path / "self", f"0::{cgroup}\n")


def v1(tmp_path, quota, period="100000", mount="cpu,cpuacct", cgroup="/"):
    root = tmp_path / "cg"
    base = root / mount / cgroup.strip("/")
    write(base / "cpu.cfs_quota_us", quota)
    write(base / "cpu.cfs_period_us", period)
    self_file = write(tmp_path / "self", f"12:memory:/x\n4:{mount}:{cgroup}\n0::/\n")
    return root, self_file


@pytest.mark.parametrize("cpu_max, expected", [
    ("max 100000\n", None), ("150000 100000\n", 1.5), ("50000 100000", 0.5), ("400000 100000", 4.0),
    ("garbage", None),
])
def test_cgroup_v2_cpu_max(tmp_path, cpu_max, expected):
    root, self_file = v2(tmp_path, cpu_max)
    assert cgroup_cpu_limit(root, self_file) == expected


def test_cgroup_v2_tightest_ancestor_wins(tmp_path):
    root, self_file = v2(tmp_path, "800000 100000", cgroup="/user.slice/job", parent_max="200000 100000")
    assert cgroup_cpu_limit(root, self_file) == 2.0
    assert usable_cpus(root, self_file, affinity=16) == 2


@pytest.mark.parametrize("quota, period, expected", [
    ("-1", "100000", None), ("250000", "100000", 2.5), ("100000", "50000", 2.0), ("0", "100000", None),
])
def test_cgroup_v1_quota_and_period(tmp_path, quota, period, expected):
    root, self_file = v1(tmp_path, quota, period)
    assert cgroup_cpu_limit(root, self_file) == expected


def test_cgroup_v1_separate_cpu_mount_and_host_path_seen_from_a_container(tmp_path):
    # /proc/self/cgroup names the host's path; the container sees its own cgroup at the mount
    root = tmp_path / "cg"
    write(root / "cpu" / "cpu.cfs_quota_us", "300000")
    write(root / "cpu" / "cpu.cfs_period_us", "100000")
    self_file = write(tmp_path / "self", "3:cpu:/docker/0123abcd\n")
    assert cgroup_cpu_limit(root, self_file) == 3.0


def test_no_cgroup_files_means_no_limit(tmp_path):
    assert cgroup_cpu_limit(tmp_path / "none", tmp_path / "missing") is None
    assert usable_cpus(tmp_path / "none", tmp_path / "missing", affinity=6) == 6


@pytest.mark.parametrize("cpu_max, affinity, expected", [
    ("150000 100000", 8, 1),      # floor of 1.5
    ("50000 100000", 8, 1),       # half a CPU: at least 1
    ("400000 100000", 2, 2),      # the affinity mask is tighter
    ("max 100000", 3, 3),
])
def test_usable_cpus_is_floor_of_quota_capped_by_affinity(tmp_path, cpu_max, affinity, expected):
    root, self_file = v2(tmp_path, cpu_max)
    assert usable_cpus(root, self_file, affinity=affinity) == expected


def test_affinity_of_this_process_is_used_by_default(tmp_path, monkeypatch):
    monkeypatch.setattr(threads.os, "sched_getaffinity", lambda pid: {0, 2, 5})
    assert usable_cpus(tmp_path / "none", tmp_path / "missing") == 3


def plan(tmp_path, environ, **kw):
    root, self_file = v2(tmp_path, "200000 100000")
    return plan_threads(environ, root=root, self_cgroup=self_file, affinity=kw.pop("affinity", 8), **kw)


def test_plan_automatic_uses_usable_cpus(tmp_path):
    assert plan(tmp_path, {}).threads == 2
    assert plan(tmp_path, {ENV: "auto"}).threads == 2
    assert plan(tmp_path, {ENV: " "}).threads == 2


def test_plan_environment_variable_wins_over_everything(tmp_path):
    got = plan(tmp_path, {ENV: "5", "OMP_NUM_THREADS": "1"})
    assert got == ThreadPlan(5, f"${ENV}")
    assert plan(tmp_path, {ENV: "keep"}).threads is None


@pytest.mark.parametrize("bad", ["0", "-2", "two", "1.5"])
def test_plan_rejects_a_bad_value(tmp_path, bad):
    with pytest.raises(ScholarbenchError, match=ENV):
        plan(tmp_path, {ENV: bad})


def test_plan_respects_omp_and_mkl_settings(tmp_path):
    assert plan(tmp_path, {"OMP_NUM_THREADS": "4"}).threads is None
    assert plan(tmp_path, {"MKL_NUM_THREADS": "1"}).threads is None
    assert plan(tmp_path, {"OMP_NUM_THREADS": ""}).threads == 2


def test_the_encoder_plan_is_decided_once_per_process(monkeypatch):
    monkeypatch.setattr(threads, "_applied", None)
    got = encoder_plan({ENV: "1"})
    assert got.threads == 1
    assert encoder_plan({ENV: "3"}) is got


def test_minilm_sizes_its_session_by_the_plan(monkeypatch):
    """The ONNX Runtime session of the real encoder gets the planned intra-op thread count."""
    from scholarbench.embed import minilm
    monkeypatch.setattr(threads, "_applied", ThreadPlan(1, "test"))
    seen = {}
    import onnxruntime
    real = onnxruntime.InferenceSession

    def spy(graph, options, **kw):
        seen["threads"] = options.intra_op_num_threads
        return real(graph, options, **kw)
    monkeypatch.setattr(onnxruntime, "InferenceSession", spy)
    vec = minilm.MiniLMEncoder().encode(["a graph of citations"])
    assert seen["threads"] == 1 and vec.shape == (1, 384)


def test_label_similarity_runs_its_product_on_one_blas_thread(monkeypatch):
    """The small label product runs on one BLAS thread (the default's threads wait on each other
    on a busy machine) and the count is restored after. Its values no longer depend on how many
    threads the machine gives BLAS: OpenBLAS's 1- and 2-thread products of the same matrix differ
    in the last bit of some entries (sizes 100, 150, 300 here), so they did before."""
    import numpy as np
    from threadpoolctl import ThreadpoolController
    from scholarbench.embed import base

    controller = ThreadpoolController()
    paths = base.numpy_blas_paths(controller)
    assert paths, "numpy's wheel bundles its BLAS; threadpoolctl should find it"
    blas = controller.select(filepath=paths)
    inside = []
    original = base.one_blas_thread

    class Spy:
        def __enter__(self):
            self.ctx = original()
            self.ctx.__enter__()
            inside.append([lib["num_threads"] for lib in blas.info()])

        def __exit__(self, *exc):
            return self.ctx.__exit__(*exc)

    monkeypatch.setattr(base, "one_blas_thread", Spy)
    rng = np.random.default_rng(0)
    labels = [f"label {i}" for i in range(150)]
    vectors = dict(zip(labels, rng.standard_normal((150, 384)).astype(np.float32)))

    class Embedder:
        model_id = "fixed"

        def embed(self, texts):
            return np.stack([vectors[t] for t in texts])

    results = []
    for count in (2, 1):
        with controller.limit(limits=count, user_api="blas"):
            before = [lib["num_threads"] for lib in blas.info()]
            results.append(base.label_similarity(Embedder(), labels))
            assert [lib["num_threads"] for lib in blas.info()] == before
    assert inside and all(n == 1 for counts in inside for n in counts)
    assert np.array_equal(results[0], results[1])
    vecs = np.stack([vectors[t] for t in labels]).astype(np.float64)
    vecs = vecs / np.linalg.norm(vecs, axis=1, keepdims=True)
    with controller.limit(limits=1, user_api="blas"):
        expected = np.clip(vecs @ vecs.T, 0.0, 1.0)
    np.fill_diagonal(expected, 1.0)
    assert np.array_equal(results[0], expected)



# -- the packaged local model's llama.cpp server (no model started: the command line only) ----

def test_the_local_server_threads_follow_the_variable_or_the_usable_cpus(monkeypatch):
    from scholarbench.llm import local
    monkeypatch.setattr(threads, "usable_cpus", lambda: 3)
    assert local.local_threads({}) == local.local_threads({local.THREADS_ENV: "auto"}) == 3
    assert local.local_threads({local.THREADS_ENV: " 1 "}) == 1
    monkeypatch.setenv(local.THREADS_ENV, "5")
    monkeypatch.setattr(local, "model_path", lambda name: Path("/m.gguf"))
    command = local.LocalServer(port=1).command()
    # prompt processing too: llama-cpp-python's own default for it is every CPU it sees
    for flag in ("--n_threads", "--n_threads_batch"):
        assert command[command.index(flag) + 1] == "5"
    assert local.LocalServer(port=1, threads=2).threads == 2


@pytest.mark.parametrize("bad", ["0", "-1", "two", "1.5", "4097", "keep"])
def test_the_local_server_rejects_a_bad_thread_count(bad):
    from scholarbench.llm import local
    with pytest.raises(ScholarbenchError, match=r"\$SCHOLARBENCH_LLAMA_THREADS must be"):
        local.local_threads({local.THREADS_ENV: bad})
