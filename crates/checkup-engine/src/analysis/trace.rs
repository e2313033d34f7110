//! One rank's profiler trace → [`RankSummary`]: steady steps, the exclusive GPU time split,
//! idle causes, the per-step breakdown, kernel, copy and communication statistics.
//!
//! Steps are measured on the GPU's side: a step's period runs from the start of its first GPU
//! work to the start of the next step's, so a step's period holds its own work and the idle
//! time before the next step's work could begin. GPU work belongs to the step whose CPU
//! range holds the call that launched it (joined on `correlation`), since the GPU may run far
//! behind the CPU.

use std::collections::{HashMap, HashSet};

use checkup_model::{
    CommStats, GpuTimeSplit, HostWaits, IdleSplit, KernelStats, KernelTime, OperatorTime,
    RankSummary, RankTimeline, SegmentKind, StepBreakdown, StepSyncs, TraceCode,
};

use super::intervals::{clip, gaps, merge, overlap, total, Interval};
use super::stats::{median, percentile};
use crate::ingest::kineto::{CopyKind, CpuKind, GpuKind, GpuOp, RuntimeCall, RuntimeKind, Trace};
use crate::thresholds::Thresholds;

/// Analysis of one trace plus the intermediate facts other analyses reuse.
pub struct TraceAnalysis {
    /// The rank's GPU time split and idle gaps.
    pub summary: RankSummary,
    /// Median CPU-side duration of the steady steps, for the profiler-overhead cross-check.
    pub cpu_step_us: f64,
}

