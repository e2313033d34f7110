//! The report's charts, drawn with plotters as SVG. The same code serves the app and every
//! export. Charts are readable in greyscale print: series differ by dash pattern and shade as
//! well as hue, axes carry units, and the steady-state window is shaded.

use checkup_model::{Diagnosis, SegmentKind};
use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;

use checkup_text::report::Text;

/// One chart: a stable file name, a caption and the SVG (the model's type, so the app's UI
/// shows the very same charts).
pub type Chart = checkup_model::ChartSvg;

const WIDTH: u32 = 900;
const HEIGHT: u32 = 300;
const FONT: &str = "sans-serif";

/// The chart font: WenQuanYi Micro Hei covers Latin and Chinese, so both report languages
/// measure and render with one face.
pub(crate) static FONT_BYTES: &[u8] = include_bytes!("../fonts/wqy-microhei.ttc");

pub(crate) fn register_font() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // The font is compiled in; failing to parse it would be a build defect caught by tests.
        let _ = plotters::style::register_font(FONT, FontStyle::Normal, FONT_BYTES);
    });
}

pub(crate) const INK: RGBColor = RGBColor(20, 20, 20);
pub(crate) const BLUE: RGBColor = RGBColor(31, 94, 160);
const ORANGE: RGBColor = RGBColor(204, 102, 0);
const GREEN: RGBColor = RGBColor(46, 125, 50);
const GREY: RGBColor = RGBColor(120, 120, 120);
const SHADE: RGBColor = RGBColor(238, 238, 238);

type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;
/// What a time chart is drawn over and records while it is drawn: the span of seconds it
/// shows (the whole run unless zoomed) and, for the app, the data a pointer reads.
#[derive(Default)]
struct TimeFrame {
    window: Option<(f64, f64)>,
    hover: std::cell::RefCell<Option<checkup_model::ChartHover>>,
}
type Plot<'a, 'b> = ChartContext<'a, SVGBackend<'b>, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// All charts the diagnosis has data for, in report order.
pub fn charts(d: &Diagnosis, t: &Text) -> Vec<Chart> {
    drawn(d, t, None, None)
}

/// The time chart `name` over seconds `from..to` of the run only, its curves sampled anew for
/// that span (a zoom in the app); `None` for a chart that is not over time, or no data there.
pub fn time_chart_window(d: &Diagnosis, t: &Text, name: &str, from: f64, to: f64) -> Option<Chart> {
    if !(from.is_finite() && to.is_finite() && to > from) {
        return None;
    }
    drawn(&windowed(d, from, to), t, Some((from, to)), Some(name))
        .into_iter()
        .find(|c| c.name == name && c.hover.is_some())
}

/// The time charts of a sampling in progress over its last `span_s` seconds, so they scroll
/// as samples arrive (the first `span_s` seconds fill the axis from zero): what the app draws
/// ten times a second. `d` holds the curves (`checkup_engine`'s live chart data) and the
/// engine's steady window from its last full analysis.
pub fn live_charts(d: &Diagnosis, t: &Text, span_s: f64) -> Vec<Chart> {
    let end = d
        .charts
        .gpus
        .iter()
        .filter_map(|g| g.t.last())
        .chain(d.charts.host.iter().filter_map(|h| h.t.last()))
        .copied()
        .fold(0.0, f64::max);
    let (from, to) = ((end - span_s).max(0.0), end.max(span_s));
    drawn(&windowed(d, from, to), t, Some((from, to)), None)
        .into_iter()
        .filter(|c| c.hover.is_some())
        .collect()
}

