//! Each rank's GPU timeline over the profiled steps, one lane per rank.

use checkup_model::{ChartId, Diagnosis, SegmentKind};
use checkup_text::report::Text;
use plotters::prelude::*;

use super::bars::row_labels;
use super::style::{e, legend_sized, style, tick, Area, BLUE, ORANGE};

/// The chart's spec.
pub(super) const SPEC: super::spec::Spec = super::spec::Spec {
    id: ChartId::GpuTimeline,
    title: |t| t.chart_timeline,
    height: timeline_height,
    shown: |d| d.charts.timelines.iter().any(|tl| tl.span_us > 0.0),
    over_time: false,
    draw: |a, _, d, t| timeline_chart(a, d, t),
};

fn kind_color(k: SegmentKind) -> RGBColor {
    match k {
        SegmentKind::Compute => RGBColor(40, 40, 40),
        SegmentKind::Communication => ORANGE,
        SegmentKind::Memory => RGBColor(150, 150, 150),
    }
}

/// The timeline's height in pixels: room for its title, axis and legend, and a lane per rank.
fn timeline_height(d: &Diagnosis) -> u32 {
    (150 + 50 * timeline_lanes(d).len() as u32).clamp(200, 600)
}

/// The ranks the timeline draws: those the per-rank table shows (every one up to its limit;
/// beyond it the diagnosed rank and each column's extremes), which a lane each can still be
/// read for.
fn timeline_lanes(d: &Diagnosis) -> Vec<&checkup_model::RankTimeline> {
    let shown = crate::ranks::ranks_in_table(d);
    d.charts
        .timelines
        .iter()
        .filter(|tl| tl.span_us > 0.0 && shown.contains(&tl.rank))
        .collect()
}

fn timeline_chart(a: &Area, d: &Diagnosis, t: &Text) -> Result<(), String> {
    let lanes = timeline_lanes(d);
    let span_ms = lanes.iter().map(|l| l.span_us).fold(0.0, f64::max) / 1e3;
    let n = lanes.len() as f64;
    // The right quarter is left free for the legend.
    let x_max = span_ms.max(1e-3) * 1.3;
    let mut chart = ChartBuilder::on(a)
        .caption(t.chart_timeline, style(18))
        .margin(10)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d(0.0..x_max, 0.0..n)
        .map_err(e)?;
    chart
        .configure_mesh()
        .x_label_formatter(&tick)
        .disable_y_mesh()
        .y_labels(0)
        .x_desc(t.axis_time_ms)
        .label_style(style(13))
        .axis_desc_style(style(14))
        .draw()
        .map_err(e)?;
    row_labels(
        a,
        &chart,
        &lanes
            .iter()
            .map(|l| format!("{} {}", t.rank, l.rank))
            .collect::<Vec<_>>(),
    )?;
    for (i, lane) in lanes.iter().enumerate() {
        let top = n - i as f64 - 0.15;
        let bottom = n - i as f64 - 0.85;
        chart
            .draw_series(lane.segments.iter().map(|&(s, en, k)| {
                Rectangle::new(
                    [
                        (s / 1e3, bottom),
                        ((en / 1e3).max(s / 1e3 + span_ms / 3000.0), top),
                    ],
                    kind_color(k).filled(),
                )
            }))
            .map_err(e)?;
        chart
            .draw_series(lane.step_starts_us.iter().map(|&s| {
                PathElement::new(
                    vec![(s / 1e3, bottom - 0.1), (s / 1e3, top + 0.1)],
                    BLUE.stroke_width(2),
                )
            }))
            .map_err(e)?;
    }
    for (label, kind) in [
        (t.seg_compute, SegmentKind::Compute),
        (t.seg_comm, SegmentKind::Communication),
        (t.seg_memory, SegmentKind::Memory),
    ] {
        chart
            .draw_series(std::iter::empty::<Rectangle<(f64, f64)>>())
            .map_err(e)?
            .label(label)
            .legend(move |(x, y)| {
                Rectangle::new([(x, y - 5), (x + 14, y + 5)], kind_color(kind).filled())
            });
    }
    chart
        .draw_series(std::iter::empty::<PathElement<(f64, f64)>>())
        .map_err(e)?
        .label(t.seg_step)
        .legend(|(x, y)| {
            PathElement::new(vec![(x + 7, y - 6), (x + 7, y + 6)], BLUE.stroke_width(2))
        });
    legend_sized(&mut chart, 13, 0.9)
}