/// Splits one rank's traced steps into compute, exposed communication and copies, and idle by cause.
pub fn analyze_trace(t: &Trace, th: &Thresholds) -> TraceAnalysis {
    // When each GPU op's launch call started, by correlation id.
    let launch_at: HashMap<i64, f64> = t
        .runtime
        .iter()
        .filter(|r| r.correlation >= 0)
        .map(|r| (r.correlation, r.start))
        .collect();
    let step_of = assign_steps(t, &launch_at);
    let steady = steady_steps(t, th);
    let steady_numbers: Vec<u64> = steady.iter().map(|&i| t.steps[i].number).collect();

    // First GPU start per step index.
    let mut first_gpu: Vec<Option<f64>> = vec![None; t.steps.len()];
    let mut last_gpu: Vec<Option<f64>> = vec![None; t.steps.len()];
    for (op, s) in t.gpu.iter().zip(&step_of) {
        if let Some(s) = *s {
            first_gpu[s] = Some(first_gpu[s].map_or(op.start, |f: f64| f.min(op.start)));
            last_gpu[s] = Some(last_gpu[s].map_or(op.end, |l: f64| l.max(op.end)));
        }
    }
    let with_gpu: Vec<usize> = steady
        .iter()
        .copied()
        .filter(|&i| first_gpu[i].is_some())
        .collect();
    let Some(&first) = with_gpu.first() else {
        return TraceAnalysis {
            summary: empty_summary(t, steady_numbers),
            cpu_step_us: 0.0,
        };
    };
    let last = *with_gpu.last().unwrap_or(&first);
    // Periods: [first GPU start of step k, first GPU start of the next step with GPU work).
    let mut periods: Vec<(u64, Interval)> = with_gpu
        .windows(2)
        .map(|w| {
            (
                t.steps[w[0]].number,
                (
                    first_gpu[w[0]].unwrap_or(0.0),
                    first_gpu[w[1]].unwrap_or(0.0),
                ),
            )
        })
        .collect();
    if periods.len() < th.min_periods {
        // Too few steps for whole periods: take the last step up to its last GPU work.
        periods.push((
            t.steps[last].number,
            (
                first_gpu[last].unwrap_or(0.0),
                last_gpu[last].unwrap_or(0.0),
            ),
        ));
    }
    let lo = periods.first().map_or(0.0, |p| p.1 .0);
    let hi = periods.last().map_or(0.0, |p| p.1 .1);

    let ops_in = |pred: &dyn Fn(&GpuOp) -> bool| -> Vec<Interval> {
        merge(
            t.gpu
                .iter()
                .filter(|o| pred(o) && o.end > lo && o.start < hi)
                .map(|o| (o.start.max(lo), o.end.min(hi)))
                .collect(),
        )
    };
    let compute = ops_in(&|o| o.kind == GpuKind::Compute);
    let comm = ops_in(&|o| o.kind == GpuKind::Communication);
    let memcpy = ops_in(&|o| matches!(o.kind, GpuKind::Memcpy(_)));
    let memset = ops_in(&|o| o.kind == GpuKind::Memset);
    let memory = merge([memcpy.clone(), memset.clone()].concat());
    let compute_comm = merge([compute.clone(), comm.clone()].concat());
    let busy = merge([compute_comm.clone(), memory.clone()].concat());
    let window = hi - lo;
    let idle_gaps = gaps(&busy, lo, hi);

    // Host activity spans.
    let spans = |kind: CpuKind| {
        merge(
            t.cpu
                .iter()
                .filter(|c| c.kind == kind)
                .map(|c| (c.start, c.end))
                .collect(),
        )
    };
    let dataloader = spans(CpuKind::DataLoader);
    let checkpoint = spans(CpuKind::Checkpoint);
    // A CPU backend (gloo) runs the collective on the host, copying GPU tensors through host
    // memory: while it runs and the GPU idles, the GPU waits for communication.
    let host_collectives = spans(CpuKind::HostCollective);
    let host_comm = clip(&host_collectives, lo, hi);
    let host_comm_exposed_us = overlap(&host_comm, &idle_gaps);

    let compute_us = total(&compute);
    let comm_total_us = total(&comm) + total(&host_comm);
    let exposed_comm_us = total(&comm) - overlap(&comm, &compute) + host_comm_exposed_us;
    let exposed_memory_us = total(&memory) - overlap(&memory, &compute_comm);
    // Device-to-host copies into pageable memory block the host until the GPU catches up
    // (`.cpu()`, `.item()`); those into pinned memory do not.
    let dtoh: HashSet<i64> = t
        .gpu
        .iter()
        .filter(|o| o.kind == GpuKind::Memcpy(CopyKind::DtoH))
        .map(|o| o.correlation)
        .collect();
    let pageable_h2d: HashSet<i64> = t
        .gpu
        .iter()
        .filter(|o| o.kind == GpuKind::Memcpy(CopyKind::HtoDPageable))
        .map(|o| o.correlation)
        .collect();
    let mut by_start: Vec<&RuntimeCall> = t.runtime.iter().collect();
    by_start.sort_by(|a, b| a.start.total_cmp(&b.start));
    let pageable_copy =
        |r: &RuntimeCall| r.kind == RuntimeKind::Memcpy && pageable_h2d.contains(&r.correlation);
    // A blocking copy from pageable memory to the device returns when the copy is done, and
    // PyTorch synchronises the stream right after it: that wait is the copy's, which pinned,
    // non-blocking copies remove, not a read-back of the training's. The GPU's idle after it
    // is then a launch gap, as after the copy itself, which the copy finding costs.
    let copy_syncs: HashSet<i64> = by_start
        .windows(2)
        .filter(|w| pageable_copy(w[0]) && w[1].kind == RuntimeKind::Sync)
        .map(|w| w[1].correlation)
        .collect();
    // A collective's own copies and syncs (gloo staging GPU tensors) are its communication,
    // not the training's read-backs.
    let blocks = |r: &&RuntimeCall| {
        (r.kind == RuntimeKind::Sync && !copy_syncs.contains(&r.correlation)
            || r.kind == RuntimeKind::Memcpy && dtoh.contains(&r.correlation))
            && !contains(&host_collectives, r.start)
    };
    let holds_for_copy = |r: &RuntimeCall| pageable_copy(r) || copy_syncs.contains(&r.correlation);
    let mut sync_ends: Vec<f64> = t.runtime.iter().filter(blocks).map(|r| r.end).collect();
    sync_ends.sort_by(f64::total_cmp);
    // The driver allocating or freeing device memory: cudaFree waits for the device, then
    // the host launches into the drained queue; cudaMalloc holds the host meanwhile.
    let allocs = merge(
        t.runtime
            .iter()
            .filter(|r| r.kind == RuntimeKind::Alloc)
            .map(|r| (r.start, r.end))
            .collect(),
    );

    // When the host made any CUDA call (every thread: autograd's launches its backward): a
    // millisecond with none, against 5–50 µs a launch, is host work that launches nothing.
    let runtime_busy = merge(t.runtime.iter().map(|r| (r.start, r.end)).collect());
    let quiet_min_us = th.held_host_ms_per_kernel * 1e3;
    // The optimizer's own host time between its launches (grouping tensors, per-parameter
    // Python) is the optimizer's, which a fused one and compile's floor account for.
    let optimizer_steps = merge(t.optimizer_steps.clone());

    let mut idle = IdleSplit::default();
    let mut waits = HostWaits::default();
    // Start of the gap before this one: a sync returning since then drained the queue.
    let mut prev_g0 = f64::INFINITY;
    let mut sync_idle_by_step: HashMap<u64, f64> = HashMap::new();
    for &(g0, g1) in &idle_gaps {
        // The part of the gap spent in a host collective is communication, counted there.
        let len = g1 - g0 - overlap(&host_comm, &[(g0, g1)]);
        // The GPU work that ended the gap, and when the host launched it.
        let next = t.gpu.partition_point(|o| o.start < g1);
        let launched = t
            .gpu
            .get(next)
            .and_then(|o| launch_at.get(&o.correlation))
            .copied();
        let host_wait = launched.is_some_and(|l| l > g0);
        if host_wait {
            idle.host_wait_us += len;
        } else if len < th.kernel_wait_max_us {
            idle.kernel_wait_us += len;
        } else {
            idle.other_us += len;
        }
        let gap = [(g0, g1)];
        let dl = overlap(&dataloader, &gap);
        let ck = overlap(&checkpoint, &gap).min(len - dl);
        let rest = (len - dl - ck).max(0.0);
        waits.dataloader_us += dl;
        waits.checkpoint_us += ck;
        // A sync returns once the GPU has run everything queued: the gap it returns in is
        // its own, and so is the next one, while the host launches into the empty queue
        // one op at a time (a read-back per parameter leaves the queue empty all step).
        let since = prev_g0.min(g0) - th.sync_return_slack_us;
        prev_g0 = g0;
        let lo_i = sync_ends.partition_point(|&e| e < since);
        let synced = sync_ends.get(lo_i).is_some_and(|&e| e <= g1);
        let a = allocs.partition_point(|&(_, end)| end <= since);
        if allocs.get(a).is_some_and(|&(start, _)| start < g1) {
            waits.alloc_us += rest;
        } else if synced {
            waits.sync_us += rest;
            let k = periods.partition_point(|&(_, (_, p1))| p1 <= g0);
            if let Some(&(number, _)) = periods.get(k) {
                *sync_idle_by_step.entry(number).or_insert(0.0) += rest;
            }
        } else if host_wait {
            waits.launch_us += rest;
            if let Some(l) = launched {
                waits.launchless_us += quiet_before_launch(
                    &runtime_busy,
                    &[&dataloader, &checkpoint, &optimizer_steps],
                    (g0, l.min(g1)),
                    quiet_min_us,
                )
                .min(rest);
            }
        } else {
            waits.other_us += rest;
        }
    }

    // Copies.
    for o in t.gpu.iter().filter(|o| o.end > lo && o.start < hi) {
        match o.kind {
            GpuKind::Memcpy(CopyKind::HtoDPageable) => {
                waits.pageable_h2d_us += o.dur();
                waits.pageable_h2d_bytes += o.bytes;
            }
            GpuKind::Memcpy(CopyKind::HtoDPinned) => waits.pinned_h2d_us += o.dur(),
            GpuKind::Memcpy(CopyKind::DtoH | CopyKind::DtoHPinned) => waits.dtoh_us += o.dur(),
            _ => {}
        }
    }
    let h2d = ops_in(&|o| {
        matches!(
            o.kind,
            GpuKind::Memcpy(CopyKind::HtoDPageable | CopyKind::HtoDPinned)
        )
    });
    waits.exposed_h2d_us = total(&h2d) - overlap(&h2d, &compute_comm);

    // Synchronising calls per steady CPU step.
    let steady_cpu: Vec<Interval> = merge(
        steady
            .iter()
            .map(|&i| (t.steps[i].start, t.steps[i].end))
            .collect(),
    );
    let in_steady = |x: f64| contains(&steady_cpu, x);
    let n_steady = steady.len().max(1) as f64;
    // `.item()` and `.cpu()` copy to the host and then synchronise the stream: the copy and
    // the synchronize right after it are one wait, as the user's code has one call.
    let calls = by_start;
    let mut waits_in_steady = 0usize;
    let mut waits_by_step = vec![0u32; t.steps.len()];
    let mut after_readback = false;
    for r in calls {
        let readback = r.kind == RuntimeKind::Memcpy && dtoh.contains(&r.correlation);
        if blocks(&r) && !(r.kind == RuntimeKind::Sync && after_readback) {
            if in_steady(r.start) {
                waits_in_steady += 1;
            }
            if let Some(i) = t
                .steps
                .iter()
                .position(|s| s.start <= r.start && r.start < s.end)
            {
                waits_by_step[i] += 1;
            }
        }
        after_readback = readback;
    }
    waits.sync_calls_per_step = waits_in_steady as f64 / n_steady;
    let steady_allocs: Vec<_> = t
        .runtime
        .iter()
        .filter(|r| r.kind == RuntimeKind::Alloc && in_steady(r.start))
        .collect();
    waits.alloc_calls_per_step = steady_allocs.len() as f64 / n_steady;
    waits.alloc_host_us_per_step =
        steady_allocs.iter().map(|r| r.end - r.start).sum::<f64>() / n_steady;
    waits.pageable_h2d_host_us_per_step = t
        .runtime
        .iter()
        .filter(|r| holds_for_copy(r) && in_steady(r.start))
        .map(|r| r.end - r.start)
        .sum::<f64>()
        / n_steady;
    // `.item()` on a CPU tensor (optimizer step counters) does not wait for the GPU: count
    // only those that enclose a blocking CUDA call.
    let mut blocking_starts: Vec<f64> = t.runtime.iter().filter(blocks).map(|r| r.start).collect();
    blocking_starts.sort_by(f64::total_cmp);
    let encloses_block = |a: f64, b: f64| {
        let i = blocking_starts.partition_point(|&x| x < a);
        blocking_starts.get(i).is_some_and(|&x| x < b)
    };
    // `aten::item` encloses `aten::_local_scalar_dense`: count the outer call only.
    let mut items: Vec<_> = t.cpu.iter().filter(|c| c.kind == CpuKind::Item).collect();
    items.sort_by(|a, b| a.start.total_cmp(&b.start));
    let mut outer_end = f64::NEG_INFINITY;
    let mut items_in_steady = 0usize;
    for c in items {
        if c.start < outer_end {
            continue;
        }
        outer_end = c.end;
        if in_steady(c.start) && encloses_block(c.start, c.end) {
            items_in_steady += 1;
        }
    }
    waits.item_calls_per_step = items_in_steady as f64 / n_steady;

    let blocked = merge(
        t.runtime
            .iter()
            .filter(blocks)
            .map(|r| (r.start, r.end))
            .chain(
                t.cpu
                    .iter()
                    .filter(|c| matches!(c.kind, CpuKind::DataLoader | CpuKind::HostCollective))
                    .map(|c| (c.start, c.end)),
            )
            .collect(),
    );
    let host_work: Vec<f64> = steady
        .iter()
        .map(|&i| {
            let (a, b) = (t.steps[i].start, t.steps[i].end);
            (b - a) - total(&clip(&blocked, a, b))
        })
        .collect();
    waits.host_work_per_step_us = median(&host_work);

    let runtime_spans = merge(t.runtime.iter().map(|r| (r.start, r.end)).collect());
    let steps = periods
        .iter()
        .map(|&(number, (p0, p1))| {
            let c = clip(&compute, p0, p1);
            let mc = clip(&memcpy, p0, p1);
            let ms = clip(&memset, p0, p1);
            let nc = clip(&comm, p0, p1);
            let c_mc = merge([c.clone(), mc.clone()].concat());
            let c_mc_ms = merge([c_mc.clone(), ms.clone()].concat());
            let busy = merge([c_mc_ms.clone(), nc.clone()].concat());
            let all_idle = gaps(&busy, p0, p1);
            let idle = subtract(&all_idle, &clip(&host_comm, p0, p1));
            let host_comm_here = total(&all_idle) - total(&idle);
            let runtime_here = clip(&runtime_spans, p0, p1);
            let runtime = overlap(&runtime_here, &idle);
            let idle_no_rt = subtract(&idle, &runtime_here);
            let dl = overlap(&clip(&dataloader, p0, p1), &idle_no_rt);
            let duration = p1 - p0;
            StepBreakdown {
                step: number,
                duration_us: duration,
                kernel_us: total(&c),
                memcpy_us: total(&mc) - overlap(&mc, &c),
                memset_us: total(&ms) - overlap(&ms, &c_mc),
                communication_us: total(&nc) - overlap(&nc, &c_mc_ms) + host_comm_here,
                runtime_us: runtime,
                dataloader_us: dl,
                cpu_other_us: (total(&idle) - runtime - dl).max(0.0),
            }
        })
        .collect::<Vec<_>>();

    let period_spans = merge(periods.iter().map(|&(_, p)| p).collect());
    let in_periods = |o: &GpuOp| contains(&period_spans, o.start);
    let kernels = kernel_stats(t, &launch_at, &in_periods, periods.len().max(1));
    let comm_stats = CommStats {
        nccl_kernels: t
            .gpu
            .iter()
            .filter(|o| o.kind == GpuKind::Communication && in_periods(o))
            .count() as u64,
        host_collectives: t
            .cpu
            .iter()
            .filter(|c| c.kind == CpuKind::HostCollective && contains(&period_spans, c.start))
            .count() as u64,
        total_us: comm_total_us,
        exposed_us: exposed_comm_us,
        overlap_share: if comm_total_us > 0.0 {
            1.0 - exposed_comm_us / comm_total_us
        } else {
            0.0
        },
    };
    let busy_per_step: Vec<f64> = periods
        .iter()
        .map(|&(_, (p0, p1))| total(&clip(&busy, p0, p1)))
        .collect();
    let cpu_durations: Vec<f64> = steady
        .iter()
        .map(|&i| t.steps[i].end - t.steps[i].start)
        .collect();
    let timeline = timeline(t.rank.unwrap_or(0), &periods, &compute, &comm, &memory);
    let step_syncs = t
        .steps
        .iter()
        .zip(&waits_by_step)
        .map(|(s, &w)| StepSyncs {
            step: s.number,
            waits: w,
            sync_idle_us: sync_idle_by_step.get(&s.number).copied().unwrap_or(0.0),
            period_us: periods
                .iter()
                .find(|p| p.0 == s.number)
                .map_or(0.0, |&(_, (p0, p1))| p1 - p0),
        })
        .collect();
    let summary = RankSummary {
        rank: t.rank.unwrap_or(0),
        source: t.source.display().to_string(),
        device_name: t.device_name.clone(),
        profiled_steps: t.steps.iter().map(|s| s.number).collect(),
        steady_steps: steady_numbers,
        gpu: GpuTimeSplit {
            window_us: window,
            compute_us,
            exposed_comm_us,
            exposed_memory_us,
            idle_us: total(&idle_gaps) - host_comm_exposed_us,
            idle,
            comm_total_us,
        },
        steps,
        kernels,
        host_waits: waits,
        comm: comm_stats,
        profiled_step_us: median(&cpu_durations),
        gpu_step_us: median(&periods.iter().map(|&(_, (a, b))| b - a).collect::<Vec<_>>()),
        gpu_busy_per_step_us: median(&busy_per_step),
        timeline,
        step_marks: t.step_marks,
        optimizer: t.optimizer.clone(),
        step_syncs,
        code: trace_code(t),
    };
    TraceAnalysis {
        cpu_step_us: summary.profiled_step_us,
        summary,
    }
}

