//! What the GPU's idle time in a step waits for.

use checkup_model::{ChartId, Diagnosis};
use checkup_text::report::Text;

use super::bars::stacked_bars;
use super::style::Area;

/// The chart's spec.
pub(super) const SPEC: super::spec::Spec = super::spec::Spec {
    id: ChartId::IdleBreakdown,
    title: |t| t.chart_idle,
    height: super::spec::usual_height,
    shown: |d| d.ranks.iter().any(|r| !r.steps.is_empty()),
    over_time: false,
    draw: |a, _, d, t| idle_chart(a, d, t),
};

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
