//! Step 1: the static environment check, pass / warn / fail with the value, what it means
//! and the fix.

use checkup_model::{CheckStatus, EnvCheck};
use leptos::prelude::*;

use crate::i18n::{lang, tr};
use crate::Ui;

pub fn view(ui: Ui) -> impl IntoView {
    let l = ui.l();
    let checks: Vec<EnvCheck> = ui.view.with(|v| {
        v.as_ref()
            .map(|v| {
                v.environment
                    .as_ref()
                    .map(|e| e.checks.clone())
                    .or_else(|| v.diagnosis.as_ref().map(|d| d.environment.clone()))
                    .unwrap_or_default()
            })
            .unwrap_or_default()
    });
    if checks.is_empty() {
        return view! { <p class="empty">{tr(&l, "no_checks")}</p> }.into_any();
    }
    let rows = checks
        .into_iter()
        .map(|c| {
            let (class, label) = match c.status {
                CheckStatus::Pass => ("badge pass", "pass"),
                CheckStatus::Warn => ("badge warn", "warn"),
                CheckStatus::Fail => ("badge fail", "fail"),
                CheckStatus::Unknown => ("badge", "unknown"),
            };
            let words = checkup_text::checks::text(&c, lang(&l));
            view! {
                <tr>
                    <td><span class=class>{tr(&l, label)}</span></td>
                    <td>{words.title}</td>
                    <td>{words.value}</td>
                    <td>{words.meaning}</td>
                    <td>{words.fix.unwrap_or_default()}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <table class="checks">
            <tr><th></th><th>{tr(&l, "check")}</th><th>{tr(&l, "value")}</th><th>{tr(&l, "meaning")}</th><th>{tr(&l, "fix")}</th></tr>
            {rows}
        </table>
    }
    .into_any()
}
