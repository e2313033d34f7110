//! The wizard: one module per step, plus the host panel.

pub mod diagnosis;
pub mod environment;
pub mod hosts;
pub mod profiling;
pub mod report;
pub mod sampling;

use checkup_model::{ChartSvg, WizardStep};
use leptos::prelude::*;

use crate::i18n::tr;
use crate::Ui;

pub fn step_view(ui: Ui, step: WizardStep) -> AnyView {
    match step {
        WizardStep::Environment => environment::view(ui).into_any(),
        WizardStep::Sampling => sampling::view(ui).into_any(),
        WizardStep::Profiling => profiling::view(ui).into_any(),
        WizardStep::Diagnosis => diagnosis::view(ui).into_any(),
        WizardStep::Report => report::view(ui).into_any(),
    }
}

/// The named charts, in the order given.
pub fn charts_named(charts: &[ChartSvg], names: &[&str]) -> impl IntoView {
    names
        .iter()
        .filter_map(|n| charts.iter().find(|c| c.name == *n))
        .map(|c| view! { <figure class="chart" data-chart=c.name.clone()><div inner_html=c.svg.clone()></div><figcaption>{c.title.clone()}</figcaption></figure> })
        .collect_view()
}

/// The live phase of this checkup, if one reports.
pub fn live_for(ui: Ui, phase: &str) -> Option<checkup_model::LiveProgress> {
    let id = ui.current_id()?;
    ui.live
        .get()
        .filter(|p| p.checkup_id == id && p.phase == phase)
}

/// A progress bar filled to `pct` percent.
pub fn progress_bar(pct: f64) -> impl IntoView {
    view! { <div class="bar"><div style=format!("width:{:.0}%", pct.clamp(0.0, 100.0))></div></div> }
}

/// A live phase's status in the chosen language; a reconnect says which attempt and why.
pub fn status_words(ui: Ui, p: &checkup_model::LiveProgress) -> String {
    let l = ui.l();
    let status = tr(&l, p.status.key());
    match (&p.status, &p.reconnect_reason) {
        (checkup_model::LiveStatus::Reconnecting, Some(why)) => format!(
            "{status} ({}/{}): {}",
            p.reconnect_attempt,
            p.reconnect_tries,
            tr(&l, why)
        ),
        _ => status,
    }
}
