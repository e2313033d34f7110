//! Findings from an [`Analysis`]: each rule measures how much step time one cause explains,
//! with its evidence and fixes; the primary finding is the one that explains the most lost
//! time.

pub mod environment;
pub mod fixes;
pub mod thresholds;

use checkup_model::{
    ids, CheckStatus, Comparison, Diagnosis, Evidence, Finding, RankSummary, RunFacts, SampleStats,
    Scaling, Severity, StepTiming, Threshold,
};

use crate::analysis::Analysis;
use thresholds::Thresholds;

/// Fewer whole steps than this in a trace's steady window make its shares anecdotal.
const MIN_TRACE_STEPS: usize = 3;

/// Families that are lost time: the GPU waits, or runs slower than it could.
const LOST_TIME: [&str; 8] = [
    ids::DATA_LOADING,
    ids::H2D_COPY,
    ids::HOST_SYNC,
    ids::KERNEL_LAUNCH,
    ids::COMMUNICATION,
    ids::PERIODIC_STALL,
    ids::THROTTLING,
    ids::GPU_IDLE,
];

struct Ctx<'a> {
    th: &'a Thresholds,
    facts: &'a RunFacts,
    a: &'a Analysis,
    /// The rank whose cause is diagnosed (the slowest on multi-GPU runs).
    rank: Option<&'a RankSummary>,
    timing: Option<&'a StepTiming>,
    gpu: Option<&'a SampleStats>,
    notes: Vec<String>,
}

impl Ctx<'_> {
    fn share_of_window(&self, us: f64) -> Option<f64> {
        self.rank
            .filter(|r| r.gpu.window_us > 0.0)
            .map(|r| us / r.gpu.window_us)
    }

    fn rank_source(&self) -> String {
        self.rank
            .map_or_else(|| "trace".into(), |r| format!("trace, rank {}", r.rank))
    }

    /// Share of the step the GPU is busy at unprofiled speed: busy time per step from the
    /// trace over the step time of unprofiled steps. Falls back to the trace alone, then to
    /// sampled util.
    fn gpu_busy(&self) -> Option<(f64, &'static str)> {
        if let (Some(r), Some(t)) = (self.rank, self.timing) {
            if r.gpu_busy_per_step_us > 0.0 && t.mean_step_ms > 0.0 {
                return Some((
                    (r.gpu_busy_per_step_us / (t.mean_step_ms * 1e3)).min(1.0),
                    "trace busy time per step ÷ unprofiled step time",
                ));
            }
        }
        if let Some(r) = self.rank.filter(|r| r.gpu.window_us > 0.0) {
            let busy = r.gpu.window_us - r.gpu.idle_us;
            return Some((busy / r.gpu.window_us, "profiled window"));
        }
        // GPU-Util is the share of time a kernel runs, which is what busy means here; SM
        // active (GPM) stays under 100 % on a fully fed GPU whose kernels leave SMs empty.
        self.gpu
            .and_then(|g| {
                g.util_gpu_mean
                    .map(|u| (u, "sampled GPU-Util (share of time a kernel runs)"))
                    .or(g.sm_active_mean.map(|a| (a, "sampled SM activity (GPM)")))
            })
            .map(|(u, how)| (u / 100.0, how))
    }
}

fn ev(
    metric: &str,
    value: f64,
    unit: &str,
    threshold: Option<(Comparison, f64)>,
    source: &str,
) -> Evidence {
    Evidence {
        metric: metric.into(),
        value: (value * 1000.0).round() / 1000.0,
        unit: unit.into(),
        threshold: threshold.map(|(comparison, value)| Threshold { comparison, value }),
        source: source.into(),
    }
}

fn severity(share: f64, th: &Thresholds) -> Severity {
    if share >= 0.4 {
        Severity::Critical
    } else if share >= th.significant_share {
        Severity::Major
    } else if share >= th.reportable_share {
        Severity::Minor
    } else {
        Severity::Info
    }
}

pub fn diagnose(
    facts: RunFacts,
    a: Analysis,
    partner: Option<(&RunFacts, &Analysis, String)>,
    mut notes: Vec<String>,
    sources: Vec<String>,
    th: &Thresholds,
) -> Diagnosis {
    let environment = environment::environment_checks(&facts);
    let (diagnosed, straggler) = pick_rank(&a, th);
    let rank = diagnosed.and_then(|r| a.ranks.iter().find(|x| x.rank == r));
    let timing = a
        .step_timing
        .iter()
        .find(|t| Some(t.rank) == diagnosed)
        .or(a.step_timing.first());
    let gpu = a
        .samples
        .iter()
        .find(|s| Some(s.gpu) == diagnosed)
        .or(a.samples.first());
    let scaling = partner.and_then(|(pf, pa, name)| scaling(&facts, &a, pf, pa, name));
    let mut cx = Ctx {
        th,
        facts: &facts,
        a: &a,
        rank,
        timing,
        gpu,
        notes: Vec::new(),
    };

    let mut findings: Vec<Finding> = Vec::new();
    findings.extend(data_loading(&cx));
    findings.extend(h2d_copy(&cx));
    findings.extend(host_sync(&cx));
    findings.extend(kernel_launch(&mut cx));
    findings.extend(communication(
        &cx,
        &environment,
        scaling.as_ref(),
        straggler,
    ));
    findings.extend(periodic_stall(&cx));
    findings.extend(throttling(&cx));
    let unexplained = unexplained_idle(&cx, &findings);
    findings.extend(unexplained);
    findings.extend(gpu_busy_verdict(&cx));
    for c in environment
        .iter()
        .filter(|c| matches!(c.status, CheckStatus::Fail | CheckStatus::Warn))
    {
        if c.id == "nccl_p2p" {
            continue; // reported as communication/p2p_disabled
        }
        findings.push(Finding {
            id: format!("{}/{}", ids::ENVIRONMENT, c.id),
            title: c.title.clone(),
            severity: if c.status == CheckStatus::Fail {
                Severity::Major
            } else {
                Severity::Minor
            },
            confidence: 0.9,
            share: 0.0,
            summary: format!("{}: {}. {}", c.title, c.value, c.meaning),
            evidence: vec![ev(
                &c.id,
                if c.status == CheckStatus::Fail {
                    2.0
                } else {
                    1.0
                },
                "status (1 warn, 2 fail)",
                None,
                "static snapshot",
            )],
            fixes: fixes::environment(c.fix.as_deref()),
        });
    }
    notes.append(&mut cx.notes);
    for r in a.ranks.iter().filter(|r| r.steps.len() < MIN_TRACE_STEPS) {
        notes.push(format!(
            "The trace of rank {} holds only {} whole steady step(s): its shares are anecdotal; profile more steps (checkup-agent run --profile-steps 8, or a longer run)",
            r.rank,
            r.steps.len()
        ));
    }
    let findings = rank_findings(findings, th);
    let primary = findings
        .first()
        .map_or_else(|| ids::COMPUTE_BOUND.to_owned(), |f| f.id.clone());
    let verdict = findings
        .first()
        .map_or_else(|| "Not enough data for a verdict.".to_owned(), verdict);
    Diagnosis {
        primary,
        verdict,
        findings,
        window: a.window.clone(),
        environment,
        ranks: a.ranks.clone(),
        diagnosed_rank: diagnosed,
        step_timing: a.step_timing.clone(),
        samples: a.samples.clone(),
        host: a.host.clone(),
        scaling,
        notes,
        sources,
        charts: a.charts.clone(),
        facts,
    }
}

