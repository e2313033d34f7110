//! The desktop shell: Tauri commands that call the shared crates (engine, report, store)
//! and nothing more. Checkups live in SQLite in the user's data directory; the first start
//! imports the bundled real-GPU recordings as demo checkups.

mod commands;
mod demo;
mod fleet;
mod footprint;
mod hosts;
mod live;
mod reanalyse;

use std::path::PathBuf;

use checkup_model::ErrorKind;
use tauri::Manager;

/// Shared state of the running app.
pub struct AppState {
    pub store: checkup_store::Store,
    /// How the history database was opened when not as it was (shown by the UI).
    pub store_notice: Option<checkup_model::StoreNotice>,
    pub exports: PathBuf,
    /// The app's data folder (recordings downloaded from hosts, the local agent's state).
    pub data: PathBuf,
    /// The connected GPU host, if any.
    pub host: tokio::sync::Mutex<Option<hosts::Host>>,
    /// The live phase (sampling or profiling) in progress, if any.
    pub live: std::sync::Mutex<Option<live::LivePhase>>,
    /// The hosts connected together (a fleet), if any: apart from the one host above.
    pub fleet: tokio::sync::Mutex<Option<fleet::Fleet>>,
    /// The fleet watch in progress, if any.
    pub fleet_watch: std::sync::Mutex<Option<live::LivePhase>>,
}

impl AppState {
    /// A client of the connected host's agent.
    pub async fn client(&self) -> Result<checkup_connect::AgentClient, AppError> {
        let host = self.host.lock().await;
        host.as_ref().map(|h| h.client()).ok_or(AppError::NoHost)
    }
}

