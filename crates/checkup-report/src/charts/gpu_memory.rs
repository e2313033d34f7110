//! GPU memory against the card's, with the probe's reserve and live tensors and each process.

use checkup_model::{ChartId, Diagnosis};
use checkup_text::report::Text;
use plotters::prelude::*;

use super::style::{Area, BLUE, GREEN};
use super::time::{ceiling_chart, points, Ceiling, TimeFrame};

/// The chart's spec.
pub(super) const SPEC: super::spec::Spec = super::spec::Spec {
    id: ChartId::GpuMemory,
    title: |t| t.chart_memory,
    height: super::spec::usual_height,
    shown: |d| {
        super::spec::first_gpu(d).is_some_and(|g| g.mem_used_gib.iter().any(Option::is_some))
    },
    over_time: true,
    draw: |a, frame, d, t| super::spec::on_first_gpu(memory_chart, a, frame, d, t),
};

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
