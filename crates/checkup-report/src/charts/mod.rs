//! The report's charts, drawn with plotters as SVG. The same code serves the app and every
//! export. Charts are readable in greyscale print: series differ by dash pattern and shade as
//! well as hue, axes carry units, and the steady-state window is shaded.
//!
//! One module per chart, each declaring its `Spec` (which chart, its caption, its height,
//! whether the diagnosis has data for it, whether it runs over time, and how it is drawn);
//! `SPECS` lists them in report order. The look is `style`, charts over time share `time`,
//! bar charts `bars`, and chart data is cut to a span of seconds in one place, `window`.

mod bars;
mod spec;
mod style;
mod time;
pub(crate) mod window;

mod gpu_memory;
mod gpu_timeline;
mod host_cpu;
mod idle_breakdown;
mod ledger;
mod links;
mod power;
mod rank_steps;
mod scaling;
mod sm_clock;
mod step_breakdown;
mod step_distribution;
mod step_times;
mod temperature;
mod utilisation;

#[cfg(test)]
mod tests;

use checkup_model::{ChartId, Diagnosis};
use checkup_text::report::Text;
use plotters::prelude::*;

use spec::Spec;
pub(crate) use style::{dashed_style, register_font, style, BLUE, FONT_BYTES, INK};
use style::{dashes_as_dasharray, WIDTH};
use time::TimeFrame;

/// One chart: which it is, a caption and the SVG (the model's type, so the app's UI shows
/// the very same charts).
pub type Chart = checkup_model::ChartSvg;

/// Every chart, in report order.
const SPECS: [&Spec; 15] = [
    &ledger::SPEC,
    &utilisation::SPEC,
    &power::SPEC,
    &sm_clock::SPEC,
    &gpu_memory::SPEC,
    &temperature::SPEC,
    &links::SPEC,
    &host_cpu::SPEC,
    &gpu_timeline::SPEC,
    &rank_steps::SPEC,
    &step_breakdown::SPEC,
    &idle_breakdown::SPEC,
    &step_times::SPEC,
    &step_distribution::SPEC,
    &scaling::SPEC,
];

/// All charts the diagnosis has data for, in report order.
pub fn charts(d: &Diagnosis, t: &Text) -> Vec<Chart> {
    drawn(d, t, None, |_| true)
}

/// The time chart `name` over seconds `from..to` of the run only, its curves sampled anew for
/// that span (a zoom in the app); `None` for a chart that is not over time, or no data there.
pub fn time_chart_window(
    d: &Diagnosis,
    t: &Text,
    name: ChartId,
    from: f64,
    to: f64,
) -> Option<Chart> {
    if !(from.is_finite() && to.is_finite() && to > from) {
        return None;
    }
    let z = window::diagnosis_within(d, from, to);
    drawn(&z, t, Some((from, to)), |s| s.over_time && s.id == name)
        .into_iter()
        .next()
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
        .map(window::last_second)
        .chain(d.charts.host.iter().filter_map(|h| h.t.last().copied()))
        .fold(0.0, f64::max);
    let (from, to) = window::last_span(end, span_s);
    let z = window::diagnosis_within(d, from, to);
    drawn(&z, t, Some((from, to)), |s| s.over_time)
}

/// The charts `wanted` picks that `d` has data for, over `window` seconds when given.
fn drawn(
    d: &Diagnosis,
    t: &Text,
    window: Option<(f64, f64)>,
    wanted: impl Fn(&Spec) -> bool,
) -> Vec<Chart> {
    register_font();
    SPECS
        .into_iter()
        .filter(|s| wanted(s) && (s.shown)(d))
        .filter_map(|s| draw_one(s, d, t, window))
        .collect()
}

/// One chart as SVG; `None` when plotters fails to draw it.
fn draw_one(s: &Spec, d: &Diagnosis, t: &Text, window: Option<(f64, f64)>) -> Option<Chart> {
    let mut svg = String::new();
    let frame = TimeFrame {
        window,
        ..Default::default()
    };
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, (s.height)(d))).into_drawing_area();
        root.fill(&WHITE)
            .map_err(|e| e.to_string())
            .and_then(|_| (s.draw)(&root, &frame, d, t))
            .and_then(|_| root.present().map_err(|e| e.to_string()))
            .ok()?;
    }
    Some(Chart {
        name: s.id,
        title: (s.title)(t).to_owned(),
        svg: dashes_as_dasharray(svg),
        hover: frame.hover.into_inner(),
    })
}