#[derive(Debug, thiserror::Error)]
pub enum AppError {
    #[error(transparent)]
    Store(#[from] checkup_store::StoreError),
    #[error(transparent)]
    Engine(#[from] checkup_engine::EngineError),
    #[error(transparent)]
    Report(#[from] checkup_report::ReportError),
    #[error(transparent)]
    Connect(#[from] checkup_connect::ConnectError),
    #[error(transparent)]
    Prometheus(#[from] checkup_prometheus::PrometheusError),
    #[error("no GPU host connected: pick this computer, an SSH host or a forwarded agent first")]
    NoHost,
    #[error("no hosts connected together: give several SSH hosts or a Slurm job first")]
    NoFleet,
    /// An older version stored this checkup's diagnosis and its recording is gone.
    #[error("checkup {id} was stored by an older version and its recording {recording} is no longer there: open the recording again")]
    StaleWithoutRecording { id: i64, recording: String },
    #[error("{0}")]
    Other(String),
}

impl From<&AppError> for checkup_model::UiError {
    fn from(e: &AppError) -> Self {
        let parts = match e {
            AppError::Connect(c) => c.parts(),
            AppError::NoHost => Some((ErrorKind::NoHost, String::new(), String::new())),
            AppError::NoFleet => Some((ErrorKind::NoFleet, String::new(), String::new())),
            AppError::StaleWithoutRecording { recording, .. } => {
                Some((ErrorKind::StaleDiagnosis, recording.clone(), String::new()))
            }
            AppError::Prometheus(p) => Some(prometheus_parts(p)),
            AppError::Engine(checkup_engine::EngineError::NoGpuData { path }) => Some((
                ErrorKind::NoGpuData,
                path.display().to_string(),
                String::new(),
            )),
            _ => None,
        };
        match parts {
            Some((code, subject, detail)) => checkup_model::UiError {
                code: Some(code),
                subject,
                detail,
                message: e.to_string(),
            },
            None => checkup_model::UiError::plain(e.to_string()),
        }
    }
}

/// Every Prometheus error by kind, worded by the UI in its language without the CLI's option
/// names; what the server said goes in the detail.
fn prometheus_parts(e: &checkup_prometheus::PrometheusError) -> (ErrorKind, String, String) {
    use checkup_prometheus::PrometheusError as P;
    match e {
        P::SeveralHosts { hosts } => (ErrorKind::PromSeveralHosts, hosts.join(", "), String::new()),
        P::UnknownHost { host, known } => {
            (ErrorKind::PromUnknownHost, host.clone(), known.join(", "))
        }
        P::Unreachable { url, message } => {
            (ErrorKind::PromUnreachable, url.clone(), message.clone())
        }
        P::NoMetrics { url, .. } => (ErrorKind::PromNoMetrics, url.clone(), e.to_string()),
        P::BadTime { what, message } => {
            (ErrorKind::PromBadTime, (*what).to_owned(), message.clone())
        }
        P::EmptyRange { .. } => (ErrorKind::PromEmptyRange, String::new(), e.to_string()),
        P::BadUrl { url } => (ErrorKind::PromBadUrl, url.clone(), String::new()),
        P::NotPrometheus {
            url,
            status,
            excerpt,
        } => (
            ErrorKind::PromNotPrometheus,
            url.clone(),
            format!("HTTP {status}: {excerpt}"),
        ),
        P::Refused { url, kind, message } => (
            ErrorKind::PromRefused,
            url.clone(),
            format!("{kind}: {message}"),
        ),
        P::UnknownGpu { missing, have, .. } => (
            ErrorKind::PromUnknownGpu,
            missing.to_string(),
            have.iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join(", "),
        ),
    }
}

// Commands return errors to the UI as a UiError: the UI words the known kinds itself.
impl serde::Serialize for AppError {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        checkup_model::UiError::from(self).serialize(s)
    }
}

/// Analyses a recording off the async threads; the heap it freed goes back to the system.
pub(crate) async fn analyse(path: PathBuf) -> Result<checkup_model::Diagnosis, AppError> {
    let d = tauri::async_runtime::spawn_blocking(move || {
        checkup_engine::analyze_paths(&[path], &Default::default())
    })
    .await
    .map_err(|e| AppError::Other(format!("the analysis stopped: {e}")))??;
    give_back_freed_heap();
    Ok(d)
}

/// Hands the heap pages freed since the last call back to the system. glibc keeps them for
/// reuse otherwise, so each large transient (an analysis, a long run's series read back
/// and charted) would leave the app at its high-water mark.
pub(crate) fn give_back_freed_heap() {
    #[cfg(target_os = "linux")]
    // SAFETY: malloc_trim only releases free heap pages; it takes no pointers.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Stores an analysed recording as a checkup that opens at its diagnosis.
pub(crate) async fn store_recording(
    store: &checkup_store::Store,
    title: String,
    path: &std::path::Path,
    diagnosis: &checkup_model::Diagnosis,
    is_demo: bool,
) -> Result<i64, AppError> {
    let checkup = checkup_store::NewCheckup {
        title,
        host: checkup_model::RECORDING_HOST.into(),
        source: Some(path.display().to_string()),
        is_demo,
        rerun_of: None,
    };
    store_diagnosed(store, &checkup, diagnosis).await
}

/// Stores a diagnosis as a new checkup that opens at it.
pub(crate) async fn store_diagnosed(
    store: &checkup_store::Store,
    checkup: &checkup_store::NewCheckup,
    diagnosis: &checkup_model::Diagnosis,
) -> Result<i64, AppError> {
    let id = store.create(checkup).await?;
    store.save_diagnosis(id, diagnosis).await?;
    store
        .set_wizard_step(id, checkup_model::WizardStep::Diagnosis)
        .await?;
    Ok(id)
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
            // A damaged, read-only or locked database still lets the app start; it says how.
            let (store, store_notice) =
                tauri::async_runtime::block_on(checkup_store::Store::open_or_recover(&db))?;
            if let Some(n) = &store_notice {
                eprintln!(
                    "{}",
                    checkup_text::ui::store_notice_words(checkup_model::Language::En, n)
                );
            }
            // The demo import analyses every bundled recording: the window shows meanwhile and
            // the list fills in when it is done.
            let importing = store.clone();
            let handle = app.handle().clone();
            let demos = demo::demo_dir(app.path().resource_dir().ok());
            tauri::async_runtime::spawn(async move {
                let imported = demo::import_demos_once(&importing, demos)
                    .await
                    .unwrap_or_else(|e| {
                        eprintln!("the demo checkups could not be imported: {e}");
                        0
                    });
                // Checkups an older version stored are analysed again from their recordings.
                let renewed = reanalyse::stale_checkups(&importing).await;
                if imported + renewed > 0 {
                    let _ = tauri::Emitter::emit(&handle, "checkups-changed", ());
                }
            });
            app.manage(AppState {
                store,
                store_notice,
                exports: data.join("exports"),
                data: data.clone(),
                host: tokio::sync::Mutex::new(None),
                live: std::sync::Mutex::new(None),
                fleet: tokio::sync::Mutex::new(None),
                fleet_watch: std::sync::Mutex::new(None),
            });
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_prometheus_host_the_server_lacks_reaches_the_ui_as_a_worded_kind_with_the_hosts_it_has() {
        let e = AppError::from(checkup_prometheus::PrometheusError::UnknownHost {
            host: "gpu-box-9".into(),
            known: vec!["gpu-box-7".into(), "gpu-box-8".into()],
        });
        // As a command's error reaches the UI: serialised.
        let ui: checkup_model::UiError =
            serde_json::from_value(serde_json::to_value(&e).unwrap()).unwrap();
        assert_eq!(ui.code, Some(ErrorKind::PromUnknownHost));
        assert_eq!(
            (ui.subject.as_str(), ui.detail.as_str()),
            ("gpu-box-9", "gpu-box-7, gpu-box-8")
        );
        assert_eq!(
            checkup_text::ui::error_words(checkup_model::Language::Zh, &ui).words,
            "Prometheus 在该时间范围内没有 gpu-box-9 的 GPU 指标；有指标的主机：gpu-box-7, gpu-box-8。"
        );
    }
}
