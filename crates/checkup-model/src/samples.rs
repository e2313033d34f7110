//! Time series recorded while training runs: NVML, GPM, host and per-step timings.
//! Timestamps are Unix epoch seconds; a missing reading is `None`, never a zero.

use serde::{Deserialize, Serialize};

/// One NVML reading of one GPU (`samples_nvml.csv`, an `nvidia-smi --query-gpu` log, `dmon`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct NvmlSample {
    /// When it was read, Unix epoch seconds.
    pub ts: f64,
    /// The GPU's index.
    pub gpu: u32,
    /// Percent of the interval in which any kernel ran (NVML "GPU-Util").
    pub util_gpu: Option<f64>,
    /// Percent of the interval in which device memory was read or written.
    pub util_mem: Option<f64>,
    /// Memory in use, MiB.
    pub mem_used_mib: Option<f64>,
    /// The card's memory, MiB.
    pub mem_total_mib: Option<f64>,
    /// Temperature, °C.
    pub temp_c: Option<f64>,
    /// Power draw, W.
    pub power_w: Option<f64>,
    /// The enforced power limit, W.
    pub power_limit_w: Option<f64>,
    /// SM clock, MHz.
    pub sm_clock_mhz: Option<f64>,
    /// The SM clock's maximum, MHz.
    pub sm_clock_max_mhz: Option<f64>,
    /// Memory clock, MHz.
    pub mem_clock_mhz: Option<f64>,
    /// PCIe transmit, KB/s.
    pub pcie_tx_kbs: Option<f64>,
    /// PCIe receive, KB/s.
    pub pcie_rx_kbs: Option<f64>,
    /// Why the clocks are where they are (throttling among them).
    pub clock_event_reasons: Option<ClockEventReasons>,
    /// Performance state (0 fastest).
    pub pstate: Option<u32>,
}

/// One GPM (GPU Performance Monitoring, Hopper and newer) reading; percent unless noted.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct GpmSample {
    /// When the sampling window ended, Unix epoch seconds.
    pub ts: f64,
    /// The GPU's index.
    pub gpu: u32,
    /// Graphics engine activity.
    pub graphics_util: Option<f64>,
    /// Share of SMs with at least one warp resident ("SM active").
    pub sm_util: Option<f64>,
    /// Warps resident per SM, of the most it can hold.
    pub sm_occupancy: Option<f64>,
    /// Integer pipe activity.
    pub integer_util: Option<f64>,
    /// Any tensor-core activity.
    pub any_tensor_util: Option<f64>,
    /// FP64 tensor-core activity.
    pub dfma_tensor_util: Option<f64>,
    /// FP16/BF16 tensor-core activity.
    pub hmma_tensor_util: Option<f64>,
    /// Integer tensor-core activity.
    pub imma_tensor_util: Option<f64>,
    /// DRAM bandwidth used, of its peak.
    pub dram_bw_util: Option<f64>,
    /// FP64 pipe activity.
    pub fp64_util: Option<f64>,
    /// FP32 pipe activity.
    pub fp32_util: Option<f64>,
    /// FP16 pipe activity.
    pub fp16_util: Option<f64>,
    /// MiB/s.
    pub pcie_tx_mibs: Option<f64>,
    /// PCIe receive, MiB/s.
    pub pcie_rx_mibs: Option<f64>,
    /// NVLink receive, MiB/s.
    pub nvlink_rx_mibs: Option<f64>,
    /// NVLink transmit, MiB/s.
    pub nvlink_tx_mibs: Option<f64>,
}

/// GPU memory of one process on one GPU at one moment (`samples_gpu_processes.csv`, written
/// by the agent beside the corpus files): who holds the GPU's memory, the training job or
/// another user's.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct GpuProcessSample {
    /// When it was read, Unix epoch seconds.
    pub ts: f64,
    /// The GPU's index.
    pub gpu: u32,
    /// The process.
    pub pid: u32,
    /// None where the driver does not say (Windows WDDM, some containers).
    pub used_mib: Option<f64>,
}

/// One host reading: whole machine, per core and the training process tree.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct HostSample {
    /// When it was read, Unix epoch seconds.
    pub ts: f64,
    /// The whole machine's CPU, percent of all cores.
    pub cpu_total_pct: Option<f64>,
    /// Training process and its DataLoader workers; 100 = one core.
    pub proc_tree_cpu_pct: Option<f64>,
    /// Resident memory of the training tree, MiB.
    pub proc_tree_rss_mib: Option<f64>,
    /// The training process itself (its Python main thread and helper threads).
    #[serde(default)]
    pub proc_main_cpu_pct: Option<f64>,
    /// Other processes of the tree (DataLoader workers) that each used at least 90 % of a
    /// core: the input pipeline working flat out.
    #[serde(default)]
    pub proc_busy_children: Option<u32>,
    /// Disk reads, MB/s.
    pub disk_read_mbs: Option<f64>,
    /// Disk writes, MB/s.
    pub disk_write_mbs: Option<f64>,
    /// The one-minute load average.
    pub load1: Option<f64>,
    /// Each core's use, percent.
    pub per_core_pct: Vec<f64>,
}

