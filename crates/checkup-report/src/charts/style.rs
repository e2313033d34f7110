//! The charts' look: size, font, palette, dash patterns, tick labels, legends.

use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;

pub(super) const WIDTH: u32 = 900;

pub(super) const HEIGHT: u32 = 300;

pub(super) const FONT: &str = "sans-serif";

/// The chart font: WenQuanYi Micro Hei covers Latin and Chinese, so both report languages
/// measure and render with one face.
pub(crate) static FONT_BYTES: &[u8] = include_bytes!("../../fonts/wqy-microhei.ttc");

pub(crate) fn register_font() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // The font is compiled in; failing to parse it would be a build defect caught by tests.
        let _ = plotters::style::register_font(FONT, FontStyle::Normal, FONT_BYTES);
    });
}

pub(crate) const INK: RGBColor = RGBColor(20, 20, 20);

pub(crate) const BLUE: RGBColor = RGBColor(31, 94, 160);

pub(super) const ORANGE: RGBColor = RGBColor(204, 102, 0);

pub(super) const GREEN: RGBColor = RGBColor(46, 125, 50);

pub(super) const GREY: RGBColor = RGBColor(120, 120, 120);

pub(super) const SHADE: RGBColor = RGBColor(238, 238, 238);

pub(super) type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;

pub(super) type Plot<'a, 'b> =
    ChartContext<'a, SVGBackend<'b>, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// Dashed lines are drawn as one polyline in a colour whose alpha is this tag, which
/// [`dashes_as_dasharray`] turns into an SVG dash pattern. plotters' own dashed series writes
/// one element per dash: a 30-minute utilisation curve (min/max per pixel column, a zig-zag
/// kilometres long) became tens of thousands of elements, most of the SVG's size and of the
/// app's web view memory.
pub(super) const DASH_TAG_ALPHA: f64 = 0.996;

pub(super) const DASH_TAG_ATTR: &str = "opacity=\"0.996\"";

pub(super) const DASH_ATTRS: &str = "opacity=\"1\" stroke-dasharray=\"6 4\"";

pub(crate) fn dashed_style(color: RGBColor) -> ShapeStyle {
    ShapeStyle::from(&color.mix(DASH_TAG_ALPHA)).stroke_width(2)
}

pub(super) fn dashes_as_dasharray(svg: String) -> String {
    if svg.contains(DASH_TAG_ATTR) {
        svg.replace(DASH_TAG_ATTR, DASH_ATTRS)
    } else {
        svg
    }
}

/// A tick label as people write one: 2000, not 2000.0; 0.5, not 0.50; never -0.
pub(super) fn tick(v: &f64) -> String {
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

pub(super) fn e(err: impl std::fmt::Display) -> String {
    err.to_string()
}

pub(super) fn legend<'a, 'b: 'a>(chart: &mut Plot<'a, 'b>) -> Result<(), String> {
    legend_sized(chart, 13, 0.85)
}

/// The legend box, top right: `size` is the label font, `opacity` the box's white.
pub(super) fn legend_sized<'a, 'b: 'a>(
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
