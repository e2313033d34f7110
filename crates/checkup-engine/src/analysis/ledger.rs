//! The run's time ledger: every second of a rank's run in a named part, the parts adding up
//! to the whole.
//!
//! Where its steps were timed, the whole run from the first step's start to the last's:
//! each step is a typical step (the median of the steps neither warming up nor profiled)
//! and what it took beyond one. Beyond: the periodic work the probe marked in it (its timed
//! duration), its wait for data beyond the typical wait, then warm-up for the first steps,
//! the profiler for the profiled ones, and a slow step for the rest. The typical steps: the
//! typical data wait, then the GPU's own work per step from the trace (compute by kernel
//! class, exposed copies and communication, measured on the GPU's clock, which the profiler
//! does not slow) and the step's idle rest split as the trace's idle splits; without a
//! trace, NVML's utilisation for the GPU's work and the rest not explained.

use checkup_model::{
    KernelClass, LedgerBasis, LedgerKind, LedgerPart, MarkerKind, RankSummary, RunMarker,
    StepRecord, TimeLedger,
};

use crate::analysis::stats::median;
use crate::analysis::step_timing::{near_profiler, BackgroundWrite};
use crate::thresholds::Thresholds;

/// What the ledger of one rank is made from.
pub struct LedgerInputs<'a> {
    /// The rank.
    pub rank: u32,
    /// Its `steps.csv` rows, if any.
    pub rows: &'a [StepRecord],
    /// Warm-up steps at the start.
    pub warmup: u64,
    /// The profiled steps.
    pub profiled: Option<(u64, u64)>,
    /// The probe's markers of periodic work.
    pub markers: &'a [RunMarker],
    /// Its trace, measured.
    pub trace: Option<&'a RankSummary>,
    /// Its GPU's mean utilisation over the steady window, percent.
    pub util_pct: Option<f64>,
    /// The seconds sampled, for a ledger of samples alone.
    pub sampled_s: Option<f64>,
}

/// The rank's ledger; None when nothing was timed, traced or sampled.
pub fn ledger(inputs: &LedgerInputs, th: &Thresholds) -> Option<TimeLedger> {
    let mut book = Book::default();
    let basis = if inputs.rows.len() >= 2 {
        whole_run(inputs, &mut book, th)?;
        LedgerBasis::WholeRun
    } else if let Some(trace) = inputs.trace.filter(|t| t.gpu.window_us > 0.0) {
        let window_s = trace.gpu.window_us / 1e6;
        let traced = match trace.steady_steps.len() {
            0 => trace.steps.len().max(1),
            n => n,
        };
        let step_s = window_s / traced as f64;
        typical_time(&mut book, window_s, step_s, 0.0, inputs);
        LedgerBasis::ProfiledSteps
    } else {
        let seconds = inputs.sampled_s.filter(|s| *s > 0.0)?;
        let busy = inputs.util_pct?.clamp(0.0, 100.0) / 100.0;
        book.add(LedgerKind::GpuCompute(KernelClass::Unsplit), busy * seconds);
        book.add(LedgerKind::NotExplained, (1.0 - busy) * seconds);
        LedgerBasis::SampledSeconds
    };
    Some(book.close(inputs.rank, basis))
}

/// Seconds by part, in the order first added.
#[derive(Default)]
struct Book(Vec<(LedgerKind, f64)>);

impl Book {
    fn add(&mut self, kind: LedgerKind, seconds: f64) {
        if !(seconds.is_finite() && seconds > 0.0) {
            return;
        }
        match self.0.iter_mut().find(|(k, _)| *k == kind) {
            Some((_, s)) => *s += seconds,
            None => self.0.push((kind, seconds)),
        }
    }

    fn close(self, rank: u32, basis: LedgerBasis) -> TimeLedger {
        let total_s: f64 = self.0.iter().map(|(_, s)| s).sum();
        let mut parts: Vec<LedgerPart> = self
            .0
            .into_iter()
            .map(|(kind, seconds)| LedgerPart {
                kind,
                seconds,
                share: if total_s > 0.0 {
                    seconds / total_s
                } else {
                    0.0
                },
                finding: None,
            })
            .collect();
        parts.sort_by(|a, b| b.seconds.total_cmp(&a.seconds));
        TimeLedger {
            rank,
            total_s,
            basis,
            parts,
        }
    }
}

