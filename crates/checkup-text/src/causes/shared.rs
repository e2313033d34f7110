//! Words for what several families measure and propose: the host's CPU, the GPU's busy
//! share at unprofiled speed, host memory growth; the investigations and the
//! host-contention fixes.

use checkup_model::{HostLine, Language, SharedEvidence, SharedFix, ThreadRole};

use crate::fix_words::{pick, t, FixText};
use crate::Language::*;

/// What a `shared` evidence row measures.
pub fn evidence(k: &SharedEvidence, l: Language) -> String {
    let (en, zh) = match k {
        SharedEvidence::HostCpu => ("host CPU use, all cores", "主机 CPU 使用率（全部核心）"),
        SharedEvidence::TrainingTreeCpu => (
            "training process tree CPU (100 = one core)",
            "训练进程树 CPU（100 = 1 核）",
        ),
        SharedEvidence::TrainingProcessCpu => (
            "training process CPU (100 = one core)",
            "训练进程 CPU（100 = 1 核）",
        ),
        SharedEvidence::UnprofiledBusyShare => (
            "GPU busy share of a step at unprofiled speed",
            "未分析速度下 GPU 忙碌占步骤比例",
        ),
        SharedEvidence::SmActive => ("SM active (GPM)", "SM 活跃（GPM）"),
        SharedEvidence::HostRssGrowth => (
            "growth of the training processes' host memory",
            "训练进程主机内存的增长",
        ),
    };
    match l {
        En => en.into(),
        Zh => zh.into(),
    }
}

/// A `shared` fix in words.
pub fn fix(f: &SharedFix, l: Language) -> FixText {
    match (f, l) {
        (SharedFix::FindCpuHogs, _) => t(
            pick(l, "Find what else keeps the CPU busy", "找出还有什么在占用 CPU"),
            pick(l, "Processes outside the training hold the host's cores, so the training loop gets CPU time late and so do its kernel launches. List the processes by CPU use and stop, move or limit the ones that are not yours to run here; on a shared host, ask for cores of your own.", "训练之外的进程占着主机的核心，训练循环拿到 CPU 时间就晚，内核发射也跟着晚。按 CPU 使用率列出进程，停止、迁移或限制那些不该在这里运行的；在共享主机上，申请专属的核心。"),
            Some("ps -eo pid,user,pcpu,etime,comm --sort=-pcpu | head -20"),
            pick(l, "The training and its workers get their CPU time back: launches and batches stop waiting for it.", "训练及其 worker 重新得到 CPU 时间：内核发射和批次都不再为它等待。"),
        ),
        (SharedFix::ReserveCores, _) => t(
            pick(l, "Give the training cores of its own", "给训练分配专属核心"),
            pick(l, "Pin the training (and its DataLoader workers) to cores the other load does not use, or lower the other processes' priority.", "把训练（及其 DataLoader worker）绑定到其他负载不用的核心上，或降低其他进程的优先级。"),
            Some(&format!(
                "taskset -c 0-7 python train.py            # {}\nrenice -n 19 -p PID_OF_THE_OTHER_LOAD      # {}",
                pick(l, "the training on cores 0-7", "训练运行在核心 0-7 上"),
                pick(l, "the other load yields", "其他负载让出 CPU")
            )),
            pick(l, "The training loop is scheduled at once again, however busy the rest of the host is.", "无论主机其他部分多忙，训练循环都能立即得到调度。"),
        ),
        (SharedFix::ProfileSteps, _) => t(
            pick(l, "Profile a few training steps", "分析几个训练步骤"),
            pick(l, "A trace and step timings tell waiting for data, launch overhead and synchronisation apart. The agent records both without code changes.", "trace 和步骤计时可以区分等待数据、发射开销和同步。agent 无需改代码即可记录两者。"),
            Some("checkup-agent run --profile-steps 8 -- python train.py"),
            pick(l, "The next checkup names the cause and its fix.", "下一次体检会指出原因和修复方法。"),
        ),
        (SharedFix::StopTrainingProfiler, _) => t(
            pick(l, "Stop the training's own profiler", "停掉训练自己的性能分析器"),
            pick(l, "A torch.profiler of the training's own was recording when the checkup looked. Without a schedule it records every operator and kernel of every step, which adds host time to each, and it kept the checkup from taking its own trace: one profiler runs at a time. Take it out of the loop, or give it a schedule that records a few steps, then run the checkup again.", "体检查看时，训练自己的 torch.profiler 正在记录。没有 schedule 时它会记录每一步的每个算子和内核，给每一步都增加主机时间；它也使体检无法记录自己的跟踪：同一时间只能运行一个分析器。把它移出训练循环，或给它一个只记录几步的 schedule，然后再做一次体检。"),
            Some(&format!(
                "# {}
with torch.profiler.profile(..., schedule=torch.profiler.schedule(wait=10, warmup=2, active=5, repeat=1)) as prof:
    for batch in loader:
        ...
        prof.step()   # {}",
                pick(l, "or remove the profiler: a schedule records steps 13-17 only", "或删除分析器：加上 schedule 后只记录第 13-17 步"),
                pick(l, "tells the schedule a step ended", "告诉 schedule 一步结束了")
            )),
            pick(l, "The steps lose the profiler's cost, and the next checkup traces the run and names what is left.", "各步骤不再承担分析器的开销，下一次体检能记录跟踪并指出剩下的问题。"),
        ),
        (SharedFix::MainThreadCpu, _) => t(
            pick(l, "Look at the training loop's own CPU work", "检查训练循环自身的 CPU 工作"),
            pick(l, "The training processes keep about one CPU core busy: the main Python thread is running flat out. Data preparation in the main process (num_workers=0), per-step Python work or many small kernel launches are the usual suspects; the profile says which before anything is changed.", "训练进程大约占满一个 CPU 核心：Python 主线程在全速运行。常见原因是在主进程里准备数据（num_workers=0）、每步的 Python 工作，或大量小内核的发射；改动之前先由性能分析确定是哪一个。"),
            // Samples do not hold the loader's settings: no line to paste that could repeat
            // or contradict what the run already does.
            None,
            pick(l, "The GPU gets work as fast as it can take it.", "GPU 能以它能接受的速度拿到工作。"),
        ),
    }
}

