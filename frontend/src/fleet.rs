//! Several hosts at once: connecting a list of SSH hosts or a Slurm job's nodes (in the
//! side bar), and the fleet's page: each host's agent, their environments compared with what
//! stands out, and every GPU's last minute at a glance while they are watched.

use checkup_model::commands as cmd;
use checkup_model::UiWord;
use checkup_model::{FleetSource, GpuGlance, HostLive, Language};
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::i18n::tr;
use crate::ipc::call;
use crate::Ui;

fn connect(ui: Ui, source: FleetSource) {
    ui.busy
        .set(Some(tr(ui.lang.get_untracked(), UiWord::ConnectingFleet)));
    ui.error.set(None);
    spawn_local(async move {
        match call(cmd::ConnectFleet { source }).await {
            Ok(f) => {
                ui.busy.set(None);
                ui.fleet.set(Some(f));
                ui.fleet_env.set(None);
                ui.fleet_live.set(None);
                ui.show_fleet.set(true);
            }
            Err(e) => ui.fail(e),
        }
    });
}

/// The side bar's "Several hosts": a list of hosts, or a Slurm job and its login host.
pub fn connect_panel(ui: Ui) -> impl IntoView {
    let list = RwSignal::new(String::new());
    let job = RwSignal::new(String::new());
    let login = RwSignal::new(String::new());
    view! {
        <details class="fleet-connect" id="fleet-connect">
            <summary>{move || tr(ui.l(), UiWord::SeveralHosts)}</summary>
            <textarea id="fleet-hosts" rows="3" placeholder="node-1\nnode-2\nuser@10.0.0.7:2222" prop:value=move || list.get() on:input=move |ev| list.set(event_target_value(&ev))></textarea>
            <button id="connect-fleet" on:click=move |_| connect(ui, FleetSource::from_list(&list.get_untracked()))>{move || tr(ui.l(), UiWord::ConnectFleet)}</button>
            <div class="meta">{move || tr(ui.l(), UiWord::OrSlurmJob)}</div>
            <div class="row">
                <input id="slurm-job" placeholder=move || tr(ui.l(), UiWord::SlurmJob) prop:value=move || job.get() on:input=move |ev| job.set(event_target_value(&ev)) />
                <input id="slurm-login" placeholder=move || tr(ui.l(), UiWord::SlurmLogin) prop:value=move || login.get() on:input=move |ev| login.set(event_target_value(&ev)) />
            </div>
            <button id="connect-slurm" on:click=move |_| connect(ui, FleetSource::Slurm { login: login.get_untracked(), job: job.get_untracked() })>{move || tr(ui.l(), UiWord::ConnectSlurm)}</button>
        </details>
        {move || ui.fleet.get().map(|f| view! {
            <button id="open-fleet" class="fleet-open" on:click=move |_| { ui.view.set(None); ui.show_fleet.set(true) }>
                {checkup_text::ui::fleet_connected(ui.l(), f.connected(), f.hosts.len())}
            </button>
        })}
    }
}

