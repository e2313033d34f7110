//! The run's time ledger: where every second of the diagnosed rank's run went, in named
//! parts that add up to the whole, the part no measurement explains included. Measured over
//! the whole run where its steps were timed (warm-up, periodic work and slow steps counted),
//! else over the profiled steps, else over the sampled seconds.

use serde::{Deserialize, Serialize};

use crate::MarkerKind;

/// Where the run's time went.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TimeLedger {
    /// The rank it is of.
    pub rank: u32,
    /// The time accounted for, seconds.
    pub total_s: f64,
    /// What the time is.
    pub basis: LedgerBasis,
    /// The parts, largest first; their seconds add up to `total_s`.
    pub parts: Vec<LedgerPart>,
}

/// What a ledger's time is.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LedgerBasis {
    /// Every timed step of the run, from the first step's start to the last's.
    #[default]
    WholeRun,
    /// The profiled steps of a trace (no step timings were recorded).
    ProfiledSteps,
    /// The sampled seconds (neither steps nor a trace).
    SampledSeconds,
}

/// One part of the ledger.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LedgerPart {
    /// What the time was spent on.
    pub kind: LedgerKind,
    /// Seconds over the ledger's time.
    pub seconds: f64,
    /// Its share of the ledger's time, 0..=1.
    pub share: f64,
    /// The finding that explains it and says what to do, an index into the diagnosis's
    /// findings; None when no finding takes it up (the GPU's own work when nothing else is
    /// wrong, a part too small to act on, the part not explained).
    pub finding: Option<usize>,
}

/// What a part of the run's time was spent on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "of", rename_all = "snake_case")]
pub enum LedgerKind {
    /// Kernels computing, by class (the trace's split; `Unsplit` without a trace).
    GpuCompute(KernelClass),
    /// Copies and memsets that nothing hid.
    Copies,
    /// Communication that compute did not hide.
    ExposedCommunication,
    /// The GPU idle between kernels launched in time: launch and scheduling overhead.
    LaunchGaps,
    /// The GPU idle while the host was late launching its next work (Python, the launches
    /// themselves).
    HostLate,
    /// The GPU idle while the host, late with its next launch, made no CUDA call for a
    /// millisecond or more: work that launches nothing (Python over data on the CPU, a file
    /// every step, a lock).
    HostLaunchless,
    /// The GPU idle after the host waited for it (a read-back, a synchronize).
    SyncIdle,
    /// Waiting for the next batch.
    DataWait,
    /// Periodic work the probe marked (evaluation, checkpoints, garbage collection, an
    /// epoch's workers starting, dynamo compiling after the warm-up), beyond a typical step.
    Periodic(MarkerKind),
    /// The first steps beyond a typical step: warm-up, autotuning, compilation.
    WarmUp,
    /// The profiled steps beyond a typical step: the checkup's own profiler.
    Profiler,
    /// Steps slower than the typical one with no marked work to say why.
    SlowSteps,
    /// What no measurement splits: the GPU idle for no cause the recording names, or the
    /// whole idle time without a trace.
    NotExplained,
}

/// What kind of kernels computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum KernelClass {
    /// Matrix multiplies and convolutions (tensor-core work).
    MatmulConv,
    /// Elementwise, normalisation and reduction kernels (memory-bound work).
    Elementwise,
    /// Every other kernel.
    Other,
    /// Kernels, not split (no trace: from the probe's GPU timing or NVML's utilisation).
    Unsplit,
}

impl LedgerKind {
    /// Time of the training's steady steps: everything but the run's first steps and the
    /// steps the checkup's profiler slowed.
    pub fn is_steady(self) -> bool {
        !matches!(self, LedgerKind::WarmUp | LedgerKind::Profiler)
    }

    /// Every kind, in the order charts colour and list them: the GPU's work, then what
    /// kept it idle, then the run's own overheads, then what is not explained.
    pub const ALL: [LedgerKind; 20] = [
        LedgerKind::GpuCompute(KernelClass::MatmulConv),
        LedgerKind::GpuCompute(KernelClass::Elementwise),
        LedgerKind::GpuCompute(KernelClass::Other),
        LedgerKind::GpuCompute(KernelClass::Unsplit),
        LedgerKind::Copies,
        LedgerKind::ExposedCommunication,
        LedgerKind::LaunchGaps,
        LedgerKind::HostLate,
        LedgerKind::HostLaunchless,
        LedgerKind::SyncIdle,
        LedgerKind::DataWait,
        LedgerKind::Periodic(MarkerKind::EpochStart),
        LedgerKind::Periodic(MarkerKind::Checkpoint),
        LedgerKind::Periodic(MarkerKind::Eval),
        LedgerKind::Periodic(MarkerKind::Gc),
        LedgerKind::Periodic(MarkerKind::Compile),
        LedgerKind::WarmUp,
        LedgerKind::Profiler,
        LedgerKind::SlowSteps,
        LedgerKind::NotExplained,
    ];

