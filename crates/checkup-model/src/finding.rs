//! Findings and the diagnosis that ranks them.

use serde::{Deserialize, Serialize};

use crate::{
    ChartData, EnvCheck, HostStats, RankSummary, RunFacts, SampleStats, Scaling, SteadyWindow,
    StepTiming,
};

/// Stable finding ids (a finding may add a sub-id: `communication/p2p_disabled`).
pub mod ids {
    pub const COMPUTE_BOUND: &str = "compute_bound";
    pub const DATA_LOADING: &str = "data_loading";
    pub const KERNEL_LAUNCH: &str = "kernel_launch";
    pub const MEMORY_BANDWIDTH: &str = "memory_bandwidth";
    pub const COMMUNICATION: &str = "communication";
    pub const HOST_SYNC: &str = "host_sync";
    pub const H2D_COPY: &str = "h2d_copy";
    pub const PERIODIC_STALL: &str = "periodic_stall";
    pub const THROTTLING: &str = "throttling";
    /// The GPU waits most of the time and the recording cannot say for what (samples only,
    /// or a trace that does not account for the idle time).
    pub const GPU_IDLE: &str = "gpu_idle";
    pub const ENVIRONMENT: &str = "environment";
    pub const ALL: [&str; 11] = [
        COMPUTE_BOUND,
        DATA_LOADING,
        KERNEL_LAUNCH,
        MEMORY_BANDWIDTH,
        COMMUNICATION,
        HOST_SYNC,
        H2D_COPY,
        PERIODIC_STALL,
        THROTTLING,
        GPU_IDLE,
        ENVIRONMENT,
    ];
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    Info,
    Minor,
    Major,
    Critical,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Finding {
    pub id: String,
    pub title: String,
    pub severity: Severity,
    /// 0..=1: how sure the engine is, lower when signals disagree or are missing.
    pub confidence: f64,
    /// Share of step time this finding explains (0..=1).
    pub share: f64,
    pub summary: String,
    pub evidence: Vec<Evidence>,
    pub fixes: Vec<Fix>,
}

impl Finding {
    /// The portrait id without its sub-id: `communication/p2p_disabled` → `communication`.
    pub fn family(&self) -> &str {
        self.id.split('/').next().unwrap_or(&self.id)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Evidence {
    pub metric: String,
    pub value: f64,
    pub unit: String,
    pub threshold: Option<Threshold>,
    /// Where the value came from: a file, a rank, a sampler.
    pub source: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Comparison {
    #[serde(rename = ">=")]
    AtLeast,
    #[serde(rename = "<=")]
    AtMost,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Threshold {
    pub comparison: Comparison,
    pub value: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Fix {
    pub title: String,
    pub detail: String,
    pub snippet: Option<String>,
    pub expected_effect: String,
}

/// The engine's answer for one run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Diagnosis {
    /// Id of the finding that explains the most lost time.
    pub primary: String,
    /// One sentence for the top of a report.
    pub verdict: String,
    /// Ranked, primary first.
    pub findings: Vec<Finding>,
    pub window: SteadyWindow,
    pub facts: RunFacts,
    pub environment: Vec<EnvCheck>,
    pub ranks: Vec<RankSummary>,
    /// The rank whose cause is diagnosed (the slowest one on multi-GPU runs).
    pub diagnosed_rank: Option<u32>,
    pub step_timing: Vec<StepTiming>,
    pub samples: Vec<SampleStats>,
    pub host: Option<HostStats>,
    pub scaling: Option<Scaling>,
    /// Caveats about the inputs (missing files, profiler overhead, partial data).
    pub notes: Vec<String>,
    pub sources: Vec<String>,
    /// Curves and timelines for the charts of reports and the app.
    pub charts: ChartData,
}

impl Diagnosis {
    pub fn finding(&self, id: &str) -> Option<&Finding> {
        self.findings
            .iter()
            .find(|f| f.id == id || f.family() == id)
    }

    /// The diagnosed rank's trace summary (the first rank when none was picked).
    pub fn diagnosed_rank_summary(&self) -> Option<&RankSummary> {
        self.ranks
            .iter()
            .find(|r| Some(r.rank) == self.diagnosed_rank)
            .or(self.ranks.first())
    }

    /// The samples of the diagnosed rank's GPU (rank n runs on GPU n).
    pub fn diagnosed_samples(&self) -> Option<&SampleStats> {
        self.samples
            .iter()
            .find(|s| Some(s.gpu) == self.diagnosed_rank)
            .or(self.samples.first())
    }

    /// The diagnosed rank's step series.
    pub fn diagnosed_steps(&self) -> Option<&crate::StepSeries> {
        self.charts
            .steps
            .iter()
            .find(|s| Some(s.rank) == self.diagnosed_rank)
            .or(self.charts.steps.first())
    }
}

/// How every view prints a measured value: 3 significant-ish digits, no trailing noise.
pub fn format_number(v: f64) -> String {
    if v.abs() >= 100.0 || v.fract() == 0.0 {
        format!("{v:.0}")
    } else if v.abs() >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}
