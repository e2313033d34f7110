//! Facts about the run and the machine it ran on.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// What was run, where, with which software. Every field is optional: a bare trace tells
/// little, a recorded run folder tells most.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RunFacts {
    pub gpu_name: Option<String>,
    pub gpu_count: Option<u32>,
    pub driver_version: Option<String>,
    /// Highest CUDA version the driver supports (e.g. "13.0").
    pub cuda_driver_version: Option<String>,
    /// CUDA runtime torch was built with (`torch.version.cuda`).
    pub cuda_runtime_version: Option<String>,
    pub torch_version: Option<String>,
    pub nccl_version: Option<String>,
    pub world_size: Option<u32>,
    pub model: Option<String>,
    pub batch_size: Option<u64>,
    pub precision: Option<String>,
    pub dataloader: Option<DataLoaderSettings>,
    pub host_cpus: Option<u32>,
    /// Epoch seconds.
    pub started: Option<f64>,
    pub ended: Option<f64>,
    /// Total steps the training loop ran.
    pub steps: Option<u64>,
    pub samples_per_s: Option<f64>,
    /// Environment variables that change NCCL or CUDA behaviour; `None` = unset.
    pub env: BTreeMap<String, Option<String>>,
    pub gpus: Vec<GpuStatic>,
    pub topology: Option<Topology>,
    /// Anything else the recording said about the run, as `key: value` text.
    pub extra: BTreeMap<String, String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DataLoaderSettings {
    pub num_workers: Option<u32>,
    pub pin_memory: Option<bool>,
    pub persistent_workers: Option<bool>,
    pub prefetch_factor: Option<u32>,
}

/// Static facts of one GPU, from `nvidia-smi -q -x` or NVML.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct GpuStatic {
    pub index: u32,
    pub name: Option<String>,
    pub persistence_mode: Option<bool>,
    pub mig_enabled: Option<bool>,
    pub ecc_enabled: Option<bool>,
    pub ecc_uncorrected_volatile: Option<u64>,
    pub retired_pages_pending: Option<bool>,
    pub remapping_pending: Option<bool>,
    pub pcie_gen_current: Option<u32>,
    pub pcie_gen_max: Option<u32>,
    pub pcie_width_current: Option<u32>,
    pub pcie_width_max: Option<u32>,
    pub power_limit_w: Option<f64>,
    pub default_power_limit_w: Option<f64>,
    pub sm_clock_max_mhz: Option<f64>,
    pub clock_event_reasons_active: Vec<String>,
    pub other_processes: u32,
    /// The temperature at which the GPU starts to slow itself down (°C).
    #[serde(default)]
    pub temp_slowdown_c: Option<f64>,
}

impl GpuStatic {
    /// The PCIe link's peak throughput each way (GB/s): its lanes times the generation's
    /// rate per lane after encoding. The device's highest generation, since an idle link
    /// drops to a lower one to save power; the lanes it trained at, which do not change.
    pub fn pcie_peak_gbs(&self) -> Option<f64> {
        let per_lane = match self.pcie_gen_max.or(self.pcie_gen_current)? {
            1 => 0.25,
            2 => 0.5,
            3 => 0.985,
            4 => 1.969,
            5 => 3.938,
            6 => 7.563,
            _ => return None,
        };
        let lanes = self.pcie_width_current.or(self.pcie_width_max)?;
        Some(per_lane * f64::from(lanes))
    }
}

/// How the GPUs connect (`nvidia-smi topo -m`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Topology {
    pub links: Vec<GpuLink>,
}

impl Topology {
    pub fn has_nvlink(&self) -> bool {
        self.links
            .iter()
            .any(|l| matches!(l.kind, LinkKind::NvLink { .. }))
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GpuLink {
    pub from: u32,
    pub to: u32,
    pub kind: LinkKind,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum LinkKind {
    NvLink {
        links: u32,
    },
    /// PIX, PXB, PHB, NODE or SYS: traffic crosses PCIe (and maybe the CPU interconnect).
    Pcie {
        path: String,
    },
}
