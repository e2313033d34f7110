//! The host's CPU and the training's process tree over time.

use checkup_model::{ChartId, Diagnosis};
use checkup_text::report::Text;

use super::style::{legend, Area, BLUE, INK};
use super::time::{labelled, points, shade_steady, time_chart, x_range, TimeFrame};

/// The chart's spec.
pub(super) const SPEC: super::spec::Spec = super::spec::Spec {
    id: ChartId::HostCpu,
    title: |t| t.chart_host,
    height: super::spec::usual_height,
    shown: |d| d.charts.host.as_ref().is_some_and(|h| !h.t.is_empty()),
    over_time: true,
    draw: host_chart,
};

fn host_chart(a: &Area, hover: &TimeFrame, d: &Diagnosis, t: &Text) -> Result<(), String> {
    let Some(h) = &d.charts.host else {
        return Ok(());
    };
    let total = points(&h.t, &h.cpu_total_pct);
    let tree = points(&h.t, &h.proc_tree_pct);
    let y_max = tree.iter().map(|p| p.1).fold(100.0, f64::max) * 1.05;
    let mut chart = time_chart(
        a,
        hover,
        t.chart_host,
        x_range(d, &h.t),
        y_max,
        t.axis_percent,
        "%",
        t,
    )?;
    shade_steady(&mut chart, d, y_max)?;
    labelled(
        &mut chart,
        hover,
        total,
        INK,
        false,
        &format!("{} ({} {})", t.series_host_total, h.cores, t.cores),
    )?;
    labelled(&mut chart, hover, tree, BLUE, true, t.series_proc_tree)?;
    legend(&mut chart)
}