/// Orders findings: the lost-time finding with the largest share leads when it is
/// significant; otherwise the GPU-busy verdict (compute or memory bound) leads. Findings under
/// the reportable share are dropped, except environment failures and the verdict.
fn rank_findings(mut findings: Vec<Finding>, th: &Thresholds) -> Vec<Finding> {
    let family = |f: &Finding| f.family().to_owned();
    findings.retain(|f| {
        f.share >= th.reportable_share
            || f.family() == ids::ENVIRONMENT
            || f.family() == ids::COMPUTE_BOUND
            || f.family() == ids::MEMORY_BANDWIDTH
            || f.severity >= Severity::Minor
    });
    findings.sort_by(|a, b| b.share.total_cmp(&a.share));
    let lost = findings.iter().position(|f| {
        LOST_TIME.contains(&family(f).as_str())
            && f.share >= th.significant_share
            && !f.id.ends_with("/straggler")
    });
    let busy = findings
        .iter()
        .position(|f| matches!(f.family(), ids::COMPUTE_BOUND | ids::MEMORY_BANDWIDTH));
    if let Some(i) = lost.or(busy) {
        let lead = findings.remove(i);
        findings.insert(0, lead);
    }
    findings
}

fn verdict(f: &Finding) -> String {
    let first_fix = f
        .fixes
        .first()
        .map(|x| format!(" First fix to try: {}.", lowercase_first(&x.title)))
        .unwrap_or_default();
    if matches!(f.family(), ids::COMPUTE_BOUND) {
        format!("{} — {}{}", f.title, f.summary, first_fix)
    } else {
        format!(
            "{}: {:.0}% of step time. {}{}",
            f.title,
            f.share * 100.0,
            f.summary,
            first_fix
        )
    }
}

/// On multi-GPU runs, the rank with the least exposed communication is the one the others
/// wait for: diagnose it. Returns it and, when others wait markedly longer, the waiting rank
/// with its extra share.
fn pick_rank(a: &Analysis, th: &Thresholds) -> (Option<u32>, Option<(u32, u32, f64)>) {
    let shares: Vec<(u32, f64)> = a
        .ranks
        .iter()
        .filter(|r| r.gpu.window_us > 0.0)
        .map(|r| (r.rank, r.gpu.exposed_comm_us / r.gpu.window_us))
        .collect();
    let Some(&slowest) = shares.iter().min_by(|x, y| x.1.total_cmp(&y.1)) else {
        return (
            a.ranks
                .first()
                .map(|r| r.rank)
                .or(a.step_timing.first().map(|t| t.rank)),
            None,
        );
    };
    let most = shares
        .iter()
        .max_by(|x, y| x.1.total_cmp(&y.1))
        .copied()
        .unwrap_or(slowest);
    let straggler = (most.1 - slowest.1 >= th.straggler_share).then_some((
        most.0,
        slowest.0,
        most.1 - slowest.1,
    ));
    (Some(slowest.0), straggler)
}

/// Whose processes hold the CPU of a saturated host.
#[derive(Clone, Copy, PartialEq)]
enum Whose {
    /// The training's own processes hold most of the busy CPU (its DataLoader workers).
    TheTraining,
    /// Other processes hold most of it (other jobs on a shared host).
    Others,
    /// The recording does not say (no CPU figure for the training's processes).
    Unknown,
}

/// A host CPU at or above the saturation threshold, with the figures a finding quotes.
#[derive(Clone, Copy)]
struct HostSaturation {
    whose: Whose,
    /// All cores, percent.
    total_pct: f64,
    /// The training's process tree, in cores.
    training_cores: f64,
}

fn host_saturation(cx: &Ctx) -> Option<HostSaturation> {
    let th = cx.th;
    let h = cx.a.host.as_ref()?;
    let total_pct = h
        .cpu_total_mean
        .filter(|c| *c >= th.host_cpu_saturated_pct)?;
    let used_cores = total_pct / 100.0 * h.cores as f64;
    let training_cores = h.proc_tree_cpu_mean.map(|t| t / 100.0);
    let whose = match training_cores {
        None => Whose::Unknown,
        Some(t) if t >= th.host_cpu_own_share * used_cores => Whose::TheTraining,
        Some(_) => Whose::Others,
    };
    Some(HostSaturation {
        whose,
        total_pct,
        training_cores: training_cores.unwrap_or(0.0),
    })
}

/// `title` with its first letter in lower case, to go on inside a sentence (acronyms such as
/// CPU and NCCL further on stay as they are).
fn lowercase_first(title: &str) -> String {
    let mut chars = title.chars();
    chars
        .next()
        .map(|c| c.to_lowercase().chain(chars).collect())
        .unwrap_or_default()
}

