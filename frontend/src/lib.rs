//! GPU Checkup's desktop UI: the checkup history and the wizard (environment, live sampling,
//! profiling, diagnosis, report) over one checkup. Every value comes from the Rust backend
//! through Tauri commands, as `checkup-model` types: the UI computes nothing itself.

mod i18n;

use checkup_model::{
    format_number, ChartSvg, CheckStatus, CheckupSummary, CheckupView, Diagnosis, Finding,
    WIZARD_STEPS,
};
use leptos::prelude::*;
use leptos::task::spawn_local;
use serde::de::DeserializeOwned;
use serde::Serialize;
use wasm_bindgen::prelude::*;

use i18n::tr;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = ["window", "__TAURI__", "core"], catch)]
    async fn invoke(cmd: &str, args: JsValue) -> Result<JsValue, JsValue>;
}

/// Calls a Tauri command; errors come back as the backend's message.
async fn call<T: DeserializeOwned>(cmd: &str, args: impl Serialize) -> Result<T, String> {
    let args = args
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(|e| e.to_string())?;
    let value = invoke(cmd, args)
        .await
        .map_err(|e| e.as_string().unwrap_or_else(|| format!("{e:?}")))?;
    serde_wasm_bindgen::from_value(value).map_err(|e| e.to_string())
}

#[derive(Serialize)]
struct NoArgs {}

#[derive(Serialize)]
struct Open {
    id: i64,
    lang: String,
}

#[derive(Serialize)]
struct Step {
    id: i64,
    step: String,
}

#[derive(Serialize)]
struct Export {
    id: i64,
    format: String,
    lang: String,
}

#[wasm_bindgen(start)]
pub fn start() {
    leptos::mount::mount_to_body(App);
}

#[component]
fn App() -> impl IntoView {
    let lang = RwSignal::new(i18n::system_language());
    let checkups = RwSignal::new(Vec::<CheckupSummary>::new());
    let view_data = RwSignal::new(None::<CheckupView>);
    let step = RwSignal::new("diagnosis".to_string());
    let error = RwSignal::new(None::<String>);
    let exported = RwSignal::new(None::<String>);

    let refresh = move || {
        spawn_local(async move {
            match call::<Vec<CheckupSummary>>("list_checkups", NoArgs {}).await {
                Ok(list) => checkups.set(list),
                Err(e) => error.set(Some(e)),
            }
        })
    };
    refresh();

    let open = move |id: i64| {
        spawn_local(async move {
            match call::<CheckupView>(
                "open_checkup",
                Open {
                    id,
                    lang: lang.get_untracked(),
                },
            )
            .await
            {
                Ok(v) => {
                    step.set(v.summary.wizard_step.clone());
                    exported.set(None);
                    view_data.set(Some(v));
                }
                Err(e) => error.set(Some(e)),
            }
        })
    };
    let go = move |s: &'static str| {
        step.set(s.to_string());
        if let Some(id) = view_data.with_untracked(|v| v.as_ref().map(|v| v.summary.id)) {
            spawn_local(async move {
                if let Err(e) = call::<()>(
                    "set_step",
                    Step {
                        id,
                        step: s.to_string(),
                    },
                )
                .await
                {
                    error.set(Some(e));
                }
            });
        }
    };
    let switch_lang = move |l: &'static str| {
        lang.set(l.to_string());
        if let Some(id) = view_data.with_untracked(|v| v.as_ref().map(|v| v.summary.id)) {
            open(id);
        }
    };

    view! {
        <div class="app">
            <aside>
                <h1>{move || tr(&lang.get(), "app_title")}</h1>
                <div class="lang">
                    <button on:click=move |_| switch_lang("en")>"English"</button>
                    " "
                    <button on:click=move |_| switch_lang("zh")>"中文"</button>
                </div>
                <ul>
                    <For each=move || checkups.get() key=|c| (c.id, c.wizard_step.clone()) let:c>
                        <li
                            class:selected=move || view_data.with(|v| v.as_ref().is_some_and(|v| v.summary.id == c.id))
                            on:click=move |_| open(c.id)
                        >
                            <div>{c.title.clone()}</div>
                            <div class="primary">{c.primary.clone().unwrap_or_default()}</div>
                            <div class="meta">
                                {c.host.clone()}
                                {if c.is_demo { " · demo" } else { "" }}
                                {if c.is_baseline { " · baseline" } else { "" }}
                            </div>
                        </li>
                    </For>
                </ul>
            </aside>
            <main>
                <Show when=move || error.with(|e| e.is_some())>
                    <p class="error">{move || error.get().unwrap_or_default()}</p>
                </Show>
                {move || match view_data.get() {
                    None => view! { <p class="empty">{tr(&lang.get(), "pick")}</p> }.into_any(),
                    Some(v) => {
                        let l = lang.get();
                        view! {
                            <nav class="steps">
                                {WIZARD_STEPS.iter().map(|s| {
                                    let s: &'static str = s;
                                    view! {
                                        <button class:active=move || step.get() == s on:click=move |_| go(s)>
                                            {tr(&lang.get(), s)}
                                        </button>
                                    }
                                }).collect_view()}
                            </nav>
                            <h2>{v.summary.title.clone()}</h2>
                            {step_view(&step.get(), &v, &l, exported)}
                        }.into_any()
                    }
                }}
            </main>
        </div>
    }
}

