//! Words for the `kernel_launch` family's findings: each cause's title and summary, what its
//! evidence rows measure, and its fixes.

use checkup_model::{KernelLaunch, KernelLaunchEvidence, KernelLaunchFix, Language};

use crate::fix_words::{pick, t, FixText};
use crate::Language::*;

/// A `kernel_launch` finding's title.
pub fn title(c: &KernelLaunch, l: Language) -> String {
    let (en, zh) = match c {
        // Part of the wait is the host's own work that launches nothing: not overhead alone.
        KernelLaunch::TinyKernels {
            launchless: Some(_),
            ..
        } => (
            "The GPU waits for the host between launches",
            "GPU 在两次发射之间等待主机",
        ),
        KernelLaunch::TinyKernels { .. } => (
            "Kernel launch overhead: many tiny kernels",
            "内核启动开销：大量微小内核",
        ),
        KernelLaunch::CpuContention { .. } => (
            "Kernel launches wait for CPU: other processes saturate the host",
            "内核发射在等待 CPU：其他进程占满了主机",
        ),
        KernelLaunch::SynchronousLaunches { .. } => (
            "Synchronous launches: CUDA_LAUNCH_BLOCKING=1",
            "内核同步发射：设置了 CUDA_LAUNCH_BLOCKING=1",
        ),
        KernelLaunch::AnomalyDetection { .. } => (
            "Anomaly detection left on: the host waits for every operation",
            "异常检测未关闭：主机逐个操作等待 GPU",
        ),
        KernelLaunch::InterpreterHeld { .. } => (
            "Another thread holds Python's interpreter lock",
            "另一个线程占着 Python 解释器锁",
        ),
    };
    match l {
        En => en.into(),
        Zh => zh.into(),
    }
}

