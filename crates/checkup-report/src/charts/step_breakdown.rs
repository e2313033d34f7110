//! Where a step's time goes: compute, communication, copies, idle.

use checkup_model::{ChartId, Diagnosis};
use checkup_text::report::Text;

use super::bars::stacked_bars;
use super::style::Area;

/// The chart's spec.
pub(super) const SPEC: super::spec::Spec = super::spec::Spec {
    id: ChartId::StepBreakdown,
    title: |t| t.chart_breakdown,
    height: super::spec::usual_height,
    shown: |d| d.ranks.iter().any(|r| !r.steps.is_empty()),
    over_time: false,
    draw: |a, _, d, t| breakdown_chart(a, d, t),
};

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
