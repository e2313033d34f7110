//! The desktop shell: Tauri commands, each one call into [`checkup_workflow::Workflow`], and
//! the window's events. Checkups live in SQLite in the user's data directory; the first
//! start imports the bundled real-GPU recordings as demo checkups.

mod commands;
mod footprint;

use std::path::PathBuf;
use std::sync::Arc;

use checkup_model::commands::{CheckupsChanged, Event};
use checkup_model::{FleetProgress, LiveProgress};
use checkup_workflow::{Events, Workflow};
use tauri::{AppHandle, Emitter, Manager};

/// The workflow's progress, sent to the window as the contract's events.
struct WindowEvents(AppHandle);

impl WindowEvents {
    fn send<E: Event>(&self, event: &E) {
        let _ = self.0.emit(E::NAME, event);
    }
}

impl Events for WindowEvents {
    fn live(&self, progress: &LiveProgress) {
        self.send(progress);
    }

    fn fleet(&self, progress: &FleetProgress) {
        self.send(progress);
    }

    fn checkups_changed(&self) {
        self.send(&CheckupsChanged);
    }
}

/// Where the bundled recordings are: `GPU_CHECKUP_DEMOS`, else the app's resources
/// (`demos/`, copied from tests/corpus, see tauri.conf.json): in the installed app's resource
/// folder, or beside the binary where the build puts them (Tauri takes a binary outside a
/// folder named `target` for an installed one, so a build with another CARGO_TARGET_DIR
/// finds them only there).
fn demo_dir(app: &tauri::App) -> PathBuf {
    let resources = app.path().resource_dir().ok().map(|r| r.join("demos"));
    let beside_binary = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(|d| d.join("demos")));
    checkup_workflow::recordings::demo_dir(resources.into_iter().chain(beside_binary))
}

pub fn run() {
    footprint::apply();
    tauri::Builder::default()
        // The system's file chooser, called from Rust only (no JS permission granted).
        .plugin(tauri_plugin_dialog::init())
        .setup(|app| {
            let data = app
                .path()
                .app_data_dir()
                .unwrap_or_else(|_| std::env::temp_dir().join("gpu-checkup"));
            let db = std::env::var_os("GPU_CHECKUP_DB")
                .map(PathBuf::from)
                .unwrap_or_else(|| data.join("checkups.db"));
            let events = Arc::new(WindowEvents(app.handle().clone()));
            // A damaged, read-only or locked database still lets the app start; it says how.
            let workflow = tauri::async_runtime::block_on(Workflow::open(data, &db, events))?;
            if let Some(n) = workflow.store_notice() {
                eprintln!(
                    "{}",
                    checkup_text::ui::store_notice_words(checkup_model::Language::En, n)
                );
            }
            // The demo import analyses every bundled recording: the window shows meanwhile and
            // the list fills in when it is done.
            let demos = demo_dir(app);
            let preparing = workflow.clone();
            tauri::async_runtime::spawn(async move { preparing.prepare_history(&demos).await });
            app.manage(workflow);
            Ok(())
        })
        .invoke_handler(tauri::generate_handler![
            commands::ui_painted,
            commands::list_checkups,
            commands::store_status,
            commands::open_checkup,
            commands::set_step,
            commands::zoom_chart,
            commands::export_report,
            commands::report_preview,
            commands::connect_host,
            commands::disconnect_host,
            commands::new_checkup,
            commands::recheck_environment,
            commands::start_sampling,
            commands::start_profiling,
            commands::list_gpu_processes,
            commands::stop_live,
            commands::open_recording,
            commands::open_prometheus,
            commands::pick_recording,
            commands::add_note,
            commands::set_baseline,
            commands::compare_checkups,
            commands::connect_fleet,
            commands::check_fleet,
            commands::watch_fleet,
            commands::gather_fleet_job,
            commands::stop_fleet,
            commands::disconnect_fleet,
        ])
        .run(tauri::generate_context!())
        .unwrap_or_else(|e| {
            eprintln!("GPU Checkup could not start: {e}");
            std::process::exit(1);
        });
}
