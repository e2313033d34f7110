//! GPU Checkup's desktop UI: hosts (this computer, SSH, a forwarded agent, a recording), the
//! checkup history and the wizard (environment, live sampling, profiling, diagnosis, report),
//! notes and side-by-side compare. Every value comes from the Rust backend through Tauri
//! commands and events, as `checkup-model` types: the UI computes nothing itself.

mod chart;
mod fleet;
mod i18n;
mod ipc;
mod prose;
mod steps;

use checkup_model::commands as cmd;
use checkup_model::UiWord;
use checkup_model::{
    CheckupSummary, CheckupView, HostInfo, Language, LivePhase, LiveProgress, WizardStep,
};
use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::prelude::*;

use i18n::tr;
use ipc::call;

/// The app's shared state, handed to every step (signals are `Copy`).
#[derive(Clone, Copy)]
pub struct Ui {
    pub lang: RwSignal<Language>,
    pub checkups: RwSignal<Vec<CheckupSummary>>,
    pub view: RwSignal<Option<CheckupView>>,
    pub step: RwSignal<WizardStep>,
    /// The last error, worded in the chosen language when shown.
    pub error: RwSignal<Option<checkup_model::UiError>>,
    /// How the history database was opened, when not as it was.
    pub store_notice: RwSignal<Option<checkup_model::StoreNotice>>,
    pub host: RwSignal<Option<HostInfo>>,
    pub busy: RwSignal<Option<String>>,
    pub live: RwSignal<Option<LiveProgress>>,
    /// The live phase that just finished and moved the wizard on by itself (said at the
    /// top of the step it moved to, until the user goes elsewhere).
    pub arrived: RwSignal<Option<LiveProgress>>,
    /// Checkups being opened right now (shown as `aria-busy` on the main area).
    pub opening: RwSignal<u32>,
    /// What the user typed in the live steps (sampling length and job; the training command
    /// and its folder): kept across re-renders of the steps, which re-opening the checkup
    /// after a live phase causes.
    pub sample_seconds: RwSignal<String>,
    pub sample_job: RwSignal<String>,
    pub profile_command: RwSignal<String>,
    pub profile_cwd: RwSignal<String>,
    /// The hosts connected together, their environments compared, and their watch.
    pub fleet: RwSignal<Option<checkup_model::FleetView>>,
    pub fleet_env: RwSignal<Option<checkup_model::FleetEnvironment>>,
    pub fleet_live: RwSignal<Option<checkup_model::FleetProgress>>,
    /// Whether the main area shows the fleet instead of a checkup.
    pub show_fleet: RwSignal<bool>,
}

impl Ui {
    pub fn l(&self) -> Language {
        self.lang.get()
    }

    /// Shows an error, worded in the chosen language.
    pub fn fail(&self, e: checkup_model::UiError) {
        self.busy.set(None);
        self.error.set(Some(e));
    }

    /// Loads the history, then tells the shell once the first full screen has been painted
    /// (two animation frames after the list is set): what the startup benchmark times.
    /// Listens for list changes first: the demo import may finish at any moment.
    fn first_load(self) {
        spawn_local(async move {
            ipc::on_checkups_changed(move || self.refresh()).await;
            if let Ok(notice) = call(cmd::StoreStatus {}).await {
                self.store_notice.set(notice);
            }
            self.load_list().await;
            request_animation_frame(|| {
                request_animation_frame(|| {
                    spawn_local(async {
                        let _ = call(cmd::UiPainted {}).await;
                    })
                })
            });
        })
    }

    /// Reloads the history list.
    pub fn refresh(self) {
        spawn_local(self.load_list())
    }

    async fn load_list(self) {
        match call(cmd::ListCheckups {}).await {
            Ok(list) => self.checkups.set(list),
            Err(e) => self.fail(e),
        }
    }