/// The steps' time, each step a typical one and what it took beyond.
fn whole_run(inputs: &LedgerInputs, book: &mut Book, th: &Thresholds) -> Option<()> {
    let rows = inputs.rows;
    let is_profiled = |step: u64| near_profiler(inputs.profiled, th.profiler_margin_steps, step);
    // Each step's wall time: from its start to the next one's.
    let steps: Vec<(usize, &StepRecord, f64)> = rows
        .windows(2)
        .enumerate()
        .map(|(i, w)| (i, &w[0], (w[1].t_start - w[0].t_start).max(0.0)))
        .filter(|(_, _, s)| s.is_finite())
        .collect();
    let warm = |i: usize| (i as u64) < inputs.warmup;
    let ordinary: Vec<&(usize, &StepRecord, f64)> = steps
        .iter()
        .filter(|(i, r, _)| !warm(*i) && !is_profiled(r.step))
        .collect();
    let basis = if ordinary.is_empty() {
        steps.iter().collect()
    } else {
        ordinary
    };
    if basis.is_empty() {
        return None;
    }
    let median_s = median(&basis.iter().map(|(_, _, s)| *s).collect::<Vec<_>>());
    // Each step's time on the GPU's clock, where the probe timed it: a span's time shared by
    // its steps. A host that runs ahead of a busy GPU waits for it every few steps (a
    // logging read-back): a long step on the host's clock, not on the GPU's.
    let on_gpu = gpu_step_times(rows);
    let gpu_median_s = {
        let v: Vec<f64> = basis.iter().filter_map(|(i, _, _)| on_gpu[*i]).collect();
        (!v.is_empty()).then(|| median(&v))
    };
    let stalled = |i: usize, wall: f64| {
        wall >= th.stall_factor * median_s
            && match (on_gpu[i], gpu_median_s) {
                (Some(g), Some(m)) => g >= th.stall_factor * m,
                _ => true,
            }
    };
    let typical_wait_s = median(
        &basis
            .iter()
            .map(|(_, r, s)| (r.data_wait_ms / 1e3).clamp(0.0, *s))
            .collect::<Vec<_>>(),
    )
    .min(median_s);
    // Each step's time beyond the median goes, in turn, to the periodic work marked in it,
    // its wait for data beyond the typical wait, and then, for a warm-up, profiled or
    // stalled step (one at least `stall_factor` times the median), to warm-up, the profiler
    // or a slow step; what is left of an ordinary step is the typical step's spread.
    let writes = BackgroundWrite::from_markers(inputs.markers);
    let (mut typical_total, mut waited_total, mut typical_steps) = (0.0, 0.0, 0usize);
    for (i, row, wall) in &steps {
        let mut beyond = (wall - median_s).max(0.0);
        let mut take = |book: &mut Book, kind: LedgerKind, want: f64| {
            let got = want.clamp(0.0, beyond);
            book.add(kind, got);
            beyond -= got;
            got
        };
        let mut taken = 0.0;
        // Dynamo compiling in the first steps is their warm-up; after it, it is periodic work.
        let compiling_warm_up = |m: &&RunMarker| warm(*i) && m.kind == MarkerKind::Compile;
        for m in inputs
            .markers
            .iter()
            .filter(|m| m.step == row.step)
            .filter(|m| !compiling_warm_up(m))
        {
            if let Some(ms) = m.duration_ms {
                taken += take(book, LedgerKind::Periodic(m.kind), ms / 1e3);
            }
        }
        // A new epoch's first batch waits for its workers to start: the epoch start's time.
        let epoch_start = inputs
            .markers
            .iter()
            .any(|m| m.step == row.step && m.kind == MarkerKind::EpochStart);
        let wait_kind = if epoch_start {
            LedgerKind::Periodic(MarkerKind::EpochStart)
        } else {
            LedgerKind::DataWait
        };
        let wait_s = (row.data_wait_ms / 1e3).clamp(0.0, *wall);
        taken += take(book, wait_kind, wait_s - typical_wait_s);
        let special = if warm(*i) {
            Some(LedgerKind::WarmUp)
        } else if is_profiled(row.step) {
            Some(LedgerKind::Profiler)
        } else if stalled(*i, *wall) && BackgroundWrite::held(&writes, row.step, row.t_start) {
            // Held by a checkpoint written on another thread: the checkpoint's time.
            Some(LedgerKind::Periodic(MarkerKind::Checkpoint))
        } else if stalled(*i, *wall) {
            Some(LedgerKind::SlowSteps)
        } else {
            None
        };
        if let Some(kind) = special {
            taken += take(book, kind, f64::INFINITY);
        }
        let typical = wall - taken;
        typical_total += typical;
        waited_total += wait_s.min(typical_wait_s).min(typical);
        typical_steps += 1;
    }
    let typical_s = typical_total / typical_steps.max(1) as f64;
    let waited_s = waited_total;
    typical_time(book, typical_total, typical_s, waited_s, inputs);
    Some(())
}

