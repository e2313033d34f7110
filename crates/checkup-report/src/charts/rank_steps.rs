//! Each rank's step parts side by side, where several ranks were profiled.

use checkup_model::{ChartId, Diagnosis};
use checkup_text::report::Text;
use plotters::prelude::*;

use super::bars::row_labels;
use super::style::{e, style, Area, INK};

/// The chart's spec.
pub(super) const SPEC: super::spec::Spec = super::spec::Spec {
    id: ChartId::RankSteps,
    title: |t| t.chart_rank_steps,
    height: rank_steps_height,
    shown: |d| d.ranks.iter().filter(|r| !r.steps.is_empty()).count() > 1,
    over_time: false,
    draw: |a, _, d, t| rank_steps_chart(a, d, t),
};

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
