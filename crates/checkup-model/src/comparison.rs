//! A run compared with a baseline card, as facts: each figure's two values and how it moved,
//! the step-time change and the reasons found for it. The catalogue words it.

use serde::{Deserialize, Serialize};

/// A figure of the baseline card, in the card's order: what the workload is, where it ran,
/// the whole run, the GPU while busy, the steady window.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Figure {
    /// The model: the lab's name or the class the probe saw.
    Model,
    /// Trainable parameters.
    Parameters,
    /// Samples per batch on each rank.
    BatchSize,
    /// Precision (`bf16-autocast`, `no autocast`).
    Precision,
    /// Ranks in the job.
    WorldSize,
    /// The GPU's name.
    Gpu,
    /// NVIDIA driver version.
    Driver,
    /// CUDA version of the driver.
    Cuda,
    /// PyTorch version.
    Torch,
    /// NCCL version.
    Nccl,
    /// Time per step over the whole run, stalls included.
    TimePerStep,
    /// Median step time over the whole run.
    MedianStepTime,
    /// 95th percentile step time.
    P95StepTime,
    /// Share of the run's time lost to stalls.
    StallShare,
    /// Samples per second over all ranks.
    SamplesPerSecond,
    /// Optimizer steps per second.
    StepsPerSecond,
    /// Mean step time over the steady window (cards from before whole-run figures).
    MeanStepTime,
    /// Mean GPU-Util over the steady window.
    GpuUtil,
    /// The shape of the GPU-Util curve.
    UtilCurve,
    /// Median power while the GPU was busy.
    Power,
    /// The enforced power limit.
    PowerLimit,
    /// Median SM clock while busy.
    SmClock,
    /// Share of busy readings throttled.
    ThrottledShare,
    /// The highest GPU temperature.
    TemperatureMax,
    /// The most GPU memory in use.
    MemoryPeak,
    /// Share of step time waiting for data.
    DataLoadingShare,
    /// Mean gap between kernels.
    MeanKernelGap,
    /// Host CPU over the steady window, percent of all cores.
    HostCpu,
    /// Exposed communication's share of the step.
    CommunicationShare,
    /// The primary bottleneck's finding id.
    PrimaryBottleneck,
}

impl Figure {
    /// Every figure, in the card's order.
    pub const ALL: [Figure; 30] = [
        Figure::Model,
        Figure::Parameters,
        Figure::BatchSize,
        Figure::Precision,
        Figure::WorldSize,
        Figure::Gpu,
        Figure::Driver,
        Figure::Cuda,
        Figure::Torch,
        Figure::Nccl,
        Figure::TimePerStep,
        Figure::MedianStepTime,
        Figure::P95StepTime,
        Figure::StallShare,
        Figure::SamplesPerSecond,
        Figure::StepsPerSecond,
        Figure::MeanStepTime,
        Figure::GpuUtil,
        Figure::UtilCurve,
        Figure::Power,
        Figure::PowerLimit,
        Figure::SmClock,
        Figure::ThrottledShare,
        Figure::TemperatureMax,
        Figure::MemoryPeak,
        Figure::DataLoadingShare,
        Figure::MeanKernelGap,
        Figure::HostCpu,
        Figure::CommunicationShare,
        Figure::PrimaryBottleneck,
    ];
}

/// The shape of a utilisation or power curve.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "shape")]
pub enum CurveShape {
    /// Flat.
    Steady,
    /// Falls to idle and back, irregularly.
    Sawtooth,
    /// Dips to idle at a regular period.
    DipsEvery {
        /// The period, seconds.
        period_s: f64,
    },
}

/// Units of a compared number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FigureUnit {
    /// Milliseconds.
    Ms,
    /// Percent.
    Percent,
    /// Watts.
    Watts,
    /// Microseconds.
    Us,
    /// Megahertz.
    Mhz,
    /// Degrees Celsius.
    Celsius,
    /// Gibibytes.
    Gib,
    /// Per second.
    PerSecond,
    /// A plain count (parameters, samples in a batch, ranks).
    Count,
}

