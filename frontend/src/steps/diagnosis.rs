//! Step 4: the diagnosis: findings ranked by the time they explain, each with its evidence,
//! fixes with copyable code, and the team's review notes.

use checkup_model::{format_number, Finding, FindingNote};
use leptos::prelude::*;
use leptos::task::spawn_local;
use serde::Serialize;

use crate::i18n::tr;
use crate::ipc::call;
use crate::Ui;

#[derive(Serialize)]
struct AddNote {
    id: i64,
    finding_id: String,
    author: String,
    body: String,
}

pub fn view(ui: Ui) -> impl IntoView {
    let l = ui.l();
    let Some((d, notes)) = ui.view.with(|v| {
        v.as_ref()
            .and_then(|v| v.diagnosis.clone().map(|d| (d, v.notes.clone())))
    }) else {
        return view! { <p class="empty">{tr(&l, "no_diagnosis")}</p> }.into_any();
    };
    let primary_class = format!(
        "verdict {}",
        d.primary.split('/').next().unwrap_or_default()
    );
    let findings = d
        .findings
        .iter()
        .cloned()
        .map(|f| finding_view(ui, f, &notes))
        .collect_view();
    view! {
        <div class=primary_class id="verdict">
            <strong>{tr(&l, "primary")}": "<code>{d.primary.clone()}</code></strong>
            <p>{d.verdict.clone()}</p>
        </div>
        {findings}
        <p class="meta">{tr(&l, "window")}": "{d.window.method.clone()}</p>
    }
    .into_any()
}

fn finding_view(ui: Ui, f: Finding, notes: &[FindingNote]) -> impl IntoView {
    let l = ui.l();
    let severity = format!("{:?}", f.severity).to_lowercase();
    let evidence = f
        .evidence
        .iter()
        .map(|e| view! { <tr><td>{e.metric.clone()}</td><td>{format!("{} {}", format_number(e.value), e.unit)}</td><td>{e.source.clone()}</td></tr> })
        .collect_view();
    let fixes = f
        .fixes
        .iter()
        .map(|x| {
            let snippet = x.snippet.clone().map(|s| {
                let copy = s.clone();
                view! {
                    <pre>{s}</pre>
                    <button class="copy" on:click=move |_| copy_text(&copy)>{tr(&ui.l(), "copy")}</button>
                }
            });
            view! { <div class="fix"><strong>{x.title.clone()}</strong>" — "{x.detail.clone()}{snippet}<em>{x.expected_effect.clone()}</em></div> }
        })
        .collect_view();
    let mine: Vec<FindingNote> = notes
        .iter()
        .filter(|n| n.finding_id == f.id)
        .cloned()
        .collect();
    let body = RwSignal::new(String::new());
    let author = RwSignal::new(String::new());
    let finding_id = f.id.clone();
    let add = move |_| {
        let Some(id) = ui.current_id() else { return };
        let note = AddNote {
            id,
            finding_id: finding_id.clone(),
            author: author.get_untracked(),
            body: body.get_untracked(),
        };
        spawn_local(async move {
            match call::<i64>("add_note", note).await {
                Ok(_) => ui.open(id, Some("diagnosis")),
                Err(e) => ui.fail(e),
            }
        });
    };
    view! {
        <div class="finding" data-finding=f.id.clone()>
            <h3><span class=format!("badge {severity}")>{tr(&l, &severity)}</span>{f.title.clone()}" "<code>{f.id.clone()}</code></h3>
            <p>{format!("{:.0}% {} · {} {:.0}%", f.share * 100.0, tr(&l, "of_step_time"), tr(&l, "confidence"), f.confidence * 100.0)}</p>
            <p>{f.summary.clone()}</p>
            <table>
                <tr><th>{tr(&l, "evidence")}</th><th>{tr(&l, "value")}</th><th>{tr(&l, "source")}</th></tr>
                {evidence}
            </table>
            {fixes}
            <div class="notes">
                {mine.into_iter().map(|n| view! { <div class="note"><strong>{if n.author.is_empty() { "—".to_string() } else { n.author }}</strong>": "{n.body}</div> }).collect_view()}
                <input class="author" placeholder=tr(&l, "author") prop:value=move || author.get() on:input=move |ev| author.set(event_target_value(&ev)) />
                <input class="note-body" placeholder=tr(&l, "note") prop:value=move || body.get() on:input=move |ev| body.set(event_target_value(&ev)) />
                <button class="add-note" on:click=add>{tr(&l, "add_note")}</button>
            </div>
        </div>
    }
}

/// Copies a fix's code to the clipboard.
fn copy_text(text: &str) {
    let Some(clipboard) = js_sys::Reflect::get(&js_sys::global(), &"navigator".into())
        .and_then(|n| js_sys::Reflect::get(&n, &"clipboard".into()))
        .ok()
        .filter(|c| !c.is_undefined())
    else {
        return;
    };
    if let Ok(write) = js_sys::Reflect::get(&clipboard, &"writeText".into()) {
        if let Ok(f) = write.dyn_into::<js_sys::Function>() {
            let _ = f.call1(&clipboard, &text.into());
        }
    }
}

use wasm_bindgen::JsCast;