fn data_loading(cx: &Ctx) -> Option<Finding> {
    let th = cx.th;
    let trace_share = cx
        .rank
        .and_then(|r| cx.share_of_window(r.host_waits.dataloader_us));
    let steps_share = cx.timing.map(|t| t.data_wait_share).filter(|s| *s > 0.0);
    // The trace tells GPU idle time spent waiting for data; steps.csv tells host time blocked
    // on data, which may overlap GPU work still queued. Prefer the trace, unless its window
    // is too short to represent an input pipeline whose waits come in bursts.
    let short_window = cx.rank.is_some_and(|r| r.steps.len() < MIN_TRACE_STEPS);
    // Host time blocked on data overlaps GPU work still queued by at most the GPU's busy
    // time per step; the rest of it the GPU idled for data. That lower bound speaks for the
    // unprofiled steps when the profiled ones caught the input queue full (a prefetch
    // queue not yet drained, a burst).
    let steps_idle_share = steps_share
        .zip(cx.gpu_busy())
        .map(|(s, (busy, _))| s - busy)
        .filter(|s| *s > 0.0);
    let data_share = if short_window {
        steps_share.or(trace_share)
    } else {
        match (trace_share, steps_idle_share) {
            (Some(t), Some(s)) => Some(t.max(s)),
            (Some(t), None) => Some(t),
            (None, _) => steps_share,
        }
    };
    // When the pipeline's workers saturate the host, the main thread gets too little CPU
    // to launch kernels: the GPU's waits for launches are the pipeline's doing too.
    let saturation = host_saturation(cx);
    let whose = saturation.map(|s| s.whose);
    let starved_launch_share = if whose == Some(Whose::TheTraining) {
        cx.rank
            .and_then(|r| cx.share_of_window(r.host_waits.launch_us))
            .filter(|s| *s >= th.reportable_share)
    } else {
        None
    };
    if data_share.is_none() && starved_launch_share.is_none() {
        return None;
    }
    let mut share = data_share.unwrap_or(0.0) + starved_launch_share.unwrap_or(0.0);
    if starved_launch_share.is_some() {
        // The profiler slows the host side too: the GPU cannot wait longer than it idles
        // at unprofiled speed.
        if let Some((busy, _)) = cx.gpu_busy() {
            share = share.min(1.0 - busy);
        }
    }
    let share = share.min(1.0);
    if share < th.reportable_share {
        return None;
    }
    let host = cx.a.host.as_ref();
    let contended = whose == Some(Whose::Others);
    let mut evidence = Vec::new();
    if let Some(s) = trace_share {
        evidence.push(ev(
            "GPU idle while waiting for the DataLoader (share of step)",
            s * 100.0,
            "%",
            Some((Comparison::AtLeast, th.significant_share * 100.0)),
            &cx.rank_source(),
        ));
    }
    if let Some(s) = steps_idle_share.filter(|s| trace_share.is_some_and(|t| *s > t)) {
        evidence.push(ev(
            "GPU idle waiting for data in unprofiled steps, at least (share of step)",
            s * 100.0,
            "%",
            Some((Comparison::AtLeast, th.significant_share * 100.0)),
            "steps.csv data wait − GPU busy share",
        ));
    }
    if let Some(s) = starved_launch_share {
        evidence.push(ev(
            "GPU idle waiting for kernel launches, main thread short of CPU (share of step)",
            s * 100.0,
            "%",
            Some((Comparison::AtLeast, th.reportable_share * 100.0)),
            &cx.rank_source(),
        ));
    }
    if let Some(t) = cx.timing {
        evidence.push(ev(
            "mean data wait per step",
            t.data_wait_share * t.mean_step_ms,
            "ms",
            None,
            "steps.csv (unprofiled steps)",
        ));
        evidence.push(ev(
            "median data wait per step",
            t.median_data_wait_ms,
            "ms",
            None,
            "steps.csv (unprofiled steps)",
        ));
        evidence.push(ev(
            "data wait share of step time",
            t.data_wait_share * 100.0,
            "%",
            Some((Comparison::AtLeast, th.significant_share * 100.0)),
            "steps.csv (unprofiled steps)",
        ));
    }
    if let Some(u) = cx.gpu.and_then(|g| g.util_gpu_mean) {
        evidence.push(ev("mean GPU utilisation", u, "%", None, "NVML samples"));
    }
    if let Some(h) = host {
        if let Some(c) = h.cpu_total_mean {
            evidence.push(ev(
                "host CPU use, all cores",
                c,
                "%",
                Some((Comparison::AtLeast, th.host_cpu_saturated_pct)),
                "host samples",
            ));
        }
        if let Some(p) = h.proc_tree_cpu_mean {
            evidence.push(ev(
                "training process tree CPU (100 = one core)",
                p,
                "%",
                None,
                "host samples",
            ));
        }
    }
    let workers = cx.facts.dataloader.as_ref().and_then(|d| d.num_workers);
    if let Some(w) = workers {
        evidence.push(ev(
            "DataLoader num_workers",
            w as f64,
            "workers",
            None,
            "meta.json",
        ));
    }
    let summary = match (saturation, starved_launch_share) {
        (Some(s), Some(launch)) => format!(
            "The input pipeline saturates the host CPU ({:.0}% of all cores, {:.1} cores of it the training's own processes): the main thread, short of CPU, launches kernels late (the GPU waits {:.0}% of each step for them) and batches arrive late. More workers cannot help; each batch costs too much CPU.",
            s.total_pct,
            s.training_cores,
            launch * 100.0
        ),
        (Some(s), None) if s.whose == Whose::Others => format!(
            "The GPU waits for the input pipeline, and processes outside the training keep the host CPU saturated ({:.0}% of all cores; the training's processes get {:.1} cores): its workers run short of CPU and there is no idle core to add more.",
            s.total_pct, s.training_cores
        ),
        (Some(s), None) => format!("The GPU waits for the input pipeline and the host CPU is saturated ({:.0}%): more workers cannot help; each batch costs too much CPU.", s.total_pct),
        (None, _) => format!(
            "The GPU waits for the next batch: the input pipeline is slower than the GPU{}, while the host has idle cores.",
            cx.timing.map(|t| format!(" (on average {:.0} ms of a {:.0} ms step waiting for data)", t.data_wait_share * t.mean_step_ms, t.mean_step_ms)).unwrap_or_default()
        ),
    };
    Some(Finding {
        id: match whose {
            Some(Whose::Others) => format!("{}/cpu_contention", ids::DATA_LOADING),
            Some(_) => format!("{}/cpu_saturated", ids::DATA_LOADING),
            None => ids::DATA_LOADING.into(),
        },
        title: "Input pipeline (DataLoader) starves the GPU".into(),
        severity: severity(share, th),
        confidence: if trace_share.is_some() && steps_share.is_some() {
            0.9
        } else {
            0.7
        },
        share,
        summary,
        evidence,
        fixes: if contended {
            fixes::cpu_contention()
        } else {
            fixes::data_loading(
                cx.facts.dataloader.as_ref(),
                whose.is_some(),
                cx.facts.host_cpus,
            )
        },
    })
}

