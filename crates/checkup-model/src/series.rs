//! The curves and timelines a report or the app draws, already cut to what a chart needs.
//! Times are seconds since [`ChartData::t0`] (epoch seconds) unless named `_us`.

use serde::{Deserialize, Serialize};

/// Everything a diagnosis's charts draw, on one time axis.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ChartData {
    /// Epoch seconds that time axes count from (the first sample or step).
    pub t0: f64,
    /// The steady window on the same axis, for shading.
    pub steady: Option<(f64, f64)>,
    /// Each GPU's curves.
    pub gpus: Vec<GpuSeries>,
    /// The host's CPU curves.
    pub host: Option<HostSeries>,
    /// Each rank's step times.
    pub steps: Vec<StepSeries>,
    /// Each rank's GPU activity over a few steady steps.
    pub timelines: Vec<RankTimeline>,
    /// The first rank's live tensors over the run, when the probe recorded them.
    #[serde(default)]
    pub live_tensors: Option<LiveTensorSeries>,
}

/// One GPU's curves over the recording.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct GpuSeries {
    /// The GPU's index.
    pub gpu: u32,
    /// Seconds of the NVML readings.
    pub t: Vec<f64>,
    /// GPU-Util at `t`, percent.
    pub util_pct: Vec<Option<f32>>,
    /// Power draw at `t`, W.
    pub power_w: Vec<Option<f32>>,
    /// The power limit, W.
    pub power_limit_w: Option<f64>,
    /// SM clock at `t`, MHz.
    pub sm_clock_mhz: Vec<Option<f32>>,
    /// The SM clock's maximum, MHz.
    pub sm_clock_max_mhz: Option<f64>,
    /// Seconds of the GPM readings.
    pub gpm_t: Vec<f64>,
    /// SM activity at `gpm_t`, percent.
    pub sm_active_pct: Vec<Option<f32>>,
    /// Tensor-core activity at `gpm_t`, percent.
    pub tensor_pct: Vec<Option<f32>>,
    /// DRAM bandwidth used at `gpm_t`, percent of its peak.
    pub dram_pct: Vec<Option<f32>>,
    /// GPU memory in use (all processes), GiB, at `t`; and the card's.
    #[serde(default)]
    pub mem_used_gib: Vec<Option<f32>>,
    /// The card's memory, GiB.
    #[serde(default)]
    pub mem_total_gib: Option<f64>,
    /// Temperature (°C) at `t`, and the one at which the GPU slows itself down.
    #[serde(default)]
    pub temp_c: Vec<Option<f32>>,
    /// The temperature at which the GPU slows itself down, °C.
    #[serde(default)]
    pub temp_slowdown_c: Option<f64>,
    /// PCIe throughput each way (GB/s) at `pcie_t`: NVML's where it was sampled, else
    /// GPM's; and the link's peak each way.
    #[serde(default)]
    pub pcie_t: Vec<f64>,
    /// PCIe receive at `pcie_t`, GB/s.
    #[serde(default)]
    pub pcie_rx_gbs: Vec<Option<f32>>,
    /// PCIe transmit at `pcie_t`, GB/s.
    #[serde(default)]
    pub pcie_tx_gbs: Vec<Option<f32>>,
    /// The link's peak each way, GB/s (generation × lanes).
    #[serde(default)]
    pub pcie_peak_gbs: Option<f64>,
    /// NVLink throughput each way (GB/s, GPM) at `gpm_t`.
    #[serde(default)]
    pub nvlink_rx_gbs: Vec<Option<f32>>,
    /// NVLink transmit, GB/s.
    #[serde(default)]
    pub nvlink_tx_gbs: Vec<Option<f32>>,
    /// Each process's GPU memory, when more than one process held memory on this GPU.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub processes: Vec<ProcessMemory>,
}

impl GpuSeries {
    /// GPU-Util readings (percent) taken from `from_s` to `to_s` (the charts' seconds),
    /// where the reading was made.
    pub fn util_within(&self, from_s: f64, to_s: f64) -> impl Iterator<Item = f32> + '_ {
        self.t
            .iter()
            .zip(&self.util_pct)
            .filter(move |(ts, _)| (from_s..=to_s).contains(*ts))
            .filter_map(|(_, u)| *u)
    }
}

