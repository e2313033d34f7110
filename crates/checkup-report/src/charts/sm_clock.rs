//! The SM clock against its maximum over time.

use checkup_model::{ChartId, Diagnosis};
use checkup_text::report::Text;

use super::style::Area;
use super::time::{ceiling_chart, points, Ceiling, TimeFrame};

/// The chart's spec.
pub(super) const SPEC: super::spec::Spec = super::spec::Spec {
    id: ChartId::SmClock,
    title: |t| t.chart_clock,
    height: super::spec::usual_height,
    shown: |d| super::spec::first_gpu(d).is_some(),
    over_time: true,
    draw: |a, frame, d, t| super::spec::on_first_gpu(clock_chart, a, frame, d, t),
};

fn clock_chart(
    a: &Area,
    hover: &TimeFrame,
    d: &Diagnosis,
    g: &checkup_model::GpuSeries,
    t: &Text,
) -> Result<(), String> {
    let c = Ceiling {
        caption: t.chart_clock,
        axis: t.axis_mhz,
        unit: "MHz",
        series: t.series_sm_clock,
        ceiling_label: t.series_max,
        more: Vec::new(),
    };
    ceiling_chart(
        a,
        hover,
        d,
        g,
        points(&g.t, &g.sm_clock_mhz),
        g.sm_clock_max_mhz,
        c,
        t,
    )
}