fn h2d_copy(cx: &Ctx) -> Option<Finding> {
    let r = cx.rank?;
    let share = cx.share_of_window(r.host_waits.exposed_h2d_us)?;
    if share < cx.th.reportable_share {
        return None;
    }
    let w = &r.host_waits;
    let pageable = w.pageable_h2d_us > w.pinned_h2d_us;
    let steps = r.steps.len().max(1) as f64;
    let mut evidence = vec![
        ev(
            "host-to-device copies not hidden by compute (share of step)",
            share * 100.0,
            "%",
            Some((Comparison::AtLeast, cx.th.significant_share * 100.0)),
            &cx.rank_source(),
        ),
        ev(
            "pageable host-to-device copy time per step",
            w.pageable_h2d_us / steps / 1e3,
            "ms",
            None,
            &cx.rank_source(),
        ),
        ev(
            "pinned host-to-device copy time per step",
            w.pinned_h2d_us / steps / 1e3,
            "ms",
            None,
            &cx.rank_source(),
        ),
    ];
    if w.pageable_h2d_us > 0.0 {
        evidence.push(ev(
            "pageable copy bandwidth",
            w.pageable_h2d_bytes as f64 / (w.pageable_h2d_us * 1e3),
            "GB/s",
            None,
            &cx.rank_source(),
        ));
        evidence.push(ev(
            "pageable bytes copied per step",
            w.pageable_h2d_bytes as f64 / steps / 1e6,
            "MB",
            None,
            &cx.rank_source(),
        ));
    }
    Some(Finding {
        id: if pageable {
            format!("{}/pageable", ids::H2D_COPY)
        } else {
            ids::H2D_COPY.into()
        },
        title: "Host-to-device copies stall the GPU".into(),
        severity: severity(share, cx.th),
        confidence: 0.9,
        share,
        summary: if pageable {
            "Batches are copied to the GPU from pageable host memory: each copy is slow, synchronous, and nothing computes meanwhile.".into()
        } else {
            "Host-to-device copies are not overlapped with compute.".into()
        },
        evidence,
        fixes: fixes::h2d_copy(pageable),
    })
}

/// Whether the host syncs every step yet could launch a step's work faster than the GPU runs
/// it: then every launch gap of the step follows from the sync draining the queue, and
/// would vanish without it (the host would run ahead).
fn sync_drains_queue(cx: &Ctx) -> bool {
    cx.rank.is_some_and(|r| {
        let w = &r.host_waits;
        w.sync_calls_per_step + w.item_calls_per_step >= cx.th.sync_calls_per_step
            && w.host_work_per_step_us > 0.0
            && w.host_work_per_step_us < r.gpu_busy_per_step_us
    })
}

fn host_sync(cx: &Ctx) -> Option<Finding> {
    let r = cx.rank?;
    let w = &r.host_waits;
    let drains = sync_drains_queue(cx);
    let share = cx.share_of_window(w.sync_us + if drains { w.launch_us } else { 0.0 })?;
    let many = w.sync_calls_per_step + w.item_calls_per_step >= cx.th.sync_calls_per_step;
    if share < cx.th.reportable_share && !(many && share > 0.01) {
        return None;
    }
    Some(Finding {
        id: ids::HOST_SYNC.into(),
        title: "Host synchronisation leaves the GPU idle".into(),
        severity: severity(share, cx.th),
        confidence: 0.8,
        share,
        summary: "The training loop waits for the GPU (loss.item(), .cpu(), explicit synchronize) and then the GPU waits while the host does CPU work before launching the next step.".into(),
        evidence: vec![
            ev("GPU idle after a host synchronisation (share of step)", share * 100.0, "%", Some((Comparison::AtLeast, cx.th.significant_share * 100.0)), &cx.rank_source()),
            ev("synchronising CUDA calls per step", w.sync_calls_per_step, "calls", Some((Comparison::AtLeast, cx.th.sync_calls_per_step)), &cx.rank_source()),
            ev("aten::item / _local_scalar_dense per step", w.item_calls_per_step, "calls", None, &cx.rank_source()),
            ev("host time to launch a step, outside syncs", w.host_work_per_step_us / 1e3, "ms", None, &cx.rank_source()),
            ev("GPU busy time per step", r.gpu_busy_per_step_us / 1e3, "ms", None, &cx.rank_source()),
        ],
        fixes: fixes::host_sync(),
    })
}

