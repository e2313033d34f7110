//! Step 2: live sampling of the connected host: choose the job (by PID, picked from the
//! processes the agent sees on the GPUs, or by GPU, or none), then live curves with the
//! steady window and stalls marked, progress and time left. A recording shows the curves it
//! was sampled with.

use checkup_model::commands as cmd;
use checkup_model::{ChartId, UiWord};
use checkup_model::{GpuProcessList, LivePhase, UiError};
use leptos::prelude::*;
use leptos::task::spawn_local;

use super::{charts_named, live_for, progress_bar};
use crate::i18n::tr;
use crate::ipc::call;
use crate::Ui;

const CURVES: [ChartId; 7] = [
    ChartId::Utilisation,
    ChartId::Power,
    ChartId::SmClock,
    ChartId::GpuMemory,
    ChartId::Temperature,
    ChartId::Links,
    ChartId::HostCpu,
];

pub fn view(ui: Ui) -> impl IntoView {
    let (seconds, job) = (ui.sample_seconds, ui.sample_job);
    let start = move |_| {
        let Some(id) = ui.current_id() else { return };
        let secs: f64 = seconds.get_untracked().trim().parse().unwrap_or(0.0);
        // "pid 1234", "gpu 0" or a bare number (a PID).
        let j = job.get_untracked();
        let words: Vec<&str> = j.split_whitespace().collect();
        let (pid, gpu) = match words.as_slice() {
            ["gpu", n] => (None, n.parse().ok()),
            ["pid", n] | [n] => (n.parse().ok(), None),
            _ => (None, None),
        };
        ui.error.set(None);
        spawn_local(async move {
            if let Err(e) = call(cmd::StartSampling {
                id,
                seconds: secs,
                pid,
                gpu,
                lang: ui.lang.get_untracked(),
            })
            .await
            {
                ui.fail(e);
            }
        });
    };
    let stop = move |_| {
        spawn_local(async move {
            let _ = call(cmd::StopLive {}).await;
        })
    };
    let connected = move || ui.host.with(|h| h.is_some());
    // Whether this checkup's sampling runs: changes twice a phase, not with every frame.
    let running = Memo::new(move |_| {
        let id = ui.current_id();
        ui.live.with(|p| {
            p.as_ref().is_some_and(|p| {
                Some(p.checkup_id) == id && p.phase == LivePhase::Sampling && !p.done
            })
        })
    });
    // The GPUs' processes, asked for when the step opens on a connected host and on demand.
    let processes: RwSignal<Option<Result<GpuProcessList, UiError>>> = RwSignal::new(None);
    let find = move || {
        spawn_local(async move {
            processes.set(Some(call(cmd::ListGpuProcesses {}).await));
        })
    };
    // Read untracked: this runs while the step is made, and a tracked read would make the
    // whole step again with every live frame.
    if ui.host.with_untracked(|h| h.is_some()) && !running.get_untracked() {
        find();
    }
    view! {
        <div class="live-controls">
            <Show when=connected fallback=move || view! { <p class="meta">{tr(ui.l(), UiWord::ConnectToSample)}</p> }>
                <label>{move || tr(ui.l(), UiWord::Seconds)}" "<input id="sample-seconds" class="short" prop:value=move || seconds.get() on:input=move |ev| seconds.set(event_target_value(&ev)) /></label>
                <label>{move || tr(ui.l(), UiWord::Job)}" "<input id="sample-job" placeholder="pid 1234 / gpu 0" prop:value=move || job.get() on:input=move |ev| job.set(event_target_value(&ev)) /></label>
                <button id="start-sampling" on:click=start>{move || tr(ui.l(), UiWord::StartSampling)}</button>
                <button id="stop-live" on:click=stop>{move || tr(ui.l(), UiWord::Stop)}</button>
            </Show>
        </div>
        <Show when=connected>
            <div class="job-help">
                <p class="meta" id="job-help">{move || tr(ui.l(), UiWord::JobHelp)}</p>
                <button id="find-processes" on:click=move |_| find()>{move || tr(ui.l(), UiWord::FindProcesses)}</button>
                {move || processes.get().map(|found| picker(ui, found))}
            </div>
        </Show>
        {move || if running.get() {
            view! {
                <div class="progress" id="live-progress" data-frame=move || ui.live.with(|p| p.as_ref().map_or(0, |p| p.frame))>
                    {move || live_for(ui, LivePhase::Sampling).map(|p| {
                        let total = p.total_s.unwrap_or(0.0);
                        let pct = if total > 0.0 { p.elapsed_s / total * 100.0 } else { 0.0 };
                        view! {
                            {progress_bar(pct)}
                            <span>{format!("{} · {:.0} s / {:.0} s · {} {:.0} s · {} {}", super::status_words(ui, &p), p.elapsed_s, total, tr(ui.l(), UiWord::TimeLeft), (total - p.elapsed_s).max(0.0), p.samples, tr(ui.l(), UiWord::Samples))}</span>
                            {(p.reconnects > 0).then(|| view! { <span class="meta">{format!(" · {} {}", p.reconnects, tr(ui.l(), UiWord::Reconnects))}</span> })}
                        }
                    })}
                </div>
                <div>{live_charts(ui)}</div>
            }.into_any()
        } else {
            ui.view.with(|v| match v {
                Some(v) if v.charts.iter().any(|c| CURVES.contains(&c.name)) => view! { <div>{charts_named(ui, &v.charts, &CURVES, Some(v.summary.id))}</div> }.into_any(),
                _ => view! { <p class="empty">{tr(ui.l(), UiWord::NoSamples)}</p> }.into_any(),
            })
        }}
    }
}