/// Each row's time on the GPU's clock (seconds; its span's `gpu_ms` shared by the span's
/// steps), None where the probe did not time it.
fn gpu_step_times(rows: &[StepRecord]) -> Vec<Option<f64>> {
    let mut out = vec![None; rows.len()];
    for (i, row) in rows.iter().enumerate() {
        let Some(ms) = row.gpu_ms.filter(|ms| ms.is_finite() && *ms >= 0.0) else {
            continue;
        };
        let n = (row.gpu_steps.max(1) as usize).min(i + 1);
        for slot in &mut out[i + 1 - n..=i] {
            *slot = Some(ms / 1e3 / n as f64);
        }
    }
    out
}

/// `seconds` of typical steps of `step_s` each, `waited_s` of it waiting for data: the
/// GPU's own work and the GPU's idle rest by cause.
fn typical_time(book: &mut Book, seconds: f64, step_s: f64, waited_s: f64, inputs: &LedgerInputs) {
    let waited_s = waited_s.clamp(0.0, seconds);
    book.add(LedgerKind::DataWait, waited_s);
    let rest = seconds - waited_s;
    let Some(trace) = inputs
        .trace
        .filter(|t| t.gpu.window_us > 0.0 && step_s > 0.0)
    else {
        match inputs.util_pct {
            Some(u) => {
                let busy = (u.clamp(0.0, 100.0) / 100.0 * seconds).min(rest);
                book.add(LedgerKind::GpuCompute(KernelClass::Unsplit), busy);
                book.add(LedgerKind::NotExplained, rest - busy);
            }
            None => book.add(LedgerKind::NotExplained, rest),
        }
        return;
    };
    let g = &trace.gpu;
    // The GPU's work per traced step, as a share of a typical step: the GPU's clock is not
    // slowed by the profiler (the host's is, so the idle rest is what the typical step
    // leaves, split as the trace's idle splits).
    let traced_steps = match trace.steady_steps.len() {
        0 => trace.steps.len().max(1),
        n => n,
    } as f64;
    let share = |us: f64| us / traced_steps / 1e6 / step_s;
    let (compute, comm, copies) = (
        share(g.compute_us),
        share(g.exposed_comm_us),
        share(g.exposed_memory_us),
    );
    let gpu_s = (compute + comm + copies) * seconds;
    // A GPU busier than the typical step is long (its data wait overlapped): scaled to fit.
    let scale = if gpu_s > rest { rest / gpu_s } else { 1.0 };
    let k = &trace.kernels;
    let matmul = k.gemm_conv_time_share.clamp(0.0, 1.0);
    let elementwise = k.elementwise_time_share.clamp(0.0, 1.0 - matmul);
    let compute_s = compute * seconds * scale;
    book.add(
        LedgerKind::GpuCompute(KernelClass::MatmulConv),
        compute_s * matmul,
    );
    book.add(
        LedgerKind::GpuCompute(KernelClass::Elementwise),
        compute_s * elementwise,
    );
    book.add(
        LedgerKind::GpuCompute(KernelClass::Other),
        compute_s * (1.0 - matmul - elementwise),
    );
    book.add(LedgerKind::ExposedCommunication, comm * seconds * scale);
    book.add(LedgerKind::Copies, copies * seconds * scale);
    let idle = (rest - gpu_s * scale).max(0.0);
    // The idle rest as the trace's idle splits: launch gaps, gaps with no cause, and the
    // host late, by what it did meanwhile (a sync, launching, work that launched nothing, a
    // checkpoint; waiting for data where no step timings counted that already).
    let w = &trace.host_waits;
    let data_us = if inputs.rows.len() >= 2 {
        0.0
    } else {
        w.dataloader_us
    };
    let host_parts = [
        (LedgerKind::DataWait, data_us),
        (LedgerKind::SyncIdle, w.sync_us),
        (
            LedgerKind::HostLate,
            (w.launch_us - w.launchless_us).max(0.0) + w.other_us,
        ),
        (LedgerKind::HostLaunchless, w.launchless_us.min(w.launch_us)),
        (
            LedgerKind::Periodic(MarkerKind::Checkpoint),
            w.checkpoint_us,
        ),
    ];
    let host_us: f64 = host_parts.iter().map(|(_, us)| us).sum();
    let late_us = g.idle.host_wait_us;
    let idle_us = late_us + g.idle.kernel_wait_us + g.idle.other_us;
    if idle_us <= 0.0 {
        book.add(LedgerKind::NotExplained, idle);
        return;
    }
    book.add(
        LedgerKind::LaunchGaps,
        idle * g.idle.kernel_wait_us / idle_us,
    );
    book.add(LedgerKind::NotExplained, idle * g.idle.other_us / idle_us);
    let late_s = idle * late_us / idle_us;
    if host_us > 0.0 {
        for (kind, us) in host_parts {
            book.add(kind, late_s * us / host_us);
        }
    } else {
        book.add(LedgerKind::HostLate, late_s);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `n` steps of `ms(i)` milliseconds each, `wait(i)` of it waiting for data.
    fn steps(n: usize, ms: impl Fn(usize) -> f64, wait: impl Fn(usize) -> f64) -> Vec<StepRecord> {
        let mut t = 100.0;
        (0..=n)
            .map(|i| {
                let row = StepRecord {
                    step: i as u64,
                    t_start: t,
                    data_wait_ms: wait(i),
                    launch_ms: 1.0,
                    gpu_ms: None,
                    gpu_steps: 1,
                };
                t += ms(i) / 1e3;
                row
            })
            .collect()
    }

    fn inputs<'a>(rows: &'a [StepRecord], markers: &'a [RunMarker]) -> LedgerInputs<'a> {
        LedgerInputs {
            rank: 0,
            rows,
            warmup: 1,
            profiled: None,
            markers,
            trace: None,
            util_pct: Some(50.0),
            sampled_s: None,
        }
    }

    fn seconds(l: &TimeLedger, kind: LedgerKind) -> f64 {
        l.part(kind).map_or(0.0, |p| p.seconds)
    }

    #[test]
    fn a_slow_step_while_a_checkpoint_writer_ran_is_the_checkpoints_time() {
        let th = Thresholds::default();
        // 10 ms steps; step 40 saves (a 300 ms copy, then a 0.8 s write on a thread); step
        // 60, inside that write, takes 510 ms: the writer held the interpreter. Step 90
        // stalls 200 ms after the write ended, with nothing marked.
        let rows = steps(
            100,
            |i| match i {
                0 => 2000.0,
                40 => 310.0,
                60 => 510.0,
                90 => 210.0,
                _ => 10.0,
            },
            |_| 0.0,
        );
        let write = RunMarker {
            step: 40,
            t: rows[41].t_start,
            kind: MarkerKind::Checkpoint,
            detail: "torch.save bytes=1000 thread=checkpoint".into(),
            duration_ms: Some(800.0),
        };
        let l = ledger(&inputs(&rows, std::slice::from_ref(&write)), &th).unwrap();
        let checkpoint = seconds(&l, LedgerKind::Periodic(MarkerKind::Checkpoint));
        assert!((checkpoint - (0.3 + 0.5)).abs() < 1e-9, "{checkpoint}");
        assert!((seconds(&l, LedgerKind::SlowSteps) - 0.2).abs() < 1e-9);
    }

    #[test]
    fn warm_up_an_evaluation_and_a_stall_each_get_their_time_and_the_parts_add_up() {
        let th = Thresholds::default();
        // 10 ms steps; step 0 compiles (2 s); step 50 runs a 400 ms evaluation the probe
        // marked; step 80 stalls 200 ms with nothing marked; 2 ms of each step waits for data.
        let rows = steps(
            100,
            |i| match i {
                0 => 2000.0,
                50 => 410.0,
                80 => 210.0,
                _ => 10.0,
            },
            |_| 2.0,
        );
        let eval = RunMarker {
            step: 50,
            t: 0.0,
            kind: MarkerKind::Eval,
            detail: String::new(),
            duration_ms: Some(400.0),
        };
        let l = ledger(&inputs(&rows, std::slice::from_ref(&eval)), &th).unwrap();
        assert_eq!(l.basis, LedgerBasis::WholeRun);
        let total = 2.0 + 0.41 + 0.21 + 97.0 * 0.01;
        assert!((l.total_s - total).abs() < 1e-9, "{}", l.total_s);
        assert!((l.accounted_s() - l.total_s).abs() < 1e-9);
        assert!((l.parts.iter().map(|p| p.share).sum::<f64>() - 1.0).abs() < 1e-9);
        assert!((seconds(&l, LedgerKind::WarmUp) - 1.99).abs() < 1e-9);
        assert!((seconds(&l, LedgerKind::Periodic(MarkerKind::Eval)) - 0.4).abs() < 1e-9);
        assert!((seconds(&l, LedgerKind::SlowSteps) - 0.2).abs() < 1e-9);
        // The 100 typical steps (1 s): 2 ms of each waiting, the GPU busy half the time
        // (NVML), the rest not explained without a trace.
        assert!((seconds(&l, LedgerKind::DataWait) - 0.2).abs() < 1e-9);
        let busy = seconds(&l, LedgerKind::GpuCompute(KernelClass::Unsplit));
        assert!((busy - 0.5).abs() < 1e-9, "{busy}");
        assert!((seconds(&l, LedgerKind::NotExplained) - 0.3).abs() < 1e-9);
        // Largest first.
        assert_eq!(l.parts[0].kind, LedgerKind::WarmUp);
    }

    #[test]
    fn a_host_ahead_of_a_busy_gpu_waiting_every_tenth_step_is_not_a_stall() {
        let th = Thresholds::default();
        // The GPU takes 10 ms a step throughout; the host queues nine steps in 5 ms each and
        // waits for the GPU at the tenth (55 ms): long on the host's clock, not on the GPU's.
        let mut rows = steps(200, |i| if i % 10 == 9 { 55.0 } else { 5.0 }, |_| 0.0);
        for r in &mut rows {
            r.gpu_ms = Some(10.0);
        }
        let l = ledger(&inputs(&rows, &[]), &th).unwrap();
        assert_eq!(seconds(&l, LedgerKind::SlowSteps), 0.0);
        // The same steps with the GPU idle through the long ones are stalls.
        for r in rows.iter_mut().filter(|r| r.step % 10 == 9) {
            r.gpu_ms = Some(55.0);
        }
        let l = ledger(&inputs(&rows, &[]), &th).unwrap();
        assert!(seconds(&l, LedgerKind::SlowSteps) > 0.9, "{l:?}");
    }

    #[test]
    fn samples_alone_split_into_the_gpus_busy_time_and_the_rest_not_explained() {
        let th = Thresholds::default();
        let l = ledger(
            &LedgerInputs {
                sampled_s: Some(60.0),
                util_pct: Some(25.0),
                ..inputs(&[], &[])
            },
            &th,
        )
        .unwrap();
        assert_eq!(l.basis, LedgerBasis::SampledSeconds);
        assert_eq!(l.total_s, 60.0);
        assert_eq!(l.parts[0].kind, LedgerKind::NotExplained);
        assert!((l.parts[0].share - 0.75).abs() < 1e-12);
        // Nothing timed, traced or sampled: no ledger.
        assert!(ledger(&inputs(&[], &[]), &th).is_none());
    }
}