fn kernel_launch(cx: &mut Ctx) -> Option<Finding> {
    let r = cx.rank?;
    let th = cx.th;
    let trace_share = cx.share_of_window(r.host_waits.launch_us)?;
    // With the host saturated by the training's own workers, launches are late for want of
    // CPU, not because the kernels are tiny: the input pipeline finding carries that wait.
    let saturation = host_saturation(cx);
    if trace_share < th.reportable_share
        || sync_drains_queue(cx)
        || saturation.is_some_and(|s| s.whose == Whose::TheTraining)
    {
        return None;
    }
    let k = &r.kernels;
    let mut share = trace_share;
    let mut confidence = 0.8;
    let mut evidence = vec![
        ev(
            "GPU idle waiting for the host to launch work (share of step)",
            trace_share * 100.0,
            "%",
            Some((Comparison::AtLeast, th.significant_share * 100.0)),
            &cx.rank_source(),
        ),
        ev(
            "kernels per step",
            k.per_step,
            "kernels",
            None,
            &cx.rank_source(),
        ),
        ev(
            "median kernel duration",
            k.median_us,
            "µs",
            Some((Comparison::AtMost, th.tiny_kernel_us)),
            &cx.rank_source(),
        ),
        ev(
            "kernels shorter than 10 µs",
            k.share_under_10us * 100.0,
            "%",
            None,
            &cx.rank_source(),
        ),
    ];
    // The profiler slows the host side; check the claim against unprofiled steps.
    if let Some((busy, how)) = cx.gpu_busy() {
        evidence.push(ev(
            "GPU busy share of a step at unprofiled speed",
            busy * 100.0,
            "%",
            Some((Comparison::AtMost, th.gpu_busy_high * 100.0)),
            how,
        ));
        if busy >= th.gpu_busy_high {
            cx.notes.push(format!(
                "The profiled steps show the GPU waiting for kernel launches ({:.0}% of the step), but at unprofiled speed the GPU is busy {:.0}% of each step: that wait is profiler overhead, not a launch bottleneck.",
                trace_share * 100.0,
                busy * 100.0
            ));
            return None;
        }
        share = share.min(1.0 - busy);
        confidence = 0.9;
    }
    if let Some(t) = cx.timing {
        evidence.push(ev(
            "unprofiled step time",
            t.mean_step_ms,
            "ms",
            None,
            "steps.csv",
        ));
        evidence.push(ev(
            "profiled step time (CPU side)",
            r.profiled_step_us / 1e3,
            "ms",
            None,
            &cx.rank_source(),
        ));
    }
    if let Some(g) = cx.gpu {
        if let (Some(u), Some(sm)) = (g.util_gpu_mean, g.sm_active_mean) {
            evidence.push(ev(
                "GPU-Util (any kernel running)",
                u,
                "%",
                None,
                "NVML samples",
            ));
            evidence.push(ev("SM active (GPM)", sm, "%", None, "GPM samples"));
        }
    }
    if let Some(p) = cx.a.host.as_ref().and_then(|h| h.proc_tree_cpu_mean) {
        evidence.push(ev(
            "training process CPU (100 = one core)",
            p,
            "%",
            None,
            "host samples",
        ));
    }
    // Other jobs holding the host's cores delay the loop's launches whatever the kernels:
    // the cause to fix is the contention, not the kernel sizes.
    if let Some(s) = saturation.filter(|s| s.whose == Whose::Others) {
        evidence.push(ev(
            "host CPU use, all cores",
            s.total_pct,
            "%",
            Some((Comparison::AtLeast, th.host_cpu_saturated_pct)),
            "host samples",
        ));
        return Some(Finding {
            id: format!("{}/cpu_contention", ids::KERNEL_LAUNCH),
            title: "Kernel launches wait for CPU: other processes saturate the host".into(),
            severity: severity(share, th),
            confidence,
            share,
            summary: format!(
                "Processes outside the training keep the host CPU saturated ({:.0}% of all cores; the training's processes get {:.1} cores): the training loop launches its kernels late and the GPU waits for them.",
                s.total_pct, s.training_cores
            ),
            evidence,
            fixes: {
                // Fewer launches per step need less CPU time, which helps on a busy host too.
                let mut f = fixes::cpu_contention();
                f.extend(fixes::kernel_launch().into_iter().take(1));
                f
            },
        });
    }
    Some(Finding {
        id: ids::KERNEL_LAUNCH.into(),
        title: "Kernel launch overhead: many tiny kernels".into(),
        severity: severity(share, th),
        confidence,
        share,
        summary: format!(
            "The host cannot launch kernels as fast as the GPU runs them: {:.0} kernels per step with a median of {:.1} µs each, so the GPU mostly waits for the next launch.",
            k.per_step, k.median_us
        ),
        evidence,
        fixes: fixes::kernel_launch(),
    })
}

