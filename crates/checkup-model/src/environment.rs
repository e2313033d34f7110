//! Environment checks: one line each, pass / warn / fail, as facts: which check, on which
//! GPU, what was seen. What each means and how to fix it is worded by the catalogue.

use serde::{Deserialize, Serialize};

/// How a check came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckStatus {
    /// Fine.
    Pass,
    /// Worth fixing; training still runs.
    Warn,
    /// Wrong: costs much speed or stops the training.
    Fail,
    /// The fact could not be read (no driver, not in the recording).
    Unknown,
}

/// Stable check ids.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckId {
    // Judged from GPU and version facts (recordings and live hosts alike).
    /// Persistence mode keeps the driver loaded between processes.
    PersistenceMode,
    /// MIG partitions the GPU.
    Mig,
    /// The PCIe link runs at its generation and width.
    PcieLink,
    /// ECC errors counted.
    EccErrors,
    /// Memory repair waits for a reset.
    MemoryRepairPending,
    /// The power limit against the card's default.
    PowerLimit,
    /// Clock-event reasons active at the time of the check.
    ClockEventReasons,
    /// The CUDA runtime is one the driver supports.
    CudaDriverMatch,
    /// The hosts of a job run the same NVIDIA driver.
    DriverAcrossHosts,
    /// NCCL peer-to-peer is not disabled.
    NcclP2p,
    /// DataLoader workers fit the CPUs beside the GPUs.
    DataloaderWorkersVsCpus,
    // Only a live host shows these.
    /// An NVIDIA driver answers.
    NvidiaDriver,
    /// Other processes on the GPUs.
    GpuProcesses,
    /// GPM metrics are supported.
    Gpm,
    /// PyTorch in the training's interpreter, and its CUDA, cuDNN, NCCL.
    Torch,
    /// `torch.cuda.is_available()` in the training's interpreter.
    TorchCuda,
    /// The GPU's architecture is among those torch was compiled for.
    TorchArch,
    /// /dev/shm is large enough for DataLoader workers.
    DevShm,
    /// Hardware counters are open to users.
    ProfilingPermission,
    /// Free disk where data and checkpoints live.
    DiskFree,
    // Read from the training's own recording.
    /// The training ran out of GPU memory (the probe's allocator counted OOMs).
    OutOfMemory,
}