fn charts_named(charts: &[ChartSvg], names: &[&str]) -> impl IntoView {
    charts
        .iter()
        .filter(|c| names.contains(&c.name.as_str()))
        .map(|c| view! { <figure class="chart"><div inner_html=c.svg.clone()></div><figcaption>{c.title.clone()}</figcaption></figure> })
        .collect_view()
}

fn step_view(
    step: &str,
    v: &CheckupView,
    lang: &str,
    exported: RwSignal<Option<String>>,
) -> AnyView {
    let Some(d) = v.diagnosis.clone() else {
        return view! { <p class="empty">{tr(lang, "no_diagnosis")}</p> }.into_any();
    };
    match step {
        "environment" => environment_view(&d, lang).into_any(),
        "sampling" => view! { <div>{charts_named(&v.charts, &["utilisation", "power", "sm_clock", "host_cpu"])}</div> }.into_any(),
        "profiling" => view! {
            <div>{charts_named(&v.charts, &["gpu_timeline", "step_breakdown", "idle_breakdown", "step_times", "step_distribution", "scaling"])}</div>
        }
        .into_any(),
        "report" => report_view(v.summary.id, lang, exported).into_any(),
        _ => diagnosis_view(&d, lang).into_any(),
    }
}

fn environment_view(d: &Diagnosis, lang: &str) -> impl IntoView {
    let rows = d
        .environment
        .iter()
        .map(|c| {
            let (class, label) = match c.status {
                CheckStatus::Pass => ("badge pass", "pass"),
                CheckStatus::Warn => ("badge warn", "warn"),
                CheckStatus::Fail => ("badge fail", "fail"),
                CheckStatus::Unknown => ("badge", "?"),
            };
            view! {
                <tr>
                    <td><span class=class>{label}</span></td>
                    <td>{c.title.clone()}</td>
                    <td>{c.value.clone()}</td>
                    <td>{c.meaning.clone()}</td>
                    <td>{c.fix.clone().unwrap_or_default()}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <table>
            <tr><th></th><th>{tr(lang, "check")}</th><th>{tr(lang, "value")}</th><th>{tr(lang, "meaning")}</th><th>{tr(lang, "fix")}</th></tr>
            {rows}
        </table>
    }
}

fn diagnosis_view(d: &Diagnosis, lang: &str) -> impl IntoView {
    let primary_class = format!(
        "verdict {}",
        d.primary.split('/').next().unwrap_or_default()
    );
    let findings = d
        .findings
        .iter()
        .cloned()
        .map(|f| finding_view(f, lang))
        .collect_view();
    view! {
        <div class=primary_class>
            <strong>{tr(lang, "primary")}": "<code>{d.primary.clone()}</code></strong>
            <p>{d.verdict.clone()}</p>
        </div>
        {findings}
        <p class="meta">{tr(lang, "window")}": "{d.window.method.clone()}</p>
    }
}

fn finding_view(f: Finding, lang: &str) -> impl IntoView {
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
            let snippet = x.snippet.clone().map(|s| view! { <pre>{s}</pre> });
            view! { <div><strong>{x.title.clone()}</strong>" — "{x.detail.clone()}{snippet}<em>{x.expected_effect.clone()}</em></div> }
        })
        .collect_view();
    view! {
        <div class="finding">
            <h3><span class=format!("badge {severity}")>{severity.clone()}</span>{f.title.clone()}" "<code>{f.id.clone()}</code></h3>
            <p>{format!("{:.0}% · {} {:.0}%", f.share * 100.0, tr(lang, "confidence"), f.confidence * 100.0)}</p>
            <p>{f.summary.clone()}</p>
            <table>{evidence}</table>
            {fixes}
        </div>
    }
}

fn report_view(id: i64, lang: &str, exported: RwSignal<Option<String>>) -> impl IntoView {
    let lang = lang.to_string();
    let buttons = ["pdf", "html", "md", "json"]
        .into_iter()
        .map(|format| {
            let lang = lang.clone();
            view! {
                <button on:click=move |_| {
                    let lang = lang.clone();
                    spawn_local(async move {
                        let result = call::<String>("export_report", Export { id, format: format.to_string(), lang }).await;
                        exported.set(Some(result.unwrap_or_else(|e| e)));
                    });
                }>{format.to_uppercase()}</button>
            }
        })
        .collect_view();
    view! {
        <div class="exports">{buttons}</div>
        <p>{move || exported.get().unwrap_or_default()}</p>
    }
}
