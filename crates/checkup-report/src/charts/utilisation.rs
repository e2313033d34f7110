//! GPU-Util, SM activity, tensor-core activity and DRAM bandwidth over time.

use checkup_model::{ChartId, Diagnosis};
use checkup_text::report::Text;

use super::style::{legend, Area, BLUE, GREEN, INK, ORANGE};
use super::time::{labelled, points, shade_steady, time_chart, x_range, TimeFrame};

/// The chart's spec.
pub(super) const SPEC: super::spec::Spec = super::spec::Spec {
    id: ChartId::Utilisation,
    title: |t| t.chart_util,
    height: super::spec::usual_height,
    shown: |d| super::spec::first_gpu(d).is_some(),
    over_time: true,
    draw: |a, frame, d, t| super::spec::on_first_gpu(util_chart, a, frame, d, t),
};

fn util_chart(
    a: &Area,
    hover: &TimeFrame,
    d: &Diagnosis,
    g: &checkup_model::GpuSeries,
    t: &Text,
) -> Result<(), String> {
    let mut chart = time_chart(
        a,
        hover,
        &format!("{} (GPU {})", t.chart_util, g.gpu),
        x_range(d, &g.t),
        105.0,
        t.axis_percent,
        "%",
        t,
    )?;
    shade_steady(&mut chart, d, 105.0)?;
    labelled(
        &mut chart,
        hover,
        points(&g.t, &g.util_pct),
        INK,
        false,
        t.series_util,
    )?;
    labelled(
        &mut chart,
        hover,
        points(&g.gpm_t, &g.sm_active_pct),
        BLUE,
        true,
        t.series_sm_active,
    )?;
    labelled(
        &mut chart,
        hover,
        points(&g.gpm_t, &g.tensor_pct),
        GREEN,
        false,
        t.series_tensor,
    )?;
    labelled(
        &mut chart,
        hover,
        points(&g.gpm_t, &g.dram_pct),
        ORANGE,
        true,
        t.series_dram,
    )?;
    legend(&mut chart)
}
