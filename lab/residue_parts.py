"""Which part of the probe's early steps leaves a cost behind: one process, a launch-heavy
MLP, host CPU per step and steps/s measured over 2-second stretches between the parts the
probe runs (sync watch, global module hooks, a scheduled profiler window exported to a
file), each undone as the probe undoes it. Prints one line per stretch.

usage: python3 lab/residue_parts.py [mlp|resnet]   (TEARDOWN_CUPTI from the env)
"""
import os
import sys
import tempfile
import time
import warnings

import torch
import torch.nn as nn
from torch.nn.modules import module as module_mod

kind = sys.argv[1] if len(sys.argv) > 1 else "mlp"
if kind == "mlp":
    model = nn.Sequential(*[nn.Sequential(nn.Linear(128, 128), nn.ReLU()) for _ in range(32)]).cuda()
    x = torch.randn(32, 128, device="cuda")
else:
    import torchvision
    torch.backends.cudnn.benchmark = True
    model = torchvision.models.resnet50().cuda().to(memory_format=torch.channels_last)
    x = torch.randn(64, 3, 224, 224, device="cuda").to(memory_format=torch.channels_last)
opt = torch.optim.Adam(model.parameters(), lr=1e-4)


def step():
    with torch.autocast("cuda", dtype=torch.bfloat16, enabled=kind != "mlp"):
        loss = model(x).float().square().mean()
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()


def stretch(label, seconds=2.0):
    torch.cuda.synchronize()
    t0, c0, n = time.perf_counter(), time.process_time(), 0
    while time.perf_counter() - t0 < seconds:
        step()
        n += 1
    torch.cuda.synchronize()
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    print("%-22s %8.2f steps/s  %7.3f ms CPU/step" % (label, n / wall, 1e3 * cpu / n), flush=True)


for _ in range(60):
    step()
for i in range(3):
    stretch("before %d" % i)

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    torch.cuda.set_sync_debug_mode(1)
    for _ in range(8):
        step()
    torch.cuda.set_sync_debug_mode(0)
stretch("after sync watch")
stretch("after sync watch")

h1 = module_mod.register_module_forward_pre_hook(lambda m, a: None)
h2 = module_mod.register_module_forward_hook(lambda m, a, o: None)
for _ in range(8):
    step()
h1.remove()
h2.remove()
stretch("after module hooks")
stretch("after module hooks")

out = tempfile.mkdtemp()
prof = torch.profiler.profile(
    activities=[torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA],
    schedule=torch.profiler.schedule(wait=0, warmup=0, active=8, repeat=1),
    on_trace_ready=lambda p: p.export_chrome_trace(os.path.join(out, "t.json")))
prof.start()
for _ in range(8):
    step()
    prof.step()
prof.stop()
prof.profiler = None
for i in range(3):
    stretch("after profiler %d" % i)
