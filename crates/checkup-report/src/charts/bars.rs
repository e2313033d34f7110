//! Stacked horizontal bars with row labels: step breakdowns and scaling.

use plotters::prelude::*;

use super::style::{e, legend_sized, style, tick, Area, Plot, BLUE, GREEN, ORANGE};

/// Writes one label per horizontal row (row 0 at the top) in the y-label area, centred on
/// the row: plotters' own tick labels do not line up with categorical rows.
pub(super) fn row_labels(a: &Area, chart: &Plot, labels: &[String]) -> Result<(), String> {
    let n = labels.len() as f64;
    let x0 = chart.x_range().start;
    // The chart's coordinates are the whole image's; the area draws from its own corner.
    let (bx, by) = a.get_base_pixel();
    for (i, label) in labels.iter().enumerate() {
        let (px, py) = chart.backend_coord(&(x0, n - i as f64 - 0.5));
        let (px, py) = (px - bx, py - by);
        let pos = plotters::style::text_anchor::Pos::new(
            plotters::style::text_anchor::HPos::Right,
            plotters::style::text_anchor::VPos::Center,
        );
        a.draw(&plotters::element::Text::new(
            label.clone(),
            (px - 6, py),
            style(12).pos(pos),
        ))
        .map_err(e)?;
    }
    Ok(())
}

/// Horizontal stacked bars: one row per item, segments in a fixed order.
pub(super) fn stacked_bars(
    a: &Area,
    caption: &str,
    rows: &[(String, Vec<f64>)],
    parts: &[String],
    x_desc: &str,
) -> Result<(), String> {
    let palette = [
        RGBColor(40, 40, 40),
        RGBColor(150, 150, 150),
        RGBColor(200, 200, 200),
        ORANGE,
        BLUE,
        GREEN,
        RGBColor(230, 200, 120),
    ];
    // The right third is left free for the legend.
    let x_max = rows
        .iter()
        .map(|r| r.1.iter().sum::<f64>())
        .fold(0.0, f64::max)
        .max(1e-6)
        * 1.45;
    let n = rows.len() as f64;
    let mut chart = ChartBuilder::on(a)
        .caption(caption, style(18))
        .margin(10)
        .x_label_area_size(40)
        .y_label_area_size(110)
        .build_cartesian_2d(0.0..x_max, 0.0..n.max(1.0))
        .map_err(e)?;
    chart
        .configure_mesh()
        .x_label_formatter(&tick)
        .disable_y_mesh()
        .y_labels(0)
        .x_desc(x_desc)
        .label_style(style(13))
        .axis_desc_style(style(14))
        .draw()
        .map_err(e)?;
    row_labels(
        a,
        &chart,
        &rows.iter().map(|r| r.0.clone()).collect::<Vec<_>>(),
    )?;
    for (i, (_, values)) in rows.iter().enumerate() {
        let (bottom, top) = (n - i as f64 - 0.8, n - i as f64 - 0.2);
        let mut x = 0.0;
        for (k, v) in values.iter().enumerate() {
            if *v > 0.0 {
                chart
                    .draw_series(std::iter::once(Rectangle::new(
                        [(x, bottom), (x + v, top)],
                        palette[k % palette.len()].filled(),
                    )))
                    .map_err(e)?;
                chart
                    .draw_series(std::iter::once(Rectangle::new(
                        [(x, bottom), (x + v, top)],
                        WHITE.stroke_width(1),
                    )))
                    .map_err(e)?;
            }
            x += v;
        }
    }
    for (k, part) in parts.iter().enumerate() {
        let color = palette[k % palette.len()];
        chart
            .draw_series(std::iter::empty::<Rectangle<(f64, f64)>>())
            .map_err(e)?
            .label(part)
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 14, y + 5)], color.filled()));
    }
    legend_sized(&mut chart, 12, 0.9)
}
