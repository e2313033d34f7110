//! The wizard: one module per step, plus the host panel.

pub mod diagnosis;
pub mod environment;
pub mod hosts;
pub mod next;
pub mod profiling;
pub mod report;
pub mod rerun;
pub mod sampling;

use checkup_model::{ChartId, ChartSvg, UiWord, WizardStep};
use leptos::prelude::*;

use crate::i18n::tr;
use crate::Ui;

pub fn step_view(ui: Ui, step: WizardStep) -> AnyView {
    let (id, what, next) = match step {
        WizardStep::Environment => (
            "intro-environment",
            UiWord::IntroEnvironment,
            UiWord::IntroEnvironmentNext,
        ),
        WizardStep::Sampling => (
            "intro-sampling",
            UiWord::IntroSampling,
            UiWord::IntroSamplingNext,
        ),
        WizardStep::Profiling => (
            "intro-profiling",
            UiWord::IntroProfiling,
            UiWord::IntroProfilingNext,
        ),
        WizardStep::Diagnosis => (
            "intro-diagnosis",
            UiWord::IntroDiagnosis,
            UiWord::IntroDiagnosisNext,
        ),
        WizardStep::Report => ("intro-report", UiWord::IntroReport, UiWord::IntroReportNext),
    };
    let body = match step {
        WizardStep::Environment => environment::view(ui).into_any(),
        WizardStep::Sampling => sampling::view(ui).into_any(),
        WizardStep::Profiling => profiling::view(ui).into_any(),
        WizardStep::Diagnosis => diagnosis::view(ui).into_any(),
        WizardStep::Report => report::view(ui).into_any(),
    };
    view! { {rerun::notice(ui)} {intro(ui, id, what, next)} {body} {next::view(ui, step)} }
        .into_any()
}

/// What a step checks and why, then how long it takes and what comes next: the words at the
/// top of every step.
pub fn intro(ui: Ui, id: &'static str, what: UiWord, next: UiWord) -> impl IntoView {
    view! {
        <div class="step-intro" id=id>
            <p>{move || tr(ui.l(), what)}</p>
            <p class="meta">{move || tr(ui.l(), next)}</p>
        </div>
    }
}

/// The named charts, in the order given; a pointer over a time chart reads its values, and
/// the charts of the stored checkup `checkup` zoom where dragged.
pub fn charts_named(
    ui: Ui,
    charts: &[ChartSvg],
    names: &[ChartId],
    checkup: Option<i64>,
) -> impl IntoView {
    names
        .iter()
        .filter_map(|n| charts.iter().find(|c| c.name == *n))
        .map(|c| crate::chart::view(ui, c.clone(), checkup))
        .collect_view()
}

/// The live phase of this checkup, if one reports.
pub fn live_for(ui: Ui, phase: checkup_model::LivePhase) -> Option<checkup_model::LiveProgress> {
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
    let status = checkup_text::ui::live_status(l, p.status).to_owned();
    match (&p.status, &p.reconnect_reason) {
        (checkup_model::LiveStatus::Reconnecting, Some(why)) => format!(
            "{status} ({}/{}): {}",
            p.reconnect_attempt,
            p.reconnect_tries,
            checkup_text::ui::reconnect_reason(l, *why)
        ),
        _ => status,
    }
}