/// A `kernel_launch` finding's summary: what was measured, in a sentence or two.
pub fn summary(c: &KernelLaunch, l: Language) -> String {
    match (c, l) {
        (KernelLaunch::TinyKernels { kernels_per_step, median_kernel_us, launchless: Some(w), .. }, En) => format!(
            "The GPU waits for the host to launch its work: {kernels_per_step:.0} kernels per step with a median of {median_kernel_us:.1} µs each, and {} ms of each step ({}%) in which the host made no CUDA call for a millisecond or more, running work that launches nothing (a file written, Python over data on the CPU, a wait for a lock), which compiling the model leaves as it is.",
            crate::fixed(w.ms_per_step, 1), crate::pct(w.share)
        ),
        (KernelLaunch::TinyKernels { kernels_per_step, median_kernel_us, launchless: Some(w), .. }, Zh) => format!(
            "GPU 在等待主机发射工作：每步 {kernels_per_step:.0} 个内核，中位时长 {median_kernel_us:.1} µs；另有每步 {} ms（{}%）主机连续一毫秒以上没有任何 CUDA 调用，在运行不发射内核的工作（写文件、在 CPU 上用 Python 处理数据、等待锁），编译模型不会改变这部分。",
            crate::fixed(w.ms_per_step, 1), crate::pct(w.share)
        ),
        (KernelLaunch::TinyKernels { kernels_per_step, median_kernel_us, .. }, En) => format!(
            "The host cannot launch kernels as fast as the GPU runs them: {kernels_per_step:.0} kernels per step with a median of {median_kernel_us:.1} µs each, so the GPU mostly waits for the next launch."
        ),
        (KernelLaunch::TinyKernels { kernels_per_step, median_kernel_us, .. }, Zh) => format!(
            "主机发射内核的速度跟不上 GPU 执行的速度：每步 {kernels_per_step:.0} 个内核，中位时长 {median_kernel_us:.1} µs，GPU 大部分时间在等待下一次发射。"
        ),
        (KernelLaunch::CpuContention { host_cpu_pct, training_cores }, En) => format!(
            "Processes outside the training keep the host CPU saturated ({host_cpu_pct:.0}% of all cores; the training's processes get {training_cores:.1} cores): the training loop launches its kernels late and the GPU waits for them."
        ),
        (KernelLaunch::CpuContention { host_cpu_pct, training_cores }, Zh) => format!(
            "训练之外的进程让主机 CPU 保持饱和（全部核心的 {host_cpu_pct:.0}%；训练自身的进程只得到 {training_cores:.1} 个核心）：训练循环发射内核变晚，GPU 在等待它们。"
        ),
        (KernelLaunch::SynchronousLaunches { step_ms, gpu_busy_ms, host_ms }, En) => format!(
            "The training runs with CUDA_LAUNCH_BLOCKING=1 in its environment, a setting for debugging CUDA errors: each kernel launch returns only once its kernel has finished, so the host and the GPU take turns. {} ms of host work and {} ms of GPU work per step add up to the {} ms step instead of overlapping.",
            crate::fixed(*host_ms, 1), crate::fixed(*gpu_busy_ms, 1), crate::fixed(*step_ms, 1)
        ),
        (KernelLaunch::SynchronousLaunches { step_ms, gpu_busy_ms, host_ms }, Zh) => format!(
            "训练的环境中设置了 CUDA_LAUNCH_BLOCKING=1，这是用来调试 CUDA 错误的设置：每次内核发射都要等该内核执行完才返回，主机和 GPU 只能轮流工作。每步 {} ms 的主机工作和 {} ms 的 GPU 工作相加成了 {} ms 的步骤，而没有重叠。",
            crate::fixed(*host_ms, 1), crate::fixed(*gpu_busy_ms, 1), crate::fixed(*step_ms, 1)
        ),
        (KernelLaunch::AnomalyDetection { step_ms, gpu_busy_ms, host_ms, check_nan }, En) => format!(
            "The training runs with autograd's anomaly detection on (torch.autograd.set_detect_anomaly(True) or a detect_anomaly() block), a setting for finding which operation made a NaN: every forward operation keeps its Python traceback{}. {} ms of host work and {} ms of GPU work per step make the {} ms step; without the setting they overlap, and the host's part shrinks too.",
            if *check_nan { ", and every backward operation checks its output for NaN, reading the answer back from the GPU, so the host waits for the GPU operation by operation" } else { "" },
            crate::fixed(*host_ms, 1), crate::fixed(*gpu_busy_ms, 1), crate::fixed(*step_ms, 1)
        ),
        (KernelLaunch::AnomalyDetection { step_ms, gpu_busy_ms, host_ms, check_nan }, Zh) => format!(
            "训练开启了 autograd 的异常检测（torch.autograd.set_detect_anomaly(True) 或 detect_anomaly() 代码块），这是用来查找哪个操作产生 NaN 的设置：每个前向操作都要保存自己的 Python 调用栈{}。每步 {} ms 的主机工作和 {} ms 的 GPU 工作构成了 {} ms 的步骤；关闭该设置后两者可以重叠，主机部分也会变短。",
            if *check_nan { "，每个反向操作还要检查输出是否含 NaN，并把结果从 GPU 读回，主机因此逐个操作等待 GPU" } else { "" },
            crate::fixed(*host_ms, 1), crate::fixed(*gpu_busy_ms, 1), crate::fixed(*step_ms, 1)
        ),
        (KernelLaunch::InterpreterHeld { host_ms_per_kernel, process_cpu_pct, .. }, En) => format!(
            "The training thread takes {} ms of host time per kernel it launches, where launching costs a few microseconds, while its process keeps {} % of a core busy and the GPU idles: another thread of the process holds Python's interpreter lock, and the training thread waits for it between its operations. Long calls into C (sorted, sum, json.dumps of a large object) hold the lock from start to end. Compiling the model would not help.",
            crate::format_number(*host_ms_per_kernel), crate::format_number(*process_cpu_pct)
        ),
        (KernelLaunch::InterpreterHeld { host_ms_per_kernel, process_cpu_pct, .. }, Zh) => format!(
            "训练线程每发射一个内核要花 {} ms 的主机时间，而发射本身只需几微秒；同时它的进程占满 {}% 个核心，GPU 却在空闲：进程中的另一个线程占着 Python 解释器锁，训练线程在每两个操作之间都要等它。长时间的 C 调用（sorted、sum、对大对象的 json.dumps）从头到尾都持有这把锁。编译模型无济于事。",
            crate::format_number(*host_ms_per_kernel), crate::format_number(*process_cpu_pct)
        ),
    }
}

