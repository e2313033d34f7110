//! The columns of each CSV file of a run folder, as the agent writes them and the readers
//! here expect them.

/// `samples_nvml.csv`.
pub const NVML_COLUMNS: [&str; 17] = [
    "ts",
    "gpu",
    "util_gpu",
    "util_mem",
    "mem_used_mib",
    "mem_total_mib",
    "temp_c",
    "power_w",
    "power_limit_w",
    "sm_clock_mhz",
    "sm_clock_max_mhz",
    "mem_clock_mhz",
    "pcie_tx_kbs",
    "pcie_rx_kbs",
    "clock_event_reasons",
    "pstate",
    "fan_pct",
];

/// `samples_gpm.csv`.
pub const GPM_COLUMNS: [&str; 18] = [
    "ts",
    "gpu",
    "graphics_util",
    "sm_util",
    "sm_occupancy",
    "integer_util",
    "any_tensor_util",
    "dfma_tensor_util",
    "hmma_tensor_util",
    "imma_tensor_util",
    "dram_bw_util",
    "fp64_util",
    "fp32_util",
    "fp16_util",
    "pcie_tx_per_sec",
    "pcie_rx_per_sec",
    "nvlink_total_rx_per_sec",
    "nvlink_total_tx_per_sec",
];

/// The host file's fixed columns; `cpu0..cpuN` follow, one per core.
pub const HOST_COLUMNS: [&str; 9] = [
    "ts",
    "cpu_total_pct",
    "proc_tree_cpu_pct",
    "proc_tree_rss_mib",
    "disk_read_mbs",
    "disk_write_mbs",
    "load1",
    // Since 2026-12-02; files without them read as not recorded.
    "proc_main_cpu_pct",
    "proc_busy_children",
];

/// `samples_gpu_processes.csv`.
pub const GPU_PROCESSES_COLUMNS: [&str; 4] = ["ts", "gpu", "pid", "used_mib"];

/// `gpu_ms` may be empty (no CUDA event ended a span at that step). `gpu_steps` (since
/// 2026-12-02; absent or empty reads as 1) is how many steps, this one the last, `gpu_ms`
/// covers.
pub const STEPS_COLUMNS: [&str; 6] = [
    "step",
    "t_start",
    "data_wait_ms",
    "launch_ms",
    "gpu_ms",
    "gpu_steps",
];

/// The host file's header for `cores` cores.
pub fn host_header(cores: usize) -> String {
    HOST_COLUMNS
        .iter()
        .map(|c| c.to_string())
        .chain((0..cores).map(|i| format!("cpu{i}")))
        .collect::<Vec<_>>()
        .join(",")
}

/// `events.csv`: markers of periodic work, one row each, over every step.
pub const EVENTS_COLUMNS: [&str; 5] = ["step", "t", "kind", "detail", "duration_ms"];

/// `memory.csv`: the training process's CUDA memory, a row about twice a second.
pub const MEMORY_COLUMNS: [&str; 9] = [
    "step",
    "t",
    "allocated_bytes",
    "reserved_bytes",
    "peak_allocated_bytes",
    "peak_reserved_bytes",
    "inactive_split_bytes",
    "alloc_retries",
    "ooms",
];
