//! Environment checks: title, the value seen, what it means, the fix.

use checkup_model::{CheckId, CheckStatus, CheckValue, EnvCheck, Language};

use crate::Language::*;

/// A check in words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckText {
    /// What was checked, with the GPU it concerns.
    pub title: String,
    /// What the check found, as measured.
    pub value: String,
    /// Why it matters to training speed.
    pub meaning: String,
    /// Shown when the check did not pass.
    pub fix: Option<String>,
}

/// The check's name; per-GPU checks start with the GPU ("GPU 0: PCIe link").
pub fn title(id: CheckId, gpu: Option<u32>, l: Language) -> String {
    use CheckId as C;
    let (en, zh) = match id {
        C::PersistenceMode => ("persistence mode", "持久模式"),
        C::Mig => ("MIG mode", "MIG 模式"),
        C::PcieLink => ("PCIe link", "PCIe 链路"),
        C::EccErrors => ("uncorrectable ECC errors", "不可纠正的 ECC 错误"),
        C::MemoryRepairPending => ("memory repair pending", "显存修复待生效"),
        C::PowerLimit => ("power limit", "功耗上限"),
        C::ClockEventReasons => ("clock-event reasons at snapshot", "快照时的降频原因"),
        C::CudaDriverMatch => ("CUDA runtime vs driver", "CUDA 运行时与驱动"),
        C::DriverAcrossHosts => ("NVIDIA driver on every host", "各主机的 NVIDIA 驱动"),
        C::NcclP2p => ("NCCL peer-to-peer", "NCCL 点对点通信"),
        C::DataloaderWorkersVsCpus => (
            "DataLoader workers vs CPU cores",
            "DataLoader worker 数与 CPU 核心数",
        ),
        C::NvidiaDriver => ("NVIDIA driver", "NVIDIA 驱动"),
        C::GpuProcesses => ("other processes on the GPUs", "GPU 上的其他进程"),
        C::Gpm => ("GPU performance monitoring (GPM)", "GPU 性能监控（GPM）"),
        C::Torch => (
            "PyTorch in the training environment",
            "训练环境中的 PyTorch",
        ),
        C::TorchCuda => (
            "CUDA seen by PyTorch in the training environment",
            "训练环境中 PyTorch 看到的 CUDA",
        ),
        C::TorchArch => (
            "the GPU's architecture in PyTorch's build",
            "PyTorch 构建中包含的 GPU 架构",
        ),
        C::DevShm => ("/dev/shm size", "/dev/shm 大小"),
        C::ProfilingPermission => ("GPU performance counters", "GPU 性能计数器"),
        C::DiskFree => (
            "free disk for data and checkpoints",
            "数据与检查点所在磁盘的剩余空间",
        ),
        C::OutOfMemory => ("GPU out-of-memory errors", "GPU 显存不足错误"),
    };
    match (gpu, l) {
        (Some(g), En) => format!("GPU {g}: {en}"),
        (Some(g), Zh) => format!("GPU {g}：{zh}"),
        (None, En) => capitalise(en),
        (None, Zh) => zh.into(),
    }
}

/// First letter upper case when it is a lower-case letter ("pCIe" never happens: "PCIe"
/// starts upper case already).
fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) if f.is_ascii_lowercase() => f.to_ascii_uppercase().to_string() + c.as_str(),
        _ => s.to_owned(),
    }
}

