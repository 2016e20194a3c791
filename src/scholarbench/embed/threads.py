"""The MiniLM encoder's intra-op thread count from the CPUs this process may really use.

ONNX Runtime (like torch before it) picks its default from the processors it sees, not from a
cgroup CPU quota: in a container limited to 1 CPU on a 16-core host it starts 16 threads, and
the encoder then fights the quota. The rule, applied once per process before MiniLM is loaded
(`encoder_threads`); the variable keeps its historical name:

1. `SCHOLARBENCH_TORCH_THREADS=N` (1 ≤ N ≤ 4096): N threads, whatever else is set. `keep`: ONNX
   Runtime's own default. Unset, empty or `auto`: the automatic rule below. Anything else is an
   error.
2. Automatic: `OMP_NUM_THREADS` or `MKL_NUM_THREADS` set → the user sized threads: the count is
   left to ONNX Runtime.
3. Otherwise: the usable CPUs — the affinity mask (`os.sched_getaffinity`), capped by the cgroup
   quota of this process's cgroup and its ancestors (v2 `cpu.max`, v1 `cpu.cfs_quota_us` /
   `cpu.cfs_period_us`), rounded down, at least 1.

Why the quota is read here and not with `joblib.cpu_count()` (loky): loky reads only the root
cgroup's files (`/sys/fs/cgroup/cpu.max`, `/sys/fs/cgroup/cpu/cpu.cfs_quota_us`), so it misses a
quota set on this process's own cgroup or an ancestor (systemd slices, nested containers), and
it rounds a fractional quota up, where more threads than the quota lets run is what slows
the encoder.
"""
from __future__ import annotations

import math
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

from scholarbench.errors import ScholarbenchError

ENV = "SCHOLARBENCH_TORCH_THREADS"
CGROUP_ROOT = Path("/sys/fs/cgroup")
SELF_CGROUP = Path("/proc/self/cgroup")


@dataclass(frozen=True)
class ThreadPlan:
    threads: int | None      # None: ONNX Runtime's own default
    reason: str


def affinity_cpus() -> int:
    """Processors in this process's affinity mask (os.cpu_count where there is none)."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def cgroup_cpu_limit(root: Path = CGROUP_ROOT, self_cgroup: Path = SELF_CGROUP) -> float | None:
    """CPUs allowed by the tightest quota on this process's cgroup or its ancestors; None if none."""
    try:
        lines = self_cgroup.read_text().splitlines()
    except OSError:
        lines = []
    limits: list[float] = []
    for line in lines:
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        hierarchy, controllers, path = parts
        if hierarchy == "0" and not controllers:                       # cgroup v2
            limits += _limits(root, path, _read_v2)
        elif "cpu" in controllers.split(","):                          # cgroup v1
            for mount in (controllers, "cpu,cpuacct", "cpu"):
                if (root / mount).is_dir():
                    limits += _limits(root / mount, path, _read_v1)
                    break
    return min(limits) if limits else None


def _limits(base: Path, path: str, read) -> list[float]:
    """Quotas found in base/path and each ancestor up to base (a container sees its own
    cgroup at base even when /proc/self/cgroup names the host's path, so base is always read)."""
    parts = [p for p in path.strip("/").split("/") if p and p != ".."]
    found = []
    for depth in range(len(parts), -1, -1):
        value = read(base.joinpath(*parts[:depth]))
        if value is not None:
            found.append(value)
    return found


def _read_v2(directory: Path) -> float | None:
    try:
        fields = (directory / "cpu.max").read_text().split()
    except OSError:
        return None
    if len(fields) < 1 or fields[0] == "max":
        return None
    return _ratio(fields[0], fields[1] if len(fields) > 1 else "100000")


def _read_v1(directory: Path) -> float | None:
    try:
        quota = (directory / "cpu.cfs_quota_us").read_text().strip()
        period = (directory / "cpu.cfs_period_us").read_text().strip()
    except OSError:
        return None
    return _ratio(quota, period)


def _ratio(quota: str, period: str) -> float | None:
    try:
        q, p = int(quota), int(period)
    except ValueError:
        return None
    return q / p if q > 0 and p > 0 else None


def usable_cpus(root: Path = CGROUP_ROOT, self_cgroup: Path = SELF_CGROUP,
                affinity: int | None = None) -> int:
    """The affinity mask's size capped by the floor of the cgroup quota; at least 1."""
    cpus = affinity_cpus() if affinity is None else affinity
    limit = cgroup_cpu_limit(root, self_cgroup)
    if limit is not None:
        cpus = min(cpus, math.floor(limit))
    return max(1, cpus)


MAX_THREADS = 4096


def check_setting(environ: Mapping[str, str] | None = None) -> int | str:
    """`$SCHOLARBENCH_TORCH_THREADS` as N (1..MAX_THREADS), 'keep' or 'auto' (unset, empty);
    anything else is a usage error (commands check it before any run starts)."""
    environ = os.environ if environ is None else environ
    raw = environ.get(ENV, "").strip().lower()
    if raw in ("keep", "auto", ""):
        return raw or "auto"
    value = int(raw) if raw.isascii() and raw.isdigit() and len(raw) <= 6 else 0
    if not 1 <= value <= MAX_THREADS:
        raise ScholarbenchError(f"${ENV} must be a whole number from 1 to {MAX_THREADS}, "
                                f"'auto' or 'keep' (got {environ[ENV]!r})")
    return value


def plan_threads(environ: Mapping[str, str] | None = None, *, root: Path = CGROUP_ROOT,
                 self_cgroup: Path = SELF_CGROUP, affinity: int | None = None) -> ThreadPlan:
    """The encoder's intra-op thread count under the rule in this module's docstring."""
    environ = os.environ if environ is None else environ
    setting = check_setting(environ)
    if setting == "keep":
        return ThreadPlan(None, f"{ENV}=keep")
    if isinstance(setting, int):
        return ThreadPlan(setting, f"${ENV}")
    for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        if environ.get(name, "").strip():
            return ThreadPlan(None, f"${name} is set")
    cpus = affinity_cpus() if affinity is None else affinity
    return ThreadPlan(usable_cpus(root, self_cgroup, cpus), "usable CPUs (affinity, cgroup quota)")


_applied: ThreadPlan | None = None


def encoder_plan(environ: Mapping[str, str] | None = None) -> ThreadPlan:
    """Decide once per process how many intra-op threads the MiniLM encoder's ONNX Runtime
    session gets (None: ONNX Runtime's own default)."""
    global _applied
    if _applied is None:
        _applied = plan_threads(environ)
    return _applied


def encoder_threads(environ: Mapping[str, str] | None = None) -> int | None:
    return encoder_plan(environ).threads
