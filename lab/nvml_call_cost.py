"""CPU cost of each NVML query the agent makes, per call (pynvml, GPU 0), to choose what to
sample at 10 Hz."""
import resource
import time

import pynvml as N


def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


N.nvmlInit()
h = N.nvmlDeviceGetHandleByIndex(0)
calls = {
    "handle_by_index": lambda: N.nvmlDeviceGetHandleByIndex(0),
    "utilization": lambda: N.nvmlDeviceGetUtilizationRates(h),
    "memory": lambda: N.nvmlDeviceGetMemoryInfo(h),
    "temperature": lambda: N.nvmlDeviceGetTemperature(h, N.NVML_TEMPERATURE_GPU),
    "power": lambda: N.nvmlDeviceGetPowerUsage(h),
    "enforced_limit": lambda: N.nvmlDeviceGetEnforcedPowerLimit(h),
    "clock_sm": lambda: N.nvmlDeviceGetClockInfo(h, N.NVML_CLOCK_SM),
    "max_clock_sm": lambda: N.nvmlDeviceGetMaxClockInfo(h, N.NVML_CLOCK_SM),
    "clock_mem": lambda: N.nvmlDeviceGetClockInfo(h, N.NVML_CLOCK_MEM),
    "throttle_reasons": lambda: N.nvmlDeviceGetCurrentClocksThrottleReasons(h),
    "pstate": lambda: N.nvmlDeviceGetPerformanceState(h),
    "pcie_tx": lambda: N.nvmlDeviceGetPcieThroughput(h, N.NVML_PCIE_UTIL_TX_BYTES),
    "processes": lambda: N.nvmlDeviceGetComputeRunningProcesses(h),
}
for name, f in calls.items():
    n = 20 if name == "pcie_tx" else 200
    c0, t0 = cpu(), time.time()
    for _ in range(n):
        f()
    print(f"{name:18s} {(cpu() - c0) / n * 1e6:8.1f} µs CPU  {(time.time() - t0) / n * 1e6:8.1f} µs wall")
try:
    c0 = cpu()
    for _ in range(50):
        s = N.nvmlGpmSampleAlloc()
        N.nvmlGpmSampleGet(h, s)
        N.nvmlGpmSampleFree(s)
    print(f"{'gpm_sample':18s} {(cpu() - c0) / 50 * 1e6:8.1f} µs CPU")
except Exception as e:
    print("gpm_sample failed", e)

try:
    s1 = N.nvmlGpmSampleAlloc(); s2 = N.nvmlGpmSampleAlloc()
    N.nvmlGpmSampleGet(h, s1); time.sleep(0.2); N.nvmlGpmSampleGet(h, s2)
    for k in (1, 4, 16):
        ids = [N.NVML_GPM_METRIC_SM_UTIL, N.NVML_GPM_METRIC_SM_OCCUPANCY, N.NVML_GPM_METRIC_ANY_TENSOR_UTIL, N.NVML_GPM_METRIC_DRAM_BW_UTIL,
               N.NVML_GPM_METRIC_GRAPHICS_UTIL, N.NVML_GPM_METRIC_INTEGER_UTIL, N.NVML_GPM_METRIC_DFMA_TENSOR_UTIL, N.NVML_GPM_METRIC_HMMA_TENSOR_UTIL,
               N.NVML_GPM_METRIC_IMMA_TENSOR_UTIL, N.NVML_GPM_METRIC_FP64_UTIL, N.NVML_GPM_METRIC_FP32_UTIL, N.NVML_GPM_METRIC_FP16_UTIL,
               N.NVML_GPM_METRIC_PCIE_TX_PER_SEC, N.NVML_GPM_METRIC_PCIE_RX_PER_SEC, N.NVML_GPM_METRIC_NVLINK_TOTAL_RX_PER_SEC, N.NVML_GPM_METRIC_NVLINK_TOTAL_TX_PER_SEC][:k]
        m = N.c_nvmlGpmMetricsGet_t()
        m.version = N.NVML_GPM_METRICS_GET_VERSION
        m.numMetrics = k
        m.sample1 = s1
        m.sample2 = s2
        for i, mid in enumerate(ids):
            m.metrics[i].metricId = mid
        c0 = cpu()
        for _ in range(50):
            N.nvmlGpmMetricsGet(m)
        print(f"gpm_metrics_get x{k:<2d}     {(cpu() - c0) / 50 * 1e6:8.1f} µs CPU")
except Exception as e:
    print("gpm metrics timing failed", repr(e))