/// The fleet's page.
pub fn page(ui: Ui) -> impl IntoView {
    let seconds = RwSignal::new("60".to_string());
    let check = move |_| {
        ui.busy
            .set(Some(tr(ui.lang.get_untracked(), UiWord::CheckingFleet)));
        ui.error.set(None);
        spawn_local(async move {
            match call(cmd::CheckFleet {}).await {
                Ok(env) => {
                    ui.busy.set(None);
                    ui.fleet_env.set(Some(env));
                }
                Err(e) => ui.fail(e),
            }
        });
    };
    let watch = move |_| {
        ui.error.set(None);
        let seconds = seconds
            .get_untracked()
            .trim()
            .parse::<f64>()
            .unwrap_or(f64::NAN);
        spawn_local(async move {
            if let Err(e) = call(cmd::WatchFleet { seconds }).await {
                ui.fail(e);
            }
        });
    };
    let stop = move |_| {
        spawn_local(async move {
            let _ = call(cmd::StopFleet {}).await;
        })
    };
    let disconnect = move |_| {
        spawn_local(async move {
            match call(cmd::DisconnectFleet {}).await {
                Ok(()) => {
                    ui.fleet.set(None);
                    ui.fleet_env.set(None);
                    ui.fleet_live.set(None);
                    ui.show_fleet.set(false);
                }
                Err(e) => ui.fail(e),
            }
        })
    };
    let job_path = RwSignal::new(String::new());
    let gather = move |_| {
        ui.busy
            .set(Some(tr(ui.lang.get_untracked(), UiWord::GatheringJob)));
        ui.error.set(None);
        let path = job_path.get_untracked();
        spawn_local(async move {
            match call(cmd::GatherFleetJob { path }).await {
                Ok(id) => {
                    ui.busy.set(None);
                    ui.refresh();
                    ui.open(id, Some(checkup_model::WizardStep::Diagnosis));
                }
                Err(e) => ui.fail(e),
            }
        });
    };
    let watching = move || ui.fleet_live.with(|p| p.as_ref().is_some_and(|p| !p.done));
    view! {
        <div class="fleet" id="fleet">
            <h2>{move || tr(ui.l(), UiWord::SeveralHosts)}</h2>
            <p class="step-intro">{move || tr(ui.l(), UiWord::IntroFleet)}</p>
            {move || ui.fleet.get().and_then(|f| f.slurm_job).map(|(job, state)| view! {
                <p class="meta" id="fleet-job">{checkup_text::ui::fleet_job(ui.l(), &job, &state)}</p>
            })}
            {move || hosts_table(ui)}
            <div class="live-controls">
                <button id="check-fleet" on:click=check>{move || tr(ui.l(), UiWord::CheckFleet)}</button>
                <input id="fleet-seconds" class="short" prop:value=move || seconds.get() on:input=move |ev| seconds.set(event_target_value(&ev)) />
                <span>"s"</span>
                <button id="watch-fleet" disabled=watching on:click=watch>{move || tr(ui.l(), UiWord::WatchFleet)}</button>
                <button id="stop-fleet" disabled=move || !watching() on:click=stop>{move || tr(ui.l(), UiWord::Stop)}</button>
                <button id="disconnect-fleet" on:click=disconnect>{move || tr(ui.l(), UiWord::DisconnectFleet)}</button>
            </div>
            <div class="live-controls">
                <input id="fleet-job-path" class="wide" placeholder="/scratch/run/node{node}" prop:value=move || job_path.get() on:input=move |ev| job_path.set(event_target_value(&ev)) />
                <button id="gather-fleet-job" on:click=gather>{move || tr(ui.l(), UiWord::GatherJob)}</button>
                <span class="meta">{move || tr(ui.l(), UiWord::GatherJobHelp)}</span>
            </div>
            {move || differences(ui)}
            {move || live(ui)}
        </div>
    }
}