    /// Its place in [`LedgerKind::ALL`]; exhaustive, so a new kind must take a place.
    pub fn position(self) -> usize {
        match self {
            LedgerKind::GpuCompute(KernelClass::MatmulConv) => 0,
            LedgerKind::GpuCompute(KernelClass::Elementwise) => 1,
            LedgerKind::GpuCompute(KernelClass::Other) => 2,
            LedgerKind::GpuCompute(KernelClass::Unsplit) => 3,
            LedgerKind::Copies => 4,
            LedgerKind::ExposedCommunication => 5,
            LedgerKind::LaunchGaps => 6,
            LedgerKind::HostLate => 7,
            LedgerKind::HostLaunchless => 8,
            LedgerKind::SyncIdle => 9,
            LedgerKind::DataWait => 10,
            LedgerKind::Periodic(MarkerKind::EpochStart) => 11,
            LedgerKind::Periodic(MarkerKind::Checkpoint) => 12,
            LedgerKind::Periodic(MarkerKind::Eval) => 13,
            LedgerKind::Periodic(MarkerKind::Gc) => 14,
            LedgerKind::Periodic(MarkerKind::Compile) => 15,
            LedgerKind::WarmUp => 16,
            LedgerKind::Profiler => 17,
            LedgerKind::SlowSteps => 18,
            LedgerKind::NotExplained => 19,
        }
    }
}

impl TimeLedger {
    /// The part of `kind`, if the ledger has one.
    pub fn part(&self, kind: LedgerKind) -> Option<&LedgerPart> {
        self.parts.iter().find(|p| p.kind == kind)
    }

    /// The seconds of every part together (`total_s`, up to rounding).
    pub fn accounted_s(&self) -> f64 {
        self.parts.iter().map(|p| p.seconds).sum()
    }

    /// The training's steady time: the ledger without the run's warm-up and the checkup's
    /// own profiler, the time its steady step time is measured over.
    pub fn steady_s(&self) -> f64 {
        self.parts
            .iter()
            .filter(|p| p.kind.is_steady())
            .map(|p| p.seconds)
            .sum()
    }

    /// Each finding's share of the steady time: the parts tied to it together. A part is
    /// tied to one finding at most, so these shares never add up past the whole.
    pub fn steady_shares(&self) -> Vec<(usize, f64)> {
        let steady = self.steady_s();
        let mut shares: Vec<(usize, f64)> = Vec::new();
        if steady <= 0.0 {
            return shares;
        }
        for p in self.parts.iter().filter(|p| p.kind.is_steady()) {
            let Some(finding) = p.finding else { continue };
            match shares.iter_mut().find(|(f, _)| *f == finding) {
                Some((_, share)) => *share += p.seconds / steady,
                None => shares.push((finding, p.seconds / steady)),
            }
        }
        shares.sort_by_key(|(f, _)| *f);
        shares
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_has_its_own_place_and_its_json_reads_back() {
        for (i, kind) in LedgerKind::ALL.iter().enumerate() {
            assert_eq!(kind.position(), i, "{kind:?}");
            let json = serde_json::to_string(kind).unwrap();
            assert_eq!(serde_json::from_str::<LedgerKind>(&json).unwrap(), *kind);
        }
        assert_eq!(
            serde_json::to_string(&LedgerKind::Periodic(MarkerKind::Eval)).unwrap(),
            r#"{"kind":"periodic","of":"eval"}"#
        );
        assert_eq!(
            serde_json::to_string(&LedgerKind::NotExplained).unwrap(),
            r#"{"kind":"not_explained"}"#
        );
    }

    fn part(kind: LedgerKind, seconds: f64, finding: Option<usize>) -> LedgerPart {
        LedgerPart {
            kind,
            seconds,
            share: seconds / 10.0,
            finding,
        }
    }

    #[test]
    fn steady_shares_leave_out_warm_up_and_the_profiler_and_count_each_second_once() {
        let ledger = TimeLedger {
            rank: 0,
            total_s: 10.0,
            basis: LedgerBasis::WholeRun,
            parts: vec![
                part(LedgerKind::DataWait, 4.0, Some(1)),
                part(LedgerKind::WarmUp, 2.0, None),
                part(LedgerKind::HostLate, 1.5, Some(0)),
                part(LedgerKind::LaunchGaps, 0.5, Some(0)),
                part(LedgerKind::Profiler, 1.0, None),
                part(LedgerKind::NotExplained, 1.0, None),
            ],
        };
        assert_eq!(ledger.steady_s(), 7.0);
        let shares = ledger.steady_shares();
        assert_eq!(shares.len(), 2);
        assert_eq!(shares[0].0, 0);
        assert!((shares[0].1 - 2.0 / 7.0).abs() < 1e-12);
        assert_eq!(shares[1].0, 1);
        assert!((shares[1].1 - 4.0 / 7.0).abs() < 1e-12);
    }
}