/// Where a host-bound finding's time goes, from the probe's hot-line samples: whose CPU,
/// how much of a core, and the share of it at each line. Empty without lines.
pub fn hot_lines(lines: &[HostLine], l: Language) -> String {
    let Some(first) = lines.first() else {
        return String::new();
    };
    // A thread that mostly waits uses hundredths of a core: "0.0" would read as none.
    let cores = crate::fixed(
        first.thread_cores,
        if first.thread_cores < 0.095 { 2 } else { 1 },
    );
    let whose = match (first.role, l) {
        (ThreadRole::LoaderWorker, En) => format!(
            "The {} DataLoader workers used {cores} cores together",
            first.processes
        ),
        (ThreadRole::LoaderWorker, Zh) => format!(
            "{} 个 DataLoader worker 合计使用了 {cores} 个核心",
            first.processes
        ),
        (ThreadRole::Thread, En) => format!("The thread {} used {cores} of a core", first.thread),
        (ThreadRole::Thread, Zh) => format!("线程 {} 使用了 {cores} 个核心", first.thread),
        (_, En) => format!("The training thread used {cores} of a core"),
        (_, Zh) => format!("训练线程使用了 {cores} 个核心"),
    };
    let at: Vec<String> = lines
        .iter()
        .map(|h| {
            let share = crate::pct(h.share_of_thread);
            let line = &h.line;
            let inside = if line.file.is_empty() || line.inside.is_empty() {
                String::new()
            } else {
                match l {
                    En => format!(", inside {}", line.inside),
                    Zh => format!("，位于 {} 内", line.inside),
                }
            };
            let code = if line.code.is_empty() {
                String::new()
            } else {
                format!(" {}", crate::code(&line.code))
            };
            match (l, line.file.is_empty()) {
                (En, false) => format!(
                    "{share}% at {} in {}(){code}{inside}",
                    line.location(),
                    line.function
                ),
                (Zh, false) => format!(
                    "{share}% 在 {} 的 {}() 中{code}{inside}",
                    line.location(),
                    line.function
                ),
                (En, true) => format!("{share}% in library code ({})", line.location()),
                (Zh, true) => format!("{share}% 在库代码中（{}）", line.location()),
            }
        })
        .collect();
    match l {
        En => format!(" {whose}: {}.", at.join("; ")),
        Zh => format!("{whose}：{}。", at.join("；")),
    }
}