/// `d` with its time curves cut to seconds `from..=to`.
fn windowed(d: &Diagnosis, from: f64, to: f64) -> Diagnosis {
    let mut z = d.clone();
    let keep = |ts: &[f64]| -> Vec<bool> { ts.iter().map(|x| (from..=to).contains(x)).collect() };
    for g in &mut z.charts.gpus {
        let k = keep(&g.t);
        g.t = pick(&g.t, &k);
        g.util_pct = pick(&g.util_pct, &k);
        g.power_w = pick(&g.power_w, &k);
        g.sm_clock_mhz = pick(&g.sm_clock_mhz, &k);
        g.mem_used_gib = pick(&g.mem_used_gib, &k);
        for p in &mut g.processes {
            let k = keep(&p.t);
            p.t = pick(&p.t, &k);
            p.used_gib = pick(&p.used_gib, &k);
        }
        g.temp_c = pick(&g.temp_c, &k);
        let k = keep(&g.pcie_t);
        g.pcie_t = pick(&g.pcie_t, &k);
        g.pcie_rx_gbs = pick(&g.pcie_rx_gbs, &k);
        g.pcie_tx_gbs = pick(&g.pcie_tx_gbs, &k);
        let k = keep(&g.gpm_t);
        g.nvlink_rx_gbs = pick(&g.nvlink_rx_gbs, &k);
        g.nvlink_tx_gbs = pick(&g.nvlink_tx_gbs, &k);
        g.gpm_t = pick(&g.gpm_t, &k);
        g.sm_active_pct = pick(&g.sm_active_pct, &k);
        g.tensor_pct = pick(&g.tensor_pct, &k);
        g.dram_pct = pick(&g.dram_pct, &k);
    }
    if let Some(m) = &mut z.charts.live_tensors {
        let k = keep(&m.t);
        m.t = pick(&m.t, &k);
        m.allocated_gib = pick(&m.allocated_gib, &k);
        m.reserved_gib = pick(&m.reserved_gib, &k);
    }
    if let Some(h) = &mut z.charts.host {
        let k = keep(&h.t);
        h.t = pick(&h.t, &k);
        h.cpu_total_pct = pick(&h.cpu_total_pct, &k);
        h.proc_tree_pct = pick(&h.proc_tree_pct, &k);
    }
    z.charts.steady = d
        .charts
        .steady
        .map(|(a, b)| (a.max(from), b.min(to)))
        .filter(|(a, b)| b > a);
    z
}

/// The values whose flag is set.
fn pick<T: Clone>(values: &[T], keep: &[bool]) -> Vec<T> {
    values
        .iter()
        .zip(keep)
        .filter(|(_, k)| **k)
        .map(|(v, _)| v.clone())
        .collect()
}

/// The charts, over `window` seconds when given, only the one named `only` when given.
fn drawn(d: &Diagnosis, t: &Text, window: Option<(f64, f64)>, only: Option<&str>) -> Vec<Chart> {
    register_font();
    let mut out = Vec::new();
    let mut push =
        |name: &str, title: String, draw: &dyn Fn(&Area, &TimeFrame) -> Result<(), String>| {
            if only.is_some_and(|o| o != name) {
                return;
            }
            let mut svg = String::new();
            let hover = TimeFrame {
                window,
                ..Default::default()
            };
            // The timeline is as tall as its lanes need, not a fixed box around one bar.
            let height = match name {
                "gpu_timeline" => timeline_height(d),
                "rank_steps" => rank_steps_height(d),
                _ => HEIGHT,
            };
            let ok = {
                let root = SVGBackend::with_string(&mut svg, (WIDTH, height)).into_drawing_area();
                let r = root
                    .fill(&WHITE)
                    .map_err(|e| e.to_string())
                    .and_then(|_| draw(&root, &hover));
                r.and_then(|_| root.present().map_err(|e| e.to_string()))
            };
            if ok.is_ok() {
                out.push(Chart {
                    name: name.to_owned(),
                    title,
                    svg: dashes_as_dasharray(svg),
                    hover: hover.hover.into_inner(),
                });
            }
        };
    if let Some(g) = d.charts.gpus.first().filter(|g| !g.t.is_empty()) {
        push("utilisation", t.chart_util.into(), &|a, h| {
            util_chart(a, h, d, g, t)
        });
        push("power", t.chart_power.into(), &|a, h| {
            power_chart(a, h, d, g, t)
        });
        push("sm_clock", t.chart_clock.into(), &|a, h| {
            clock_chart(a, h, d, g, t)
        });
        if g.mem_used_gib.iter().any(Option::is_some) {
            push("gpu_memory", t.chart_memory.into(), &|a, h| {
                memory_chart(a, h, d, g, t)
            });
        }
        if g.temp_c.iter().any(Option::is_some) {
            push("temperature", t.chart_temperature.into(), &|a, h| {
                temperature_chart(a, h, d, g, t)
            });
        }
        if g.pcie_rx_gbs
            .iter()
            .chain(&g.pcie_tx_gbs)
            .any(Option::is_some)
        {
            push("links", t.chart_links.into(), &|a, h| {
                links_chart(a, h, d, g, t)
            });
        }
    }
    if d.charts.host.as_ref().is_some_and(|h| !h.t.is_empty()) {
        push("host_cpu", t.chart_host.into(), &|a, h| {
            host_chart(a, h, d, t)
        });
    }
    if d.charts.timelines.iter().any(|tl| tl.span_us > 0.0) {
        push("gpu_timeline", t.chart_timeline.into(), &|a, _| {
            timeline_chart(a, d, t)
        });
    }
    if d.ranks.iter().filter(|r| !r.steps.is_empty()).count() > 1 {
        push("rank_steps", t.chart_rank_steps.into(), &|a, _| {
            rank_steps_chart(a, d, t)
        });
    }
    if d.ranks.iter().any(|r| !r.steps.is_empty()) {
        push("step_breakdown", t.chart_breakdown.into(), &|a, _| {
            breakdown_chart(a, d, t)
        });
        push("idle_breakdown", t.chart_idle.into(), &|a, _| {
            idle_chart(a, d, t)
        });
    }
    if d.charts.steps.iter().any(|s| s.duration_ms.len() > 1) {
        push("step_times", t.chart_steps.into(), &|a, _| {
            step_chart(a, d, t)
        });
        push("step_distribution", t.chart_distribution.into(), &|a, _| {
            distribution_chart(a, d, t)
        });
    }
    if d.scaling.is_some() {
        push("scaling", t.chart_scaling.into(), &|a, _| {
            scaling_chart(a, d, t)
        });
    }
    out
}

