//! How step times spread: their histogram with the median marked.

use checkup_model::{ChartId, Diagnosis};
use checkup_text::report::Text;
use plotters::prelude::*;

use super::style::{e, legend, style, tick, Area, INK, ORANGE};

/// The chart's spec.
pub(super) const SPEC: super::spec::Spec = super::spec::Spec {
    id: ChartId::StepDistribution,
    title: |t| t.chart_distribution,
    height: super::spec::usual_height,
    shown: |d| d.charts.steps.iter().any(|s| s.duration_ms.len() > 1),
    over_time: false,
    draw: |a, _, d, t| distribution_chart(a, d, t),
};

/// Histogram of steady step times; bins holding stall steps are drawn in the stall colour so a
/// periodic stall shows as a separate hump.
fn distribution_chart(a: &Area, d: &Diagnosis, t: &Text) -> Result<(), String> {
    let Some(s) = d.diagnosed_steps() else {
        return Ok(());
    };
    let warm = s.warmup_steps as usize;
    let steady: Vec<(u64, f64)> = s
        .step
        .iter()
        .zip(&s.duration_ms)
        .skip(warm)
        .map(|(k, v)| (*k, *v as f64))
        .collect();
    if steady.is_empty() {
        return Ok(());
    }
    let max = steady.iter().map(|p| p.1).fold(0.0, f64::max).max(1e-3);
    const BINS: usize = 50;
    let width = max / BINS as f64;
    let mut normal = [0u32; BINS];
    let mut stalled = [0u32; BINS];
    for (step, v) in &steady {
        let b = ((v / width) as usize).min(BINS - 1);
        if s.stall_steps.contains(step) {
            stalled[b] += 1;
        } else {
            normal[b] += 1;
        }
    }
    let y_max = normal
        .iter()
        .zip(&stalled)
        .map(|(a, b)| a + b)
        .max()
        .unwrap_or(1) as f64
        * 1.1;
    let mut chart = ChartBuilder::on(a)
        .caption(
            format!("{} ({} {})", t.chart_distribution, t.rank, s.rank),
            style(18),
        )
        .margin(10)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(0.0..max * 1.02, 0.0..y_max)
        .map_err(e)?;
    chart
        .configure_mesh()
        .x_label_formatter(&tick)
        .y_label_formatter(&tick)
        .x_desc(t.axis_step_ms)
        .y_desc(t.axis_steps)
        .label_style(style(13))
        .axis_desc_style(style(14))
        .light_line_style(RGBColor(235, 235, 235))
        .draw()
        .map_err(e)?;
    let bar = |k: usize, lo: u32, hi: u32, color: RGBColor| {
        let x0 = k as f64 * width;
        Rectangle::new(
            [(x0, lo as f64), (x0 + width * 0.9, hi as f64)],
            color.filled(),
        )
    };
    chart
        .draw_series(
            (0..BINS)
                .filter(|k| normal[*k] > 0)
                .map(|k| bar(k, 0, normal[k], INK)),
        )
        .map_err(e)?
        .label(t.series_step)
        .legend(|(x, y)| Rectangle::new([(x, y - 5), (x + 14, y + 5)], INK.filled()));
    if stalled.iter().any(|c| *c > 0) {
        chart
            .draw_series(
                (0..BINS)
                    .filter(|k| stalled[*k] > 0)
                    .map(|k| bar(k, normal[k], normal[k] + stalled[k], ORANGE)),
            )
            .map_err(e)?
            .label(t.series_stall)
            .legend(|(x, y)| Rectangle::new([(x, y - 5), (x + 14, y + 5)], ORANGE.filled()));
        // A few stalls among hundreds of steps make bars one count high: mark them.
        chart
            .draw_series((0..BINS).filter(|k| stalled[*k] > 0).map(|k| {
                let x = (k as f64 + 0.45) * width;
                TriangleMarker::new(
                    (x, (normal[k] + stalled[k]) as f64 + y_max * 0.06),
                    7,
                    ORANGE.filled(),
                )
            }))
            .map_err(e)?;
    }
    legend(&mut chart)
}