fn communication(
    cx: &Ctx,
    env: &[checkup_model::EnvCheck],
    scaling: Option<&Scaling>,
    straggler: Option<(u32, u32, f64)>,
) -> Vec<Finding> {
    let th = cx.th;
    let mut out = Vec::new();
    let p2p_disabled = env
        .iter()
        .any(|c| c.id == "nccl_p2p" && c.status == CheckStatus::Fail);
    let Some(r) = cx.rank.filter(|r| r.comm.nccl_kernels > 0) else {
        if p2p_disabled {
            out.push(p2p_finding(cx, 0.0, Vec::new()));
        }
        return out;
    };
    let share = cx.share_of_window(r.gpu.exposed_comm_us).unwrap_or(0.0);
    let mut evidence = vec![
        ev(
            "exposed communication on the slowest rank (share of step)",
            share * 100.0,
            "%",
            Some((Comparison::AtLeast, th.significant_share * 100.0)),
            &cx.rank_source(),
        ),
        ev(
            "communication hidden behind compute",
            r.comm.overlap_share * 100.0,
            "%",
            None,
            &cx.rank_source(),
        ),
        ev(
            "NCCL kernel time per step",
            r.comm.total_us / r.steps.len().max(1) as f64 / 1e3,
            "ms",
            None,
            &cx.rank_source(),
        ),
    ];
    for other in
        cx.a.ranks
            .iter()
            .filter(|o| o.rank != r.rank && o.gpu.window_us > 0.0)
    {
        evidence.push(ev(
            &format!("exposed communication, rank {}", other.rank),
            other.gpu.exposed_comm_us / other.gpu.window_us * 100.0,
            "%",
            None,
            &format!("trace, rank {}", other.rank),
        ));
    }
    if let Some(s) = scaling {
        evidence.push(ev(
            &format!("scaling efficiency, {} GPUs vs 1", s.gpus),
            s.efficiency * 100.0,
            "%",
            Some((Comparison::AtLeast, th.scaling_efficiency_ok * 100.0)),
            &format!("samples/s vs partner {}", s.partner),
        ));
        evidence.push(ev("speed-up over 1 GPU", s.speedup, "×", None, "samples/s"));
    }
    if let Some(nv) = cx
        .gpu
        .and_then(|g| g.nvlink_tx_mibs_mean)
        .filter(|v| *v > 0.0)
    {
        evidence.push(ev(
            "NVLink transmit",
            nv / 1024.0,
            "GiB/s",
            None,
            "GPM samples",
        ));
    }
    if p2p_disabled {
        out.push(p2p_finding(cx, share, evidence.clone()));
    } else if share >= th.reportable_share
        || scaling.is_some_and(|s| s.efficiency < th.scaling_efficiency_ok)
    {
        out.push(Finding {
            id: ids::COMMUNICATION.into(),
            title: "Gradient all-reduce is exposed".into(),
            severity: severity(share, th),
            confidence: if scaling.is_some() { 0.9 } else { 0.8 },
            share,
            summary: format!(
                "NCCL all-reduce runs while no compute runs for {:.0}% of the slowest rank's step: communication is not hidden behind backward{}.",
                share * 100.0,
                scaling.map(|s| format!(", and {} GPUs give {:.2}× one GPU ({:.0}% efficiency)", s.gpus, s.speedup, s.efficiency * 100.0)).unwrap_or_default()
            ),
            evidence,
            fixes: fixes::communication(false),
        });
    }
    if let Some((waiting, slow, extra)) = straggler {
        out.push(Finding {
            id: format!("{}/straggler", ids::COMMUNICATION),
            title: format!("Rank {waiting} waits for rank {slow}"),
            severity: Severity::Minor,
            confidence: 0.7,
            share: extra,
            summary: format!(
                "Rank {waiting} spends {:.0}% more of its step in NCCL than rank {slow}: that is waiting for rank {slow} to reach the all-reduce, not transfer time. The diagnosis follows rank {slow}.",
                extra * 100.0
            ),
            evidence: vec![ev("extra exposed communication on the waiting rank", extra * 100.0, "%", Some((Comparison::AtLeast, th.straggler_share * 100.0)), "traces of all ranks")],
            fixes: Vec::new(),
        });
    }
    out
}

fn p2p_finding(cx: &Ctx, share: f64, mut evidence: Vec<Evidence>) -> Finding {
    evidence.push(ev(
        "NCCL_P2P_DISABLE set while NVLink connects the GPUs",
        1.0,
        "flag",
        None,
        "meta.json env + topo.txt",
    ));
    Finding {
        id: format!("{}/p2p_disabled", ids::COMMUNICATION),
        title: "NCCL peer-to-peer is disabled although NVLink is present".into(),
        severity: Severity::Critical.max(severity(share, cx.th)),
        confidence: 0.95,
        share,
        summary:
            "NCCL_P2P_DISABLE forces all-reduce traffic through host memory instead of NVLink."
                .into(),
        evidence,
        fixes: fixes::communication(true),
    }
}

/// Share of stalls during which the GPU's sampled utilisation dropped below busy, or None
/// without samples. A long host-side step while the GPU stays busy is the host waiting for
/// the GPU (a sync draining a deep queue), not a stall. Readings up to
/// `util_report_lag_s` after the step count: the GPU idles at the end of a stalled step
/// (once its queue drains) and GPU-Util reports a sample period late.
fn stalls_seen_idle(cx: &Ctx, t: &StepTiming) -> Option<f64> {
    let g =
        cx.a.charts
            .gpus
            .iter()
            .find(|g| Some(g.gpu) == cx.rank.map(|r| r.rank))
            .or(cx.a.charts.gpus.first())?;
    let t0 = cx.a.charts.t0;
    let mut checked = 0;
    let mut idle = 0;
    for s in &t.stalls {
        let a = s.t_start - t0;
        let b = a + s.duration_ms / 1e3 + cx.th.util_report_lag_s;
        let inside: Vec<f32> =
            g.t.iter()
                .zip(&g.util_pct)
                .filter(|(ts, _)| **ts >= a && **ts <= b)
                .filter_map(|(_, u)| *u)
                .collect();
        if inside.is_empty() {
            continue;
        }
        checked += 1;
        if inside.iter().any(|u| (*u as f64) < cx.th.util_busy_pct) {
            idle += 1;
        }
    }
    (checked > 0).then(|| idle as f64 / checked as f64)
}

fn periodic_stall(cx: &Ctx) -> Option<Finding> {
    let t = cx.timing?;
    let period = t.stall_period_steps?;
    let seen_idle = stalls_seen_idle(cx, t);
    if seen_idle.is_some_and(|s| s < 0.5) {
        return None;
    }
    let total: f64 = t.mean_step_ms * t.steady_steps as f64;
    let excess: f64 = t.stalls.iter().map(|s| s.excess_ms).sum();
    let share = if total > 0.0 { excess / total } else { 0.0 };
    let median_excess =
        crate::analysis::stats::median(&t.stalls.iter().map(|s| s.excess_ms).collect::<Vec<_>>());
    let checkpoint_seen = cx.rank.is_some_and(|r| r.host_waits.checkpoint_us > 0.0);
    let mut evidence = vec![
        ev("stall period", period, "steps", None, "steps.csv"),
        ev(
            "typical stall length beyond a normal step",
            median_excess,
            "ms",
            Some((
                Comparison::AtLeast,
                (cx.th.stall_factor - 1.0) * t.median_step_ms,
            )),
            "steps.csv",
        ),
        ev(
            "stalls in the steady window",
            t.stalls.len() as f64,
            "stalls",
            Some((Comparison::AtLeast, cx.th.min_stalls as f64)),
            "steps.csv",
        ),
        ev(
            "time lost to stalls (share of run)",
            share * 100.0,
            "%",
            None,
            "steps.csv",
        ),
    ];
    if let Some(p) = cx.gpu.and_then(|g| g.dip_period_s) {
        evidence.push(ev(
            "GPU util dips to idle every",
            p,
            "s",
            None,
            "NVML samples",
        ));
    }
    if let Some(s) = seen_idle {
        evidence.push(ev(
            "stalls during which GPU-Util fell below busy",
            s * 100.0,
            "%",
            Some((Comparison::AtLeast, 50.0)),
            "NVML samples",
        ));
    }
    if let Some(w) =
        cx.a.host
            .as_ref()
            .and_then(|h| h.disk_write_mbs_max)
            .filter(|w| *w > 0.0)
    {
        evidence.push(ev("peak disk write rate", w, "MB/s", None, "host samples"));
    }
    Some(Finding {
        id: ids::PERIODIC_STALL.into(),
        title: "Periodic stalls".into(),
        severity: severity(share, cx.th),
        confidence: 0.85,
        share,
        summary: format!("Every {period:.0} steps a step takes about {median_excess:.0} ms longer than usual; during it the GPU has nothing to do."),
        evidence,
        fixes: fixes::periodic_stall(checkpoint_seen),
    })
}

