//! Throughput per GPU against a one-GPU run.

use checkup_model::{ChartId, Diagnosis};
use checkup_text::report::Text;

use super::bars::stacked_bars;
use super::style::Area;

/// The chart's spec.
pub(super) const SPEC: super::spec::Spec = super::spec::Spec {
    id: ChartId::Scaling,
    title: |t| t.chart_scaling,
    height: super::spec::usual_height,
    shown: |d| d.scaling.is_some(),
    over_time: false,
    draw: |a, _, d, t| scaling_chart(a, d, t),
};

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