/// The GPU's busy segments over the first few periods, exclusive by kind (compute, then
/// communication, then copies), with segments too short to see at that scale merged.
fn timeline(
    rank: u32,
    periods: &[(u64, Interval)],
    compute: &[Interval],
    comm: &[Interval],
    memory: &[Interval],
) -> RankTimeline {
    const STEPS_SHOWN: usize = 3;
    const RESOLUTION: f64 = 4000.0;
    let shown = &periods[..periods.len().min(STEPS_SHOWN)];
    let (Some(first), Some(last)) = (shown.first(), shown.last()) else {
        return RankTimeline {
            rank,
            ..RankTimeline::default()
        };
    };
    let (lo, hi) = (first.1 .0, last.1 .1);
    let min_gap = (hi - lo) / RESOLUTION;
    let mut segments = Vec::new();
    let compute_comm = merge([compute.to_vec(), comm.to_vec()].concat());
    let layers = [
        (clip(compute, lo, hi), SegmentKind::Compute),
        (
            subtract(&clip(comm, lo, hi), compute),
            SegmentKind::Communication,
        ),
        (
            subtract(&clip(memory, lo, hi), &compute_comm),
            SegmentKind::Memory,
        ),
    ];
    for (intervals, kind) in layers {
        let mut merged: Vec<Interval> = Vec::new();
        for (a, b) in intervals {
            match merged.last_mut() {
                Some(prev) if a - prev.1 < min_gap => prev.1 = b,
                _ => merged.push((a, b)),
            }
        }
        segments.extend(merged.into_iter().map(|(a, b)| (a - lo, b - lo, kind)));
    }
    segments.sort_by(|x, y| x.0.total_cmp(&y.0));
    RankTimeline {
        rank,
        span_us: hi - lo,
        step_starts_us: shown.iter().map(|p| p.1 .0 - lo).collect(),
        segments,
    }
}

