//! Chart data: the recording's curves on one time axis, thinned to what a chart can show.

use checkup_model::{
    min_max_indices_of, ChartData, GpuSeries, HostSeries, LiveTensorSeries, MemorySample,
    SampleSet, StepRecord, StepSeries, StepTiming,
};

/// Most points a series keeps per curve it carries: each curve keeps its lowest and highest
/// sample per time bucket (`checkup_model::min_max_indices_of`), so dips and spikes survive.
/// A series' budget grows with its curves, so a curve added to it (temperature, PCIe) takes
/// no resolution from the others: a live minute of 10 Hz samples is kept whole.
const POINTS_PER_CURVE: usize = 750;

fn kib_to_gb(kib: f64) -> f64 {
    kib * 1024.0 / 1e9
}

fn mib_to_gb(mib: f64) -> f64 {
    mib * 1024.0 * 1024.0 / 1e9
}

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
    min_max_indices_of(&t, &slices, POINTS_PER_CURVE * curves.len())
        .into_iter()
        .map(|i| rows[i].clone())
        .collect()
}

/// The first sample's time (or step start's), the charts' time zero.
fn start_of(samples: &SampleSet, steps: &std::collections::BTreeMap<u32, Vec<StepRecord>>) -> f64 {
    let t0 = samples
        .nvml
        .iter()
        .map(|s| s.ts)
        .chain(samples.host.iter().map(|s| s.ts))
        .chain(steps.values().filter_map(|s| s.first().map(|r| r.t_start)))
        .fold(f64::INFINITY, f64::min);
    if t0.is_finite() {
        t0
    } else {
        0.0
    }
}

/// The curves the report and the app draw, from the samples, step times and ranks, on one time axis from the first sample or step.
pub fn chart_data(
    samples: &SampleSet,
    steps: &std::collections::BTreeMap<u32, Vec<StepRecord>>,
    timing: &[StepTiming],
    steady: Option<(f64, f64)>,
    ranks: &[checkup_model::RankSummary],
    memory: Option<&[MemorySample]>,
) -> ChartData {
    let t0 = start_of(samples, steps);
    let mut c = chart_data_from(t0, samples, steps, timing, steady, ranks);
    c.live_tensors = memory.filter(|m| !m.is_empty()).map(|rows| {
        let gib = |b: u64| Some((b as f64 / super::trends::GIB) as f32);
        LiveTensorSeries {
            t: rows.iter().map(|r| r.t - t0).collect(),
            allocated_gib: rows.iter().map(|r| gib(r.allocated_bytes)).collect(),
            reserved_gib: rows.iter().map(|r| gib(r.reserved_bytes)).collect(),
        }
    });
    c
}

/// The curves of a sampling in progress, over its last `last_s` seconds only but on the
/// run's time axis (zero at its first sample): a live chart shows that span, and thinning
/// the whole run instead would leave a long run's last minute a few points. `steady` is the
/// engine's steady window in sample time, as the last full analysis found it.
pub fn live_chart_data(samples: &SampleSet, steady: Option<(f64, f64)>, last_s: f64) -> ChartData {
    let none = std::collections::BTreeMap::new();
    let t0 = start_of(samples, &none);
    let end = samples
        .nvml
        .iter()
        .map(|s| s.ts)
        .chain(samples.host.iter().map(|s| s.ts))
        .fold(f64::NEG_INFINITY, f64::max);
    let from = end - last_s;
    let recent = SampleSet {
        nvml: samples
            .nvml
            .iter()
            .filter(|s| s.ts >= from)
            .cloned()
            .collect(),
        gpm: samples
            .gpm
            .iter()
            .filter(|s| s.ts >= from)
            .cloned()
            .collect(),
        host: samples
            .host
            .iter()
            .filter(|s| s.ts >= from)
            .cloned()
            .collect(),
    };
    chart_data_from(t0, &recent, &none, &[], steady, &[])
}

fn chart_data_from(
    t0: f64,
    samples: &SampleSet,
    steps: &std::collections::BTreeMap<u32, Vec<StepRecord>>,
    timing: &[StepTiming],
    steady: Option<(f64, f64)>,
    ranks: &[checkup_model::RankSummary],
) -> ChartData {
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
                &[
                    &|s| s.util_gpu,
                    &|s| s.power_w,
                    &|s| s.sm_clock_mhz,
                    &|s| s.mem_used_mib,
                    &|s| s.temp_c,
                    &|s| s.pcie_rx_kbs,
                    &|s| s.pcie_tx_kbs,
                ],
            );
            let gpm: Vec<_> = thin(
                &samples
                    .gpm
                    .iter()
                    .filter(|s| s.gpu == gpu)
                    .collect::<Vec<_>>(),
                |s| s.ts,
                &[
                    &|s| s.sm_util,
                    &|s| s.any_tensor_util,
                    &|s| s.dram_bw_util,
                    &|s| s.nvlink_rx_mibs,
                    &|s| s.nvlink_tx_mibs,
                    &|s| s.pcie_rx_mibs,
                    &|s| s.pcie_tx_mibs,
                ],
            );
            let nvml_pcie = nvml
                .iter()
                .any(|s| s.pcie_rx_kbs.is_some() || s.pcie_tx_kbs.is_some());
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
                mem_used_gib: nvml
                    .iter()
                    .map(|s| f(s.mem_used_mib.map(|m| m / 1024.0)))
                    .collect(),
                mem_total_gib: nvml
                    .iter()
                    .filter_map(|s| s.mem_total_mib)
                    .reduce(f64::max)
                    .map(|m| m / 1024.0),
                temp_c: nvml.iter().map(|s| f(s.temp_c)).collect(),
                // Filled in from the GPU's static facts, which samples do not carry.
                temp_slowdown_c: None,
                pcie_peak_gbs: None,
                // NVML counts PCIe in KiB/s, GPM PCIe and NVLink in MiB/s. The agent reads
                // PCIe from GPM (NVML's counter samples for 20 ms per call).
                pcie_t: if nvml_pcie {
                    nvml.iter().map(|s| s.ts - t0).collect()
                } else {
                    gpm.iter().map(|s| s.ts - t0).collect()
                },
                pcie_rx_gbs: if nvml_pcie {
                    nvml.iter()
                        .map(|s| f(s.pcie_rx_kbs.map(kib_to_gb)))
                        .collect()
                } else {
                    gpm.iter()
                        .map(|s| f(s.pcie_rx_mibs.map(mib_to_gb)))
                        .collect()
                },
                pcie_tx_gbs: if nvml_pcie {
                    nvml.iter()
                        .map(|s| f(s.pcie_tx_kbs.map(kib_to_gb)))
                        .collect()
                } else {
                    gpm.iter()
                        .map(|s| f(s.pcie_tx_mibs.map(mib_to_gb)))
                        .collect()
                },
                nvlink_rx_gbs: gpm
                    .iter()
                    .map(|s| f(s.nvlink_rx_mibs.map(mib_to_gb)))
                    .collect(),
                nvlink_tx_gbs: gpm
                    .iter()
                    .map(|s| f(s.nvlink_tx_mibs.map(mib_to_gb)))
                    .collect(),
                // Filled in from the process samples, which the chart data is not given.
                processes: Vec::new(),
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
                // Filled in from the step trend, read after the charts' time zero is known.
                trend: Vec::new(),
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
        live_tensors: None,
    }
}