/// One side of a compared figure.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "type")]
pub enum FigureValue {
    /// Verbatim (a GPU name, a driver version); empty when not recorded.
    Text {
        /// The text.
        text: String,
    },
    /// A number in a unit.
    Number {
        /// The value; None when not recorded.
        value: Option<f64>,
        /// Its unit.
        unit: FigureUnit,
    },
    /// A fraction shown as percent.
    Share {
        /// The fraction; None when not recorded.
        share: Option<f64>,
    },
    /// A curve's shape.
    Shape {
        /// The shape.
        shape: CurveShape,
    },
    /// A finding id.
    Finding {
        /// The finding id.
        id: String,
    },
}

/// How a figure moved.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "type")]
pub enum Delta {
    /// Not recorded on one side.
    Unknown,
    /// The same.
    Same,
    /// Different (a text figure).
    Changed,
    /// Relative change (0.1 = +10 %).
    Relative {
        /// The change.
        by: f64,
    },
    /// Change in percentage points.
    Points {
        /// The change, in points.
        by: f64,
    },
    /// Change in the figure's own unit (a temperature: +12 °C).
    Units {
        /// The change.
        by: f64,
        /// Its unit.
        unit: FigureUnit,
    },
    /// No figure to compare.
    None,
}

impl Delta {
    /// Whether the figure moved by at least the precision it is shown with (whole percent or
    /// points).
    pub fn differs(self) -> bool {
        match self {
            Delta::Changed => true,
            Delta::Relative { by } => (by * 100.0).round() != 0.0,
            Delta::Points { by } | Delta::Units { by, .. } => by.round() != 0.0,
            Delta::Unknown | Delta::Same | Delta::None => false,
        }
    }
}

/// One figure on both cards, and how it moved.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FigureChange {
    /// Which figure.
    pub figure: Figure,
    /// The baseline card's value.
    pub baseline: FigureValue,
    /// This run's value.
    pub current: FigureValue,
    /// How it moved.
    pub delta: Delta,
}

impl FigureChange {
    /// Whether it moved by at least the precision it is shown with.
    pub fn differs(&self) -> bool {
        self.delta.differs()
    }
}

/// The run's time per step against the baseline's: over the whole run where both cards have
/// it (stalls count), else over the steady window.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "type")]
pub enum StepChange {
    /// By at least 5 % (relative: 0.1 = 10 % slower).
    Changed {
        /// The relative change.
        by: f64,
    },
    /// Within 5 %.
    Unchanged {
        /// The relative change.
        #[serde(default)]
        by: f64,
    },
    /// A card lacks the step time.
    NotComparable,
}

impl StepChange {
    /// The relative change, where both runs had one.
    pub fn by(self) -> Option<f64> {
        match self {
            StepChange::Changed { by } | StepChange::Unchanged { by } => Some(by),
            StepChange::NotComparable => None,
        }
    }
}

