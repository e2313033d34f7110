//! Step 3: profiling. Launch a training command with the zero-code-change probe (progress by
//! steps), or use the trace of a recording; then the GPU timeline with its gaps, the step-time
//! breakdown and the idle breakdown.

use checkup_model::{ChartId, LivePhase, UiWord};
use leptos::prelude::*;
use leptos::task::spawn_local;

use super::{charts_named, live_for, progress_bar};
use crate::i18n::tr;
use crate::ipc::call;
use crate::Ui;

const CHARTS: [ChartId; 7] = [
    ChartId::GpuTimeline,
    ChartId::RankSteps,
    ChartId::StepBreakdown,
    ChartId::IdleBreakdown,
    ChartId::StepTimes,
    ChartId::StepDistribution,
    ChartId::Scaling,
];

pub fn view(ui: Ui) -> impl IntoView {
    let (command, cwd) = (ui.profile_command, ui.profile_cwd);
    let skip = RwSignal::new("10".to_string());
    let count = RwSignal::new("8".to_string());
    let start = move |_| {
        let Some(id) = ui.current_id() else { return };
        let req = checkup_model::commands::StartProfiling {
            id,
            command: command.get_untracked(),
            cwd: Some(cwd.get_untracked()),
            skip_steps: skip.get_untracked().trim().parse().unwrap_or(10),
            profile_steps: count.get_untracked().trim().parse().unwrap_or(8),
        };
        ui.error.set(None);
        spawn_local(async move {
            if let Err(e) = call(req).await {
                ui.fail(e);
            }
        });
    };
    // Stops a run that hangs or runs longer than needed: the agent stops the training's
    // whole process tree and what it recorded is analysed.
    let stop = move |_| {
        spawn_local(async move {
            let _ = call(checkup_model::commands::StopLive {}).await;
        })
    };
    let running = move || live_for(ui, LivePhase::Profiling).is_some_and(|p| !p.done);
    let connected = move || ui.host.with(|h| h.is_some());
    view! {
        <div class="live-controls">
            <Show when=connected fallback=move || view! { <p class="meta">{tr(ui.l(), UiWord::ConnectToProfile)}</p> }>
                <label>{move || tr(ui.l(), UiWord::Command)}" "<input id="profile-command" class="wide" prop:value=move || command.get() on:input=move |ev| command.set(event_target_value(&ev)) /></label>
                <label>{move || tr(ui.l(), UiWord::Cwd)}" "<input id="profile-cwd" prop:value=move || cwd.get() on:input=move |ev| cwd.set(event_target_value(&ev)) /></label>
                <label>{move || tr(ui.l(), UiWord::SkipSteps)}" "<input class="short" prop:value=move || skip.get() on:input=move |ev| skip.set(event_target_value(&ev)) /></label>
                <label>{move || tr(ui.l(), UiWord::ProfileSteps)}" "<input class="short" prop:value=move || count.get() on:input=move |ev| count.set(event_target_value(&ev)) /></label>
                <button id="start-profiling" on:click=start>{move || tr(ui.l(), UiWord::StartProfiling)}</button>
                <Show when=running>
                    <button id="stop-profiling" on:click=stop>{move || tr(ui.l(), UiWord::StopProfiling)}</button>
                </Show>
            </Show>
        </div>
        {move || live_for(ui, LivePhase::Profiling).map(|p| {
            let target = p.steps_target.unwrap_or(0).max(1);
            let pct = p.steps_done as f64 / target as f64 * 100.0;
            view! {
                <div class="progress" id="profile-progress">
                    {progress_bar(pct)}
                    <span>{format!("{} · {} / {} {} · {:.0} s", super::status_words(ui, &p), p.steps_done, target, tr(ui.l(), UiWord::Steps), p.elapsed_s)}</span>
                    {(!p.output_tail.is_empty() && p.error.is_some()).then(|| view! { <pre>{p.output_tail.join("\n")}</pre> })}
                </div>
            }
        })}
        {move || ui.view.with(|v| match v {
            Some(v) if v.charts.iter().any(|c| CHARTS.contains(&c.name)) => view! { <div>{charts_named(ui, &v.charts, &CHARTS, Some(v.summary.id))}</div> }.into_any(),
            _ => view! { <p class="empty">{tr(ui.l(), UiWord::NoTrace)}</p> }.into_any(),
        })}
    }
}