/// What a `kernel_launch` evidence row measures.
pub fn evidence(k: &KernelLaunchEvidence, l: Language) -> String {
    let (en, zh) = match k {
        KernelLaunchEvidence::LaunchIdleShare => (
            "GPU idle waiting for the host to launch work (share of step)",
            "GPU 等待主机发射工作的空闲（占步骤比例）",
        ),
        KernelLaunchEvidence::KernelsPerStep => ("kernels per step", "每步内核数"),
        KernelLaunchEvidence::MedianKernel => ("median kernel duration", "内核时长中位数"),
        KernelLaunchEvidence::TinyKernelShare => {
            ("kernels shorter than 10 µs", "短于 10 µs 的内核")
        }
        KernelLaunchEvidence::UnprofiledStepTime => ("unprofiled step time", "未分析的步骤时间"),
        KernelLaunchEvidence::ProfiledStepTime => (
            "profiled step time (CPU side)",
            "分析期间的步骤时间（CPU 侧）",
        ),
        KernelLaunchEvidence::GpuUtil => (
            "GPU-Util (any kernel running)",
            "GPU-Util（有任一内核运行）",
        ),
        KernelLaunchEvidence::LaunchBlockingSet => (
            "CUDA_LAUNCH_BLOCKING=1 in the training's environment",
            "训练环境中设置了 CUDA_LAUNCH_BLOCKING=1",
        ),
        KernelLaunchEvidence::HostTurnPerStep => (
            "host time per step, outside the GPU work it waited for",
            "每步主机时间（不含等待 GPU 工作的时间）",
        ),
        KernelLaunchEvidence::AnomalyDetectionOn => (
            "autograd's anomaly detection on in the training",
            "训练中开启了 autograd 异常检测",
        ),
        KernelLaunchEvidence::HostTimePerKernel => (
            "host time in the model's calls per kernel launched",
            "模型调用中每发射一个内核的主机时间",
        ),
        KernelLaunchEvidence::LaunchlessHostPerStep => (
            "GPU idle per step while the host made no CUDA call for 1 ms or more",
            "每步 GPU 空闲且主机连续 1 ms 以上没有 CUDA 调用的时间",
        ),
    };
    match l {
        En => en.into(),
        Zh => zh.into(),
    }
}