/// A reason a comparison gives for what moved.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "reason")]
pub enum CompareReason {
    /// What identifies the workload differs (model, size, batch, precision, ranks): the two
    /// step times measure different work. (figure, baseline, current).
    DifferentWorkloads {
        /// The figures that differ.
        differences: Vec<FigureChange>,
    },
    /// Environment facts that differ: (figure, baseline, current).
    EnvironmentChanged {
        /// (figure, baseline, current) of each.
        changes: Vec<(Figure, String, String)>,
    },
    /// The GPU drew less power while busy (W); with the power limits where recorded and
    /// what the other figures say held it down.
    PowerLower {
        /// The baseline's value.
        from: Option<f64>,
        /// This run's value.
        to: Option<f64>,
        /// The baseline's power limit.
        limit_from: Option<f64>,
        /// This run's power limit.
        limit_to: Option<f64>,
        /// What held the power down.
        held: PowerHeld,
    },
    /// The SM clock while busy fell (MHz).
    ClocksLower {
        /// The baseline's value.
        from: Option<f64>,
        /// This run's value.
        to: Option<f64>,
    },
    /// More of the busy time throttled (shares), with the current run's reasons.
    MoreThrottled {
        /// The baseline's value.
        from: Option<f64>,
        /// This run's value.
        to: Option<f64>,
        /// This run's throttling reasons, by NVML's names.
        reasons: Vec<String>,
    },
    /// The GPU ran hotter (°C, the run's highest reading).
    Hotter {
        /// The baseline's value.
        from: Option<f64>,
        /// This run's value.
        to: Option<f64>,
    },
    /// More of the run's time lost to stalls (shares).
    StallsGrew {
        /// The baseline's value.
        from: Option<f64>,
        /// This run's value.
        to: Option<f64>,
    },
    /// More of the step spent waiting for data (shares).
    InputRegressed {
        /// The baseline's value.
        from: Option<f64>,
        /// This run's value.
        to: Option<f64>,
    },
    /// More exposed communication (shares).
    CommunicationRegressed {
        /// The baseline's value.
        from: Option<f64>,
        /// This run's value.
        to: Option<f64>,
    },
    /// Host CPU percent of all cores.
    HostCpuBusier {
        /// The baseline's value.
        from: Option<f64>,
        /// This run's value.
        to: Option<f64>,
    },
    /// Mean kernel gap in µs.
    HostFeedsSlower {
        /// The baseline's value.
        from: Option<f64>,
        /// This run's value.
        to: Option<f64>,
    },
    /// The training's memory peak rose close to the card's capacity (GiB), where the
    /// allocator starts to free and retry.
    MemoryNearLimit {
        /// The baseline's value.
        from: Option<f64>,
        /// This run's value.
        to: Option<f64>,
        /// The card's memory.
        total: Option<f64>,
    },
    /// The primary bottleneck changed (finding ids).
    PrimaryMoved {
        /// The baseline's value.
        from: String,
        /// This run's value.
        to: String,
    },
    /// The step time rose and no figure explains it.
    Unexplained,
    /// No figure moved for the worse.
    NothingRegressed,
}

/// Why a GPU drew less power while busy, as far as the cards tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PowerHeld {
    /// Its power limit is lower than the baseline's.
    LimitLowered,
    /// Its clocks were lower or more often throttled (named beside it).
    ClocksHeld,
    /// The same clocks and limit, no throttling: it did less work per second while busy (a
    /// lighter kernel mix, short waits inside the readings), which nothing else on the card
    /// explains.
    LessWork,
}

/// A run compared with a baseline card.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunComparison {
    /// Every figure on both cards.
    pub changes: Vec<FigureChange>,
    /// The time per step's change.
    pub step: StepChange,
    /// Which figure `step` compares: [`Figure::TimePerStep`] or [`Figure::MeanStepTime`].
    #[serde(default = "steady_step")]
    pub step_figure: Figure,
    /// Never empty: `Unexplained` or `NothingRegressed` when no figure moved.
    pub reasons: Vec<CompareReason>,
}

fn steady_step() -> Figure {
    Figure::MeanStepTime
}

impl RunComparison {
    /// Whether the two runs are different workloads, whose step times measure different work.
    pub fn different_workloads(&self) -> bool {
        self.reasons
            .iter()
            .any(|r| matches!(r, CompareReason::DifferentWorkloads { .. }))
    }

    /// The slowdown beyond `threshold` (0.1 = 10 %) of the same workload, for a CI gate: the
    /// relative change when it is one.
    pub fn regression_beyond(&self, threshold: f64) -> Option<f64> {
        self.step
            .by()
            .filter(|by| *by > threshold && !self.different_workloads())
    }
}