/// Dashed lines are drawn as one polyline in a colour whose alpha is this tag, which
/// [`dashes_as_dasharray`] turns into an SVG dash pattern. plotters' own dashed series writes
/// one element per dash: a 30-minute utilisation curve (min/max per pixel column, a zig-zag
/// kilometres long) became tens of thousands of elements, most of the SVG's size and of the
/// app's web view memory.
const DASH_TAG_ALPHA: f64 = 0.996;
const DASH_TAG_ATTR: &str = "opacity=\"0.996\"";
const DASH_ATTRS: &str = "opacity=\"1\" stroke-dasharray=\"6 4\"";

pub(crate) fn dashed_style(color: RGBColor) -> ShapeStyle {
    ShapeStyle::from(&color.mix(DASH_TAG_ALPHA)).stroke_width(2)
}

fn dashes_as_dasharray(svg: String) -> String {
    if svg.contains(DASH_TAG_ATTR) {
        svg.replace(DASH_TAG_ATTR, DASH_ATTRS)
    } else {
        svg
    }
}

/// A tick label as people write one: 2000, not 2000.0; 0.5, not 0.50; never -0.
fn tick(v: &f64) -> String {
    let s = format!("{v:.2}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    match s {
        "-0" | "" => "0".to_owned(),
        _ => s.to_owned(),
    }
}

pub(crate) fn style(size: u32) -> TextStyle<'static> {
    (FONT, size).into_font().color(&INK)
}

fn e(err: impl std::fmt::Display) -> String {
    err.to_string()
}

/// A curve's points for a chart `WIDTH` pixels wide: at most the lowest and the highest of
/// each pixel column (`checkup_model::min_max_indices`), in x order. A 30-minute run at 10 Hz
/// has 18,000 samples; drawing them all only makes the SVG (and the app showing it) big, while
/// min and max keep every dip and spike.
fn points(t: &[f64], v: &[Option<f32>]) -> Vec<(f64, f64)> {
    checkup_model::min_max_indices(t, v, WIDTH as usize)
        .into_iter()
        .filter_map(|i| v[i].map(|y| (t[i], y as f64)))
        .collect()
}

