"""A test agent: replays a prediction file, sleeping per sample so a run can be killed mid-way."""
import time

from scholarbench.benchmarks.taxobench.agents.replay import ReplayAgent
from scholarbench.benchmarks.taxobench.agents import register_taxo_agent


class SlowReplay(ReplayAgent):
    name = "slow-replay"

    def __init__(self, path=None, delay=0.0):
        super().__init__(path)
        self.delay = delay

    def config(self):
        return super().config()          # the delay does not change outputs

    def generate(self, task, ctx):
        time.sleep(self.delay)
        return super().generate(task, ctx)


register_taxo_agent("slow-replay")(SlowReplay)
