"""Where the probe's per-step cost goes: the CUDA calls its step hook makes, timed alone
(fastest of five runs of 20,000 calls), then a cProfile of 3,000 steps of a tiny training
loop with the probe attached (run it with the probe on PYTHONPATH and CHECKUP_OUT set, as
`checkup-agent run --profile-steps 0` does).

usage: CHECKUP_OUT=/tmp/p CHECKUP_PROFILE_STEPS=0 PYTHONPATH=crates/checkup-agent/probe \\
       python3 lab/probe_hook_parts.py
"""
import cProfile
import pstats
import time

import torch

x = torch.zeros(1, device="cuda")


def fastest_us(f, n=20000):
    torch.cuda.synchronize()
    best = 1e9
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(n):
            f()
        best = min(best, (time.perf_counter() - t0) / n)
    torch.cuda.synchronize()
    return best * 1e6


events = [torch.cuda.Event(enable_timing=True) for _ in range(64)]
slot = [0]


def record_reused():
    slot[0] = (slot[0] + 1) % 64
    events[slot[0]].record()


for name, f in [("a new timing event, recorded", lambda: torch.cuda.Event(enable_timing=True).record()),
                ("a reused timing event, recorded", record_reused),
                ("event.query() of a done event", lambda: events[0].query()),
                ("torch.cuda.is_initialized()", torch.cuda.is_initialized),
                ("time.time()", time.time),
                ("one tiny kernel launch (x.add_)", lambda: x.add_(1.0))]:
    print("%-34s %7.2f us" % (name, fastest_us(f)), flush=True)

p = torch.nn.Parameter(torch.zeros(1, device="cuda"))
opt = torch.optim.SGD([p], lr=0.0)


def step():
    for _ in range(40):
        x.add_(1.0)
    p.grad = x
    opt.step()


for _ in range(300):
    step()
prof = cProfile.Profile()
prof.enable()
for _ in range(3000):
    step()
prof.disable()
torch.cuda.synchronize()
pstats.Stats(prof).sort_stats("tottime").print_stats(18)