/// [`points`] of a curve given as `(x, y)` pairs.
fn decimate(pts: Vec<(f64, f64)>) -> Vec<(f64, f64)> {
    let (t, v): (Vec<f64>, Vec<Option<f32>>) =
        pts.iter().map(|(x, y)| (*x, Some(*y as f32))).unzip();
    checkup_model::min_max_indices(&t, &v, WIDTH as usize)
        .into_iter()
        .map(|i| pts[i])
        .collect()
}

fn x_range(d: &Diagnosis, t: &[f64]) -> std::ops::Range<f64> {
    let end = t
        .last()
        .copied()
        .unwrap_or(1.0)
        .max(d.charts.steady.map_or(0.0, |s| s.1))
        .max(1e-3);
    0.0..end
}

/// Shades the steady window on a time chart.
fn shade_steady<'a, 'b: 'a>(
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
fn time_chart<'a, 'b>(
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
const HOVER_BUCKETS: usize = 300;

fn legend<'a, 'b: 'a>(chart: &mut Plot<'a, 'b>) -> Result<(), String> {
    legend_sized(chart, 13, 0.85)
}

/// The legend box, top right: `size` is the label font, `opacity` the box's white.
fn legend_sized<'a, 'b: 'a>(
    chart: &mut Plot<'a, 'b>,
    size: u32,
    opacity: f64,
) -> Result<(), String> {
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(opacity))
        .border_style(GREY)
        .label_font(style(size))
        .position(SeriesLabelPosition::UpperRight)
        .draw()
        .map_err(e)
}

fn labelled<'a, 'b: 'a>(
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

/// A reading against its ceiling (power vs limit, SM clock vs max): the ceiling dashed.
struct Ceiling<'a> {
    caption: &'a str,
    axis: &'a str,
    unit: &'a str,
    series: &'a str,
    ceiling_label: &'a str,
    /// More curves under the ceiling.
    more: Vec<Curve<'a>>,
}

/// A curve's points, colour, whether it is dashed, and its label.
type Curve<'a> = (Vec<(f64, f64)>, RGBColor, bool, &'a str);

