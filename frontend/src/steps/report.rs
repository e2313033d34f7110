//! Step 5: the report: a preview (the report's own HTML, in the chosen language), export
//! (PDF, HTML, Markdown, JSON), make this checkup the project's baseline, and compare it side
//! by side with another one.

use checkup_model::commands as cmd;
use checkup_model::UiWord;
use checkup_model::{CompareView, ExportFormat};
use checkup_text::{comparison, findings};
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::i18n::tr;
use crate::ipc::call;
use crate::Ui;

pub fn view(ui: Ui) -> impl IntoView {
    let Some(id) = ui.current_id() else {
        return ().into_any();
    };
    let exported = RwSignal::new(None::<String>);
    let compared = RwSignal::new(None::<CompareView>);
    let other = RwSignal::new(String::new());
    // Re-fetched when the language changes.
    let preview = LocalResource::new(move || {
        let lang = ui.lang.get();
        async move { call(cmd::ReportPreview { id, lang }).await }
    });
    let buttons = ExportFormat::ALL
        .into_iter()
        .map(|format| {
            let ext = format.extension();
            view! {
                <button id=format!("export-{ext}") on:click=move |_| {
                    let lang = ui.lang.get_untracked();
                    spawn_local(async move {
                        match call(cmd::ExportReport { id, format, lang }).await {
                            Ok(path) => exported.set(Some(path)),
                            Err(e) => ui.fail(e),
                        }
                    });
                }>{ext.to_uppercase()}</button>
            }
        })
        .collect_view();
    let baseline = move |_| {
        spawn_local(async move {
            match call(cmd::SetBaseline { id }).await {
                Ok(()) => ui.refresh(),
                Err(e) => ui.fail(e),
            }
        })
    };
    let compare = move |_| {
        let Ok(before) = other.get_untracked().parse::<i64>() else {
            return;
        };
        spawn_local(async move {
            match call(cmd::CompareCheckups { before, after: id }).await {
                Ok(c) => compared.set(Some(c)),
                Err(e) => ui.fail(e),
            }
        });
    };
    view! {
        <h3>{move || tr(ui.l(), UiWord::Export)}</h3>
        <div class="exports">{buttons}</div>
        <p id="exported">{move || exported.get().map(|p| format!("{} {p}", tr(ui.l(), UiWord::Written))).unwrap_or_default()}</p>
        <h3>{move || tr(ui.l(), UiWord::Preview)}</h3>
        {move || match preview.get() {
            Some(Ok(html)) => view! { <div class="report-preview" id="report-preview" inner_html=html></div> }.into_any(),
            Some(Err(e)) => view! { <div class="empty">{crate::error_view(ui.l(), &e, "preview-error")}</div> }.into_any(),
            None => view! { <p class="meta">"…"</p> }.into_any(),
        }}
        <button id="set-baseline" on:click=baseline>{move || tr(ui.l(), UiWord::SetBaseline)}</button>
        <h3>{move || tr(ui.l(), UiWord::Compare)}</h3>
        <select id="compare-with" on:change=move |ev| other.set(event_target_value(&ev))>
            <option value="">{move || tr(ui.l(), UiWord::ComparePick)}</option>
            {move || ui.checkups.get().into_iter().filter(|c| c.id != id && c.primary.is_some()).map(|c| {
                let label = format!("{}{}", checkup_text::shown(&c.title), if c.is_baseline { format!(" ({})", tr(ui.l(), UiWord::Baseline)) } else { String::new() });
                view! { <option value=c.id.to_string()>{label}</option> }
            }).collect_view()}
        </select>
        <button id="compare" on:click=compare>{move || tr(ui.l(), UiWord::CompareGo)}</button>
        {move || compared.get().map(|c| comparison_view(ui, c, "comparison"))}
    }
    .into_any()
}

/// Two checkups side by side: what moved, each figure before and after, and each one's
/// verdict (`id` names the block).
pub fn comparison_view(ui: Ui, c: CompareView, id: &'static str) -> impl IntoView {
    let l = ui.l();
    // The language's own colon (full-width in Chinese).
    let colon = checkup_text::report::text(l).colon;
    let lead = |s: &checkup_model::CheckupSummary| {
        s.lead
            .as_ref()
            .map(|f| findings::lead(f, l))
            .unwrap_or_default()
    };
    view! {
        <div class="compare" id=id>
            <p><strong>{comparison::summary(&c.comparison, l)}</strong></p>
            <table>
                <tr><th></th><th>{format!("{}{colon}{}", tr(ui.l(), UiWord::Before), checkup_text::shown(&c.before.title))}</th><th>{format!("{}{colon}{}", tr(ui.l(), UiWord::After), checkup_text::shown(&c.after.title))}</th><th>{tr(ui.l(), UiWord::Change)}</th></tr>
                {c.comparison.changes.iter().map(|r| {
                    let [before, after, change] = comparison::row(r, l);
                    view! { <tr class:changed=r.differs()><td>{comparison::figure(r.figure, l)}</td><td>{before}</td><td>{after}</td><td>{change}</td></tr> }
                }).collect_view()}
            </table>
            <div class="side-by-side">
                <div><h4>{checkup_text::shown(&c.before.title)}</h4><code>{c.before.primary.clone().unwrap_or_default()}</code><p>{lead(&c.before)}</p></div>
                <div><h4>{checkup_text::shown(&c.after.title)}</h4><code>{c.after.primary.clone().unwrap_or_default()}</code><p>{lead(&c.after)}</p></div>
            </div>
        </div>
    }
}