/// One process's GPU memory over the run (`samples_gpu_processes.csv`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ProcessMemory {
    /// The process.
    pub pid: u32,
    /// Whether it is the training's: the process whose memory matches what the probe saw
    /// the training's allocator hold. False when that cannot be told.
    pub training: bool,
    /// Seconds of its readings.
    pub t: Vec<f64>,
    /// Its memory at `t`, GiB.
    pub used_gib: Vec<Option<f32>>,
}

/// The training's live tensors and what its allocator reserved, from the probe's
/// `memory.csv` (GiB, seconds on the charts' axis).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LiveTensorSeries {
    /// Seconds of the probe's readings.
    pub t: Vec<f64>,
    /// Memory in live tensors at `t`.
    pub allocated_gib: Vec<Option<f32>>,
    /// Memory the caching allocator reserved at `t`.
    pub reserved_gib: Vec<Option<f32>>,
}

/// The host's CPU over the recording.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct HostSeries {
    /// Seconds of the host readings.
    pub t: Vec<f64>,
    /// The whole machine's CPU at `t`, percent of all cores.
    pub cpu_total_pct: Vec<Option<f32>>,
    /// 100 = one core.
    pub proc_tree_pct: Vec<Option<f32>>,
    /// The host's cores.
    pub cores: u32,
}

/// Every step's duration on one rank, from `steps.csv`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct StepSeries {
    /// The rank.
    pub rank: u32,
    /// Step numbers.
    pub step: Vec<u64>,
    /// Each step's duration, in `step`'s order.
    pub duration_ms: Vec<f32>,
    /// Warm-up steps at the start.
    pub warmup_steps: u64,
    /// Steps counted as stalls.
    pub stall_steps: Vec<u64>,
    /// The run's step time by tenths of its timed steps: each tenth's middle step and its
    /// median step time (ms), the trend a slowdown is read from. Empty for short runs.
    #[serde(default)]
    pub trend: Vec<(u64, f32)>,
}

/// What a busy segment of a rank's timeline is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SegmentKind {
    /// Compute kernels.
    Compute,
    /// NCCL kernels.
    Communication,
    /// Copies and sets.
    Memory,
}

/// What one rank's GPU did over a few steady steps: busy segments by kind; the rest is idle.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RankTimeline {
    /// The rank.
    pub rank: u32,
    /// The span's length, µs.
    pub span_us: f64,
    /// Step boundaries inside the span, microseconds from its start.
    pub step_starts_us: Vec<f64>,
    /// Busy segments: start and end (µs from the span's start) and what ran.
    pub segments: Vec<(f64, f64, SegmentKind)>,
}

/// One drawn chart: which it is, a caption and the SVG (shared by reports and the app).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChartSvg {
    /// Which chart it is, the same in every language (its file is `utilisation.svg`).
    pub name: ChartId,
    /// Its caption, in the report's language.
    pub title: String,
    /// The SVG.
    pub svg: String,
    /// What a pointer over a time chart reads, where the chart has curves over time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hover: Option<ChartHover>,
}

/// Which chart: the report's charts in report order, and one GPU's glance for the fleet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChartId {
    /// GPU-Util, SM activity, tensor-core activity and DRAM bandwidth over time.
    Utilisation,
    /// Power draw against the power limit.
    Power,
    /// The SM clock against its maximum.
    SmClock,
    /// GPU memory against the card's.
    GpuMemory,
    /// GPU temperature against its slowdown threshold.
    Temperature,
    /// PCIe and NVLink throughput.
    Links,
    /// The host's CPU and the training's.
    HostCpu,
    /// Each rank's GPU timeline over the profiled steps.
    GpuTimeline,
    /// Each rank's step parts side by side.
    RankSteps,
    /// Where a step's time goes.
    StepBreakdown,
    /// What the GPU's idle time waits for.
    IdleBreakdown,
    /// Every step's time over the run.
    StepTimes,
    /// How step times spread.
    StepDistribution,
    /// Throughput per GPU against a one-GPU run.
    Scaling,
    /// Where the run's time went: its ledger as one bar.
    Ledger,
    /// One GPU's last minute, small, for the fleet page.
    GpuGlance {
        /// The GPU.
        gpu: u32,
    },
}