/// What the check saw.
pub fn value(v: &CheckValue, l: Language) -> String {
    use CheckValue as V;
    match (v, l) {
        (
            V::Enabled { on: true }
            | V::P2p {
                disabled: false,
                nvlink: false,
            },
            En,
        ) => "enabled".into(),
        (
            V::Enabled { on: true }
            | V::P2p {
                disabled: false,
                nvlink: false,
            },
            Zh,
        ) => "已开启".into(),
        (V::Enabled { on: false } | V::Mig { on: false }, En) => "disabled".into(),
        (V::Enabled { on: false } | V::Mig { on: false }, Zh) => "已关闭".into(),
        (V::Mig { on: true }, En) => "enabled: this job gets a slice of the GPU".into(),
        (V::Mig { on: true }, Zh) => "已开启：本任务只分到 GPU 的一个切片".into(),
        (
            V::PcieLink {
                gen,
                width,
                gen_max,
                width_max,
            },
            En,
        ) => format!("Gen {gen} x{width} of Gen {gen_max} x{width_max}"),
        (
            V::PcieLink {
                gen,
                width,
                gen_max,
                width_max,
            },
            Zh,
        ) => format!("Gen {gen} x{width}（最高 Gen {gen_max} x{width_max}）"),
        (V::Count { n }, _) => n.to_string(),
        (V::RepairPending, En) => "row remapping or page retirement waits for a GPU reset".into(),
        (V::RepairPending, Zh) => "行重映射或页面退役正在等待 GPU 重置".into(),
        (V::PowerLimit { limit_w, default_w }, En) => {
            format!("{limit_w:.0} W of {default_w:.0} W default")
        }
        (V::PowerLimit { limit_w, default_w }, Zh) => {
            format!("{limit_w:.0} W（默认 {default_w:.0} W）")
        }
        (V::ClockReasons { reasons }, En) => reasons.join(", "),
        (V::ClockReasons { reasons }, Zh) => reasons.join("，"),
        (V::HostVersions { versions }, En) => versions
            .iter()
            .map(|(host, v)| format!("{host} {v}"))
            .collect::<Vec<_>>()
            .join(", "),
        (V::HostVersions { versions }, Zh) => versions
            .iter()
            .map(|(host, v)| format!("{host} {v}"))
            .collect::<Vec<_>>()
            .join("，"),
        (V::CudaVersions { runtime, driver }, En) => {
            format!("torch built for CUDA {runtime}; driver supports up to CUDA {driver}")
        }
        (V::CudaVersions { runtime, driver }, Zh) => {
            format!("torch 基于 CUDA {runtime} 构建；驱动最高支持 CUDA {driver}")
        }
        (
            V::P2p {
                disabled: true,
                nvlink: true,
            },
            En,
        ) => "NCCL_P2P_DISABLE=1 although the GPUs share NVLink".into(),
        (
            V::P2p {
                disabled: true,
                nvlink: true,
            },
            Zh,
        ) => "设置了 NCCL_P2P_DISABLE=1，而 GPU 之间有 NVLink".into(),
        (
            V::P2p {
                disabled: true,
                nvlink: false,
            },
            _,
        ) => "NCCL_P2P_DISABLE=1".into(),
        (
            V::P2p {
                disabled: false,
                nvlink: true,
            },
            En,
        ) => "enabled; GPUs connected by NVLink".into(),
        (
            V::P2p {
                disabled: false,
                nvlink: true,
            },
            Zh,
        ) => "已开启；GPU 之间由 NVLink 连接".into(),
        (
            V::Workers {
                workers,
                gpus,
                cpus,
            },
            En,
        ) => format!("{workers} workers × {gpus} GPU(s) on {cpus} logical CPUs"),
        (
            V::Workers {
                workers,
                gpus,
                cpus,
            },
            Zh,
        ) => format!("{workers} 个 worker × {gpus} 块 GPU，{cpus} 个逻辑 CPU"),
        (V::Driver { gpus, driver, cuda }, En) => {
            format!("{gpus} GPU(s), driver {driver}, CUDA {cuda}")
        }
        (V::Driver { gpus, driver, cuda }, Zh) => {
            format!("{gpus} 块 GPU，驱动 {driver}，CUDA {cuda}")
        }
        (V::Processes { processes }, _) if processes.is_empty() => match l {
            En => "none".into(),
            Zh => "无".into(),
        },
        (V::Processes { processes }, _) => processes
            .iter()
            .map(|p| {
                let mib = p.used_mib.map_or("?".into(), |m| m.to_string());
                match l {
                    En => format!("GPU {}: pid {} ({mib} MiB)", p.gpu, p.pid),
                    Zh => format!("GPU {}：pid {}（{mib} MiB）", p.gpu, p.pid),
                }
            })
            .collect::<Vec<_>>()
            .join(match l {
                En => "; ",
                Zh => "；",
            }),
        (V::NotSupported, En) => "not supported".into(),
        (V::NotSupported, Zh) => "不支持".into(),
        (
            V::Torch {
                torch,
                cuda,
                cudnn,
                nccl,
                python,
            },
            _,
        ) => {
            let (missing, none) = match l {
                En => ("missing", "none"),
                Zh => ("缺失", "无"),
            };
            let [cuda, cudnn, nccl] = [cuda, cudnn, nccl].map(|v| v.as_deref().unwrap_or(none));
            let torch = torch.as_deref().unwrap_or(missing);
            match l {
                En => format!("torch {torch}, CUDA {cuda}, cuDNN {cudnn}, NCCL {nccl} ({python})"),
                Zh => format!("torch {torch}，CUDA {cuda}，cuDNN {cudnn}，NCCL {nccl}（{python}）"),
            }
        }
        (
            V::TorchCuda {
                available: true,
                devices,
            },
            En,
        ) => format!("available, {devices} GPU(s)"),
        (
            V::TorchCuda {
                available: true,
                devices,
            },
            Zh,
        ) => format!("可用，{devices} 块 GPU"),
        (
            V::TorchCuda {
                available: false, ..
            },
            En,
        ) => "torch.cuda.is_available() is False".into(),
        (
            V::TorchCuda {
                available: false, ..
            },
            Zh,
        ) => "torch.cuda.is_available() 为 False".into(),
        (V::TorchArch { gpu_arch, compiled }, En) => {
            format!("GPU {gpu_arch}; torch built for {}", compiled.join(" "))
        }
        (V::TorchArch { gpu_arch, compiled }, Zh) => {
            format!("GPU {gpu_arch}；torch 构建包含 {}", compiled.join(" "))
        }
        (V::Size { gib }, _) => format!("{gib:.1} GiB"),
        (V::Missing, En) => "missing".into(),
        (V::Missing, Zh) => "不存在".into(),
        (V::ProfilingAdminOnly { admin_only: true }, En) => {
            "admin only (RmProfilingAdminOnly=1)".into()
        }
        (V::ProfilingAdminOnly { admin_only: true }, Zh) => {
            "仅限管理员（RmProfilingAdminOnly=1）".into()
        }
        (V::ProfilingAdminOnly { admin_only: false }, En) => "open to all users".into(),
        (V::ProfilingAdminOnly { admin_only: false }, Zh) => "对所有用户开放".into(),
        (V::NoDriverParams, En) => "no /proc/driver/nvidia/params".into(),
        (V::NoDriverParams, Zh) => "没有 /proc/driver/nvidia/params".into(),
        (V::DiskFree { gib, path }, En) => format!("{gib:.1} GiB free at {path}"),
        (V::DiskFree { gib, path }, Zh) => format!("{path} 剩余 {gib:.1} GiB"),
        (
            V::OutOfMemory {
                ooms,
                peak_reserved_gib,
                capacity_gib,
            },
            _,
        ) => {
            let peak = match (peak_reserved_gib, capacity_gib, l) {
                (Some(p), Some(c), En) => format!("; at most {p:.1} of {c:.0} GiB reserved"),
                (Some(p), Some(c), Zh) => format!("；最多预留 {p:.1} GiB（共 {c:.0} GiB）"),
                (Some(p), None, En) => format!("; at most {p:.1} GiB reserved"),
                (Some(p), None, Zh) => format!("；最多预留 {p:.1} GiB"),
                (None, ..) => String::new(),
            };
            match l {
                En => format!(
                    "{ooms} out-of-memory error{}{peak}",
                    if *ooms == 1 { "" } else { "s" }
                ),
                Zh => format!("{ooms} 次显存不足错误{peak}"),
            }
        }
        (V::Unreadable { path }, En) => format!("{path} not readable"),
        (V::Unreadable { path }, Zh) => format!("{path} 无法读取"),
        (V::NoNvml, En) => "agent built without NVML".into(),
        (V::NoNvml, Zh) => "agent 构建时未包含 NVML".into(),
        (V::System { message }, _) => message.clone(),
    }
}

