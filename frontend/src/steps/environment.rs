//! Step 1: the static environment check, pass / warn / fail with the value, what it means
//! and the fix.

use checkup_model::UiWord;
use checkup_model::{CheckReport, CheckStatus, EnvCheck, WizardStep};
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::i18n::tr;
use crate::ipc::call;
use crate::prose::prose;
use crate::Ui;

pub fn view(ui: Ui) -> impl IntoView {
    let l = ui.l();
    let checks: Vec<EnvCheck> = ui.view.with(|v| {
        v.as_ref()
            .map(|v| {
                let recorded = v.diagnosis.as_ref().map(|d| d.environment.clone());
                match (&v.environment, recorded) {
                    // A live host's checks, and what only the training's recording says
                    // (an out-of-memory error).
                    (Some(live), recorded) => live
                        .checks
                        .iter()
                        .cloned()
                        .chain(
                            recorded
                                .into_iter()
                                .flatten()
                                .filter(|c| c.id.from_training_run()),
                        )
                        .collect(),
                    (None, recorded) => recorded.unwrap_or_default(),
                }
            })
            .unwrap_or_default()
    });
    if checks.is_empty() {
        return view! { <p class="empty">{tr(l, UiWord::NoChecks)}</p> }.into_any();
    }
    let rows = checks
        .into_iter()
        .map(|c| {
            let (class, label) = match c.status {
                CheckStatus::Pass => ("badge pass", UiWord::Pass),
                CheckStatus::Warn => ("badge warn", UiWord::Warn),
                CheckStatus::Fail => ("badge fail", UiWord::Fail),
                CheckStatus::Unknown => ("badge", UiWord::Unknown),
            };
            let words = checkup_text::checks::text(&c, l);
            view! {
                <tr>
                    <td><span class=class>{tr(l, label)}</span></td>
                    <td>{words.title}</td>
                    <td>{prose(&words.value)}</td>
                    <td>{prose(&words.meaning)}</td>
                    <td>{prose(&words.fix.unwrap_or_default())}</td>
                </tr>
            }
        })
        .collect_view();
    let report = ui
        .view
        .with(|v| v.as_ref().and_then(|v| v.environment.clone()));
    view! {
        {report.map(|r| interpreter_picker(ui, r))}
        <table class="checks">
            <tr><th></th><th>{tr(l, UiWord::Check)}</th><th>{tr(l, UiWord::Value)}</th><th>{tr(l, UiWord::Meaning)}</th><th>{tr(l, UiWord::Fix)}</th></tr>
            {rows}
        </table>
    }
    .into_any()
}

/// The interpreter torch was checked in, the environments the agent found, and a way to
/// check again in another: the training may not run with the host's default python3.
fn interpreter_picker(ui: Ui, report: CheckReport) -> impl IntoView {
    let l = ui.l();
    let chosen = RwSignal::new(report.python.clone().unwrap_or_default());
    let options = report
        .interpreters
        .iter()
        .map(|p| view! { <option value=p.clone()></option> })
        .collect_view();
    let recheck = move |_| {
        let Some(id) = ui.current_id() else { return };
        let ask = checkup_model::commands::RecheckEnvironment {
            id,
            python: chosen.get_untracked(),
        };
        spawn_local(async move {
            match call(ask).await {
                Ok(()) => ui.open(id, Some(WizardStep::Environment)),
                Err(e) => ui.fail(e),
            }
        });
    };
    view! {
        <div class="interpreter">
            <label for="interpreter">{tr(l, UiWord::Interpreter)}</label>
            <input id="interpreter" list="interpreters" prop:value=move || chosen.get() on:input=move |ev| chosen.set(event_target_value(&ev)) />
            <datalist id="interpreters">{options}</datalist>
            <button id="recheck" on:click=recheck>{tr(l, UiWord::CheckAgain)}</button>
        </div>
    }
}
