//! Step 4: the diagnosis: findings ranked by the time they explain, each with its evidence,
//! fixes with copyable code and a button to re-run the checkup and compare once applied, and
//! the team's review notes. A re-run opens with its comparison to the checkup it re-runs.

use checkup_model::{ChartId, UiWord};
use checkup_model::{Finding, FindingNote};
use checkup_text::{evidence, findings, fixes, format_number};
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::i18n::tr;
use crate::ipc::call;
use crate::prose::prose;
use crate::Ui;

pub fn view(ui: Ui) -> impl IntoView {
    let l = ui.l();
    let language = l;
    let Some((d, notes)) = ui.view.with(|v| {
        v.as_ref()
            .and_then(|v| v.diagnosis.clone().map(|d| (d, v.notes.clone())))
    }) else {
        return view! { <p class="empty">{tr(l, UiWord::NoDiagnosis)}</p> }.into_any();
    };
    // A language's own colon (full-width in Chinese).
    let colon = checkup_text::report::text(language).colon;
    let primary_class = format!(
        "verdict {}",
        d.primary.split('/').next().unwrap_or_default()
    );
    // The lead finding and those that matter open; informational ones that explain little
    // are folded under "also noticed" (the report's split).
    let (main, also) = d.findings_then_also_noticed();
    let finding_views = |list: Vec<(usize, &Finding)>| {
        list.into_iter()
            .map(|(_, f)| f.clone())
            .map(|f| finding_view(ui, f, &notes))
            .collect_view()
    };
    let also_count = also.len();
    let findings = finding_views(main);
    let also = (also_count > 0).then(|| {
        view! {
            <details class="also-noticed">
                <summary>{format!("{} ({also_count})", checkup_text::report::text(language).also_noticed)}</summary>
                {finding_views(also)}
            </details>
        }
    });
    // The step time, the GPU's busy share and the time each cause costs (the report's too).
    let glance = checkup_text::headline::rows(&d.headline(), &d, language);
    let glance = (!glance.is_empty()).then(|| {
        let rows = glance
            .into_iter()
            .map(|(label, value)| view! { <tr><td>{prose(&label)}</td><td>{prose(&value)}</td></tr> })
            .collect_view();
        view! { <table id="at-a-glance">{rows}</table> }
    });
    // Where the run's time went, as one bar that adds up to 100 % (the report's first page).
    let ledger = d.ledger.as_ref().map(|ledger| {
        let charts = ui
            .view
            .with(|v| v.as_ref().map(|v| v.charts.clone()).unwrap_or_default());
        view! {
            <div id="ledger">
                <p class="meta">{checkup_text::ledger::basis(ledger, language)}</p>
                {super::charts_named(ui, &charts, &[ChartId::Ledger], None)}
            </div>
        }
    });
    // Each finding's best fix with its gain, most time saved first (the report's list).
    let plan = d.fixes_by_gain();
    let plan = (!plan.is_empty()).then(|| {
        let words = checkup_text::report::text(language);
        let items = plan
            .iter()
            .enumerate()
            .map(|(n, r)| {
                let f = &d.findings[r.finding];
                view! {
                    <li>
                        <strong>{fixes::text(r.fix, language).title}{words.full_stop}</strong>
                        {words.sentence_gap}{findings::fix_gain(&r.gain, language)}{words.sentence_gap}
                        <span class="meta">{words.for_finding}{words.colon}{findings::title(&f.cause, language)}</span>
                        {after_fix(ui, r.fix, Some(format!("rerun-{}", n + 1)))}
                    </li>
                }
            })
            .collect_view();
        view! {
            <div id="fixes-by-gain">
                <h3>{words.fixes_by_gain}</h3>
                <ol>{items}</ol>
                <p class="meta">{words.fixes_by_gain_note}</p>
            </div>
        }
    });
    view! {
        <div class=primary_class id="verdict">
            <strong>{tr(l, UiWord::Primary)}{colon}<code>{d.primary.clone()}</code></strong>
            <p>{prose(&findings::verdict(&d, language))}</p>
            {checkup_text::report::diagnosed_rank(&d, language).map(|r| view! { <p class="meta" id="diagnosed-rank">{r}</p> })}
        </div>
        {super::rerun::comparison(ui)}
        {glance}
        {ledger}
        {plan}
        {findings}
        {also}
        <p class="meta">{tr(l, UiWord::Window)}{colon}{checkup_text::notes::window_method(&d.window.method, language)}</p>
        // What the engine says of how it read the run: where the samples came from, the
        // hosts of a job, what a source could not tell.
        {(!d.notes.is_empty()).then(|| view! {
            <ul class="meta run-notes" id="run-notes">
                {d.notes.iter().map(|n| view! { <li>{prose(&checkup_text::notes::note(n, language))}</li> }).collect_view()}
            </ul>
        })}
    }
    .into_any()
}