fn meaning(c: &EnvCheck, l: Language) -> &'static str {
    use CheckId as C;
    use CheckValue as V;
    let (en, zh) = match (c.id, &c.value, c.status) {
        (C::PersistenceMode, ..) => ("Without persistence mode the driver tears the GPU down when no process holds it; every job start pays seconds of re-initialisation and clocks may start low.", "未开启持久模式时，没有进程占用 GPU 驱动就会释放它；每次启动任务都要花数秒重新初始化，时钟也可能从低位开始。"),
        (C::Mig, ..) => ("With MIG on, a process sees only its slice's SMs and memory bandwidth: expect a fraction of the full GPU's speed.", "开启 MIG 后，进程只能看到其切片的 SM 与显存带宽：速度只有整卡的一部分。"),
        (C::PcieLink, ..) => ("A narrower or slower PCIe link than the card supports cuts host↔GPU copy bandwidth. An idle GPU may lower its link generation to save power; a reduced width is a seating, riser or BIOS problem.", "PCIe 链路比显卡支持的更窄或更慢，会削减主机与 GPU 之间的拷贝带宽。空闲的 GPU 可能为省电降低链路代数；链路宽度降低则是插槽、转接卡或 BIOS 问题。"),
        (C::EccErrors, ..) => ("Uncorrectable memory errors since the driver loaded mean failing memory: jobs can crash or corrupt results.", "驱动加载以来出现不可纠正的显存错误，说明显存正在损坏：任务可能崩溃或结果出错。"),
        (C::MemoryRepairPending, ..) => ("Memory rows were marked bad; the repair takes effect only after the GPU is reset.", "已有显存行被标记为坏行，修复需要重置 GPU 后才生效。"),
        (C::PowerLimit, ..) => ("A power limit below the default lowers clocks under heavy load.", "功耗上限低于默认值会在重负载下降低时钟。"),
        (C::ClockEventReasons, ..) => ("The GPU was holding its clocks down when the snapshot was taken.", "采集快照时 GPU 正在压低时钟。"),
        (C::CudaDriverMatch, ..) => ("PyTorch's CUDA runtime must not be newer than what the driver supports; otherwise CUDA fails to initialise or falls back to slow paths (forward-compat packages aside).", "PyTorch 的 CUDA 运行时版本不能高于驱动支持的版本，否则 CUDA 无法初始化或退化到慢路径（前向兼容包除外）。"),
        (C::DriverAcrossHosts, ..) => ("The hosts of one job on different drivers run different CUDA and NCCL code: one host can be slower than the others, or fail where they do not.", "同一作业的各主机驱动不同，运行的 CUDA 与 NCCL 代码也不同：某台主机可能比其他主机慢，或在其他主机正常时出错。"),
        (C::NcclP2p, ..) => ("With P2P disabled, NCCL sends GPU-to-GPU traffic through host memory instead of NVLink/PCIe peer access: all-reduce gets several times slower.", "禁用 P2P 后，NCCL 经由主机内存而不是 NVLink/PCIe 直连传输 GPU 间流量：all-reduce 慢数倍。"),
        (C::DataloaderWorkersVsCpus, ..) => ("Each DataLoader worker is a process that wants a core, and so does each training process: with every core taken by workers, the training loop launches kernels late.", "每个 DataLoader worker 都是一个需要独占核心的进程，每个训练进程也是：核心都被 worker 占满时，训练循环发射内核会变慢。"),
        (C::NvidiaDriver, _, CheckStatus::Pass) => ("NVML answered: GPU sampling works.", "NVML 有响应：可以采样 GPU。"),
        (C::NvidiaDriver, V::NoNvml, _) => ("GPU facts were not read.", "未读取 GPU 信息。"),
        (C::NvidiaDriver, ..) => ("Without the driver there is nothing to sample on the GPU side.", "没有驱动，GPU 侧无从采样。"),
        (C::GpuProcesses, ..) => ("Another process on the same GPU shares its SMs and memory: timings of this job will be slower and noisy.", "同一块 GPU 上的其他进程会共享 SM 和显存：本任务的耗时会变慢且波动。"),
        (C::Gpm, ..) => ("Without GPM (Hopper and newer), SM activity, tensor-core and DRAM bandwidth cannot be sampled; GPU-Util alone cannot tell memory- from compute-bound.", "没有 GPM（Hopper 及更新的架构才有）就无法采样 SM 活跃度、张量核和显存带宽；仅凭 GPU-Util 无法区分访存受限与计算受限。"),
        (C::Torch, V::System { .. }, _) => ("Training software versions could not be read.", "无法读取训练软件的版本。"),
        (C::Torch, ..) => ("The versions training will use; torch's CUDA runtime must not be newer than the driver's.", "训练将使用的版本；torch 的 CUDA 运行时不能比驱动支持的版本新。"),
        (C::TorchCuda, _, CheckStatus::Pass) => ("The training's torch can use the GPUs.", "训练使用的 torch 可以使用 GPU。"),
        (C::TorchCuda, ..) => ("The training's torch cannot use CUDA: it would run on the CPU, or stop at the first .cuda(). Usually a CPU-only wheel, a runtime newer than the driver, or CUDA_VISIBLE_DEVICES hiding every GPU.", "训练使用的 torch 无法使用 CUDA：训练会在 CPU 上运行，或在第一次 .cuda() 时报错。常见原因是装了仅 CPU 的版本、CUDA 运行时比驱动新，或 CUDA_VISIBLE_DEVICES 屏蔽了所有 GPU。"),
        (C::TorchArch, _, CheckStatus::Pass) => ("torch ships kernels compiled for this GPU.", "torch 包含为这块 GPU 编译的内核。"),
        (C::TorchArch, _, CheckStatus::Warn) => ("torch has no kernels compiled for this GPU, only PTX for an older one: every kernel is JIT-compiled at first use (minutes at start-up) and may run slower.", "torch 没有为这块 GPU 编译的内核，只有较旧架构的 PTX：每个内核首次使用时都要即时编译（启动要几分钟），运行也可能更慢。"),
        (C::TorchArch, ..) => ("torch was not built for this GPU's architecture: CUDA kernels fail with \"no kernel image is available for execution on the device\".", "torch 没有为这块 GPU 的架构构建：CUDA 内核会报错 \"no kernel image is available for execution on the device\"。"),
        (C::DevShm, V::Missing, _) => ("No /dev/shm: DataLoader workers cannot share batches.", "没有 /dev/shm：DataLoader worker 无法共享批次。"),
        (C::DevShm, ..) => ("DataLoader workers hand batches to the training process through /dev/shm; containers default to 64 MB, which crashes workers (bus error) or forces tiny batches.", "DataLoader worker 通过 /dev/shm 把批次交给训练进程；容器默认只有 64 MB，会导致 worker 崩溃（bus error）或只能用很小的批次。"),
        (C::ProfilingPermission, V::ProfilingAdminOnly { admin_only: true }, _) => ("Hardware counters (Nsight Compute, DCGM profiling) need root here; NVML, GPM and torch.profiler traces still work.", "在这台主机上，硬件计数器（Nsight Compute、DCGM profiling）需要 root 权限；NVML、GPM 和 torch.profiler 跟踪仍然可用。"),
        (C::ProfilingPermission, V::ProfilingAdminOnly { admin_only: false }, _) => ("Profiling counters are readable without root.", "无需 root 即可读取性能计数器。"),
        (C::ProfilingPermission, ..) => ("The driver's profiling restriction could not be read.", "无法读取驱动的性能分析权限设置。"),
        (C::DiskFree, V::Unreadable { .. }, _) => ("The free space there could not be read.", "无法读取那里的剩余空间。"),
        (C::DiskFree, ..) => ("Checkpoints of large models take tens of GB each; a full disk kills training at the first save.", "大模型的每个检查点有数十 GB；磁盘写满会让训练在第一次保存时中断。"),
        (C::OutOfMemory, ..) => ("The training asked for more GPU memory than was free and PyTorch raised torch.OutOfMemoryError (\"CUDA out of memory\"): that step failed. Either the run stopped there, or its code caught the error and went on, often with a smaller batch. Memory is held by the weights, their gradients, the optimizer's states, the activations saved for backward (which grow with the batch and sequence length) and the allocator's cache; other processes on the GPU take their share first.", "训练申请的 GPU 显存超过了可用量，PyTorch 抛出 torch.OutOfMemoryError（\"CUDA out of memory\"）：那一步失败了。要么运行就此停止，要么代码捕获了错误继续运行，常常是换了更小的批次。显存被权重、梯度、优化器状态、为反向保存的激活（随批大小和序列长度增长）以及分配器缓存占用；同一 GPU 上的其他进程会先占走它们的份额。"),
    };
    match l {
        En => en,
        Zh => zh,
    }
}

