//! Where the run's time went: the ledger as one bar that sums to 100 %, each part a segment
//! (its share written in it where it fits), and a legend of every part with its share. The
//! GPU's own work is blue, the GPU idle for a cause warm colours, the run's overheads grey,
//! and what is not explained pale and outlined, so the parts read apart in greyscale too.

use checkup_model::{ChartId, Diagnosis, KernelClass, LedgerKind, MarkerKind, TimeLedger};
use checkup_text::report::Text;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::style::{e, style, Area, BLUE, GREEN, INK, ORANGE, WIDTH};

/// The bar's height and the legend's rows.
const BAR: i32 = 46;
const ROW: i32 = 22;
const TOP: i32 = 40;

/// The chart's spec.
pub(super) const SPEC: super::spec::Spec = super::spec::Spec {
    id: ChartId::Ledger,
    title: |t| t.chart_ledger,
    height,
    shown: |d| d.ledger.as_ref().is_some_and(|l| !l.parts.is_empty()),
    over_time: false,
    draw: |a, _, d, t| match &d.ledger {
        Some(l) => ledger_chart(a, l, t),
        None => Ok(()),
    },
};

fn height(d: &Diagnosis) -> u32 {
    let parts = d.ledger.as_ref().map_or(0, |l| l.parts.len()) as i32;
    (TOP + BAR + 24 + (parts + 1) / 2 * ROW + 12) as u32
}

/// Each part's colour.
fn colour(kind: LedgerKind) -> RGBColor {
    use LedgerKind as K;
    match kind {
        K::GpuCompute(KernelClass::MatmulConv) => BLUE,
        K::GpuCompute(KernelClass::Unsplit) => RGBColor(60, 110, 180),
        K::GpuCompute(KernelClass::Elementwise) => RGBColor(100, 150, 210),
        K::GpuCompute(KernelClass::Other) => RGBColor(165, 195, 230),
        K::Copies => RGBColor(110, 70, 150),
        K::ExposedCommunication => RGBColor(175, 135, 205),
        K::LaunchGaps => RGBColor(245, 185, 110),
        K::HostLate => ORANGE,
        K::HostLaunchless => RGBColor(200, 160, 40),
        K::SyncIdle => RGBColor(150, 55, 20),
        K::DataWait => GREEN,
        K::Periodic(MarkerKind::EpochStart) => RGBColor(125, 180, 125),
        K::Periodic(MarkerKind::Checkpoint) => RGBColor(70, 70, 70),
        K::Periodic(MarkerKind::Eval) => RGBColor(105, 105, 105),
        K::Periodic(MarkerKind::Gc) => RGBColor(140, 140, 140),
        K::Periodic(MarkerKind::Compile) => RGBColor(120, 95, 75),
        K::WarmUp => RGBColor(175, 175, 175),
        K::Profiler => RGBColor(205, 205, 205),
        K::SlowSteps => RGBColor(190, 50, 50),
        K::NotExplained => RGBColor(248, 248, 248),
    }
}

/// White text on the dark segments, ink on the light ones.
fn text_on(c: RGBColor) -> RGBColor {
    let luma = 0.299 * c.0 as f64 + 0.587 * c.1 as f64 + 0.114 * c.2 as f64;
    if luma < 140.0 {
        WHITE
    } else {
        INK
    }
}

fn percent(share: f64) -> String {
    let p = share * 100.0;
    if p > 0.0 && p < 1.0 {
        "<1 %".to_owned()
    } else {
        format!("{p:.0} %")
    }
}

fn ledger_chart(a: &Area, l: &TimeLedger, t: &Text) -> Result<(), String> {
    let (left, right) = (20, WIDTH as i32 - 20);
    let width = (right - left) as f64;
    a.draw(&plotters::element::Text::new(
        t.chart_ledger.to_owned(),
        (left, 10),
        style(18),
    ))
    .map_err(e)?;
    // Segments in the legend's order (largest first), each at least a pixel wide.
    let mut x = left as f64;
    for p in &l.parts {
        let w = p.share * width;
        let (x0, x1) = (
            x.round() as i32,
            (x + w).round().max(x.round() + 1.0) as i32,
        );
        let c = colour(p.kind);
        a.draw(&Rectangle::new([(x0, TOP), (x1, TOP + BAR)], c.filled()))
            .map_err(e)?;
        a.draw(&Rectangle::new(
            [(x0, TOP), (x1, TOP + BAR)],
            WHITE.stroke_width(1),
        ))
        .map_err(e)?;
        let label = percent(p.share);
        if (x1 - x0) as usize >= 10 * label.chars().count() {
            let pos = Pos::new(HPos::Center, VPos::Center);
            a.draw(&plotters::element::Text::new(
                label,
                ((x0 + x1) / 2, TOP + BAR / 2),
                style(14).color(&text_on(c)).pos(pos),
            ))
            .map_err(e)?;
        }
        x += w;
    }
    // The bar's outline: the not-explained part is pale and needs its edge.
    a.draw(&Rectangle::new(
        [(left, TOP), (right, TOP + BAR)],
        INK.stroke_width(1),
    ))
    .map_err(e)?;
    // The legend: two columns, largest first, down the first column then the second.
    let rows = (l.parts.len() as i32 + 1) / 2;
    for (i, p) in l.parts.iter().enumerate() {
        let (col, row) = (i as i32 / rows.max(1), i as i32 % rows.max(1));
        let x = left + col * (right - left) / 2;
        let y = TOP + BAR + 24 + row * ROW;
        let c = colour(p.kind);
        a.draw(&Rectangle::new([(x, y - 6), (x + 14, y + 6)], c.filled()))
            .map_err(e)?;
        a.draw(&Rectangle::new(
            [(x, y - 6), (x + 14, y + 6)],
            INK.stroke_width(1),
        ))
        .map_err(e)?;
        let words = checkup_text::ledger::kind(p.kind, t.language);
        a.draw(&plotters::element::Text::new(
            format!("{}  {words}", percent(p.share)),
            (x + 22, y),
            style(13).pos(Pos::new(HPos::Left, VPos::Center)),
        ))
        .map_err(e)?;
    }
    Ok(())
}
