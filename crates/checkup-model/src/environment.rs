//! Environment checks: one line each, pass / warn / fail, as facts: which check, on which
//! GPU, what was seen. What each means and how to fix it is worded by the catalogue.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckStatus {
    Pass,
    Warn,
    Fail,
    /// The fact could not be read (no driver, not in the recording).
    Unknown,
}

/// Stable check ids.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckId {
    // Judged from GPU and version facts (recordings and live hosts alike).
    PersistenceMode,
    Mig,
    PcieLink,
    EccErrors,
    MemoryRepairPending,
    PowerLimit,
    ClockEventReasons,
    CudaDriverMatch,
    NcclP2p,
    DataloaderWorkersVsCpus,
    // Only a live host shows these.
    NvidiaDriver,
    GpuProcesses,
    Gpm,
    Torch,
    /// `torch.cuda.is_available()` in the training's interpreter.
    TorchCuda,
    /// The GPU's architecture is among those torch was compiled for.
    TorchArch,
    DevShm,
    ProfilingPermission,
    DiskFree,
    // Read from the training's own recording.
    /// The training ran out of GPU memory (the probe's allocator counted OOMs).
    OutOfMemory,
}

impl CheckId {
    pub const ALL: [CheckId; 20] = [
        CheckId::PersistenceMode,
        CheckId::Mig,
        CheckId::PcieLink,
        CheckId::EccErrors,
        CheckId::MemoryRepairPending,
        CheckId::PowerLimit,
        CheckId::ClockEventReasons,
        CheckId::CudaDriverMatch,
        CheckId::NcclP2p,
        CheckId::DataloaderWorkersVsCpus,
        CheckId::NvidiaDriver,
        CheckId::GpuProcesses,
        CheckId::Gpm,
        CheckId::Torch,
        CheckId::TorchCuda,
        CheckId::TorchArch,
        CheckId::DevShm,
        CheckId::ProfilingPermission,
        CheckId::DiskFree,
        CheckId::OutOfMemory,
    ];

    /// The stable id (`pcie_link`).
    pub fn as_str(self) -> &'static str {
        match self {
            CheckId::PersistenceMode => "persistence_mode",
            CheckId::Mig => "mig",
            CheckId::PcieLink => "pcie_link",
            CheckId::EccErrors => "ecc_errors",
            CheckId::MemoryRepairPending => "memory_repair_pending",
            CheckId::PowerLimit => "power_limit",
            CheckId::ClockEventReasons => "clock_event_reasons",
            CheckId::CudaDriverMatch => "cuda_driver_match",
            CheckId::NcclP2p => "nccl_p2p",
            CheckId::DataloaderWorkersVsCpus => "dataloader_workers_vs_cpus",
            CheckId::NvidiaDriver => "nvidia_driver",
            CheckId::GpuProcesses => "gpu_processes",
            CheckId::Gpm => "gpm",
            CheckId::Torch => "torch",
            CheckId::TorchCuda => "torch_cuda",
            CheckId::TorchArch => "torch_arch",
            CheckId::DevShm => "dev_shm",
            CheckId::ProfilingPermission => "profiling_permission",
            CheckId::DiskFree => "disk_free",
            CheckId::OutOfMemory => "out_of_memory",
        }
    }

    /// Whether the check is read from the training's recording rather than the host: a
    /// live host check does not replace it.
    pub fn from_training_run(self) -> bool {
        matches!(self, CheckId::OutOfMemory)
    }
}

/// A compute process on a GPU.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GpuProcess {
    pub gpu: u32,
    pub pid: u32,
    pub used_mib: Option<u64>,
    /// Its command line, as far as the host tells (`/proc/PID/cmdline`, shortened).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
}

/// What a check saw.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "seen")]
pub enum CheckValue {
    /// A mode that is on or off (persistence).
    Enabled {
        on: bool,
    },
    /// MIG on: this job gets a slice of the GPU.
    Mig {
        on: bool,
    },
    PcieLink {
        gen: u32,
        width: u32,
        gen_max: u32,
        width_max: u32,
    },
    Count {
        n: u64,
    },
    /// Row remapping or page retirement waits for a GPU reset.
    RepairPending,
    PowerLimit {
        limit_w: f64,
        default_w: f64,
    },
    /// NVML clock-event reason names.
    ClockReasons {
        reasons: Vec<String>,
    },
    CudaVersions {
        runtime: String,
        driver: String,
    },
    P2p {
        disabled: bool,
        nvlink: bool,
    },
    Workers {
        workers: u32,
        gpus: u32,
        cpus: u32,
    },
    Driver {
        gpus: u32,
        driver: String,
        cuda: String,
    },
    Processes {
        processes: Vec<GpuProcess>,
    },
    NotSupported,
    Torch {
        torch: Option<String>,
        cuda: Option<String>,
        cudnn: Option<String>,
        nccl: Option<String>,
        python: String,
    },
    /// What torch in the training's interpreter says of CUDA.
    TorchCuda {
        available: bool,
        devices: u32,
    },
    /// The GPU's architecture (`sm_90`) against torch's compiled list (`sm_80`, `compute_90`).
    TorchArch {
        gpu_arch: String,
        compiled: Vec<String>,
    },
    Size {
        gib: f64,
    },
    Missing,
    /// Hardware counters restricted to admins (`RmProfilingAdminOnly`).
    ProfilingAdminOnly {
        admin_only: bool,
    },
    /// `/proc/driver/nvidia/params` is not there.
    NoDriverParams,
    DiskFree {
        gib: f64,
        path: String,
    },
    /// Out-of-memory errors the allocator counted, and the most it reserved against the
    /// card's memory (GiB).
    OutOfMemory {
        ooms: u64,
        peak_reserved_gib: Option<f64>,
        capacity_gib: Option<f64>,
    },
    Unreadable {
        path: String,
    },
    /// The agent was built without NVML.
    NoNvml,
    /// What the system said, verbatim (an NVML error, a Python error).
    System {
        message: String,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EnvCheck {
    pub id: CheckId,
    /// The GPU a per-GPU check is about.
    pub gpu: Option<u32>,
    pub status: CheckStatus,
    pub value: CheckValue,
}

impl EnvCheck {
    pub fn new(id: CheckId, status: CheckStatus, value: CheckValue) -> Self {
        Self {
            id,
            gpu: None,
            status,
            value,
        }
    }

    pub fn on_gpu(mut self, gpu: u32) -> Self {
        self.gpu = Some(gpu);
        self
    }

    /// Whether the check has a fix to show (it did not pass).
    pub fn needs_fix(&self) -> bool {
        matches!(self.status, CheckStatus::Warn | CheckStatus::Fail)
            || matches!(self.id, CheckId::Torch) && self.status == CheckStatus::Unknown
    }
}
