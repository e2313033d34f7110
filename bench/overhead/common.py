"""Steady throughput of a benchmark workload: steps per second from step FROM to the end,
timed with the GPU drained at both ends, printed as one JSON line."""
import json
import time

import torch

FROM = 60


class Throughput:
    def __init__(self, steps):
        self.steps = steps
        self.t0 = None

    def step(self, k):
        """Call after step k (0-based) completed on the host."""
        if k + 1 == FROM:
            torch.cuda.synchronize()
            self.t0 = time.perf_counter()
        elif k + 1 == self.steps:
            torch.cuda.synchronize()
            rate = (self.steps - FROM) / (time.perf_counter() - self.t0)
            print(json.dumps({"steady_steps_per_s": rate, "steps": self.steps, "from": FROM}), flush=True)
