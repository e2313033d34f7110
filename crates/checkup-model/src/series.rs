//! The curves and timelines a report or the app draws, already cut to what a chart needs.
//! Times are seconds since [`ChartData::t0`] (epoch seconds) unless named `_us`.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ChartData {
    /// Epoch seconds that time axes count from (the first sample or step).
    pub t0: f64,
    /// The steady window on the same axis, for shading.
    pub steady: Option<(f64, f64)>,
    pub gpus: Vec<GpuSeries>,
    pub host: Option<HostSeries>,
    pub steps: Vec<StepSeries>,
    pub timelines: Vec<RankTimeline>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct GpuSeries {
    pub gpu: u32,
    pub t: Vec<f64>,
    pub util_pct: Vec<Option<f32>>,
    pub power_w: Vec<Option<f32>>,
    pub power_limit_w: Option<f64>,
    pub sm_clock_mhz: Vec<Option<f32>>,
    pub sm_clock_max_mhz: Option<f64>,
    pub gpm_t: Vec<f64>,
    pub sm_active_pct: Vec<Option<f32>>,
    pub tensor_pct: Vec<Option<f32>>,
    pub dram_pct: Vec<Option<f32>>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct HostSeries {
    pub t: Vec<f64>,
    pub cpu_total_pct: Vec<Option<f32>>,
    /// 100 = one core.
    pub proc_tree_pct: Vec<Option<f32>>,
    pub cores: u32,
}

/// Every step's duration on one rank, from `steps.csv`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct StepSeries {
    pub rank: u32,
    pub step: Vec<u64>,
    pub duration_ms: Vec<f32>,
    pub warmup_steps: u64,
    pub stall_steps: Vec<u64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SegmentKind {
    Compute,
    Communication,
    Memory,
}

/// What one rank's GPU did over a few steady steps: busy segments by kind; the rest is idle.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RankTimeline {
    pub rank: u32,
    pub span_us: f64,
    /// Step boundaries inside the span, microseconds from its start.
    pub step_starts_us: Vec<f64>,
    pub segments: Vec<(f64, f64, SegmentKind)>,
}

/// One drawn chart: a stable name, a caption and the SVG (shared by reports and the app).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChartSvg {
    pub name: String,
    pub title: String,
    pub svg: String,
}