/// The fix of a check that did not pass, by id alone (the engine's checks have one each).
pub fn fix_for(id: CheckId, l: Language) -> String {
    use CheckId as C;
    let (en, zh) = match id {
        C::PersistenceMode => ("sudo nvidia-smi -pm 1 (or enable nvidia-persistenced); ask the host's admin on shared machines", "sudo nvidia-smi -pm 1（或启用 nvidia-persistenced）；共享主机请联系管理员"),
        C::Mig => ("Ask for a full GPU (MIG disabled) or size expectations to the slice", "申请一整块 GPU（关闭 MIG），或按切片大小调整预期"),
        C::PcieLink => ("Re-check under load (nvidia-smi -q -d PCI); a reduced width needs the card reseated or the slot/BIOS fixed by the host's admin", "在负载下再查一次（nvidia-smi -q -d PCI）；链路宽度降低需要由管理员重新插卡或修复插槽/BIOS"),
        C::EccErrors => ("Drain the GPU and report it to the host's admin or cloud provider", "停止在这块 GPU 上调度任务，并报告给主机管理员或云服务商"),
        C::MemoryRepairPending => ("Reset the GPU when idle (nvidia-smi -r) or reboot the host", "在 GPU 空闲时重置它（nvidia-smi -r）或重启主机"),
        C::PowerLimit => ("Ask the host's admin to restore the default power limit (nvidia-smi -pl)", "请主机管理员恢复默认功耗上限（nvidia-smi -pl）"),
        C::ClockEventReasons => ("Check cooling and power; compare against the sampled clock-event reasons during training", "检查散热与供电；与训练期间采样到的降频原因对照"),
        C::CudaDriverMatch => ("Install a torch wheel built for the driver's CUDA version (e.g. the cu12x index), or upgrade the driver", "安装与驱动 CUDA 版本匹配的 torch（例如 cu12x 索引），或升级驱动"),
        C::DriverAcrossHosts => ("Install the same driver version on every host of the job (ask the cluster's admin); until then, expect the odd host to differ", "在作业的每台主机上安装相同版本的驱动（联系集群管理员）；在此之前，版本不同的主机表现可能不同"),
        C::NcclP2p => ("Unset NCCL_P2P_DISABLE (it is often left over from a workaround for a broken PCIe switch)", "取消 NCCL_P2P_DISABLE（它常是为绕过故障 PCIe 交换机而遗留的设置）"),
        C::DataloaderWorkersVsCpus => ("Lower num_workers to about (cores / GPUs) − 1", "把 num_workers 降到约（核心数 / GPU 数）− 1"),
        C::NvidiaDriver => ("Install the NVIDIA driver, or run the agent on the GPU host", "安装 NVIDIA 驱动，或在 GPU 主机上运行 agent"),
        C::GpuProcesses => ("Check who runs them (ps -p PID) before measuring; on shared hosts pick an idle GPU with CUDA_VISIBLE_DEVICES", "测量前先查清是谁在运行它们（ps -p PID）；在共享主机上用 CUDA_VISIBLE_DEVICES 选一块空闲的 GPU"),
        C::Gpm => ("Run on a Hopper or newer GPU to sample SM, tensor-core and DRAM activity", "在 Hopper 或更新的 GPU 上运行，才能采样 SM、张量核和显存活动"),
        C::Torch => ("Pick the training environment's interpreter (a venv or conda env): the interpreter field above in the app, --python on the command line", "选择训练环境的解释器（venv 或 conda 环境）：在应用中用上方的解释器输入框，在命令行用 --python"),
        C::TorchCuda => ("Install a CUDA build of torch that the driver supports (pip install torch --index-url https://download.pytorch.org/whl/cu126) and check CUDA_VISIBLE_DEVICES", "安装驱动支持的 CUDA 版 torch（pip install torch --index-url https://download.pytorch.org/whl/cu126），并检查 CUDA_VISIBLE_DEVICES"),
        C::TorchArch => ("Install a torch build that lists this GPU's sm_XY in torch.cuda.get_arch_list() (a newer release or a newer CUDA index)", "安装 torch.cuda.get_arch_list() 中包含这块 GPU 的 sm_XY 的版本（更新的发行版或更新的 CUDA 索引）"),
        C::DevShm => ("Start the container with --shm-size=16g (or --ipc=host)", "启动容器时加上 --shm-size=16g（或 --ipc=host）"),
        C::ProfilingPermission => ("Run as root, or set NVreg_RestrictProfilingToAdminUsers=0 (admin)", "以 root 运行，或由管理员设置 NVreg_RestrictProfilingToAdminUsers=0"),
        C::DiskFree => ("Free space or point checkpoints at a larger volume", "清理空间，或把检查点写到更大的卷上"),
        C::OutOfMemory => ("Cheapest first: bf16 autocast for the activations; activation checkpointing; a smaller batch with gradient accumulation to keep the effective batch; PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True when reserved memory is far above what tensors use; and stop other processes on the GPU (nvidia-smi lists them). The memory finding says what each frees in this run.", "从代价最低的开始：激活使用 bf16 autocast；激活检查点；用更小的批次加梯度累积保持有效批大小；预留显存远高于张量实际使用时设置 PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True；停止 GPU 上的其他进程（nvidia-smi 可列出）。显存诊断会给出每一项在本次运行中能释放多少。"),
    };
    match l {
        En => en.into(),
        Zh => zh.into(),
    }
}

