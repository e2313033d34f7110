//! A run compared with a baseline card, as facts: each figure's two values and how it moved,
//! the step-time change and the reasons found for it. The catalogue words it.

use serde::{Deserialize, Serialize};

/// A figure of the baseline card.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Figure {
    Gpu,
    Driver,
    Cuda,
    MeanStepTime,
    GpuUtil,
    UtilCurve,
    Power,
    DataLoadingShare,
    MeanKernelGap,
    HostCpu,
    CommunicationShare,
    PrimaryBottleneck,
}

impl Figure {
    pub const ALL: [Figure; 12] = [
        Figure::Gpu,
        Figure::Driver,
        Figure::Cuda,
        Figure::MeanStepTime,
        Figure::GpuUtil,
        Figure::UtilCurve,
        Figure::Power,
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
            Delta::Points { by } => by.round() != 0.0,
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

/// The mean step time against the baseline's.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "type")]
pub enum StepChange {
    /// By at least 5 %.
    Changed {
        by: f64,
    },
    /// Within 5 %.
    Unchanged,
    NotComparable,
}

/// A reason a comparison gives for what moved.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "reason")]
pub enum CompareReason {
    /// Environment facts that differ: (figure, baseline, current).
    EnvironmentChanged {
        changes: Vec<(Figure, String, String)>,
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
    PrimaryMoved {
        from: String,
        to: String,
    },
    /// The step time rose and no figure explains it.
    Unexplained,
    NothingRegressed,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunComparison {
    pub changes: Vec<FigureChange>,
    pub step: StepChange,
    /// Never empty: `Unexplained` or `NothingRegressed` when no figure moved.
    pub reasons: Vec<CompareReason>,
}
