"""How finely the driver's own sample buffers (nvmlDeviceGetSamples) resolve utilisation,
power and clocks, and what one read of each costs: if they keep 10 Hz or finer, a sampler
can wake once a second and still draw 10 Hz curves.
usage: python3 lab/nvml_sample_buffers.py [seconds]"""
import subprocess
import sys
import time

import pynvml as N

SECONDS = float(sys.argv[1]) if len(sys.argv) > 1 else 6
N.nvmlInit()
h = N.nvmlDeviceGetHandleByIndex(0)
# Some GPU work with gaps, so the values move.
load = subprocess.Popen([sys.executable, "-c", """
import torch, time
a = torch.randn(8192, 8192, device='cuda')
end = time.time() + %f
while time.time() < end:
    for _ in range(20): a @ a
    torch.cuda.synchronize(); time.sleep(0.3)
""" % (SECONDS + 4)])
time.sleep(3)
kinds = {
    "gpu_util": N.NVML_GPU_UTILIZATION_SAMPLES,
    "power": N.NVML_TOTAL_POWER_SAMPLES,
    "sm_clock": N.NVML_PROCESSOR_CLK_SAMPLES,
    "mem_util": N.NVML_MEMORY_UTILIZATION_SAMPLES,
}
last = {k: 0 for k in kinds}
got = {k: [] for k in kinds}
cost = {k: [] for k in kinds}
end = time.time() + SECONDS
first = True
while time.time() < end:
    for k, t in kinds.items():
        c0 = time.process_time()
        try:
            vtype, samples = N.nvmlDeviceGetSamples(h, t, last[k])
        except N.NVMLError as e:
            got[k] = str(e)
            continue
        cost[k].append(time.process_time() - c0)
        if samples:
            last[k] = samples[-1].timeStamp
            if not first:
                got[k].extend((s.timeStamp, s.sampleValue) for s in samples)
    first = False
    time.sleep(1.0)
load.wait()
for k, v in got.items():
    if isinstance(v, str):
        print(k, "error", v)
        continue
    ts = [t for t, _ in v]
    gaps = sorted((b - a) / 1000 for a, b in zip(ts, ts[1:]))
    med = gaps[len(gaps) // 2] if gaps else None
    vals = [list(x.__dict__.values()) if hasattr(x, "__dict__") else x for _, x in v[:8]]
    print(f"{k}: {len(v)} samples over {SECONDS:.0f} s, median spacing {med} ms, "
          f"read cost {1e6 * sum(cost[k]) / max(1, len(cost[k])):.0f} us; first values {vals}")
