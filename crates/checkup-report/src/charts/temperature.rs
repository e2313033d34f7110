//! GPU temperature against its slowdown threshold over time.

use checkup_model::{ChartId, Diagnosis};
use checkup_text::report::Text;

use super::style::Area;
use super::time::{ceiling_chart, points, Ceiling, TimeFrame};

/// The chart's spec.
pub(super) const SPEC: super::spec::Spec = super::spec::Spec {
    id: ChartId::Temperature,
    title: |t| t.chart_temperature,
    height: super::spec::usual_height,
    shown: |d| super::spec::first_gpu(d).is_some_and(|g| g.temp_c.iter().any(Option::is_some)),
    over_time: true,
    draw: |a, frame, d, t| super::spec::on_first_gpu(temperature_chart, a, frame, d, t),
};

/// Temperature against the one at which the GPU slows itself down: a card near that line
/// throttles however the training is written.
fn temperature_chart(
    a: &Area,
    hover: &TimeFrame,
    d: &Diagnosis,
    g: &checkup_model::GpuSeries,
    t: &Text,
) -> Result<(), String> {
    let c = Ceiling {
        caption: t.chart_temperature,
        axis: t.axis_celsius,
        unit: "°C",
        series: t.series_temperature,
        ceiling_label: t.series_slowdown,
        more: Vec::new(),
    };
    ceiling_chart(
        a,
        hover,
        d,
        g,
        points(&g.t, &g.temp_c),
        g.temp_slowdown_c,
        c,
        t,
    )
}
