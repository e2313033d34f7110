//! Charts over time: their frame (the steady window shaded, what a pointer reads), curves
//! decimated to the pixel columns, and readings against a ceiling.

use checkup_model::Diagnosis;
use checkup_text::report::Text;
use plotters::prelude::*;

use super::style::{dashed_style, e, legend, style, tick, Area, Plot, INK, ORANGE, SHADE, WIDTH};

/// What a time chart is drawn over and records while it is drawn: the span of seconds it
/// shows (the whole run unless zoomed) and, for the app, the data a pointer reads.
#[derive(Default)]
pub(super) struct TimeFrame {
    pub(super) window: Option<(f64, f64)>,
    pub(super) hover: std::cell::RefCell<Option<checkup_model::ChartHover>>,
}

/// A curve's points for a chart `WIDTH` pixels wide: at most the lowest and the highest of
/// each pixel column (`checkup_model::min_max_indices`), in x order. A 30-minute run at 10 Hz
/// has 18,000 samples; drawing them all only makes the SVG (and the app showing it) big, while
/// min and max keep every dip and spike.
pub(super) fn points(t: &[f64], v: &[Option<f32>]) -> Vec<(f64, f64)> {
    checkup_model::min_max_indices(t, v, WIDTH as usize)
        .into_iter()
        .filter_map(|i| v[i].map(|y| (t[i], y as f64)))
        .collect()
}

/// [`points`] of a curve given as `(x, y)` pairs.
pub(super) fn decimate(pts: Vec<(f64, f64)>) -> Vec<(f64, f64)> {
    let (t, v): (Vec<f64>, Vec<Option<f32>>) =
        pts.iter().map(|(x, y)| (*x, Some(*y as f32))).unzip();
    checkup_model::min_max_indices(&t, &v, WIDTH as usize)
        .into_iter()
        .map(|i| pts[i])
        .collect()
}

pub(super) fn x_range(d: &Diagnosis, t: &[f64]) -> std::ops::Range<f64> {
    let end = t
        .last()
        .copied()
        .unwrap_or(1.0)
        .max(d.charts.steady.map_or(0.0, |s| s.1))
        .max(1e-3);
    0.0..end
}

/// Shades the steady window on a time chart.
pub(super) fn shade_steady<'a, 'b: 'a>(
    chart: &mut Plot<'a, 'b>,
    d: &Diagnosis,
    y_max: f64,
) -> Result<(), String> {
    if let Some((a, b)) = d.charts.steady {
        chart
            .draw_series(std::iter::once(Rectangle::new(
                [(a, 0.0), (b, y_max)],
                SHADE.filled(),
            )))
            .map_err(e)?;
    }
    Ok(())
}

/// A chart over time, its frame recorded in `hover` with the y axis's `unit`.
#[allow(clippy::too_many_arguments)]
pub(super) fn time_chart<'a, 'b>(
    a: &'a Area<'b>,
    hover: &TimeFrame,
    caption: &str,
    x: std::ops::Range<f64>,
    y_max: f64,
    y_desc: &str,
    unit: &str,
    t: &Text,
) -> Result<Plot<'a, 'b>, String> {
    let x = hover.window.map_or(x, |(from, to)| from..to);
    let (t0, t1) = (x.start, x.end);
    let mut chart = ChartBuilder::on(a)
        .caption(caption, style(18))
        .margin(10)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(x, 0.0..y_max)
        .map_err(e)?;
    chart
        .configure_mesh()
        .x_label_formatter(&tick)
        .y_label_formatter(&tick)
        .x_desc(t.axis_time_s)
        .y_desc(y_desc)
        .label_style(style(13))
        .axis_desc_style(style(14))
        .light_line_style(RGBColor(235, 235, 235))
        .draw()
        .map_err(e)?;
    let (px, _) = chart.plotting_area().get_pixel_range();
    *hover.hover.borrow_mut() = Some(checkup_model::ChartHover {
        left: f64::from(px.start),
        right: f64::from(px.end),
        width: f64::from(WIDTH),
        t0,
        t1,
        unit: unit.to_owned(),
        series: Vec::new(),
    });
    Ok(chart)
}

/// Points kept for reading values under a pointer: enough for one per few pixels.
pub(super) const HOVER_BUCKETS: usize = 300;

pub(super) fn labelled<'a, 'b: 'a>(
    chart: &mut Plot<'a, 'b>,
    hover: &TimeFrame,
    pts: Vec<(f64, f64)>,
    color: RGBColor,
    dashed: bool,
    label: &str,
) -> Result<(), String> {
    if pts.is_empty() {
        return Ok(());
    }
    if let Some(h) = hover.hover.borrow_mut().as_mut() {
        let (t, v): (Vec<f64>, Vec<Option<f32>>) =
            pts.iter().map(|(x, y)| (*x, Some(*y as f32))).unzip();
        h.series.push(checkup_model::HoverSeries {
            label: label.to_owned(),
            points: checkup_model::min_max_indices(&t, &v, HOVER_BUCKETS)
                .into_iter()
                .map(|i| pts[i])
                .collect(),
        });
    }
    let stroke = if dashed {
        dashed_style(color)
    } else {
        ShapeStyle::from(&color).stroke_width(2)
    };
    chart
        .draw_series(LineSeries::new(pts, stroke))
        .map_err(e)?
        .label(label)
        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], stroke));
    Ok(())
}

/// A reading against its ceiling (power vs limit, SM clock vs max): the ceiling dashed.
pub(super) struct Ceiling<'a> {
    pub(super) caption: &'a str,
    pub(super) axis: &'a str,
    pub(super) unit: &'a str,
    pub(super) series: &'a str,
    pub(super) ceiling_label: &'a str,
    /// More curves under the ceiling.
    pub(super) more: Vec<Curve<'a>>,
}

/// A curve's points, colour, whether it is dashed, and its label.
pub(super) type Curve<'a> = (Vec<(f64, f64)>, RGBColor, bool, &'a str);

#[allow(clippy::too_many_arguments)]
pub(super) fn ceiling_chart(
    a: &Area,
    hover: &TimeFrame,
    d: &Diagnosis,
    g: &checkup_model::GpuSeries,
    pts: Vec<(f64, f64)>,
    ceiling: Option<f64>,
    c: Ceiling,
    t: &Text,
) -> Result<(), String> {
    let ceiling = ceiling.unwrap_or(0.0);
    let y_max = pts
        .iter()
        .chain(c.more.iter().flat_map(|m| m.0.iter()))
        .map(|p| p.1)
        .fold(ceiling, f64::max)
        * 1.1
        + 1.0;
    let x = hover.window.map_or(x_range(d, &g.t), |(from, to)| from..to);
    let mut chart = time_chart(
        a,
        hover,
        &format!("{} (GPU {})", c.caption, g.gpu),
        x.clone(),
        y_max,
        c.axis,
        c.unit,
        t,
    )?;
    shade_steady(&mut chart, d, y_max)?;
    labelled(&mut chart, hover, pts, INK, false, c.series)?;
    for (pts, colour, dashed, label) in c.more {
        labelled(&mut chart, hover, pts, colour, dashed, label)?;
    }
    if ceiling > 0.0 {
        labelled(
            &mut chart,
            hover,
            vec![(x.start, ceiling), (x.end, ceiling)],
            ORANGE,
            true,
            c.ceiling_label,
        )?;
    }
    legend(&mut chart)
}