fn empty_summary(t: &Trace, steady: Vec<u64>) -> RankSummary {
    RankSummary {
        rank: t.rank.unwrap_or(0),
        source: t.source.display().to_string(),
        device_name: t.device_name.clone(),
        profiled_steps: t.steps.iter().map(|s| s.number).collect(),
        steady_steps: steady,
        step_marks: t.step_marks,
        optimizer: t.optimizer.clone(),
        code: trace_code(t),
        ..RankSummary::default()
    }
}

/// How the training's code runs, as the whole trace shows it: compiled regions, Triton
/// kernels, CUDA graph replays, a fused optimizer's kernels.
fn trace_code(t: &Trace) -> TraceCode {
    let mut code = TraceCode {
        compiled_regions: t.compiled_regions,
        graph_launches: t.graph_launches,
        ..TraceCode::default()
    };
    let mut launches = vec![0u64; t.kernel_names.len()];
    for op in &t.gpu {
        if let Some(n) = launches.get_mut(op.name as usize) {
            *n += 1;
        }
    }
    for (name, n) in t.kernel_names.iter().zip(launches) {
        if name.starts_with("triton_") {
            code.triton_kernels += n;
        }
        if is_fused_optimizer_kernel(name) {
            code.fused_optimizer_kernels += n;
        }
    }
    code
}