fn throttling(cx: &Ctx) -> Option<Finding> {
    let g = cx.gpu?;
    let th = cx.th;
    let ratio = g
        .sm_clock_mean_mhz
        .zip(g.sm_clock_max_mhz)
        .filter(|(_, m)| *m > 0.0)
        .map(|(c, m)| c / m);
    let throttled = g.throttled_share >= th.throttled_share;
    let slow_clock = ratio.is_some_and(|r| r < th.sm_clock_low_ratio);
    if !throttled && !slow_clock {
        return None;
    }
    let busy = cx.gpu_busy().map_or(1.0, |b| b.0);
    let share = busy * (1.0 - ratio.unwrap_or(1.0)).max(0.0);
    let mut evidence = vec![ev(
        "busy samples with a throttling clock-event reason",
        g.throttled_share * 100.0,
        "%",
        Some((Comparison::AtLeast, th.throttled_share * 100.0)),
        "NVML samples",
    )];
    if let Some(r) = ratio {
        evidence.push(ev(
            "SM clock while busy, share of max",
            r * 100.0,
            "%",
            Some((Comparison::AtMost, th.sm_clock_low_ratio * 100.0)),
            "NVML samples",
        ));
    }
    if let (Some(p), Some(l)) = (g.power_w_mean, g.power_limit_w) {
        evidence.push(ev(
            "power draw, share of limit",
            p / l * 100.0,
            "%",
            None,
            "NVML samples",
        ));
    }
    if let Some(t) = g.temp_c_max {
        evidence.push(ev("peak GPU temperature", t, "°C", None, "NVML samples"));
    }
    let thermal = g.throttle_reasons.iter().any(|r| r.contains("thermal"));
    Some(Finding {
        id: if thermal {
            format!("{}/thermal", ids::THROTTLING)
        } else {
            format!("{}/power", ids::THROTTLING)
        },
        title: "GPU clocks are held down".into(),
        severity: severity(share, th).max(if throttled {
            Severity::Minor
        } else {
            Severity::Info
        }),
        confidence: if throttled && slow_clock { 0.9 } else { 0.6 },
        share,
        summary: format!(
            "The SM clock ran at {:.0}% of its maximum while busy{}.",
            ratio.unwrap_or(1.0) * 100.0,
            if g.throttle_reasons.is_empty() {
                String::new()
            } else {
                format!(" ({})", g.throttle_reasons.join(", "))
            }
        ),
        evidence,
        fixes: fixes::throttling(&g.throttle_reasons),
    })
}

/// The GPU's idle time that no lost-time finding accounts for, as a finding of its own when
/// it is significant. Without it a run recorded as samples only (live sampling, an attached
/// job) with the GPU 95 % idle would read "compute-bound": the verdict for a busy GPU.
fn unexplained_idle(cx: &Ctx, findings: &[Finding]) -> Option<Finding> {
    let th = cx.th;
    let (busy, how) = cx.gpu_busy()?;
    let explained: f64 = findings
        .iter()
        .filter(|f| LOST_TIME.contains(&f.family()) && f.family() != ids::THROTTLING)
        .map(|f| f.share)
        .sum();
    let idle = (1.0 - busy).max(0.0);
    let share = idle - explained;
    if busy >= th.gpu_busy_high || share < th.significant_share {
        return None;
    }
    let has_steps = cx.timing.is_some();
    let has_trace = cx.rank.is_some();
    let recorded = match (has_steps, has_trace) {
        (false, false) => "only GPU and host samples were recorded: no step timings, no trace",
        (true, false) => "step timings were recorded but no trace",
        (false, true) => "a trace was recorded but no step timings",
        (true, true) => "neither the step timings nor the trace account for it",
    };
    let mut evidence = vec![
        ev(
            "GPU busy share",
            busy * 100.0,
            "%",
            Some((Comparison::AtLeast, th.gpu_busy_high * 100.0)),
            how,
        ),
        ev(
            "GPU idle time no other finding explains",
            share * 100.0,
            "%",
            Some((Comparison::AtLeast, th.significant_share * 100.0)),
            "this diagnosis",
        ),
    ];
    let host = cx.a.host.as_ref();
    if let Some(c) = host.and_then(|h| h.cpu_total_mean) {
        evidence.push(ev("host CPU use, all cores", c, "%", None, "host samples"));
    }
    let tree = host.and_then(|h| h.proc_tree_cpu_mean);
    if let Some(t) = tree {
        evidence.push(ev(
            "training process tree CPU (100 = one core)",
            t,
            "%",
            None,
            "host samples",
        ));
    }
    Some(Finding {
        id: ids::GPU_IDLE.into(),
        title: "The GPU waits most of the time, and this recording cannot say for what".into(),
        severity: severity(share, th),
        // Sure that the GPU waits; the cause is unknown.
        confidence: 0.6,
        share,
        summary: format!(
            "The GPU is busy {:.0}% of the time; {recorded}. Profile a few training steps to see whether it waits for data, for kernel launches or for synchronisations.",
            busy * 100.0
        ),
        evidence,
        fixes: fixes::gpu_idle(tree),
    })
}

