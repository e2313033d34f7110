//! Periodic stalls: some steps take far longer at a regular period.

use serde::{Deserialize, Serialize};

causes! {
    /// Some steps take far longer at a regular period (checkpoints, evaluation, epoch
    /// starts).
    pub enum PeriodicStall {
        /// Long steps at a regular period.
        Stalls {
            /// Steps between stalls.
            period_steps: f64,
            /// A stall's typical length beyond a normal step.
            excess_ms: f64,
            /// What the probe's markers show happening in the stalled steps; None without
            /// markers or when they show nothing there.
            #[serde(default)]
            work: Option<PeriodicWork>,
            /// Whether the GPU stayed busy through most stalls (the work ran on it, as an
            /// evaluation pass does) or went idle, as NVML saw; None where it saw neither.
            #[serde(default)]
            gpu_busy: Option<bool>,
        } => "periodic_stall",
    }
}

/// The periodic work a stall coincides with, from the probe's markers or the trace.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum PeriodicWork {
    /// A new epoch's iterator started its DataLoader workers again.
    EpochStart {
        /// The loader's worker count.
        workers: u32,
        /// Batches in an epoch, when known.
        batches_per_epoch: Option<u64>,
    },
    /// A checkpoint being written.
    Checkpoint,
    /// A checkpoint saved in the background (a writer thread, `async_save`): the copy of the
    /// state to host memory, and the loop waiting for the writer, whose previous write is
    /// still running when the next one is due or which holds the interpreter as it writes.
    BackgroundCheckpoint,
    /// An evaluation pass.
    Eval,
    /// A full garbage collection.
    GarbageCollection,
    /// The profiled stalls are the host reading tensors back one by one (`.cpu()`, `.item()`
    /// for histograms or metrics), each read-back a wait for the GPU, with the GPU idle
    /// while the host works on the copies: seen in the trace.
    HostReadback {
        /// Median read-backs in a profiled stalled step.
        readbacks_per_stall: f64,
    },
}

keyed! {
    tag = "key";
    /// What the `periodic_stall` family's findings measure.
    #[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
    pub enum PeriodicStallEvidence {
        /// Stalled steps in which the probe marked the periodic work named.
        StallsWithMarker => "stalls_with_marker",
        /// Stalls inside the profiled window.
        ProfiledStalls => "profiled_stalls",
        /// Median host read-backs in a profiled stalled step.
        ReadbacksPerStall => "readbacks_per_stall",
        /// Stall period.
        StallPeriod => "stall_period",
        /// Typical stall length beyond a normal step.
        StallExcess => "stall_excess",
        /// Stalls in the steady window.
        StallCount => "stall_count",
        /// Time lost to stalls (share of run).
        StallLostShare => "stall_lost_share",
        /// GPU util dips to idle every.
        UtilDipPeriod => "util_dip_period",
        /// Stalls during which GPU-Util fell below busy.
        StallsSeenIdle => "stalls_seen_idle",
        /// The training's time between two stalls (normal steps over one period): what a
        /// background write has to finish in before the next one waits for it.
        TrainingBetweenStalls => "training_between_stalls",
        /// What a save keeps in the loop with its write in the background: copying the
        /// state to host memory (a background writer's shortest stall, or a save's shortest
        /// stall less its bytes at the disk's peak write rate).
        StagingCopy => "staging_copy",
        /// A save's write beyond that copy, which a background writer takes out of the loop
        /// (a save's typical stall less the copy, or a background writer's typical write).
        CheckpointWrite => "checkpoint_write",
        /// Peak disk write rate.
        PeakDiskWrite => "peak_disk_write",
    }
}

keyed! {
    tag = "fix";
    /// The changes the `periodic_stall` family's findings propose.
    #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
    pub enum PeriodicStallFix {
        /// Full garbage collections stall the loop: freeze the objects built at start-up.
        FreezeGc {
            /// Whether the run froze already, too early: Python's own collections still
            /// walk what was built after (the model, the optimizer, objects kept per step).
            #[serde(default)]
            again_later: bool,
        } => "freeze_gc",
        /// Full collections the loop asks for stall it: stop calling `gc.collect()` in the
        /// loop.
        NoCollectInLoop {
            /// The line that calls it most, when the probe counted the calls.
            #[serde(default)]
            site: Option<crate::SyncSite>,
            /// Whether the run froze its start-up objects (`gc.freeze()`): each call still
            /// walks every object made since.
            #[serde(default)]
            frozen: bool,
        } => "no_collect_in_loop",
        /// Periodic work that reads tensors back one at a time: summarise on the GPU and copy
        /// once. `readbacks`: read-backs per stall.
        SummariseOnGpu {
            /// Read-backs per stall.
            readbacks: f64,
        } => "summarise_on_gpu",
        /// Write checkpoints asynchronously.
        AsyncCheckpoint {
            /// Whether the probe saw the run write checkpoints.
            checkpoint_seen: bool,
            /// Save every this many steps too: a write takes longer than the training
            /// between two saves now, so in the background the next save would wait for it.
            #[serde(default)]
            every_steps: Option<u64>,
        } => "async_checkpoint",
        /// Checkpoints already written in the background take longer than the training
        /// between two saves: save less often, so each write ends before the next is due.
        CheckpointLessOften {
            /// The new period, steps.
            every_steps: u64,
            /// The longest write seen, ms.
            write_ms: f64,
        } => "checkpoint_less_often",
        /// Evaluation passes take a large part of the run: evaluate every `every_steps` steps
        /// instead of every `period_steps`, so a pass takes at most `pass_share` of the
        /// training between two.
        EvaluateLessOften {
            /// The run's period now, steps.
            period_steps: u64,
            /// The new period, steps.
            every_steps: u64,
            /// A typical pass beyond a normal step, ms.
            pass_ms: f64,
            /// The most of the training between two passes a pass takes at the new period
            /// (0..=1).
            #[serde(default = "a_twentieth")]
            pass_share: f64,
        } => "evaluate_less_often",
        /// Do periodic work less often or off the critical path.
        LessPeriodicWork => "less_periodic_work",
    }
}

/// `pass_share` of fixes stored before it was kept: the engine's share then.
fn a_twentieth() -> f64 {
    0.05
}