/// torch.optim's fused kernels (`FusedAdamMathFunctor`, `FusedSgdMathFunctor`) and apex's
/// FusedAdam (`multi_tensor_apply_kernel<…AdamFunctor…>`): one kernel per tensor group.
fn is_fused_optimizer_kernel(name: &str) -> bool {
    (name.contains("Fused") && name.contains("MathFunctor"))
        || (name.contains("multi_tensor_apply_kernel") && name.contains("AdamFunctor"))
}

/// Whether `x` falls inside the merged list `v`.
fn contains(v: &[Interval], x: f64) -> bool {
    let i = v.partition_point(|&(_, b)| b <= x);
    v.get(i).is_some_and(|&(a, _)| a <= x)
}

/// `a` minus the merged list `b`.
fn subtract(a: &[Interval], b: &[Interval]) -> Vec<Interval> {
    let mut out = Vec::new();
    for &(lo, hi) in a {
        out.extend(gaps(&clip(b, lo, hi), lo, hi));
    }
    out
}

/// Step index (into `t.steps`) of each GPU op, by the CPU step that launched it. Ops whose
/// launch is not in the trace inherit the step of the op before them: one stream runs its
/// work in launch order.
fn assign_steps(t: &Trace, launch_at: &HashMap<i64, f64>) -> Vec<Option<usize>> {
    let step_at = |x: f64| -> Option<usize> {
        let i = t.steps.partition_point(|s| s.start <= x);
        let i = i.checked_sub(1)?;
        // A launch between two steps (after one ended, before the next began) still belongs
        // to the earlier one: the loop body ran past `prof.step()`.
        let next_start = t.steps.get(i + 1).map_or(f64::INFINITY, |s| s.start);
        (x < next_start).then_some(i)
    };
    let mut out = Vec::with_capacity(t.gpu.len());
    let mut previous = None;
    for op in &t.gpu {
        let s = match launch_at.get(&op.correlation) {
            Some(&l) => step_at(l),
            None => previous,
        };
        if s.is_some() {
            previous = s;
        }
        out.push(s);
    }
    out
}