/// The live curves, each made once when its first frame arrives and redrawn in place with
/// every later one.
fn live_charts(ui: Ui) -> impl IntoView {
    CURVES
        .into_iter()
        .map(|name| {
            let drawn = Memo::new(move |_| {
                ui.live.with(|p| {
                    p.as_ref()
                        .is_some_and(|p| p.charts.iter().any(|c| c.name == name))
                })
            });
            move || drawn.get().then(|| crate::chart::live(ui, name))
        })
        .collect_view()
}

/// The processes on the host's GPUs as a table to pick the training from: "Use" puts its PID
/// in the job field. An empty list or a host without GPU readings is said in words.
fn picker(ui: Ui, found: Result<GpuProcessList, UiError>) -> AnyView {
    let l = ui.l();
    let list = match found {
        Ok(list) => list,
        Err(e) => return crate::error_view(l, &e, "processes-error").into_any(),
    };
    if list.processes.is_empty() {
        let words = match &list.gpu_problem {
            Some(p) => checkup_text::ui::gpu_problem_words(l, p).words,
            None => tr(l, UiWord::NoGpuProcesses),
        };
        let recorded = list
            .recorded_in
            .map(|r| checkup_text::ui::processes_recorded(l, &r));
        return view! { <p class="meta" id="gpu-processes-empty">{words}" "{recorded}</p> }
            .into_any();
    }
    let rows = list
        .processes
        .into_iter()
        .map(|p| {
            let pid = p.pid;
            let memory = p.used_mib.map(|m| format!("{:.1} GiB", m as f64 / 1024.0)).unwrap_or_default();
            view! {
                <tr>
                    <td>{pid}</td>
                    <td>{p.gpu}</td>
                    <td>{memory}</td>
                    <td><code>{p.command.unwrap_or_default()}</code></td>
                    <td><button id=format!("use-pid-{pid}") on:click=move |_| ui.sample_job.set(format!("pid {pid}"))>{tr(ui.l(), UiWord::UseThis)}</button></td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <table id="gpu-processes">
            <tr><th>"PID"</th><th>"GPU"</th><th>{tr(l, UiWord::GpuMemory)}</th><th>{tr(l, UiWord::Command)}</th><th></th></tr>
            {rows}
        </table>
        {list.recorded_in.map(|r| view! { <p class="meta" id="gpu-processes-recorded">{checkup_text::ui::processes_recorded(l, &r)}</p> })}
    }
    .into_any()
}
