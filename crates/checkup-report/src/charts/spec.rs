//! What a chart is, declared by each chart's module and read by the drawing loop.

use checkup_model::{ChartId, Diagnosis, GpuSeries};
use checkup_text::report::Text;

use super::style::{Area, HEIGHT};
use super::time::TimeFrame;

/// What a chart is: everything the drawing loop needs to know of it.
pub(super) struct Spec {
    /// Which chart.
    pub(super) id: ChartId,
    /// Its caption, in the report's language.
    pub(super) title: fn(&Text) -> &'static str,
    /// Its height in pixels (its width is the report's).
    pub(super) height: fn(&Diagnosis) -> u32,
    /// Whether the diagnosis has data for it.
    pub(super) shown: fn(&Diagnosis) -> bool,
    /// Whether it runs over time: those can be zoomed, drawn live, and read by a pointer.
    pub(super) over_time: bool,
    /// Draws it.
    pub(super) draw: fn(&Area, &TimeFrame, &Diagnosis, &Text) -> Result<(), String>,
}

/// The usual height.
pub(super) fn usual_height(_: &Diagnosis) -> u32 {
    HEIGHT
}

/// The GPU a single-GPU chart shows: the first, when it was sampled.
pub(super) fn first_gpu(d: &Diagnosis) -> Option<&GpuSeries> {
    d.charts.gpus.first().filter(|g| !g.t.is_empty())
}

/// How a chart of one GPU's curves is drawn.
pub(super) type GpuDraw =
    fn(&Area, &TimeFrame, &Diagnosis, &GpuSeries, &Text) -> Result<(), String>;

/// Draws `draw` over the first GPU's curves; nothing where no GPU was sampled (its `shown`
/// says so first).
pub(super) fn on_first_gpu(
    draw: GpuDraw,
    a: &Area,
    frame: &TimeFrame,
    d: &Diagnosis,
    t: &Text,
) -> Result<(), String> {
    match first_gpu(d) {
        Some(g) => draw(a, frame, d, g, t),
        None => Ok(()),
    }
}
