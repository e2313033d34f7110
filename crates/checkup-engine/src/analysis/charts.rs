//! Chart data: the recording's curves on one time axis, thinned to what a chart can show.

use checkup_model::{
    min_max_indices_of, ChartData, GpuSeries, HostSeries, SampleSet, StepRecord, StepSeries,
    StepTiming,
};

/// Most points a series keeps: each of its curves keeps its lowest and highest sample per
/// time bucket (`checkup_model::min_max_indices_of`), so dips and spikes survive.
const MAX_POINTS: usize = 3000;

/// One curve of a sample row (utilisation, power, ...).
type Curve<'a, T> = &'a dyn Fn(&T) -> Option<f64>;

/// The samples of `rows` to keep, judged by the curves `curves` reads off each.
fn thin<T: Clone>(rows: &[T], ts: impl Fn(&T) -> f64, curves: &[Curve<T>]) -> Vec<T> {
    let t: Vec<f64> = rows.iter().map(&ts).collect();
    let values: Vec<Vec<Option<f32>>> = curves
        .iter()
        .map(|c| rows.iter().map(|r| c(r).map(|x| x as f32)).collect())
        .collect();
    let slices: Vec<&[Option<f32>]> = values.iter().map(Vec::as_slice).collect();
    min_max_indices_of(&t, &slices, MAX_POINTS)
        .into_iter()
        .map(|i| rows[i].clone())
        .collect()
}

pub fn chart_data(
    samples: &SampleSet,
    steps: &std::collections::BTreeMap<u32, Vec<StepRecord>>,
    timing: &[StepTiming],
    steady: Option<(f64, f64)>,
    ranks: &[checkup_model::RankSummary],
) -> ChartData {
    let t0 = samples
        .nvml
        .iter()
        .map(|s| s.ts)
        .chain(samples.host.iter().map(|s| s.ts))
        .chain(steps.values().filter_map(|s| s.first().map(|r| r.t_start)))
        .fold(f64::INFINITY, f64::min);
    let t0 = if t0.is_finite() { t0 } else { 0.0 };
    let mut gpus: Vec<u32> = samples.nvml.iter().map(|s| s.gpu).collect();
    gpus.sort_unstable();
    gpus.dedup();
    let f = |v: Option<f64>| v.map(|x| x as f32);
    let gpu_series = gpus
        .into_iter()
        .map(|gpu| {
            let nvml: Vec<_> = thin(
                &samples
                    .nvml
                    .iter()
                    .filter(|s| s.gpu == gpu)
                    .collect::<Vec<_>>(),
                |s| s.ts,
                &[&|s| s.util_gpu, &|s| s.power_w, &|s| s.sm_clock_mhz],
            );
            let gpm: Vec<_> = thin(
                &samples
                    .gpm
                    .iter()
                    .filter(|s| s.gpu == gpu)
                    .collect::<Vec<_>>(),
                |s| s.ts,
                &[&|s| s.sm_util, &|s| s.any_tensor_util, &|s| s.dram_bw_util],
            );
            GpuSeries {
                gpu,
                t: nvml.iter().map(|s| s.ts - t0).collect(),
                util_pct: nvml.iter().map(|s| f(s.util_gpu)).collect(),
                power_w: nvml.iter().map(|s| f(s.power_w)).collect(),
                power_limit_w: nvml.iter().filter_map(|s| s.power_limit_w).reduce(f64::max),
                sm_clock_mhz: nvml.iter().map(|s| f(s.sm_clock_mhz)).collect(),
                sm_clock_max_mhz: nvml
                    .iter()
                    .filter_map(|s| s.sm_clock_max_mhz)
                    .reduce(f64::max),
                gpm_t: gpm.iter().map(|s| s.ts - t0).collect(),
                sm_active_pct: gpm.iter().map(|s| f(s.sm_util)).collect(),
                tensor_pct: gpm.iter().map(|s| f(s.any_tensor_util)).collect(),
                dram_pct: gpm.iter().map(|s| f(s.dram_bw_util)).collect(),
            }
        })
        .collect();
    let host = (!samples.host.is_empty()).then(|| {
        let h = thin(
            &samples.host,
            |s| s.ts,
            &[&|s| s.cpu_total_pct, &|s| s.proc_tree_cpu_pct],
        );
        HostSeries {
            t: h.iter().map(|s| s.ts - t0).collect(),
            cpu_total_pct: h.iter().map(|s| f(s.cpu_total_pct)).collect(),
            proc_tree_pct: h.iter().map(|s| f(s.proc_tree_cpu_pct)).collect(),
            cores: h.iter().map(|s| s.per_core_pct.len()).max().unwrap_or(0) as u32,
        }
    });
    let step_series = steps
        .iter()
        .map(|(rank, rows)| {
            let t = timing.iter().find(|t| t.rank == *rank);
            StepSeries {
                rank: *rank,
                step: rows.windows(2).map(|w| w[0].step).collect(),
                duration_ms: rows
                    .windows(2)
                    .map(|w| ((w[1].t_start - w[0].t_start) * 1e3) as f32)
                    .collect(),
                warmup_steps: t.map_or(0, |t| t.warmup_steps),
                stall_steps: t
                    .map(|t| t.stalls.iter().map(|s| s.step).collect())
                    .unwrap_or_default(),
            }
        })
        .collect();
    ChartData {
        t0,
        steady: steady.map(|(a, b)| (a - t0, b - t0)),
        gpus: gpu_series,
        host,
        steps: step_series,
        timelines: ranks.iter().map(|r| r.timeline.clone()).collect(),
    }
}
