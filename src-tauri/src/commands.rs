//! The commands the UI calls: each is one call into the workflow, which does the work
//! without Tauri. Only what needs the window itself (its file chooser, its first paint) is
//! done here.

use checkup_model::commands::{self as cmd, Command};
use checkup_workflow::{Workflow, WorkflowError};
use tauri::{AppHandle, State};

/// What command `C` answers the UI: the contract's answer, or an error the UI words.
type Reply<C> = Result<<C as Command>::Answer, WorkflowError>;

/// The UI's first full screen (the history list) is painted. With
/// `GPU_CHECKUP_STARTUP_PROBE` set, the shell says so on stdout: the startup benchmark
/// (tests/e2e/benches/app.rs) times the process from its start to this line.
#[tauri::command(rename_all = "snake_case")]
pub fn ui_painted(args: cmd::UiPainted) -> Reply<cmd::UiPainted> {
    let cmd::UiPainted {} = args;
    if std::env::var_os("GPU_CHECKUP_STARTUP_PROBE").is_some() {
        use std::io::Write;
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "first paint");
        let _ = out.flush();
    }
    Ok(())
}

/// The system's file chooser for a recording: a folder (a run folder or a
/// tensorboard_trace_handler folder) when `folder`, else a trace or a log file. `None` when
/// the user cancels.
#[tauri::command(rename_all = "snake_case")]
pub async fn pick_recording(app: AppHandle, args: cmd::PickRecording) -> Reply<cmd::PickRecording> {
    let cmd::PickRecording { folder } = args;
    use tauri_plugin_dialog::DialogExt;
    // The blocking pickers wait for the main thread, which shows the dialog.
    let picked = tauri::async_runtime::spawn_blocking(move || {
        let chooser = app.dialog().file();
        if folder {
            chooser.blocking_pick_folder()
        } else {
            chooser
                .add_filter(
                    "Kineto trace, nvidia-smi log",
                    &["json", "gz", "csv", "txt", "log", "xml"],
                )
                .blocking_pick_file()
        }
    })
    .await
    .map_err(|e| WorkflowError::Other(format!("the file chooser failed: {e}")))?;
    Ok(picked
        .and_then(|p| p.into_path().ok())
        .map(|p| p.display().to_string()))
}

#[tauri::command(rename_all = "snake_case")]
pub fn store_status(wf: State<'_, Workflow>, args: cmd::StoreStatus) -> Reply<cmd::StoreStatus> {
    wf.store_status(args)
}

#[tauri::command(rename_all = "snake_case")]
pub async fn list_checkups(
    wf: State<'_, Workflow>,
    args: cmd::ListCheckups,
) -> Reply<cmd::ListCheckups> {
    wf.list_checkups(args).await
}

#[tauri::command(rename_all = "snake_case")]
pub async fn open_checkup(
    wf: State<'_, Workflow>,
    args: cmd::OpenCheckup,
) -> Reply<cmd::OpenCheckup> {
    wf.open_checkup(args).await
}

#[tauri::command(rename_all = "snake_case")]
pub async fn set_step(wf: State<'_, Workflow>, args: cmd::SetStep) -> Reply<cmd::SetStep> {
    wf.set_step(args).await
}

#[tauri::command(rename_all = "snake_case")]
pub async fn zoom_chart(wf: State<'_, Workflow>, args: cmd::ZoomChart) -> Reply<cmd::ZoomChart> {
    wf.zoom_chart(args).await
}

#[tauri::command(rename_all = "snake_case")]
pub async fn report_preview(
    wf: State<'_, Workflow>,
    args: cmd::ReportPreview,
) -> Reply<cmd::ReportPreview> {
    wf.report_preview(args).await
}

#[tauri::command(rename_all = "snake_case")]
pub async fn export_report(
    wf: State<'_, Workflow>,
    args: cmd::ExportReport,
) -> Reply<cmd::ExportReport> {
    wf.export_report(args).await
}

#[tauri::command(rename_all = "snake_case")]
pub async fn connect_host(
    wf: State<'_, Workflow>,
    args: cmd::ConnectHost,
) -> Reply<cmd::ConnectHost> {
    wf.connect_host(args).await
}

#[tauri::command(rename_all = "snake_case")]
pub async fn disconnect_host(
    wf: State<'_, Workflow>,
    args: cmd::DisconnectHost,
) -> Reply<cmd::DisconnectHost> {
    wf.disconnect_host(args).await
}

