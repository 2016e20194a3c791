"""Subprocess entry for the kill-and-resume test: python run_slow.py GOLD PRED OUT DELAY."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import slow_agent  # noqa: E402,F401  (registers slow-replay)
from conftest import FakeEmbedder  # noqa: E402

from scholarbench.benchmarks.taxobench.runner import RunConfig, run  # noqa: E402

gold, pred, out, delay = sys.argv[1:5]
run(RunConfig(gold_path=Path(gold), mode="bottom-up", agent="slow-replay", out=Path(out),
              agent_params={"path": pred, "delay": float(delay)}, progress=False), FakeEmbedder())
