//! Every step's time over the run, its stalls and the trend of its tenths.

use checkup_model::{ChartId, Diagnosis};
use checkup_text::report::Text;
use plotters::prelude::*;

use super::style::{dashed_style, e, legend, style, tick, Area, BLUE, INK, ORANGE, SHADE};
use super::time::decimate;

/// The chart's spec.
pub(super) const SPEC: super::spec::Spec = super::spec::Spec {
    id: ChartId::StepTimes,
    title: |t| t.chart_steps,
    height: super::spec::usual_height,
    shown: |d| d.charts.steps.iter().any(|s| s.duration_ms.len() > 1),
    over_time: false,
    draw: |a, _, d, t| step_chart(a, d, t),
};

fn step_chart(a: &Area, d: &Diagnosis, t: &Text) -> Result<(), String> {
    let Some(s) = d.diagnosed_steps() else {
        return Ok(());
    };
    let warm = s.warmup_steps as usize;
    let steady: Vec<f64> = s.duration_ms.iter().skip(warm).map(|v| *v as f64).collect();
    let mut sorted = steady.clone();
    sorted.sort_by(f64::total_cmp);
    // Cap the axis at a high quantile so one giant warm-up step does not flatten the rest.
    let cap = sorted
        .get(((sorted.len() as f64) * 0.999) as usize)
        .copied()
        .unwrap_or(1.0)
        .max(1e-3)
        * 1.15;
    let x_max = s.step.last().copied().unwrap_or(1) as f64 + 1.0;
    let mut chart = ChartBuilder::on(a)
        .caption(
            format!("{} ({} {})", t.chart_steps, t.rank, s.rank),
            style(18),
        )
        .margin(10)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(0.0..x_max, 0.0..cap)
        .map_err(e)?;
    chart
        .configure_mesh()
        .x_label_formatter(&tick)
        .y_label_formatter(&tick)
        .x_desc(t.step)
        .y_desc(t.axis_step_ms)
        .label_style(style(13))
        .axis_desc_style(style(14))
        .light_line_style(RGBColor(235, 235, 235))
        .draw()
        .map_err(e)?;
    if warm > 0 {
        let end = s.step.get(warm).copied().unwrap_or(0) as f64;
        chart
            .draw_series(std::iter::once(Rectangle::new(
                [(0.0, 0.0), (end, cap)],
                SHADE.filled(),
            )))
            .map_err(e)?;
    }
    let pts: Vec<(f64, f64)> = s
        .step
        .iter()
        .zip(&s.duration_ms)
        .map(|(x, y)| (*x as f64, (*y as f64).min(cap)))
        .collect();
    chart
        .draw_series(LineSeries::new(decimate(pts.clone()), INK.stroke_width(1)))
        .map_err(e)?
        .label(t.series_step)
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], INK.stroke_width(2)));
    let stalls: Vec<(f64, f64)> = pts
        .iter()
        .filter(|(x, _)| s.stall_steps.contains(&(*x as u64)))
        .copied()
        .collect();
    if !stalls.is_empty() {
        chart
            .draw_series(
                stalls
                    .into_iter()
                    .map(|p| TriangleMarker::new(p, 7, ORANGE.filled())),
            )
            .map_err(e)?
            .label(t.series_stall)
            .legend(|(x, y)| TriangleMarker::new((x + 7, y), 6, ORANGE.filled()));
    }
    // The tenths' medians: a slowdown shows as a line that climbs, a stall does not move it.
    if s.trend.len() > 1 {
        let trend = s
            .trend
            .iter()
            .map(|(step, ms)| (*step as f64, (*ms as f64).min(cap)));
        chart
            .draw_series(LineSeries::new(trend, dashed_style(BLUE)))
            .map_err(e)?
            .label(t.series_trend)
            .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], dashed_style(BLUE)));
    }
    legend(&mut chart)
}
