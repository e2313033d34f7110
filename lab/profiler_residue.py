"""What a torch.profiler window leaves behind: ResNet-50 bf16 on GPU batches, an optional
profiler window over steps 10-17, steady throughput from step 60 on.

usage: python3 lab/profiler_residue.py none|window|window_cpu   (TEARDOWN_CUPTI from the env)
"""
import json
import sys
import time

import torch
import torch.nn as nn
import torchvision

mode = sys.argv[1]
STEPS, FROM = 320, 60
torch.backends.cudnn.benchmark = True
model = torchvision.models.resnet50().cuda().to(memory_format=torch.channels_last)
opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
x = torch.randn(64, 3, 224, 224, device="cuda").to(memory_format=torch.channels_last)
y = torch.randint(0, 1000, (64,), device="cuda")
acts = [torch.profiler.ProfilerActivity.CPU]
if mode == "window":
    acts.append(torch.profiler.ProfilerActivity.CUDA)
prof = None
for k in range(STEPS):
    if mode != "none" and k == 10:
        prof = torch.profiler.profile(activities=acts)
        prof.start()
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    if prof is not None and k == 17:
        prof.stop()
        prof = None
    if k + 1 == FROM:
        torch.cuda.synchronize()
        t0 = time.perf_counter()
torch.cuda.synchronize()
print(json.dumps({"mode": mode, "steady_steps_per_s": (STEPS - FROM) / (time.perf_counter() - t0)}))