/// The GPU-busy verdict: compute-bound, or memory-bandwidth-bound when DRAM traffic (GPM) or
/// the kernel mix says the busy time is spent moving bytes.
fn gpu_busy_verdict(cx: &Ctx) -> Option<Finding> {
    let th = cx.th;
    let (busy, how) = cx.gpu_busy()?;
    let compute_share = cx
        .rank
        .and_then(|r| cx.share_of_window(r.gpu.compute_us))
        .unwrap_or(busy);
    let kernels = cx.rank.map(|r| &r.kernels);
    let gemm = kernels.map(|k| k.gemm_conv_time_share);
    let elementwise = kernels.map(|k| k.elementwise_time_share);
    let dram = cx.gpu.and_then(|g| g.dram_bw_mean);
    let tensor = cx.gpu.and_then(|g| g.tensor_active_mean);
    let gemm_dominant = gemm.is_some_and(|s| s >= th.gemm_dominant_share);
    let memory_bound = match dram {
        Some(d) => d >= th.dram_bw_memory_bound_pct,
        None => elementwise.is_some_and(|e| e >= th.elementwise_dominant_share),
    };
    let mut evidence = vec![ev(
        "GPU busy share of a step",
        busy * 100.0,
        "%",
        Some((Comparison::AtLeast, th.gpu_busy_high * 100.0)),
        how,
    )];
    if cx.rank.is_some() {
        evidence.push(ev(
            "compute kernels, share of step",
            compute_share * 100.0,
            "%",
            None,
            &cx.rank_source(),
        ));
    }
    if let Some(d) = dram {
        evidence.push(ev(
            "DRAM bandwidth utilisation (GPM)",
            d,
            "%",
            Some((Comparison::AtLeast, th.dram_bw_memory_bound_pct)),
            "GPM samples",
        ));
    }
    if let Some(t) = tensor {
        evidence.push(ev(
            "tensor-core activity (GPM)",
            t,
            "%",
            None,
            "GPM samples",
        ));
    }
    if let Some(s) = cx.gpu.and_then(|g| g.sm_active_mean) {
        evidence.push(ev("SM active (GPM)", s, "%", None, "GPM samples"));
    }
    if let Some(g) = gemm {
        evidence.push(ev(
            "matmul/convolution share of kernel time",
            g * 100.0,
            "%",
            Some((Comparison::AtLeast, th.gemm_dominant_share * 100.0)),
            &cx.rank_source(),
        ));
    }
    if let Some(e) = elementwise {
        evidence.push(ev(
            "elementwise/normalisation share of kernel time",
            e * 100.0,
            "%",
            Some((Comparison::AtLeast, th.elementwise_dominant_share * 100.0)),
            &cx.rank_source(),
        ));
    }
    let confidence = if busy >= th.gpu_busy_high { 0.85 } else { 0.5 };
    if memory_bound {
        return Some(Finding {
            id: ids::MEMORY_BANDWIDTH.into(),
            title: "Memory-bandwidth bound".into(),
            severity: if busy >= th.gpu_busy_high { Severity::Major } else { Severity::Minor },
            confidence: if dram.is_some() { confidence } else { confidence * 0.8 },
            share: compute_share,
            summary: format!(
                "The GPU is busy{}, but its kernels are limited by memory traffic rather than math{}: fewer passes over memory, not more FLOPs, will speed it up.",
                format_args!(" {:.0}% of the step", busy * 100.0),
                dram.map(|d| format!(" (DRAM bandwidth {d:.0}% of peak, tensor cores {:.0}%)", tensor.unwrap_or(0.0))).unwrap_or_default()
            ),
            evidence,
            fixes: fixes::memory_bandwidth(),
        });
    }
    let tensor_idle = gemm_dominant && tensor.is_some_and(|t| t < th.tensor_active_low_pct);
    let conv_heavy = kernels.is_some_and(|k| {
        k.top
            .iter()
            .take(5)
            .any(|t| t.name.to_ascii_lowercase().contains("conv") || t.name.contains("cudnn"))
    });
    Some(Finding {
        id: ids::COMPUTE_BOUND.into(),
        title: "Compute-bound: the GPU is the limit".into(),
        severity: Severity::Info,
        confidence,
        share: compute_share,
        summary: format!(
            "The GPU computes {:.0}% of each step{}.{}",
            compute_share * 100.0,
            if busy >= th.gpu_busy_high {
                "; the GPU itself is the limit"
            } else {
                ""
            },
            if tensor_idle {
                " Matrix multiplies do not use the tensor cores, though."
            } else {
                ""
            }
        ),
        evidence,
        fixes: fixes::compute_bound(tensor_idle, conv_heavy),
    })
}

/// Scaling efficiency against a 1-GPU partner: throughput per GPU, from `samples_per_s` when
/// both runs recorded it, else from batch size and steady step time.
fn scaling(
    facts: &RunFacts,
    a: &Analysis,
    pf: &RunFacts,
    pa: &Analysis,
    partner: String,
) -> Option<Scaling> {
    let gpus = facts.world_size.unwrap_or(a.ranks.len().max(1) as u32);
    let partner_gpus = pf.world_size.unwrap_or(1).max(1);
    let throughput = |f: &RunFacts, an: &Analysis, n: u32| -> Option<f64> {
        f.samples_per_s.or_else(|| {
            let t = an.step_timing.first()?;
            let bs = f.batch_size? as f64;
            (t.mean_step_ms > 0.0).then(|| bs * n as f64 * 1e3 / t.mean_step_ms)
        })
    };
    let multi = throughput(facts, a, gpus)?;
    let single = throughput(pf, pa, partner_gpus)? / partner_gpus as f64;
    if gpus <= 1 || single <= 0.0 {
        return None;
    }
    let speedup = multi / single;
    Some(Scaling {
        gpus,
        single_gpu_samples_per_s: single,
        multi_gpu_samples_per_s: multi,
        speedup,
        efficiency: speedup / gpus as f64,
        partner,
    })
}