impl CheckId {
    /// Every check, in the order they are shown.
    pub const ALL: [CheckId; 21] = [
        CheckId::PersistenceMode,
        CheckId::Mig,
        CheckId::PcieLink,
        CheckId::EccErrors,
        CheckId::MemoryRepairPending,
        CheckId::PowerLimit,
        CheckId::ClockEventReasons,
        CheckId::CudaDriverMatch,
        CheckId::DriverAcrossHosts,
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
            CheckId::DriverAcrossHosts => "driver_across_hosts",
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
    /// The GPU's index.
    pub gpu: u32,
    /// The process.
    pub pid: u32,
    /// GPU memory it holds, MiB.
    pub used_mib: Option<u64>,
    /// Its command line, as far as the host tells (`/proc/PID/cmdline`, shortened).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
}

/// What a check saw.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "seen")]
pub enum CheckValue {
    /// A version on each host of a job: (host, version).
    HostVersions {
        /// Each host with its version, in node order.
        versions: Vec<(String, String)>,
    },
    /// A mode that is on or off (persistence).
    Enabled {
        /// Whether it is on.
        on: bool,
    },
    /// MIG on: this job gets a slice of the GPU.
    Mig {
        /// Whether it is on.
        on: bool,
    },
    /// The PCIe link now and at its best.
    PcieLink {
        /// Generation now.
        gen: u32,
        /// Lanes now.
        width: u32,
        /// The link's best generation.
        gen_max: u32,
        /// Its most lanes.
        width_max: u32,
    },
    /// A count (ECC errors).
    Count {
        /// The count.
        n: u64,
    },
    /// Row remapping or page retirement waits for a GPU reset.
    RepairPending,
    /// The power limit and the card's default.
    PowerLimit {
        /// The enforced limit, W.
        limit_w: f64,
        /// The card's default, W.
        default_w: f64,
    },
    /// NVML clock-event reason names.
    ClockReasons {
        /// The reasons.
        reasons: Vec<String>,
    },
    /// The CUDA runtime and what the driver supports.
    CudaVersions {
        /// The runtime's version.
        runtime: String,
        /// The driver's CUDA version.
        driver: String,
    },
    /// Whether NCCL peer-to-peer is disabled and whether NVLink connects the GPUs.
    P2p {
        /// `NCCL_P2P_DISABLE` is set.
        disabled: bool,
        /// NVLink connects the GPUs.
        nvlink: bool,
    },
    /// DataLoader workers against the CPUs.
    Workers {
        /// Workers per process.
        workers: u32,
        /// GPUs (processes).
        gpus: u32,
        /// The host's CPUs.
        cpus: u32,
    },
    /// The driver and the GPUs it sees.
    Driver {
        /// GPUs.
        gpus: u32,
        /// The driver's version.
        driver: String,
        /// The CUDA version it supports.
        cuda: String,
    },
    /// Processes on the GPUs.
    Processes {
        /// The processes.
        processes: Vec<GpuProcess>,
    },
    /// The GPU does not support it.
    NotSupported,
    /// PyTorch's versions in the training's interpreter.
    Torch {
        /// PyTorch.
        torch: Option<String>,
        /// The CUDA it was built with.
        cuda: Option<String>,
        /// cuDNN.
        cudnn: Option<String>,
        /// NCCL.
        nccl: Option<String>,
        /// The interpreter.
        python: String,
    },
    /// What torch in the training's interpreter says of CUDA.
    TorchCuda {
        /// `torch.cuda.is_available()`.
        available: bool,
        /// Devices torch sees.
        devices: u32,
    },
    /// The GPU's architecture (`sm_90`) against torch's compiled list (`sm_80`, `compute_90`).
    TorchArch {
        /// The GPU's.
        gpu_arch: String,
        /// What torch was compiled for.
        compiled: Vec<String>,
    },
    /// A size, GiB.
    Size {
        /// The size.
        gib: f64,
    },
    /// Not there.
    Missing,
    /// Hardware counters restricted to admins (`RmProfilingAdminOnly`).
    ProfilingAdminOnly {
        /// Whether they are.
        admin_only: bool,
    },
    /// `/proc/driver/nvidia/params` is not there.
    NoDriverParams,
    /// Free disk and where.
    DiskFree {
        /// Free, GiB.
        gib: f64,
        /// The folder checked.
        path: String,
    },
    /// Out-of-memory errors the allocator counted, and the most it reserved against the
    /// card's memory (GiB).
    OutOfMemory {
        /// Out-of-memory errors.
        ooms: u64,
        /// The most reserved, GiB.
        peak_reserved_gib: Option<f64>,
        /// The card's memory, GiB.
        capacity_gib: Option<f64>,
    },
    /// A file that could not be read.
    Unreadable {
        /// The file.
        path: String,
    },
    /// The agent was built without NVML.
    NoNvml,
    /// What the system said, verbatim (an NVML error, a Python error).
    System {
        /// The message.
        message: String,
    },
}

/// One environment check: which, on which GPU, how it came out and what it saw.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EnvCheck {
    /// Which check.
    pub id: CheckId,
    /// The GPU a per-GPU check is about.
    pub gpu: Option<u32>,
    /// How it came out.
    pub status: CheckStatus,
    /// What it saw.
    pub value: CheckValue,
}

impl EnvCheck {
    /// A check of the whole host.
    pub fn new(id: CheckId, status: CheckStatus, value: CheckValue) -> Self {
        Self {
            id,
            gpu: None,
            status,
            value,
        }
    }

    /// The same check about one GPU.
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