/// The fix a check shows, if any: checks that passed, and facts that could not be read
/// without anything the user can change, show none.
fn fix(c: &EnvCheck, l: Language) -> Option<String> {
    use CheckId as C;
    use CheckValue as V;
    let special = |en: &str, zh: &str| {
        Some(match l {
            En => en.to_owned(),
            Zh => zh.to_owned(),
        })
    };
    match (c.id, &c.value, c.status) {
        (_, _, CheckStatus::Pass) => None,
        (C::Torch, V::System { .. }, _) => special(
            "Pass --python /path/to/venv/bin/python",
            "传入 --python /path/to/venv/bin/python",
        ),
        (C::DevShm, V::Missing, _) => {
            special("Mount a tmpfs at /dev/shm", "在 /dev/shm 挂载一个 tmpfs")
        }
        // A GPU without GPM is a fact of the hardware, not a setting.
        (C::Gpm, ..) => None,
        (_, _, CheckStatus::Unknown) => None,
        (id, ..) => Some(fix_for(id, l)),
    }
}

/// A check in words: title, value, meaning and its fix when it did not pass.
pub fn text(c: &EnvCheck, l: Language) -> CheckText {
    CheckText {
        title: title(c.id, c.gpu, l),
        value: value(&c.value, l),
        meaning: meaning(c, l).into(),
        fix: fix(c, l),
    }
}