impl ChartId {
    /// The chart's file name without `.svg`: `utilisation`, `glance-gpu3`.
    pub fn file_stem(self) -> String {
        let stem = match self {
            ChartId::Utilisation => "utilisation",
            ChartId::Power => "power",
            ChartId::SmClock => "sm_clock",
            ChartId::GpuMemory => "gpu_memory",
            ChartId::Temperature => "temperature",
            ChartId::Links => "links",
            ChartId::HostCpu => "host_cpu",
            ChartId::GpuTimeline => "gpu_timeline",
            ChartId::RankSteps => "rank_steps",
            ChartId::StepBreakdown => "step_breakdown",
            ChartId::IdleBreakdown => "idle_breakdown",
            ChartId::StepTimes => "step_times",
            ChartId::StepDistribution => "step_distribution",
            ChartId::Scaling => "scaling",
            ChartId::Ledger => "ledger",
            ChartId::GpuGlance { gpu } => return format!("glance-gpu{gpu}"),
        };
        stem.to_owned()
    }
}

impl std::fmt::Display for ChartId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.file_stem())
    }
}

/// The data behind a time chart, for showing the values under a pointer: where the plot lies
/// in the SVG's own units, the time range its width spans, and each curve's points.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ChartHover {
    /// The plot's left and right edges, in the SVG's user units (its width is `width`).
    pub left: f64,
    /// The right edge.
    pub right: f64,
    /// The SVG's width.
    pub width: f64,
    /// Seconds at the left and right edges.
    pub t0: f64,
    /// Seconds at the right edge.
    pub t1: f64,
    /// The y axis's unit, as the chart writes it ("%", "W", "MHz").
    pub unit: String,
    /// The curves.
    pub series: Vec<HoverSeries>,
}

/// One curve of a chart: its legend label and its points `(seconds, value)`, in time order.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct HoverSeries {
    /// The legend's label.
    pub label: String,
    /// Points `(seconds, value)`, in time order.
    pub points: Vec<(f64, f64)>,
}

impl ChartHover {
    /// The time under a pointer `x` SVG units from the chart's left edge, if inside the plot.
    pub fn time_at(&self, x: f64) -> Option<f64> {
        let span = self.right - self.left;
        (span > 0.0 && (self.left..=self.right).contains(&x))
            .then(|| self.t0 + (x - self.left) / span * (self.t1 - self.t0))
    }

    /// Each curve's point nearest to time `t`. Curves without points there are left out: no
    /// points at all, or `t` more than a point's spacing before its first or after its last
    /// (a live curve that has not reached `t` yet has no value there).
    pub fn values_at(&self, t: f64) -> Vec<(&str, f64, f64)> {
        self.series
            .iter()
            .filter_map(|s| {
                let (first, last) = (s.points.first()?.0, s.points.last()?.0);
                let spacing = (last - first) / (s.points.len().max(2) - 1) as f64;
                if t < first - spacing || t > last + spacing {
                    return None;
                }
                let i = s.points.partition_point(|(x, _)| *x < t);
                let candidates = [i.checked_sub(1), Some(i)];
                let (x, y) = candidates
                    .into_iter()
                    .flatten()
                    .filter_map(|j| s.points.get(j))
                    .min_by(|a, b| (a.0 - t).abs().total_cmp(&(b.0 - t).abs()))?;
                Some((s.label.as_str(), *x, *y))
            })
            .collect()
    }
}

/// The one downsampling of every curve: the indices of the points to keep so that a curve
/// cut into `buckets` equal spans of `t` keeps, in each span, its lowest and its highest
/// value, in time order. Every dip and spike survives (taking every n-th point loses a dip
/// that falls between two kept points); points without a value are never kept. Curves with
/// at most two points per bucket are kept whole. `t` is sorted.
pub fn min_max_indices(t: &[f64], v: &[Option<f32>], buckets: usize) -> Vec<usize> {
    let n = t.len().min(v.len());
    let valued = || (0..n).filter(|&i| v[i].is_some());
    if buckets == 0 || valued().count() <= 2 * buckets {
        return valued().collect();
    }
    let (x0, x1) = (t[0], t[n - 1]);
    let span = (x1 - x0).max(1e-12);
    let bucket = |x: f64| (((x - x0) / span) * (buckets - 1) as f64) as usize;
    let mut out = Vec::with_capacity(2 * buckets);
    let mut current: Option<(usize, usize, usize)> = None; // (bucket, lowest, highest)
    let flush = |out: &mut Vec<usize>, (_, lo, hi): (usize, usize, usize)| {
        out.push(lo.min(hi));
        if lo != hi {
            out.push(lo.max(hi));
        }
    };
    for i in valued() {
        let b = bucket(t[i]);
        current = match current {
            Some((cb, lo, hi)) if cb == b => Some((
                cb,
                if v[i] < v[lo] { i } else { lo },
                if v[i] > v[hi] { i } else { hi },
            )),
            Some(done) => {
                flush(&mut out, done);
                Some((b, i, i))
            }
            None => Some((b, i, i)),
        };
    }
    if let Some(done) = current {
        flush(&mut out, done);
    }
    out
}

