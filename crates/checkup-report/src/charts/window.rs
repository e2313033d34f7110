//! Chart data cut to a span of seconds, in one place for every view that shows a span: a zoom
//! in the app, the live frames' last minute, a GPU's glance on the fleet page.

use checkup_model::{Diagnosis, GpuSeries};

/// The span the last `span_s` seconds up to `end` cover; before `span_s` seconds have passed,
/// the first `span_s` seconds, so the axis fills from zero.
pub(crate) fn last_span(end: f64, span_s: f64) -> (f64, f64) {
    ((end - span_s).max(0.0), end.max(span_s))
}

/// The last second a GPU's curves reach.
pub(crate) fn last_second(g: &GpuSeries) -> f64 {
    g.t.last()
        .copied()
        .into_iter()
        .chain(g.gpm_t.last().copied())
        .fold(0.0, f64::max)
}

/// `d` with its time curves cut to seconds `from..=to`, and its steady window to what of it
/// lies there.
pub(crate) fn diagnosis_within(d: &Diagnosis, from: f64, to: f64) -> Diagnosis {
    let mut z = d.clone();
    for g in &mut z.charts.gpus {
        *g = gpu_within(g, from, to);
    }
    if let Some(m) = &mut z.charts.live_tensors {
        let k = keep(&m.t, from, to);
        m.t = pick(&m.t, &k);
        m.allocated_gib = pick(&m.allocated_gib, &k);
        m.reserved_gib = pick(&m.reserved_gib, &k);
    }
    if let Some(h) = &mut z.charts.host {
        let k = keep(&h.t, from, to);
        h.t = pick(&h.t, &k);
        h.cpu_total_pct = pick(&h.cpu_total_pct, &k);
        h.proc_tree_pct = pick(&h.proc_tree_pct, &k);
    }
    z.charts.steady = d
        .charts
        .steady
        .map(|(a, b)| (a.max(from), b.min(to)))
        .filter(|(a, b)| b > a);
    z
}

/// One GPU's curves cut to seconds `from..=to`: NVML's, each process's, PCIe's and GPM's,
/// each on its own clock.
pub(crate) fn gpu_within(g: &GpuSeries, from: f64, to: f64) -> GpuSeries {
    let mut g = g.clone();
    let k = keep(&g.t, from, to);
    g.t = pick(&g.t, &k);
    g.util_pct = pick(&g.util_pct, &k);
    g.power_w = pick(&g.power_w, &k);
    g.sm_clock_mhz = pick(&g.sm_clock_mhz, &k);
    g.mem_used_gib = pick(&g.mem_used_gib, &k);
    g.temp_c = pick(&g.temp_c, &k);
    for p in &mut g.processes {
        let k = keep(&p.t, from, to);
        p.t = pick(&p.t, &k);
        p.used_gib = pick(&p.used_gib, &k);
    }
    let k = keep(&g.pcie_t, from, to);
    g.pcie_t = pick(&g.pcie_t, &k);
    g.pcie_rx_gbs = pick(&g.pcie_rx_gbs, &k);
    g.pcie_tx_gbs = pick(&g.pcie_tx_gbs, &k);
    let k = keep(&g.gpm_t, from, to);
    g.nvlink_rx_gbs = pick(&g.nvlink_rx_gbs, &k);
    g.nvlink_tx_gbs = pick(&g.nvlink_tx_gbs, &k);
    g.gpm_t = pick(&g.gpm_t, &k);
    g.sm_active_pct = pick(&g.sm_active_pct, &k);
    g.tensor_pct = pick(&g.tensor_pct, &k);
    g.dram_pct = pick(&g.dram_pct, &k);
    g
}

/// Which of the seconds `ts` lie in `from..=to`.
fn keep(ts: &[f64], from: f64, to: f64) -> Vec<bool> {
    ts.iter().map(|x| (from..=to).contains(x)).collect()
}

/// The values whose flag is set.
fn pick<T: Clone>(values: &[T], keep: &[bool]) -> Vec<T> {
    values
        .iter()
        .zip(keep)
        .filter(|(_, k)| **k)
        .map(|(v, _)| v.clone())
        .collect()
}
