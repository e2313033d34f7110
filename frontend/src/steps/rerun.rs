//! Checking that a fix worked: *Re-run and compare* on a fix starts a new checkup of the same
//! training on the connected host, remembered as a re-run of this one (`rerun_of`), at the
//! step that measured this one (profiling when it was profiled, else sampling). The re-run
//! says what it is for at the top of every step, and its diagnosis opens with the comparison.

use checkup_model::commands as cmd;
use checkup_model::UiWord;
use checkup_model::{CompareView, UiError, WizardStep};
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::i18n::tr;
use crate::ipc::call;
use crate::Ui;

/// The button under a fix (`id` names it, when given), with why it cannot be used while no
/// host is connected.
pub fn button(ui: Ui, id: Option<String>) -> impl IntoView {
    let connected = move || ui.host.with(|h| h.is_some());
    view! {
        <div class="rerun">
            <button id=id class="rerun-button" prop:disabled=move || !connected() on:click=move |_| start(ui)>
                {move || tr(ui.l(), UiWord::RerunCompare)}
            </button>
            <span class="meta">{move || tr(ui.l(), if connected() { UiWord::RerunHelp } else { UiWord::RerunNeedsHost })}</span>
        </div>
    }
}

/// A new checkup of the same training as the one shown, on the connected host (its
/// environment checked first), opened at the step that measured the one shown.
fn start(ui: Ui) {
    let Some((of, title, profiled)) = ui.view.with_untracked(|v| {
        v.as_ref().map(|v| {
            let profiled = v.diagnosis.as_ref().is_some_and(|d| !d.ranks.is_empty());
            (v.summary.id, v.summary.title.clone(), profiled)
        })
    }) else {
        return;
    };
    let l = ui.lang.get_untracked();
    ui.error.set(None);
    ui.busy.set(Some(tr(l, UiWord::Checking)));
    // A PID typed for the last run is another process's now; a GPU number still holds.
    if ui
        .sample_job
        .with_untracked(|j| !j.trim_start().starts_with("gpu"))
    {
        ui.sample_job.set(String::new());
    }
    spawn_local(async move {
        let title = checkup_text::ui::rerun_title(l, &title);
        match call(cmd::NewCheckup {
            title,
            rerun_of: Some(of),
        })
        .await
        {
            Ok(id) => {
                ui.busy.set(None);
                ui.refresh();
                let step = if profiled {
                    WizardStep::Profiling
                } else {
                    WizardStep::Sampling
                };
                ui.open(id, Some(step));
            }
            Err(e) => ui.fail(e),
        }
    });
}

/// At the top of a re-run's steps: which checkup it re-runs and what happens when it is done.
pub fn notice(ui: Ui) -> impl IntoView {
    move || {
        let of = ui.view.with(|v| v.as_ref()?.summary.rerun_of)?;
        let title = ui
            .checkups
            .with(|list| list.iter().find(|c| c.id == of).map(|c| c.title.clone()));
        let words = match title {
            Some(t) => checkup_text::ui::rerun_of(ui.l(), &checkup_text::shown(&t)),
            None => tr(ui.l(), UiWord::RerunOfDeleted),
        };
        Some(view! { <p class="notice" id="rerun-of">{words}</p> })
    }
}

/// On a re-run's diagnosis: the comparison with the checkup it re-runs, first.
pub fn comparison(ui: Ui) -> impl IntoView {
    let ids = ui.view.with_untracked(|v| {
        let v = v.as_ref()?;
        v.diagnosis.as_ref()?;
        Some((v.summary.rerun_of?, v.summary.id))
    });
    let compared: RwSignal<Option<Result<CompareView, UiError>>> = RwSignal::new(None);
    if let Some((before, after)) = ids {
        spawn_local(async move {
            compared.set(Some(call(cmd::CompareCheckups { before, after }).await));
        });
    }
    move || {
        compared.get().map(|c| match c {
            Ok(c) => view! {
                <h3>{tr(ui.l(), UiWord::RerunCompared)}</h3>
                {super::report::comparison_view(ui, c, "rerun-comparison")}
            }
            .into_any(),
            Err(e) => crate::error_view(ui.l(), &e, "rerun-comparison-error").into_any(),
        })
    }
}
