//! A GPU at a glance, for the fleet view: its last minute of GPU-Util and SM activity, small
//! enough that every GPU of several hosts fits on one screen. The same palette and dash
//! patterns as the report's utilisation chart, so the two read alike.

use checkup_model::GpuSeries;
use plotters::prelude::*;

use checkup_model::ChartId;

use crate::charts::window::{gpu_within, last_second, last_span};
use crate::charts::{dashed_style, register_font, style, Chart, BLUE, INK};

const WIDTH: u32 = 320;
const HEIGHT: u32 = 96;

/// The GPU's last `span_s` seconds of utilisation (the series' own seconds), named
/// `glance-gpu<N>`; its caption is the GPU. Solid: GPU-Util; dashed: SM active.
pub fn gpu_glance(g: &GpuSeries, span_s: f64) -> Chart {
    register_font();
    let (from, to) = last_span(last_second(g), span_s);
    let g = gpu_within(g, from, to);
    let util = curve(&g.t, &g.util_pct);
    let sm = curve(&g.gpm_t, &g.sm_active_pct);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, HEIGHT)).into_drawing_area();
        let _ = draw(&root, from..to, &util, &sm);
        let _ = root.present();
    }
    Chart {
        name: ChartId::GpuGlance { gpu: g.gpu },
        title: format!("GPU {}", g.gpu),
        svg,
        hover: None,
    }
}

/// A curve's points where it has a value.
fn curve(ts: &[f64], vs: &[Option<f32>]) -> Vec<(f64, f64)> {
    ts.iter()
        .zip(vs)
        .filter_map(|(x, v)| v.map(|v| (*x, f64::from(v))))
        .collect()
}

fn draw(
    root: &DrawingArea<SVGBackend, plotters::coord::Shift>,
    x: std::ops::Range<f64>,
    util: &[(f64, f64)],
    sm: &[(f64, f64)],
) -> Result<(), String> {
    let e = |err: &dyn std::fmt::Display| err.to_string();
    root.fill(&WHITE).map_err(|x| e(&x))?;
    let mut chart = ChartBuilder::on(root)
        .margin(4)
        .y_label_area_size(28)
        .x_label_area_size(0)
        .build_cartesian_2d(x, 0.0..105.0)
        .map_err(|x| e(&x))?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .disable_x_axis()
        .y_labels(3)
        .y_label_formatter(&|v| format!("{v:.0}"))
        .label_style(style(10))
        .light_line_style(RGBColor(235, 235, 235))
        .draw()
        .map_err(|x| e(&x))?;
    // No legend inside a chart this small: the fleet page says once which curve is which.
    let solid = ShapeStyle::from(&INK).stroke_width(2);
    chart
        .draw_series(LineSeries::new(util.iter().copied(), solid))
        .map_err(|x| e(&x))?;
    if !sm.is_empty() {
        chart
            .draw_series(LineSeries::new(sm.iter().copied(), dashed_style(BLUE)))
            .map_err(|x| e(&x))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_gpu_at_a_glance_draws_its_last_minute_only() {
        // Two minutes at 1 Hz: busy in the first, idle in the second.
        let t: Vec<f64> = (0..120).map(f64::from).collect();
        let util: Vec<Option<f32>> = t
            .iter()
            .map(|s| Some(if *s < 60.0 { 100.0 } else { 0.0 }))
            .collect();
        let g = GpuSeries {
            gpu: 3,
            t,
            util_pct: util,
            ..Default::default()
        };
        let (from, to) = last_span(last_second(&g), 60.0);
        assert_eq!((from, to), (59.0, 119.0));
        let last_minute = gpu_within(&g, from, to);
        assert_eq!(last_minute.t.len(), 61);
        assert_eq!(
            last_minute
                .util_pct
                .iter()
                .filter(|v| v.is_some_and(|v| v > 0.0))
                .count(),
            1
        );
        let en = checkup_text::report::text(checkup_model::Language::En);
        let c = gpu_glance(&g, 60.0);
        assert_eq!(
            (c.name.file_stem().as_str(), c.title.as_str()),
            ("glance-gpu3", "GPU 3")
        );
        assert!(c.svg.starts_with("<svg"), "{}", &c.svg[..40]);
        // One curve (no GPM samples, no SM activity), and no legend in a chart this small.
        let curves = |colour: &str| {
            c.svg
                .matches(&format!(
                    "<polyline fill=\"none\" opacity=\"1\" stroke=\"{colour}\""
                ))
                .count()
        };
        assert_eq!((curves("#141414"), curves("#1F5EA0")), (1, 0), "{}", c.svg);
        assert!(!c.svg.contains(en.series_util));
    }
}
