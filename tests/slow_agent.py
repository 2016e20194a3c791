"""A test agent: replays a prediction file, sleeping per sample so a run can be killed mid-way."""
import time

from scholarbench.agents.replay import ReplayAgent
from scholarbench.registry import REGISTRY


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


REGISTRY.register("agent", "slow-replay")(SlowReplay)
