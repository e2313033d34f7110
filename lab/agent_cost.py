"""The two samplers the agent is compared with, for the cost figures: a 1 Hz
`nvidia-smi --query-gpu` shell-style loop and a Python pynvml loop of six queries at 10 Hz.
Prints each one's CPU time per wall second (percent of one core)."""
import resource
import subprocess
import sys
import time

SECONDS = float(sys.argv[1]) if len(sys.argv) > 1 else 20


def children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def self_cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


c0 = children_cpu()
t0 = time.time()
n = 0
while time.time() - t0 < SECONDS:
    subprocess.run(["nvidia-smi", "--query-gpu=utilization.gpu,memory.used,temperature.gpu,power.draw,clocks.sm",
                    "--format=csv,noheader,nounits"], capture_output=True)
    n += 1
    time.sleep(max(0.0, t0 + n - time.time()))
smi = (children_cpu() - c0) / (time.time() - t0) * 100
print(f"nvidia-smi 1 Hz loop: {smi:.2f}% of a core ({(children_cpu() - c0) / n * 1e3:.1f} ms CPU per call)")

import pynvml  # noqa: E402
pynvml.nvmlInit()
h = pynvml.nvmlDeviceGetHandleByIndex(0)
s0 = self_cpu()
t0 = time.time()
n = 0
while time.time() - t0 < SECONDS:
    pynvml.nvmlDeviceGetUtilizationRates(h)
    pynvml.nvmlDeviceGetMemoryInfo(h)
    pynvml.nvmlDeviceGetTemperature(h, pynvml.NVML_TEMPERATURE_GPU)
    pynvml.nvmlDeviceGetPowerUsage(h)
    pynvml.nvmlDeviceGetClockInfo(h, pynvml.NVML_CLOCK_SM)
    pynvml.nvmlDeviceGetClockInfo(h, pynvml.NVML_CLOCK_MEM)
    n += 1
    time.sleep(max(0.0, t0 + n * 0.1 - time.time()))
print(f"pynvml 6 queries at 10 Hz: {(self_cpu() - s0) / (time.time() - t0) * 100:.2f}% of a core")