/// Indices of the steps that are not warm-up: leading steps far slower than the median of the
/// rest are dropped (cuDNN autotune, compilation, allocator growth happen first).
fn steady_steps(t: &Trace, th: &Thresholds) -> Vec<usize> {
    let durations: Vec<f64> = t.steps.iter().map(|s| s.end - s.start).collect();
    let mut first = 0;
    while first + th.min_periods < durations.len() {
        let rest = median(&durations[first + 1..]);
        if durations[first] > th.warmup_step_factor * rest {
            first += 1;
        } else {
            break;
        }
    }
    (first..durations.len()).collect()
}

fn kernel_stats(
    t: &Trace,
    launch_at: &HashMap<i64, f64>,
    keep: &dyn Fn(&GpuOp) -> bool,
    periods: usize,
) -> KernelStats {
    let kernels: Vec<&GpuOp> = t
        .gpu
        .iter()
        .filter(|o| matches!(o.kind, GpuKind::Compute | GpuKind::Communication) && keep(o))
        .collect();
    if kernels.is_empty() {
        return KernelStats::default();
    }
    let durations: Vec<f64> = kernels.iter().map(|o| o.dur()).collect();
    let delays: Vec<f64> = kernels
        .iter()
        .filter_map(|o| {
            launch_at
                .get(&o.correlation)
                .map(|l| (o.start - l).max(0.0))
        })
        .collect();
    // In name order, not a hash's: the shares summed over it and the ties in the top ten
    // come out the same on every run.
    let mut per_name: std::collections::BTreeMap<u32, (u64, f64)> = Default::default();
    for o in &kernels {
        let e = per_name.entry(o.name).or_default();
        e.0 += 1;
        e.1 += o.dur();
    }
    // Kernels whose launch call came inside an optimizer step, and the host time of the
    // optimizer steps they came in (one pass: each launch finds its step by bisection).
    let mut steps = t.optimizer_steps.clone();
    steps.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut launched_in = vec![false; steps.len()];
    let mut in_optimizer = 0usize;
    for &at in kernels.iter().filter_map(|o| launch_at.get(&o.correlation)) {
        let i = steps.partition_point(|s| s.0 <= at);
        if i > 0 && at <= steps[i - 1].1 {
            in_optimizer += 1;
            launched_in[i - 1] = true;
        }
    }
    let optimizer_host_us: f64 = steps
        .iter()
        .zip(&launched_in)
        .filter(|(_, launched)| **launched)
        .map(|(s, _)| s.1 - s.0)
        .sum();
    let kernel_time: f64 = durations.iter().sum();
    let class_share = |class: KernelClass| {
        per_name
            .iter()
            .filter(|(n, _)| classify_kernel(&t.kernel_names[**n as usize]) == class)
            .map(|(_, (_, us))| us)
            .sum::<f64>()
            / kernel_time.max(f64::MIN_POSITIVE)
    };
    let fills = per_name
        .iter()
        .filter(|(n, _)| is_fill_kernel(&t.kernel_names[**n as usize]))
        .fold((0u64, 0.0), |(count, us), (_, (c, u))| (count + c, us + u));
    let mut top: Vec<KernelTime> = per_name
        .iter()
        .map(|(n, (count, us))| KernelTime {
            name: t.kernel_names[*n as usize].clone(),
            count: *count,
            total_us: *us,
        })
        .collect();
    top.sort_by(|a, b| b.total_us.total_cmp(&a.total_us).then(a.name.cmp(&b.name)));
    top.truncate(10);
    KernelStats {
        top_operators: top_operators(t, &kernels),
        kernels: kernels.len() as u64,
        per_step: kernels.len() as f64 / periods as f64,
        optimizer_per_step: in_optimizer as f64 / periods as f64,
        optimizer_host_us_per_step: optimizer_host_us / periods as f64,
        median_us: median(&durations),
        share_under_10us: durations.iter().filter(|&&d| d < 10.0).count() as f64
            / durations.len() as f64,
        launch_delay_median_us: median(&delays),
        launch_delay_p90_us: percentile(&delays, 0.9),
        gemm_conv_time_share: class_share(KernelClass::GemmConv),
        elementwise_time_share: class_share(KernelClass::Elementwise),
        fp32_gemm_time_share: per_name
            .iter()
            .filter(|(n, _)| is_fp32_simt_gemm(&t.kernel_names[**n as usize]))
            .map(|(_, (_, us))| us)
            .sum::<f64>()
            / kernel_time.max(f64::MIN_POSITIVE),
        fill_time_share: fills.1 / kernel_time.max(f64::MIN_POSITIVE),
        fills_per_step: fills.0 as f64 / periods as f64,
        top,
        kernel_time_us: kernel_time,
    }
}

