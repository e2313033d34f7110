//! Where the checkup runs: this computer (the bundled agent), an SSH host, an agent the user
//! forwarded already, a host's GPU metrics in Prometheus, or a recording opened offline.

use checkup_model::commands as cmd;
use checkup_model::UiWord;
use checkup_model::{HostRequest, WizardStep};
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::i18n::tr;
use crate::ipc::call;
use crate::Ui;

fn connect(ui: Ui, request: HostRequest) {
    ui.busy
        .set(Some(tr(ui.lang.get_untracked(), UiWord::Connecting)));
    ui.error.set(None);
    spawn_local(async move {
        match call(cmd::ConnectHost { request }).await {
            Ok(h) => {
                ui.busy.set(None);
                ui.host.set(Some(h));
            }
            Err(e) => {
                ui.host.set(None);
                ui.fail(e);
            }
        }
    });
}

/// Why the host has no GPU readings, in plain words, the driver library's message folded
/// under "details" (an agent from before typed problems sends only its English line).
fn gpu_problem(ui: Ui, health: &checkup_model::AgentHealth) -> Option<impl IntoView> {
    let l = ui.l();
    let words = match (&health.gpu_problem, &health.gpu_error) {
        (Some(p), _) => checkup_text::ui::gpu_problem_words(l, p),
        (None, Some(line)) => checkup_text::ui::ErrorWords {
            words: tr(l, UiWord::NoGpu),
            details: Some(line.clone()),
        },
        (None, None) => return None,
    };
    Some(view! {
        <div class="meta" id="gpu-problem">{words.words}</div>
        {words.details.map(|d| view! {
            <details class="error-details" id="gpu-problem-details"><summary>{tr(l, UiWord::Details)}</summary><pre>{d}</pre></details>
        })}
    })
}

/// What the Prometheus form holds: the server, the host and GPUs, the range as typed.
#[derive(Clone, Copy, Default)]
struct Prometheus {
    url: RwSignal<String>,
    host: RwSignal<String>,
    gpus: RwSignal<String>,
    from: RwSignal<String>,
    to: RwSignal<String>,
    last: RwSignal<String>,
}