#[allow(clippy::too_many_arguments)]
fn ceiling_chart(
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

fn power_chart(
    a: &Area,
    hover: &TimeFrame,
    d: &Diagnosis,
    g: &checkup_model::GpuSeries,
    t: &Text,
) -> Result<(), String> {
    let c = Ceiling {
        caption: t.chart_power,
        axis: t.axis_watts,
        unit: "W",
        series: t.series_power,
        ceiling_label: t.series_limit,
        more: Vec::new(),
    };
    ceiling_chart(
        a,
        hover,
        d,
        g,
        points(&g.t, &g.power_w),
        g.power_limit_w,
        c,
        t,
    )
}

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

/// GPU memory in use against the card's, with the training's live tensors and what its
/// allocator reserved when the probe recorded them: a creep, a peak near the card's
/// capacity and a reserve far above the tensors are each seen here.
fn memory_chart(
    a: &Area,
    hover: &TimeFrame,
    d: &Diagnosis,
    g: &checkup_model::GpuSeries,
    t: &Text,
) -> Result<(), String> {
    let mut more = d.charts.live_tensors.as_ref().map_or_else(Vec::new, |m| {
        vec![
            (
                points(&m.t, &m.reserved_gib),
                GREEN,
                true,
                t.series_reserved,
            ),
            (
                points(&m.t, &m.allocated_gib),
                BLUE,
                false,
                t.series_allocated,
            ),
        ]
    });
    // Where several processes held memory on the GPU, each one's: the training's and what
    // the others took from it.
    let labels: Vec<String> = g
        .processes
        .iter()
        .map(|p| match p.training {
            true => format!("PID {} ({})", p.pid, t.series_the_training),
            false => format!("PID {}", p.pid),
        })
        .collect();
    const PROCESS_COLOURS: [RGBColor; 4] = [
        RGBColor(123, 31, 162),
        RGBColor(0, 131, 143),
        RGBColor(141, 110, 99),
        RGBColor(233, 30, 99),
    ];
    for ((p, label), colour) in g
        .processes
        .iter()
        .zip(&labels)
        .zip(PROCESS_COLOURS.iter().cycle())
    {
        more.push((
            points(&p.t, &p.used_gib),
            *colour,
            !p.training,
            label.as_str(),
        ));
    }
    let c = Ceiling {
        caption: t.chart_memory,
        axis: t.axis_gib,
        unit: "GiB",
        series: t.series_mem_used,
        ceiling_label: t.series_mem_total,
        more,
    };
    ceiling_chart(
        a,
        hover,
        d,
        g,
        points(&g.t, &g.mem_used_gib),
        g.mem_total_gib,
        c,
        t,
    )
}

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

/// What crossed the PCIe link each way against its peak, and NVLink where any crossed it:
/// copies that fill the link show as a curve at the line.
fn links_chart(
    a: &Area,
    hover: &TimeFrame,
    d: &Diagnosis,
    g: &checkup_model::GpuSeries,
    t: &Text,
) -> Result<(), String> {
    let mut more = vec![(
        points(&g.pcie_t, &g.pcie_tx_gbs),
        BLUE,
        true,
        t.series_pcie_tx,
    )];
    // A GPU without NVLink peers reads zero: no curves for a link that is not there.
    let carried = |v: &[Option<f32>]| v.iter().flatten().any(|x| *x > 0.01);
    if carried(&g.nvlink_rx_gbs) || carried(&g.nvlink_tx_gbs) {
        more.push((
            points(&g.gpm_t, &g.nvlink_rx_gbs),
            GREEN,
            false,
            t.series_nvlink_rx,
        ));
        more.push((
            points(&g.gpm_t, &g.nvlink_tx_gbs),
            GREEN,
            true,
            t.series_nvlink_tx,
        ));
    }
    let c = Ceiling {
        caption: t.chart_links,
        axis: t.axis_gbs,
        unit: "GB/s",
        series: t.series_pcie_rx,
        ceiling_label: t.series_pcie_peak,
        more,
    };
    ceiling_chart(
        a,
        hover,
        d,
        g,
        points(&g.pcie_t, &g.pcie_rx_gbs),
        g.pcie_peak_gbs,
        c,
        t,
    )
}

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

/// Writes one label per horizontal row (row 0 at the top) in the y-label area, centred on
/// the row: plotters' own tick labels do not line up with categorical rows.
fn row_labels(a: &Area, chart: &Plot, labels: &[String]) -> Result<(), String> {
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

/// The heatmap's height: a row per rank up to 24 px, between a short box and a page's third.
fn rank_steps_height(d: &Diagnosis) -> u32 {
    (130 + 22 * d.ranks.len() as u32).clamp(220, 620)
}

/// One panel of the rank × step heatmap: its label and what it reads of a step.
type StepPanel = (String, fn(&checkup_model::StepBreakdown) -> f64);

/// What the rank × step heatmap shows of each profiled step: GPU compute, communication not
/// hidden behind it (the wait for a slower rank, or the transfer), and the wait for data;
/// the last only when some rank waited for data.
fn rank_step_panels(d: &Diagnosis, t: &Text) -> Vec<StepPanel> {
    let mut panels: Vec<StepPanel> = vec![
        (t.breakdown_parts[0].to_owned(), |s| s.kernel_us),
        (t.breakdown_parts[3].to_owned(), |s| s.communication_us),
    ];
    if d.ranks
        .iter()
        .flat_map(|r| &r.steps)
        .any(|s| s.dataloader_us > 0.0)
    {
        panels.push((t.breakdown_parts[5].to_owned(), |s| s.dataloader_us));
    }
    panels
}

/// Rank × step: each rank a row, each profiled step a column, a panel per part of the step,
/// shaded from white (none) to black (the panel's most). A slow rank is the dark row of
/// compute and the light row of communication; one that comes and goes moves between
/// columns. Cells carry their value while they are large enough to read.
fn rank_steps_chart(a: &Area, d: &Diagnosis, t: &Text) -> Result<(), String> {
    let ranks: Vec<&checkup_model::RankSummary> =
        d.ranks.iter().filter(|r| !r.steps.is_empty()).collect();
    let columns = ranks
        .iter()
        .map(|r| r.steps.len())
        .max()
        .unwrap_or(0)
        .max(1);
    let panels = rank_step_panels(d, t);
    let title_area = 36;
    let (top, body) = a.split_vertically(title_area);
    top.titled(
        &format!(
            "{}{}",
            t.chart_rank_steps,
            d.diagnosed_rank
                .map(|r| format!(" · {} {}", t.rank, r))
                .unwrap_or_default()
        ),
        style(18),
    )
    .map_err(e)?;
    let areas = body.split_evenly((1, panels.len()));
    let n = ranks.len() as f64;
    for (k, (area, (label, value))) in areas.iter().zip(&panels).enumerate() {
        let max = ranks
            .iter()
            .flat_map(|r| r.steps.iter().map(value))
            .fold(0.0, f64::max)
            .max(1e-9);
        let steps = ranks.iter().flat_map(|r| r.steps.iter().map(|s| s.step));
        let (first, last) = (steps.clone().min().unwrap_or(0), steps.max().unwrap_or(0));
        let scale = format!(
            "{} {first}–{last} · {}",
            t.step,
            t.rank_steps_scale
                .replace("{max}", &checkup_text::fixed(max / 1e3, 1))
        );
        let mut chart = ChartBuilder::on(area)
            .caption(label, style(14))
            .margin(6)
            .x_label_area_size(38)
            .y_label_area_size(if k == 0 { 56 } else { 8 })
            .build_cartesian_2d(0.0..columns as f64, 0.0..n)
            .map_err(e)?;
        chart
            .configure_mesh()
            .disable_mesh()
            .x_labels(0)
            .y_labels(0)
            .x_desc(scale)
            .axis_desc_style(style(11))
            .draw()
            .map_err(e)?;
        if k == 0 {
            // Beyond 24 rows a label per row would overlap: every k-th and the diagnosed.
            let every = ranks.len().div_ceil(16).max(1);
            let labels: Vec<String> = ranks
                .iter()
                .enumerate()
                .map(|(i, r)| {
                    let shown =
                        ranks.len() <= 24 || i % every == 0 || Some(r.rank) == d.diagnosed_rank;
                    if shown {
                        r.rank.to_string()
                    } else {
                        String::new()
                    }
                })
                .collect();
            row_labels(area, &chart, &labels)?;
        }
        let readable = ranks.len() <= 16 && columns <= 10;
        let bordered = ranks.len() <= 32;
        for (i, r) in ranks.iter().enumerate() {
            let (y0, y1) = (n - i as f64 - 1.0, n - i as f64);
            for (j, s) in r.steps.iter().enumerate() {
                let v = value(s);
                let shade = (255.0 * (1.0 - (v / max).clamp(0.0, 1.0))) as u8;
                let cell = [(j as f64, y0), (j as f64 + 1.0, y1)];
                chart
                    .draw_series(std::iter::once(Rectangle::new(
                        cell,
                        RGBColor(shade, shade, shade).filled(),
                    )))
                    .map_err(e)?;
                if bordered {
                    chart
                        .draw_series(std::iter::once(Rectangle::new(
                            cell,
                            RGBColor(200, 200, 200).stroke_width(1),
                        )))
                        .map_err(e)?;
                }
                if readable {
                    let ink = if shade < 128 { WHITE } else { INK };
                    let pos = plotters::style::text_anchor::Pos::new(
                        plotters::style::text_anchor::HPos::Center,
                        plotters::style::text_anchor::VPos::Center,
                    );
                    chart
                        .draw_series(std::iter::once(plotters::element::Text::new(
                            checkup_text::fixed(v / 1e3, 1),
                            (j as f64 + 0.5, y0 + 0.5),
                            style(10).pos(pos).color(&ink),
                        )))
                        .map_err(e)?;
                }
            }
        }
    }
    Ok(())
}

/// Horizontal stacked bars: one row per item, segments in a fixed order.
fn stacked_bars(
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

fn breakdown_chart(a: &Area, d: &Diagnosis, t: &Text) -> Result<(), String> {
    let Some(r) = d.diagnosed_rank_summary() else {
        return Ok(());
    };
    let rows: Vec<(String, Vec<f64>)> = r
        .steps
        .iter()
        .map(|s| {
            (
                format!("{} {}", t.step, s.step),
                [
                    s.kernel_us,
                    s.memcpy_us,
                    s.memset_us,
                    s.communication_us,
                    s.runtime_us,
                    s.dataloader_us,
                    s.cpu_other_us,
                ]
                .iter()
                .map(|v| v / 1e3)
                .collect(),
            )
        })
        .collect();
    let parts: Vec<String> = t.breakdown_parts.iter().map(|p| p.to_string()).collect();
    stacked_bars(
        a,
        &format!("{} ({} {})", t.chart_breakdown, t.rank, r.rank),
        &rows,
        &parts,
        t.axis_time_ms,
    )
}

fn idle_chart(a: &Area, d: &Diagnosis, t: &Text) -> Result<(), String> {
    let Some(r) = d.diagnosed_rank_summary() else {
        return Ok(());
    };
    let g = &r.gpu;
    let w = &r.host_waits;
    let pct = |v: f64| g.share(v) * 100.0;
    let rows = vec![
        (
            t.idle_by_kind.to_string(),
            vec![
                pct(g.idle.host_wait_us),
                pct(g.idle.kernel_wait_us),
                pct(g.idle.other_us),
                0.0,
                0.0,
            ],
        ),
        (
            t.idle_by_cause.to_string(),
            vec![
                pct(w.dataloader_us),
                pct(w.checkpoint_us),
                pct(w.sync_us),
                pct(w.launch_us),
                pct(w.other_us),
            ],
        ),
    ];
    // The two rows split the same idle time two ways; each legend entry names both splits.
    let parts: Vec<String> = (0..5)
        .map(|k| {
            if k < 3 {
                format!("{} / {}", t.idle_parts[k], t.cause_parts[k])
            } else {
                t.cause_parts[k].to_string()
            }
        })
        .collect();
    stacked_bars(
        a,
        &format!("{} ({} {})", t.chart_idle, t.rank, r.rank),
        &rows,
        &parts,
        t.axis_percent_of_step,
    )
}

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

fn scaling_chart(a: &Area, d: &Diagnosis, t: &Text) -> Result<(), String> {
    let Some(s) = &d.scaling else { return Ok(()) };
    let rows = vec![
        ("1 GPU".to_string(), vec![s.single_gpu_samples_per_s, 0.0]),
        (
            format!("{} GPUs", s.gpus),
            vec![s.multi_gpu_samples_per_s, 0.0],
        ),
        (
            format!("{} ({} GPUs)", t.ideal, s.gpus),
            vec![0.0, s.single_gpu_samples_per_s * s.gpus as f64],
        ),
    ];
    stacked_bars(
        a,
        &format!("{} — {:.0}%", t.chart_scaling, s.efficiency * 100.0),
        &rows,
        &[t.measured.to_string(), t.ideal.to_string()],
        t.axis_samples_per_s,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_series_is_cut_to_two_points_per_column_and_keeps_its_dip() {
        // 30 minutes at 10 Hz, busy at 98 % but for one 100 ms dip to 3 %.
        let pts: Vec<(f64, f64)> = (0..18_000)
            .map(|i| (i as f64 * 0.1, if i == 12_345 { 3.0 } else { 98.0 }))
            .collect();
        let kept = decimate(pts);
        assert!(kept.len() <= 2 * WIDTH as usize, "{}", kept.len());
        assert!(kept.iter().any(|p| p.1 == 3.0), "the dip survives");
        assert!(kept.windows(2).all(|w| w[0].0 <= w[1].0), "in time order");
        assert_eq!(kept.first().unwrap().0, 0.0);
        assert_eq!(kept.last().unwrap().0, 1799.9);
    }

    #[test]
    fn tick_labels_carry_no_trailing_zeros_and_no_negative_zero() {
        assert_eq!(tick(&2000.0), "2000");
        assert_eq!(tick(&0.5), "0.5");
        assert_eq!(tick(&12.25), "12.25");
        assert_eq!(tick(&-0.001), "0");
        assert_eq!(tick(&0.0), "0");
    }

    #[test]
    fn a_short_series_is_drawn_as_it_is() {
        let pts: Vec<(f64, f64)> = (0..250).map(|i| (i as f64, i as f64)).collect();
        assert_eq!(decimate(pts.clone()), pts);
    }
}