/// The CPU operators whose kernels took most GPU time (ten), most first: each kernel counted
/// under the operator that made its launch call (the innermost one, as PyTorch's "self CUDA
/// time" counts), each operator call once however many kernels it launched. Empty when the
/// trace names no operators for its launches.
fn top_operators(t: &Trace, kernels: &[&GpuOp]) -> Vec<OperatorTime> {
    let launched_by: HashMap<i64, &RuntimeCall> = t
        .runtime
        .iter()
        .filter(|r| r.correlation >= 0 && r.external.is_some())
        .map(|r| (r.correlation, r))
        .collect();
    // Per operator name: the calls seen (by `External id`) and their kernels' time.
    let mut per_op: HashMap<&str, (HashSet<u32>, f64)> = HashMap::new();
    for k in kernels {
        let Some(r) = launched_by.get(&k.correlation) else {
            continue;
        };
        let (Some(name), Some(call)) = (t.operator_of(r), r.external) else {
            continue;
        };
        let e = per_op.entry(name).or_default();
        e.0.insert(call);
        e.1 += k.dur();
    }
    let mut top: Vec<OperatorTime> = per_op
        .into_iter()
        .map(|(name, (calls, us))| OperatorTime {
            name: name.to_owned(),
            calls: calls.len() as u64,
            total_us: us,
        })
        .collect();
    top.sort_by(|a, b| b.total_us.total_cmp(&a.total_us).then(a.name.cmp(&b.name)));
    top.truncate(10);
    top
}

/// What a kernel does, from its name: how its time is classed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KernelClass {
    /// Matrix multiply and convolution: what tensor cores run.
    GemmConv,
    /// Elementwise, normalisation, reduction, optimizer updates: limited by memory bandwidth.
    Elementwise,
    /// NCCL collectives and point-to-point kernels.
    Communication,
    /// Anything else (custom or unrecognised kernels).
    Other,
}

/// A matrix multiply on the fp32 (FFMA) units rather than the tensor cores, by its name:
/// cuBLAS's and CUTLASS's SIMT kernels (`ampere_sgemm_…`, `cutlass_80_simt_sgemm_…`,
/// `sm80_xmma_gemm_f32f32_f32f32_f32_…_ffma_…`). TF32 kernels say `tf32`; half-precision
/// ones (`hgemm`, `bf16`, `nvjet_…_hsh`) never match.
pub fn is_fp32_simt_gemm(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    !n.contains("tf32")
        && (n.contains("sgemm")
            || (n.contains("gemm") && (n.contains("_ffma") || n.contains("f32f32_f32f32_f32"))))
}

/// PyTorch's fill kernel (`vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, …>`):
/// `fill_`, `zero_`, `torch.zeros`, and the fill deterministic algorithms give every tensor
/// `torch.empty` hands out.
pub fn is_fill_kernel(name: &str) -> bool {
    name.contains("FillFunctor")
}