    /// Opens a checkup; `at` overrides the step it resumes at.
    pub fn open(self, id: i64, at: Option<WizardStep>) {
        self.show_fleet.set(false);
        // Cleared now, not when the answer comes: an error reported meanwhile (a live phase
        // that failed) stays visible.
        self.error.set(None);
        self.opening.update(|n| *n += 1);
        spawn_local(async move {
            let opened: Result<CheckupView, _> = call(cmd::OpenCheckup {
                id,
                lang: self.lang.get_untracked(),
            })
            .await;
            match opened {
                Ok(v) => {
                    let step = at.unwrap_or(v.summary.wizard_step);
                    self.view.set(Some(v));
                    self.go(step);
                }
                Err(e) => self.fail(e),
            }
            self.opening.update(|n| *n = n.saturating_sub(1));
        })
    }

    pub fn current_id(&self) -> Option<i64> {
        self.view
            .with_untracked(|v| v.as_ref().map(|v| v.summary.id))
    }

    /// Moves the wizard where the user asked.
    pub fn go_by_user(self, step: WizardStep) {
        self.arrived.set(None);
        self.go(step);
    }

    /// Moves the wizard and remembers the step, so the checkup resumes there.
    pub fn go(self, step: WizardStep) {
        self.step.set(step);
        if let Some(id) = self.current_id() {
            spawn_local(async move {
                if let Err(e) = call(cmd::SetStep { id, step }).await {
                    self.fail(e);
                }
            });
        }
    }
}

/// An error in plain words with what to try, and what the system or a library said folded
/// under "details" (`id` names the words; `{id}-details` the fold).
pub fn error_view(l: Language, e: &checkup_model::UiError, id: &'static str) -> impl IntoView {
    let w = i18n::error_words(l, e);
    view! {
        <div class="error-box">
            <p class="error" id=id role="alert">{w.words}</p>
            {w.details.map(|d| view! {
                <details class="error-details" id=format!("{id}-details")>
                    <summary>{tr(l, UiWord::Details)}</summary>
                    <pre>{d}</pre>
                </details>
            })}
        </div>
    }
}

/// What a live phase that moved the wizard on found, in the language `l`.
fn arrival_words(l: Language, p: &LiveProgress) -> String {
    if p.phase == LivePhase::Profiling {
        checkup_text::ui::arrived_after_profiling(l, p.steps_done)
    } else {
        checkup_text::ui::arrived_after_sampling(l, p.samples, p.elapsed_s)
    }
}

#[wasm_bindgen(start)]
pub fn start() {
    leptos::mount::mount_to_body(App);
}