#[tauri::command(rename_all = "snake_case")]
pub async fn new_checkup(wf: State<'_, Workflow>, args: cmd::NewCheckup) -> Reply<cmd::NewCheckup> {
    wf.new_checkup(args).await
}

#[tauri::command(rename_all = "snake_case")]
pub async fn recheck_environment(
    wf: State<'_, Workflow>,
    args: cmd::RecheckEnvironment,
) -> Reply<cmd::RecheckEnvironment> {
    wf.recheck_environment(args).await
}

#[tauri::command(rename_all = "snake_case")]
pub async fn list_gpu_processes(
    wf: State<'_, Workflow>,
    args: cmd::ListGpuProcesses,
) -> Reply<cmd::ListGpuProcesses> {
    wf.list_gpu_processes(args).await
}

#[tauri::command(rename_all = "snake_case")]
pub async fn start_sampling(
    wf: State<'_, Workflow>,
    args: cmd::StartSampling,
) -> Reply<cmd::StartSampling> {
    wf.start_sampling(args).await
}

#[tauri::command(rename_all = "snake_case")]
pub async fn start_profiling(
    wf: State<'_, Workflow>,
    args: cmd::StartProfiling,
) -> Reply<cmd::StartProfiling> {
    wf.start_profiling(args).await
}

#[tauri::command(rename_all = "snake_case")]
pub async fn stop_live(wf: State<'_, Workflow>, args: cmd::StopLive) -> Reply<cmd::StopLive> {
    wf.stop_live(args).await
}

#[tauri::command(rename_all = "snake_case")]
pub async fn open_recording(
    wf: State<'_, Workflow>,
    args: cmd::OpenRecording,
) -> Reply<cmd::OpenRecording> {
    wf.open_recording(args).await
}

#[tauri::command(rename_all = "snake_case")]
pub async fn open_prometheus(
    wf: State<'_, Workflow>,
    args: cmd::OpenPrometheus,
) -> Reply<cmd::OpenPrometheus> {
    wf.open_prometheus(args).await
}

#[tauri::command(rename_all = "snake_case")]
pub async fn add_note(wf: State<'_, Workflow>, args: cmd::AddNote) -> Reply<cmd::AddNote> {
    wf.add_note(args).await
}

#[tauri::command(rename_all = "snake_case")]
pub async fn set_baseline(
    wf: State<'_, Workflow>,
    args: cmd::SetBaseline,
) -> Reply<cmd::SetBaseline> {
    wf.set_baseline(args).await
}

#[tauri::command(rename_all = "snake_case")]
pub async fn compare_checkups(
    wf: State<'_, Workflow>,
    args: cmd::CompareCheckups,
) -> Reply<cmd::CompareCheckups> {
    wf.compare_checkups(args).await
}

#[tauri::command(rename_all = "snake_case")]
pub async fn connect_fleet(
    wf: State<'_, Workflow>,
    args: cmd::ConnectFleet,
) -> Reply<cmd::ConnectFleet> {
    wf.connect_fleet(args).await
}

#[tauri::command(rename_all = "snake_case")]
pub async fn check_fleet(wf: State<'_, Workflow>, args: cmd::CheckFleet) -> Reply<cmd::CheckFleet> {
    wf.check_fleet(args).await
}

#[tauri::command(rename_all = "snake_case")]
pub async fn watch_fleet(wf: State<'_, Workflow>, args: cmd::WatchFleet) -> Reply<cmd::WatchFleet> {
    wf.watch_fleet(args).await
}

#[tauri::command(rename_all = "snake_case")]
pub async fn gather_fleet_job(
    wf: State<'_, Workflow>,
    args: cmd::GatherFleetJob,
) -> Reply<cmd::GatherFleetJob> {
    wf.gather_fleet_job(args).await
}

#[tauri::command(rename_all = "snake_case")]
pub fn stop_fleet(wf: State<'_, Workflow>, args: cmd::StopFleet) -> Reply<cmd::StopFleet> {
    wf.stop_fleet(args)
}

#[tauri::command(rename_all = "snake_case")]
pub async fn disconnect_fleet(
    wf: State<'_, Workflow>,
    args: cmd::DisconnectFleet,
) -> Reply<cmd::DisconnectFleet> {
    wf.disconnect_fleet(args).await
}