/// A `kernel_launch` fix in words.
pub fn fix(f: &KernelLaunchFix, l: Language) -> FixText {
    match (f, l) {
        (KernelLaunchFix::DisableAnomalyDetection, _) => t(
            pick(l, "Turn anomaly detection off", "关闭异常检测"),
            pick(l, "Anomaly detection is for finding the operation that produced a NaN or an infinity; left on, it costs every step. Remove torch.autograd.set_detect_anomaly(True), or the with torch.autograd.detect_anomaly(): block, from the training (keep it behind a flag for debugging). To notice a bad loss without it, check the loss on the steps you log.", "异常检测用于找出产生 NaN 或无穷大的那个操作；一直开着，每一步都要付出代价。请从训练中删除 torch.autograd.set_detect_anomaly(True) 或 with torch.autograd.detect_anomaly(): 代码块（可以放在调试开关后面）。不开它也能发现异常的损失：在记录日志的步骤上检查损失即可。"),
            Some(&format!(
                "# {}
torch.autograd.set_detect_anomaly(args.debug_anomaly)  # {}
...
if step % log_every == 0 and not torch.isfinite(loss):
    raise RuntimeError(f\"loss is {{loss.item()}} at step {{step}}\")",
                pick(l, "off unless asked for", "除非明确要求，否则关闭"),
                pick(l, "False by default", "默认 False")
            )),
            pick(l, "The host queues operations ahead of the GPU again and stops keeping a traceback for each: the step falls to at most the larger of the host's time and the GPU's.", "主机重新提前为 GPU 排队操作，也不再为每个操作保存调用栈：步骤时间至多降到主机时间与 GPU 时间中较大的那个。"),
        ),
        (KernelLaunchFix::UnsetLaunchBlocking, _) => t(
            pick(l, "Unset CUDA_LAUNCH_BLOCKING", "取消 CUDA_LAUNCH_BLOCKING"),
            pick(l, "CUDA_LAUNCH_BLOCKING=1 is for finding which kernel raised a CUDA error; it takes away all overlap between the host and the GPU. Remove it wherever it is set (the shell's profile, the job script, the launcher, a notebook's environment) and set it again only while chasing an error. The training's code stays as it is.", "CUDA_LAUNCH_BLOCKING=1 用于查找是哪个内核引发了 CUDA 错误；它使主机和 GPU 完全无法重叠。请在设置它的地方（shell 配置、作业脚本、启动器、notebook 的环境）把它去掉，只在排查错误时再临时设置。训练代码无需改动。"),
            Some(&format!(
                "unset CUDA_LAUNCH_BLOCKING  # {}\npython train.py",
                pick(l, "then start the training as before", "然后照常启动训练")
            )),
            pick(l, "The host queues kernels ahead of the GPU again: the step falls to the larger of the host's time and the GPU's.", "主机重新提前为 GPU 排队内核：步骤时间降到主机时间与 GPU 时间中较大的那个。"),
        ),
        (KernelLaunchFix::FreeInterpreter, _) => t(
            pick(l, "Move the other thread's work into a process of its own", "把另一个线程的工作移到单独的进程中"),
            pick(l, "A thread beside the training loop (a reporter, a watcher, a metrics or logging thread) runs its Python in the training's process and holds the interpreter lock while it computes; in a process of its own it runs beside the training instead of in its way. If it must stay a thread, give it its work in small pieces with a pause between them.", "训练循环旁边的线程（汇报、监控、指标或日志线程）在训练进程中运行 Python，计算时一直持有解释器锁；放到单独的进程里，它就能与训练并行而不挡路。如果必须保留为线程，就把它的工作分成小块，并在块之间暂停。"),
            Some(&format!(
                "import multiprocessing as mp\n# {}\nreporter = mp.Process(target=report_loop, args=(queue,), daemon=True)\nreporter.start()  # {}",
                pick(l, "the thread's function, now in its own process; send it data through a queue", "原线程的函数，现在运行在单独的进程中；通过队列给它传数据"),
                pick(l, "was: threading.Thread(target=report_loop, ...).start()", "原来是：threading.Thread(target=report_loop, ...).start()")
            )),
            pick(l, "The training thread launches at full speed again: the step falls towards the GPU's own time.", "训练线程重新全速发射：步骤时间降到接近 GPU 自身的时间。"),
        ),
        (KernelLaunchFix::HostWorkOffStep, _) => t(
            pick(l, "Take the host's work that launches nothing out of the step", "把不发射内核的主机工作移出训练步"),
            pick(l, "Between launches the training thread runs work that starts nothing on the GPU (the finding names its busiest lines when the probe sampled them): a file opened or written every step, Python over data on the CPU, a wait for a lock. Every launch after it waits, and compiling the model does not remove it. Do it every N steps, hand it to a background thread or process, or move data preparation into the DataLoader's workers.", "训练线程在两次发射之间运行不会在 GPU 上启动任何工作的代码（探针采样到时，发现会列出最忙的代码行）：每步打开或写入文件、在 CPU 上用 Python 处理数据、等待锁。之后的每次发射都要等它，编译模型也去不掉它。请每 N 步做一次、交给后台线程或进程，或把数据准备移到 DataLoader 的 worker 中。"),
            // The work is the run's own code, named by the hot lines: no snippet to paste.
            None,
            pick(l, "The launches follow each other again: the step loses the time that work held them.", "发射重新连续进行：步骤省下这部分工作拖住发射的时间。"),
        ),
        (KernelLaunchFix::CompileFuseKernels, _) => t(
            pick(l, "Compile the model to fuse small kernels", "编译模型以融合小内核"),
            pick(l, "torch.compile fuses chains of small elementwise ops into a few kernels; mode=\"reduce-overhead\" also captures CUDA graphs, launching a whole step with one call.", "torch.compile 把一串小的逐元素操作融合成少数几个内核；mode=\"reduce-overhead\" 还会捕获 CUDA Graph，一次调用发射整步。"),
            Some("model = torch.compile(model, mode=\"reduce-overhead\")"),
            pick(l, "Kernels per step drop by several times and launch overhead mostly disappears.", "每步内核数下降数倍，启动开销基本消失。"),
        ),
        (KernelLaunchFix::ReduceOverhead { current_mode }, _) => t(
            pick(l, "Capture the compiled model in CUDA graphs", "把编译后的模型捕获为 CUDA Graph"),
            &match l {
                // The mode is known when the probe saw the compile call; a trace shows only
                // that the model is compiled.
                En => format!("The model is already compiled{}, yet the GPU still waits for launches. mode=\"reduce-overhead\" replays each step as a CUDA graph: one launch instead of hundreds. It needs static shapes; keep the batch size fixed (drop_last=True).", current_mode.as_deref().map(|m| format!(" (mode {m})")).unwrap_or_default()),
                Zh => format!("模型已经编译过{}，但 GPU 仍在等待内核发射。mode=\"reduce-overhead\" 把每步作为 CUDA Graph 重放：一次发射代替数百次。它要求形状固定；请保持批次大小不变（drop_last=True）。", current_mode.as_deref().map(|m| format!("（mode {m}）")).unwrap_or_default()),
            },
            Some("model = torch.compile(model, mode=\"reduce-overhead\")"),
            pick(l, "Launch overhead per step drops to a few graph launches.", "每步的发射开销降到几次图发射。"),
        ),
        (KernelLaunchFix::ForeachOptimizer { class }, _) => t(
            pick(l, "Use fused or foreach optimizers", "使用 fused 或 foreach 优化器"),
            pick(l, "A per-parameter optimizer launches several kernels per parameter tensor; foreach/fused versions update all parameters in a handful of kernels.", "逐参数的优化器对每个参数张量发射多个内核；foreach/fused 版本用少数几个内核更新全部参数。"),
            Some(&match class.as_deref() {
                Some(c) if checkup_model::optimizer_supports_fused(c) => format!(
                    "opt = torch.optim.{c}(model.parameters(), lr=lr, fused=True)  # {}",
                    pick(l, "or foreach=True", "或 foreach=True")
                ),
                Some(c) => format!("opt = torch.optim.{c}(model.parameters(), lr=lr, foreach=True)"),
                None => format!(
                    "opt = torch.optim.AdamW(model.parameters(), lr=lr, fused=True)  # {}",
                    pick(l, "or foreach=True; keep your optimizer's class", "或 foreach=True；保留你原来的优化器类")
                ),
            }),
            pick(l, "Optimizer step goes from hundreds of launches to a few.", "优化器步骤从数百次发射降到几次。"),
        ),
        (KernelLaunchFix::BiggerKernels, _) => t(
            pick(l, "Give each kernel more work", "让每个内核做更多工作"),
            pick(l, "A larger batch (or gradient accumulation to keep the effective batch) makes each kernel longer, so launch cost becomes a smaller share.", "更大的批次（或用梯度累积保持等效批次）让每个内核运行更久，启动开销占比随之变小。"),
            Some(&format!(
                "# {}\nbatch_size = 4 * batch_size",
                pick(l, "e.g. 4x the batch, same effective optimisation with lr scaling or accumulation", "例如批次扩大 4 倍，用学习率缩放或梯度累积保持同样的优化效果")
            )),
            pick(l, "Throughput rises nearly linearly with batch size while launch-bound.", "在启动瓶颈下，吞吐量几乎随批次线性增长。"),
        ),
    }
}