/// One finding with its evidence and fixes, each with the gain the engine computed.
fn finding_view(ui: Ui, f: Finding, notes: &[FindingNote]) -> impl IntoView {
    let l = ui.l();
    let language = l;
    let gain = f
        .gains
        .cause
        .map(|g| view! { <p class="gain">{findings::gain(&g, language)}</p> });
    let severity = f.severity.key();
    let evidence = f
        .evidence
        .iter()
        .map(|e| view! { <tr><td>{evidence::label(&e.key, language)}</td><td>{format!("{} {}", format_number(e.value), evidence::unit(e.unit, language))}</td><td>{prose(&evidence::source(&e.source, language))}</td></tr> })
        .collect_view();
    let fixes = f
        .fixes_with_gains()
        .map(|(fix, gain)| {
            let x = fixes::text(fix, language);
            let gain =
                gain.map(|g| view! { <p class="gain">{findings::fix_gain(g, language)}</p> });
            let snippet = x.snippet.clone().map(|s| {
                let copy = s.clone();
                view! {
                    <pre>{s}</pre>
                    <button class="copy" on:click=move |_| copy_text(&copy)>{tr(ui.l(), UiWord::Copy)}</button>
                }
            });
            view! {
                <div class="fix">
                    <strong>{prose(&x.title)}</strong>" — "{prose(&x.detail)}{snippet}<em>{prose(&x.effect)}</em>{gain}
                    {after_fix(ui, fix, None)}
                </div>
            }
        })
        .collect_view();
    let id = f.id();
    let mine: Vec<FindingNote> = notes
        .iter()
        .filter(|n| n.finding_id == id)
        .cloned()
        .collect();
    let body = RwSignal::new(String::new());
    let author = RwSignal::new(String::new());
    let finding_id = id.clone();
    let add = move |_| {
        let Some(id) = ui.current_id() else { return };
        let note = checkup_model::commands::AddNote {
            id,
            finding_id: finding_id.clone(),
            author: author.get_untracked(),
            body: body.get_untracked(),
        };
        spawn_local(async move {
            match call(note).await {
                Ok(_) => ui.open(id, Some(checkup_model::WizardStep::Diagnosis)),
                Err(e) => ui.fail(e),
            }
        });
    };
    view! {
        <div class="finding" data-finding=id.clone()>
            <h3><span class=format!("badge {severity}")>{checkup_text::severity(f.severity, language)}</span>{findings::title(&f.cause, language)}" "<code>{id.clone()}</code></h3>
            <p>{format!("{}% {} · {} {}%", checkup_text::pct(f.share), tr(l, UiWord::OfStepTime), tr(l, UiWord::Confidence), checkup_text::pct(f.confidence))}</p>
            <p>{prose(&findings::summary(&f, language))}</p>
            {gain}
            <table>
                <tr><th>{tr(l, UiWord::Evidence)}</th><th>{tr(l, UiWord::Value)}</th><th>{tr(l, UiWord::Source)}</th></tr>
                {evidence}
            </table>
            {fixes}
            <div class="notes">
                {mine.into_iter().map(|n| view! { <div class="note"><strong>{if n.author.is_empty() { "—".to_string() } else { n.author }}</strong>{checkup_text::report::text(language).colon}{n.body}</div> }).collect_view()}
                <input class="author" placeholder=tr(l, UiWord::Author) prop:value=move || author.get() on:input=move |ev| author.set(event_target_value(&ev)) />
                <input class="note-body" placeholder=tr(l, UiWord::Note) prop:value=move || body.get() on:input=move |ev| body.set(event_target_value(&ev)) />
                <button class="add-note" on:click=add>{tr(l, UiWord::AddNote)}</button>
            </div>
        </div>
    }
}

/// What to do once a fix is applied: re-run and compare; for profiling some steps, the
/// profiling step of this checkup; nothing for a fix that only makes syncs warn.
fn after_fix(ui: Ui, fix: &checkup_model::Fix, id: Option<String>) -> AnyView {
    match fix {
        checkup_model::Fix::Shared(checkup_model::SharedFix::ProfileSteps) => view! {
            <div class="rerun">
                <button class="primary" id=id on:click=move |_| ui.go_by_user(checkup_model::WizardStep::Profiling)>
                    {move || checkup_text::ui::next_step(ui.l(), checkup_model::WizardStep::Profiling)}
                </button>
            </div>
        }
        .into_any(),
        f if f.is_investigation() => ().into_any(),
        _ => super::rerun::button(ui, id).into_any(),
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