/// Kernel family by its (demangled) name.
pub fn classify_kernel(name: &str) -> KernelClass {
    let n = name.to_ascii_lowercase();
    const GEMM: [&str; 14] = [
        "gemm",
        "cutlass",
        "xmma",
        "nvjet",
        "cublas",
        "wgmma",
        "conv",
        "dgrad",
        "wgrad",
        "fprop",
        "implicit",
        "matmul",
        "triton_tem",
        "flash",
    ];
    const ELEMENTWISE: [&str; 16] = [
        "elementwise",
        "vectorized",
        "unrolled",
        "norm",
        "reduce",
        "softmax",
        "dropout",
        "gelu",
        "relu",
        "pointwise",
        "multi_tensor_apply",
        "triton_poi",
        "triton_red",
        "triton_per",
        "cat_array",
        "index",
    ];
    if crate::ingest::kineto::is_nccl_kernel(name) {
        KernelClass::Communication
    } else if GEMM.iter().any(|k| n.contains(k)) {
        KernelClass::GemmConv
    } else if ELEMENTWISE.iter().any(|k| n.contains(k)) {
        KernelClass::Elementwise
    } else {
        KernelClass::Other
    }
}

/// The time in `span` (a GPU idle gap up to the launch that ended it) in which the host made
/// no CUDA call for at least `min_us` at a stretch, outside the host spans `known` (waits for
/// data, checkpoint writes, the optimizer's step) whose time is accounted elsewhere.
fn quiet_before_launch(
    runtime_busy: &[Interval],
    known: &[&[Interval]],
    (lo, hi): Interval,
    min_us: f64,
) -> f64 {
    if hi - lo < min_us {
        return 0.0;
    }
    let quiet: Vec<Interval> = gaps(&clip(runtime_busy, lo, hi), lo, hi)
        .into_iter()
        .filter(|(a, b)| b - a >= min_us)
        .collect();
    let spoken_for: f64 = known
        .iter()
        .map(|spans| overlap(&quiet, &clip(spans, lo, hi)))
        .sum();
    (total(&quiet) - spoken_for).max(0.0)
}

#[cfg(test)]
mod tests {
    use super::{is_fp32_simt_gemm, quiet_before_launch};

    #[test]
    fn only_a_millisecond_or_more_without_a_cuda_call_outside_known_waits_is_quiet() {
        // A 10 ms gap up to its launch: calls every 50 µs for 2 ms (launching, the last
        // ending at 1.955 ms), then none until 6.5 ms (4.545 ms quiet), a call, 0.9 ms
        // without one (a slow launch, not quiet), a call, then none to the end (2.1 ms
        // quiet, 1 ms of it a wait for data that finding costs).
        let mut calls: Vec<(f64, f64)> = (0..40)
            .map(|i| (i as f64 * 50.0, i as f64 * 50.0 + 5.0))
            .collect();
        calls.push((6_500.0, 6_510.0));
        calls.push((7_410.0, 7_900.0));
        let data = [(9_000.0, 9_500.0), (9_500.0, 10_000.0)];
        let quiet = quiet_before_launch(&calls, &[&data[..]], (0.0, 10_000.0), 1_000.0);
        assert!(
            (quiet - (4_545.0 + 2_100.0 - 1_000.0)).abs() < 1e-9,
            "{quiet}"
        );
        // A gap shorter than a millisecond has no quiet stretch.
        assert_eq!(
            quiet_before_launch(&calls, &[], (2_000.0, 2_900.0), 1_000.0),
            0.0
        );
    }

    #[test]
    fn fp32_matmuls_are_told_from_tf32_and_half_precision_ones_by_name() {
        // Kernel names from the H100 recordings of the same MLP-Mixer with TF32 off and on,
        // and of a bf16 LSTM (probe_fp32_mlp_mixer, _tf32, probe_lstm_checkpoint).
        for fp32 in [
            "void cutlass::Kernel2<cutlass_80_simt_sgemm_256x128_8x4_nn_align1>(cutlass_80_simt_sgemm_256x128_8x4_nn_align1::Params)",
            "sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize128x128x8_stage3_warpsize2x2x1_ffma_aligna4_alignc4_execute_kernel__5x_cublas",
            "ampere_sgemm_128x64_nn",
        ] {
            assert!(is_fp32_simt_gemm(fp32), "{fp32}");
        }
        for other in [
            "sm90_xmma_gemm_f32f32_tf32f32_f32_nn_n_tilesize128x128x32_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas",
            "nvjet_sm90_hsh_64x16_64x16_2x1_v_bz_TNT",
            "ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_stages_64x3_nn",
            "void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl>",
        ] {
            assert!(!is_fp32_simt_gemm(other), "{other}");
        }
    }
}
