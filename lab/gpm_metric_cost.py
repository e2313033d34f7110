"""CPU cost of nvmlGpmMetricsGet for each GPM metric alone (GPU 0)."""
import resource
import time

import pynvml as N


def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


N.nvmlInit()
h = N.nvmlDeviceGetHandleByIndex(0)
s1 = N.nvmlGpmSampleAlloc(); s2 = N.nvmlGpmSampleAlloc()
N.nvmlGpmSampleGet(h, s1); time.sleep(0.2); N.nvmlGpmSampleGet(h, s2)
names = ["GRAPHICS_UTIL", "SM_UTIL", "SM_OCCUPANCY", "INTEGER_UTIL", "ANY_TENSOR_UTIL", "DFMA_TENSOR_UTIL", "HMMA_TENSOR_UTIL",
         "IMMA_TENSOR_UTIL", "DRAM_BW_UTIL", "FP64_UTIL", "FP32_UTIL", "FP16_UTIL", "PCIE_TX_PER_SEC", "PCIE_RX_PER_SEC",
         "NVLINK_TOTAL_RX_PER_SEC", "NVLINK_TOTAL_TX_PER_SEC"]
for name in names:
    m = N.c_nvmlGpmMetricsGet_t()
    m.version = N.NVML_GPM_METRICS_GET_VERSION
    m.numMetrics = 1
    m.sample1 = s1
    m.sample2 = s2
    m.metrics[0].metricId = getattr(N, "NVML_GPM_METRIC_" + name)
    c0 = cpu()
    for _ in range(40):
        N.nvmlGpmMetricsGet(m)
    print(f"{name:26s} {(cpu() - c0) / 40 * 1e6:8.1f} µs CPU")
c0 = cpu()
for _ in range(40):
    s = N.nvmlGpmSampleAlloc(); N.nvmlGpmSampleGet(h, s); N.nvmlGpmSampleFree(s)
print(f"{'sample alloc+get+free':26s} {(cpu() - c0) / 40 * 1e6:8.1f} µs CPU")
c0 = cpu()
for _ in range(40):
    N.nvmlGpmSampleGet(h, s1)
print(f"{'sample get (reused)':26s} {(cpu() - c0) / 40 * 1e6:8.1f} µs CPU")