pub fn panel(ui: Ui) -> impl IntoView {
    let ssh = RwSignal::new(String::new());
    let addr = RwSignal::new(String::new());
    let token = RwSignal::new(String::new());
    let path = RwSignal::new(String::new());
    let new_checkup = move |_| {
        ui.busy
            .set(Some(tr(ui.lang.get_untracked(), UiWord::Checking)));
        spawn_local(async move {
            match call(cmd::NewCheckup {
                title: String::new(),
                rerun_of: None,
            })
            .await
            {
                Ok(id) => {
                    ui.busy.set(None);
                    ui.refresh();
                    ui.open(id, Some(WizardStep::Environment));
                }
                Err(e) => ui.fail(e),
            }
        });
    };
    let open_recording = move || {
        ui.busy
            .set(Some(tr(ui.lang.get_untracked(), UiWord::Analysing)));
        let p = path.get_untracked();
        spawn_local(async move {
            match call(cmd::OpenRecording { path: p }).await {
                Ok(id) => {
                    ui.busy.set(None);
                    ui.refresh();
                    ui.open(id, Some(WizardStep::Diagnosis));
                }
                Err(e) => ui.fail(e),
            }
        });
    };
    let prometheus = Prometheus::default();
    let open_prometheus = move |_| {
        ui.busy
            .set(Some(tr(ui.lang.get_untracked(), UiWord::ReadingPrometheus)));
        ui.error.set(None);
        let p = prometheus;
        // GPU indices as typed ("0, 1"); anything else is left for the backend to refuse.
        let gpus = p
            .gpus
            .get_untracked()
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter_map(|g| g.parse().ok())
            .collect();
        let args = cmd::OpenPrometheus {
            url: p.url.get_untracked(),
            host: p.host.get_untracked(),
            gpus,
            from: p.from.get_untracked(),
            to: p.to.get_untracked(),
            last: p.last.get_untracked(),
        };
        spawn_local(async move {
            match call(args).await {
                Ok(id) => {
                    ui.busy.set(None);
                    ui.refresh();
                    ui.open(id, Some(WizardStep::Diagnosis));
                }
                Err(e) => ui.fail(e),
            }
        });
    };
    // The system's file chooser fills the path and opens what was picked.
    let pick = move |folder: bool| {
        spawn_local(async move {
            match call(cmd::PickRecording { folder }).await {
                Ok(Some(p)) => {
                    path.set(p);
                    open_recording();
                }
                Ok(None) => {}
                Err(e) => ui.fail(e),
            }
        })
    };
    view! {
        <div class="hosts">
            <h2>{move || tr(ui.l(), UiWord::Host)}</h2>
            {move || match ui.host.get() {
                Some(h) => view! {
                    <div class="host-status" id="host-status">
                        <strong>{h.label.clone()}</strong>
                        <div class="meta">
                            {format!("agent {}", h.health.agent)}
                            {(h.health.gpu_error.is_none()).then(|| format!(" · {} GPU", h.health.gpus))}
                        </div>
                        {gpu_problem(ui, &h.health)}
                        {h.health.replaying.clone().map(|r| view! { <div class="meta" id="host-replaying">{format!("{}: {r}", tr(ui.l(), UiWord::Replaying))}</div> })}
                        {h.log.iter().map(|l| view! { <div class="meta">{l.clone()}</div> }).collect_view()}
                        <button id="new-checkup" on:click=new_checkup>{tr(ui.l(), UiWord::NewCheckup)}</button>
                    </div>
                }.into_any(),
                None => view! { <p class="meta">{tr(ui.l(), UiWord::NoHost)}</p> }.into_any(),
            }}
            <button id="connect-local" on:click=move |_| connect(ui, HostRequest::Local)>{move || tr(ui.l(), UiWord::ThisComputer)}</button>
            <div class="row">
                <input id="ssh-spec" placeholder="gpu-box  /  user@host:22" prop:value=move || ssh.get() on:input=move |ev| ssh.set(event_target_value(&ev)) />
                <button id="connect-ssh" on:click=move |_| connect(ui, HostRequest::Ssh { spec: ssh.get_untracked() })>{move || tr(ui.l(), UiWord::Ssh)}</button>
            </div>
            <details class="forwarded">
                <summary>{move || tr(ui.l(), UiWord::Forwarded)}</summary>
                <input id="fwd-addr" placeholder="localhost:7780" prop:value=move || addr.get() on:input=move |ev| addr.set(event_target_value(&ev)) />
                <input id="fwd-token" type="password" placeholder=move || tr(ui.l(), UiWord::Token) prop:value=move || token.get() on:input=move |ev| token.set(event_target_value(&ev)) />
                <button id="connect-forwarded" on:click=move |_| connect(ui, HostRequest::Forwarded { addr: addr.get_untracked(), token: token.get_untracked() })>{move || tr(ui.l(), UiWord::Connect)}</button>
            </details>
            <details class="prometheus" id="prometheus">
                <summary>{move || tr(ui.l(), UiWord::Prometheus)}</summary>
                <input id="prom-url" placeholder="http://prometheus:9090" prop:value=move || prometheus.url.get() on:input=move |ev| prometheus.url.set(event_target_value(&ev)) />
                <input id="prom-host" placeholder=move || tr(ui.l(), UiWord::PromHost) prop:value=move || prometheus.host.get() on:input=move |ev| prometheus.host.set(event_target_value(&ev)) />
                <input id="prom-gpus" placeholder=move || tr(ui.l(), UiWord::PromGpus) prop:value=move || prometheus.gpus.get() on:input=move |ev| prometheus.gpus.set(event_target_value(&ev)) />
                <div class="row">
                    <input id="prom-from" placeholder=move || tr(ui.l(), UiWord::PromFrom) prop:value=move || prometheus.from.get() on:input=move |ev| prometheus.from.set(event_target_value(&ev)) />
                    <input id="prom-to" placeholder=move || tr(ui.l(), UiWord::PromTo) prop:value=move || prometheus.to.get() on:input=move |ev| prometheus.to.set(event_target_value(&ev)) />
                </div>
                <input id="prom-last" placeholder=move || tr(ui.l(), UiWord::PromLast) prop:value=move || prometheus.last.get() on:input=move |ev| prometheus.last.set(event_target_value(&ev)) />
                <button id="open-prometheus" on:click=open_prometheus>{move || tr(ui.l(), UiWord::ReadPrometheus)}</button>
            </details>
            <details class="recording">
                <summary>{move || tr(ui.l(), UiWord::OpenRecording)}</summary>
                <input id="recording-path" placeholder="/path/to/run_folder  or  trace.json.gz" prop:value=move || path.get() on:input=move |ev| path.set(event_target_value(&ev)) />
                <button id="open-recording" on:click=move |_| open_recording()>{move || tr(ui.l(), UiWord::Open)}</button>
                <div class="row">
                    <button id="pick-folder" on:click=move |_| pick(true)>{move || tr(ui.l(), UiWord::PickFolder)}</button>
                    <button id="pick-file" on:click=move |_| pick(false)>{move || tr(ui.l(), UiWord::PickFile)}</button>
                </div>
            </details>
        </div>
    }
}
