//! A run compared with a baseline card, as facts: each figure's two values and how it moved,
//! the step-time change and the reasons found for it. The catalogue words it.

use serde::{Deserialize, Serialize};

/// A figure of the baseline card, in the card's order: what the workload is, where it ran,
/// the whole run, the GPU while busy, the steady window.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Figure {
    Model,
    Parameters,
    BatchSize,
    Precision,
    WorldSize,
    Gpu,
    Driver,
    Cuda,
    Torch,
    Nccl,
    /// Time per step over the whole run, stalls included.
    TimePerStep,
    MedianStepTime,
    P95StepTime,
    StallShare,
    SamplesPerSecond,
    StepsPerSecond,
    /// Mean step time over the steady window (cards from before whole-run figures).
    MeanStepTime,
    GpuUtil,
    UtilCurve,
    /// Median power while the GPU was busy.
    Power,
    PowerLimit,
    /// Median SM clock while busy.
    SmClock,
    ThrottledShare,
    TemperatureMax,
    MemoryPeak,
    DataLoadingShare,
    MeanKernelGap,
    HostCpu,
    CommunicationShare,
    PrimaryBottleneck,
}

impl Figure {
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
    Steady,
    Sawtooth,
    DipsEvery { period_s: f64 },
}

/// Units of a compared number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FigureUnit {
    Ms,
    Percent,
    Watts,
    Us,
    Mhz,
    Celsius,
    Gib,
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
        text: String,
    },
    Number {
        value: Option<f64>,
        unit: FigureUnit,
    },
    /// A fraction shown as percent.
    Share {
        share: Option<f64>,
    },
    Shape {
        shape: CurveShape,
    },
    /// A finding id.
    Finding {
        id: String,
    },
}

/// How a figure moved.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "type")]
pub enum Delta {
    /// Not recorded on one side.
    Unknown,
    Same,
    Changed,
    /// Relative change (0.1 = +10 %).
    Relative {
        by: f64,
    },
    /// Change in percentage points.
    Points {
        by: f64,
    },
    /// Change in the figure's own unit (a temperature: +12 °C).
    Units {
        by: f64,
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

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FigureChange {
    pub figure: Figure,
    pub baseline: FigureValue,
    pub current: FigureValue,
    pub delta: Delta,
}

impl FigureChange {
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
        by: f64,
    },
    /// Within 5 %.
    Unchanged {
        #[serde(default)]
        by: f64,
    },
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
        differences: Vec<FigureChange>,
    },
    /// Environment facts that differ: (figure, baseline, current).
    EnvironmentChanged {
        changes: Vec<(Figure, String, String)>,
    },
    /// The GPU drew less power while busy (W); with the power limits where recorded and
    /// what the other figures say held it down.
    PowerLower {
        from: Option<f64>,
        to: Option<f64>,
        limit_from: Option<f64>,
        limit_to: Option<f64>,
        held: PowerHeld,
    },
    /// The SM clock while busy fell (MHz).
    ClocksLower {
        from: Option<f64>,
        to: Option<f64>,
    },
    /// More of the busy time throttled (shares), with the current run's reasons.
    MoreThrottled {
        from: Option<f64>,
        to: Option<f64>,
        reasons: Vec<String>,
    },
    /// The GPU ran hotter (°C, the run's highest reading).
    Hotter {
        from: Option<f64>,
        to: Option<f64>,
    },
    /// More of the run's time lost to stalls (shares).
    StallsGrew {
        from: Option<f64>,
        to: Option<f64>,
    },
    InputRegressed {
        from: Option<f64>,
        to: Option<f64>,
    },
    CommunicationRegressed {
        from: Option<f64>,
        to: Option<f64>,
    },
    /// Host CPU percent of all cores.
    HostCpuBusier {
        from: Option<f64>,
        to: Option<f64>,
    },
    /// Mean kernel gap in µs.
    HostFeedsSlower {
        from: Option<f64>,
        to: Option<f64>,
    },
    /// The training's memory peak rose close to the card's capacity (GiB), where the
    /// allocator starts to free and retry.
    MemoryNearLimit {
        from: Option<f64>,
        to: Option<f64>,
        total: Option<f64>,
    },
    PrimaryMoved {
        from: String,
        to: String,
    },
    /// The step time rose and no figure explains it.
    Unexplained,
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

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunComparison {
    pub changes: Vec<FigureChange>,
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