/// Each host: its agent and GPUs, or why it could not be reached; once checked, its driver,
/// GPU model and PyTorch side by side, a host that stands out marked.
fn hosts_table(ui: Ui) -> impl IntoView {
    let l = ui.l();
    let Some(fleet) = ui.fleet.get() else {
        return ().into_any();
    };
    let env = ui.fleet_env.get();
    let rows = fleet
        .hosts
        .into_iter()
        .map(|h| {
            let check = env
                .as_ref()
                .and_then(|e| e.hosts.iter().find(|c| c.host == h.spec))
                .and_then(|c| c.report.clone());
            let odd = env
                .as_ref()
                .is_some_and(|e| e.differences.iter().any(|d| d.host() == h.spec));
            let agent = match (&h.info, &h.error) {
                (Some(info), _) => {
                    let gpus = match (&info.health.gpu_problem, info.health.gpu_error.as_ref()) {
                        (Some(p), _) => checkup_text::ui::gpu_problem_words(l, p).words,
                        (None, Some(e)) => e.clone(),
                        (None, None) => format!("{} GPU", info.health.gpus),
                    };
                    view! { <td>{format!("agent {} · {gpus}", info.health.agent)}</td> }.into_any()
                }
                (None, Some(e)) => view! { <td class="error">{crate::i18n::error_words(l, e).words}</td> }.into_any(),
                (None, None) => view! { <td></td> }.into_any(),
            };
            let facts = check.as_ref().map(|r| r.facts.clone()).unwrap_or_default();
            let not_passed = check
                .as_ref()
                .map(|r| r.checks.iter().filter(|c| c.needs_fix()).count().to_string())
                .unwrap_or_default();
            // The recording's folder name: its whole path is in the host's checks.
            let recorded = check.as_ref().and_then(|r| r.gpus_recorded_in.clone()).map(|r| {
                r.rsplit('/').find(|p| !p.is_empty()).unwrap_or(&r).to_owned()
            });
            view! {
                <tr class:stands-out=odd>
                    <td><strong>{h.spec.clone()}</strong></td>
                    {agent}
                    <td>{facts.driver_version.clone().unwrap_or_default()}</td>
                    <td>
                        {facts.gpu_name.clone().map(|n| format!("{} × {n}", facts.gpus.len())).unwrap_or_default()}
                        {recorded.map(|r| view! { <div class="meta">{checkup_text::ui::gpus_recorded(l, &r)}</div> })}
                    </td>
                    <td>{facts.torch_version.clone().unwrap_or_default()}</td>
                    <td>{not_passed}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <table id="fleet-hosts-table">
            <tr>
                <th>{tr(l, UiWord::ColHost)}</th><th>{tr(l, UiWord::ColAgent)}</th><th>{tr(l, UiWord::ColDriver)}</th>
                <th>{tr(l, UiWord::ColGpus)}</th><th>"PyTorch"</th><th>{tr(l, UiWord::ColNotPassed)}</th>
            </tr>
            {rows}
        </table>
    }
    .into_any()
}

/// What stands out between the hosts once they were checked.
fn differences(ui: Ui) -> impl IntoView {
    let l = ui.l();
    let env = ui.fleet_env.get()?;
    Some(if env.differences.is_empty() {
        view! { <p class="notice" id="fleet-same">{tr(l, UiWord::FleetSame)}</p> }.into_any()
    } else {
        view! {
            <h3>{tr(l, UiWord::FleetDifferences)}</h3>
            <ul id="fleet-differences">
                {env.differences.iter().map(|d| view! { <li>{checkup_text::fleet::difference(d, l)}</li> }).collect_view()}
            </ul>
        }
        .into_any()
    })
}

/// Every host's GPUs while watched: the last minute's curves and the readings now.
fn live(ui: Ui) -> impl IntoView {
    let l = ui.l();
    let p = ui.fleet_live.get()?;
    let pct = if p.total_s > 0.0 {
        p.elapsed_s / p.total_s * 100.0
    } else {
        0.0
    };
    Some(view! {
        <div class="progress" id="fleet-progress">
            {crate::steps::progress_bar(pct)}
            <span>{format!("{:.0} s / {:.0} s", p.elapsed_s, p.total_s)}</span>
        </div>
        <p class="meta" id="fleet-legend">{tr(l, UiWord::FleetLegend)}</p>
        <div class="fleet-grid">
            {p.hosts.into_iter().map(|h| host_card(ui, l, h)).collect_view()}
        </div>
    })
}

fn host_card(ui: Ui, l: Language, h: HostLive) -> impl IntoView {
    let checkup = h.checkup_id;
    view! {
        <div class="fleet-host">
            <div class="fleet-host-head">
                <strong>{h.host.clone()}</strong>
                <span class="meta">{format!(" · {} · {} {}", checkup_text::ui::live_status(l, h.status), h.samples, tr(l, UiWord::Samples))}</span>
                {checkup.map(|id| view! {
                    <button class="open-host-checkup" on:click=move |_| { ui.show_fleet.set(false); ui.open(id, None) }>{tr(l, UiWord::OpenItsCheckup)}</button>
                })}
            </div>
            {h.error.map(|e| crate::error_view(l, &e, "fleet-host-error"))}
            {h.gpus.into_iter().map(|g| gpu_row(l, g)).collect_view()}
        </div>
    }
}

fn gpu_row(l: Language, g: GpuGlance) -> impl IntoView {
    let num = |v: Option<f64>, unit: &str, d: usize| {
        v.map(|v| format!("{v:.d$} {unit}"))
            .unwrap_or_else(|| "–".into())
    };
    let readings = format!(
        "GPU-Util {} · SM {} · {} · {} · {}",
        num(g.util_pct, "%", 0),
        num(g.sm_active_pct, "%", 0),
        num(g.power_w, "W", 0),
        num(g.sm_clock_mhz, "MHz", 0),
        num(g.mem_used_gib, "GiB", 1),
    );
    let throttled = (!g.throttled.is_empty())
        .then(|| format!("{}: {}", tr(l, UiWord::Throttled), g.throttled.join(", ")));
    let is_throttled = throttled.is_some();
    view! {
        <div class="fleet-gpu" class:throttled=is_throttled>
            <div class="fleet-gpu-name">{format!("GPU {}", g.gpu)}</div>
            <div class="glance" inner_html=g.chart.map(|c| c.svg).unwrap_or_default()></div>
            <div class="fleet-readings">
                <div>{readings}</div>
                {throttled.map(|t| view! { <div class="error">{t}</div> })}
            </div>
        </div>
    }
}