#[component]
fn App() -> impl IntoView {
    let ui = Ui {
        lang: RwSignal::new(i18n::system_language()),
        checkups: RwSignal::new(Vec::new()),
        view: RwSignal::new(None),
        step: RwSignal::new(WizardStep::Diagnosis),
        error: RwSignal::new(None),
        store_notice: RwSignal::new(None),
        host: RwSignal::new(None),
        busy: RwSignal::new(None),
        live: RwSignal::new(None),
        arrived: RwSignal::new(None),
        opening: RwSignal::new(0),
        sample_seconds: RwSignal::new("60".into()),
        sample_job: RwSignal::new(String::new()),
        profile_command: RwSignal::new("python train.py".into()),
        profile_cwd: RwSignal::new(String::new()),
        fleet: RwSignal::new(None),
        fleet_env: RwSignal::new(None),
        fleet_live: RwSignal::new(None),
        show_fleet: RwSignal::new(false),
    };
    ui.first_load();
    ipc::on_live_progress(move |p: LiveProgress| {
        let done = p.done;
        let id = p.checkup_id;
        let phase = p.phase.step();
        let error = p.error.clone();
        // A phase that ended with a result moves on to what it found; one that failed
        // stays where its error and its settings are.
        let moved_to = phase.after_live_phase().filter(|_| done && error.is_none());
        // Kept for the note on the step it moved to; progress events mid-phase are not copied.
        let finished = moved_to.map(|_| p.clone());
        ui.live.set(Some(p));
        if done {
            ui.refresh();
            if ui.current_id() == Some(id) {
                ui.arrived.set(finished);
                ui.open(id, Some(moved_to.unwrap_or(phase)));
            }
        }
        if error.is_some() {
            ui.error.set(error);
        }
    });
    ipc::on_fleet_progress(move |p: checkup_model::FleetProgress| {
        if p.done {
            ui.refresh();
        }
        ui.fleet_live.set(Some(p));
    });
    let switch_lang = move |l: Language| {
        ui.lang.set(l);
        if let Some(id) = ui.current_id() {
            ui.open(id, None);
        }
        ui.refresh();
    };

    view! {
        <div class="app">
            <aside>
                <h1>{move || tr(ui.l(), UiWord::AppTitle)}</h1>
                <div class="lang">
                    <button id="lang-en" on:click=move |_| switch_lang(Language::En)>"English"</button>
                    " "
                    <button id="lang-zh" on:click=move |_| switch_lang(Language::Zh)>"中文"</button>
                </div>
                {steps::hosts::panel(ui)}
                <div class="hosts">{fleet::connect_panel(ui)}</div>
                <h2 class="history">{move || tr(ui.l(), UiWord::History)}</h2>
                <ul class="checkups">
                    <For each=move || ui.checkups.get() key=|c| (c.id, c.wizard_step, c.primary.clone(), c.is_baseline) let:c>
                        <li
                            class:selected=move || ui.view.with(|v| v.as_ref().is_some_and(|v| v.summary.id == c.id))
                            on:click=move |_| { ui.arrived.set(None); ui.open(c.id, None) }
                        >
                            <div>{checkup_text::shown(&c.title)}</div>
                            <div class="primary">{c.primary.clone().unwrap_or_default()}</div>
                            <div class="meta">
                                {let host = c.host.clone(); move || if host == checkup_model::RECORDING_HOST { tr(ui.l(), UiWord::RecordingHost) } else { host.clone() }}
                                {move || if c.is_demo { format!(" · {}", tr(ui.l(), UiWord::Demo)) } else { String::new() }}
                                {move || if c.is_baseline { format!(" · {}", tr(ui.l(), UiWord::Baseline)) } else { String::new() }}
                            </div>
                        </li>
                    </For>
                </ul>
            </aside>
            <main aria-busy=move || (ui.opening.get() > 0).to_string()>
                <Show when=move || ui.store_notice.with(|n| n.is_some())>
                    <p class="notice" id="store-notice" role="alert">
                        {move || ui.store_notice.get().map(|n| checkup_text::ui::store_notice_words(ui.l(), &n)).unwrap_or_default()}
                    </p>
                </Show>
                {move || ui.error.get().map(|e| error_view(ui.l(), &e, "error"))}
                <Show when=move || ui.busy.with(|b| b.is_some())>
                    <p class="busy">{move || ui.busy.get().unwrap_or_default()}</p>
                </Show>
                {move || match ui.view.get() {
                    _ if ui.show_fleet.get() => fleet::page(ui).into_any(),
                    None => view! { <p class="empty">{tr(ui.l(), UiWord::Pick)}</p> }.into_any(),
                    Some(v) => view! {
                        <nav class="steps">
                            {WizardStep::ALL.into_iter().map(|s| {
                                view! {
                                    <button id=format!("step-{}", s.key()) class:active=move || ui.step.get() == s on:click=move |_| ui.go_by_user(s)>
                                        {move || checkup_text::ui::step(ui.l(), s)}
                                    </button>
                                }
                            }).collect_view()}
                        </nav>
                        <h2 id="checkup-title">{checkup_text::shown(&v.summary.title)}</h2>
                        {move || ui.arrived.get().map(|p| view! { <p class="notice" id="arrived" role="status">{arrival_words(ui.l(), &p)}</p> })}
                        {move || steps::step_view(ui, ui.step.get())}
                    }.into_any(),
                }}
            </main>
        </div>
    }
}