/// The indices to keep of several curves on one time axis: each curve's lowest and highest
/// point per bucket, together, in time order, so every curve keeps its dips and the curves
/// still share their `t`. At most `max_points` (two per bucket per curve).
pub fn min_max_indices_of(t: &[f64], curves: &[&[Option<f32>]], max_points: usize) -> Vec<usize> {
    let buckets = max_points / (2 * curves.len().max(1));
    let mut keep: Vec<usize> = curves
        .iter()
        .flat_map(|v| min_max_indices(t, v, buckets))
        .collect();
    keep.sort_unstable();
    keep.dedup();
    keep
}

#[cfg(test)]
mod downsampling_tests {
    use super::*;

    #[test]
    fn a_one_sample_dip_survives_where_every_nth_point_would_lose_it() {
        // 10,000 samples at 100 %, one at 0 % between two every-10th points.
        let t: Vec<f64> = (0..10_000).map(|i| i as f64 * 0.1).collect();
        let mut v: Vec<Option<f32>> = vec![Some(100.0); 10_000];
        v[4_321] = Some(0.0);
        let keep = min_max_indices(&t, &v, 500);
        assert!(keep.len() <= 1_000, "{}", keep.len());
        assert!(keep.contains(&4_321));
        assert!(keep.windows(2).all(|w| w[0] < w[1]), "in time order");
    }

    #[test]
    fn short_curves_are_kept_whole_and_gaps_are_never_points() {
        let t = [0.0, 1.0, 2.0];
        let v = [Some(1.0), None, Some(3.0)];
        assert_eq!(min_max_indices(&t, &v, 10), vec![0, 2]);
    }

    #[test]
    fn curves_on_one_axis_keep_each_ones_extremes_within_the_budget() {
        let t: Vec<f64> = (0..9_000).map(|i| i as f64).collect();
        let mut a: Vec<Option<f32>> = vec![Some(50.0); 9_000];
        let mut b = a.clone();
        a[100] = Some(0.0);
        b[8_000] = Some(99.0);
        let keep = min_max_indices_of(&t, &[&a, &b], 3_000);
        assert!(keep.len() <= 3_000, "{}", keep.len());
        assert!(keep.contains(&100) && keep.contains(&8_000));
    }
}

#[cfg(test)]
mod hover_tests {
    use super::*;

    fn chart() -> ChartHover {
        ChartHover {
            left: 60.0,
            right: 860.0,
            width: 900.0,
            t0: 0.0,
            t1: 80.0,
            unit: "%".into(),
            series: vec![
                HoverSeries {
                    label: "GPU-Util".into(),
                    points: vec![(0.0, 10.0), (10.0, 95.0), (20.0, 97.0)],
                },
                HoverSeries {
                    label: "empty".into(),
                    points: vec![],
                },
            ],
        }
    }

    #[test]
    fn a_pointer_inside_the_plot_reads_the_time_its_x_stands_for() {
        let c = chart();
        assert_eq!(c.time_at(60.0), Some(0.0));
        assert_eq!(c.time_at(460.0), Some(40.0));
        assert_eq!(c.time_at(860.0), Some(80.0));
        assert_eq!(c.time_at(59.0), None);
        assert_eq!(c.time_at(861.0), None);
    }

    #[test]
    fn each_curve_gives_its_point_nearest_the_time() {
        let c = chart();
        assert_eq!(c.values_at(6.0), vec![("GPU-Util", 10.0, 95.0)]);
        assert_eq!(c.values_at(4.0), vec![("GPU-Util", 0.0, 10.0)]);
        // Within a spacing (10 s) past the last point: the last one.
        assert_eq!(c.values_at(30.0), vec![("GPU-Util", 20.0, 97.0)]);
    }

    #[test]
    fn a_time_the_curve_has_not_reached_has_no_value() {
        let c = chart();
        // A live chart's axis runs ahead of its curve: nothing is read there.
        assert!(c.values_at(30.1).is_empty());
        assert!(c.values_at(70.0).is_empty());
        assert!(c.values_at(-10.1).is_empty());
    }
}