/// One training step as the training loop timed it (`steps.csv`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StepRecord {
    /// The step's number.
    pub step: u64,
    /// Epoch seconds when the step began (before fetching its batch).
    pub t_start: f64,
    /// CPU time blocked fetching the batch.
    pub data_wait_ms: f64,
    /// CPU time in forward/backward/optimizer calls.
    pub launch_ms: f64,
    /// GPU time, on CUDA events, of the span of `gpu_steps` steps that ends with this one
    /// (from the previous span's end event to this step's), where recorded. Steps shorter
    /// than the probe's span are timed together; the others' `gpu_ms` is then None.
    pub gpu_ms: Option<f64>,
    /// How many steps `gpu_ms` covers, this one the last (1 in recordings from before spans).
    #[serde(default = "one_step")]
    pub gpu_steps: u32,
}

fn one_step() -> u32 {
    1
}

/// NVML clock-event ("throttle") reasons bitmask.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ClockEventReasons(pub u64);

impl ClockEventReasons {
    /// The GPU had no work.
    pub const GPU_IDLE: u64 = 0x1;
    /// Held at the applications clocks setting.
    pub const APPLICATIONS_CLOCKS: u64 = 0x2;
    /// Held down by the software power cap.
    pub const SW_POWER_CAP: u64 = 0x4;
    /// Hardware slowdown (power brake or thermal).
    pub const HW_SLOWDOWN: u64 = 0x8;
    /// Kept in step with other GPUs (sync boost).
    pub const SYNC_BOOST: u64 = 0x10;
    /// Software thermal slowdown.
    pub const SW_THERMAL: u64 = 0x20;
    /// Hardware thermal slowdown.
    pub const HW_THERMAL: u64 = 0x40;
    /// Hardware power brake.
    pub const HW_POWER_BRAKE: u64 = 0x80;
    /// Held at the display clock setting.
    pub const DISPLAY_CLOCKS: u64 = 0x100;

    /// Reasons that mean the GPU was held below the clock it asked for while it had work.
    pub const THROTTLING: u64 = Self::SW_POWER_CAP
        | Self::HW_SLOWDOWN
        | Self::SW_THERMAL
        | Self::HW_THERMAL
        | Self::HW_POWER_BRAKE;

    /// Whether any throttling reason is set.
    pub fn is_throttling(self) -> bool {
        self.0 & Self::THROTTLING != 0
    }

    /// Human names of the set bits, in bit order.
    pub fn names(self) -> Vec<&'static str> {
        const NAMES: [(u64, &str); 9] = [
            (ClockEventReasons::GPU_IDLE, "GPU idle"),
            (
                ClockEventReasons::APPLICATIONS_CLOCKS,
                "applications clocks setting",
            ),
            (ClockEventReasons::SW_POWER_CAP, "software power cap"),
            (ClockEventReasons::HW_SLOWDOWN, "hardware slowdown"),
            (ClockEventReasons::SYNC_BOOST, "sync boost"),
            (ClockEventReasons::SW_THERMAL, "software thermal slowdown"),
            (ClockEventReasons::HW_THERMAL, "hardware thermal slowdown"),
            (ClockEventReasons::HW_POWER_BRAKE, "hardware power brake"),
            (ClockEventReasons::DISPLAY_CLOCKS, "display clock setting"),
        ];
        NAMES
            .iter()
            .filter(|(bit, _)| self.0 & bit != 0)
            .map(|(_, n)| *n)
            .collect()
    }
}

/// Everything sampled during one recording.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SampleSet {
    /// NVML readings.
    pub nvml: Vec<NvmlSample>,
    /// GPM readings.
    pub gpm: Vec<GpmSample>,
    /// Host readings.
    pub host: Vec<HostSample>,
}

impl SampleSet {
    /// Whether nothing was sampled.
    pub fn is_empty(&self) -> bool {
        self.nvml.is_empty() && self.gpm.is_empty() && self.host.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn power_cap_and_thermal_bits_count_as_throttling_but_idle_does_not() {
        assert!(!ClockEventReasons(ClockEventReasons::GPU_IDLE).is_throttling());
        assert!(ClockEventReasons(0x4).is_throttling());
        assert!(ClockEventReasons(0x40 | 0x1).is_throttling());
        assert_eq!(
            ClockEventReasons(0x5).names(),
            vec!["GPU idle", "software power cap"]
        );
    }
}
