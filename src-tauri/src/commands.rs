//! The commands the UI calls. Each is a thin call into the shared crates.

use std::path::PathBuf;
use std::sync::atomic::Ordering;

use checkup_model::commands as cmd;
use checkup_model::{
    CheckupSummary, CheckupView, CompareView, ExportFormat, HostInfo, Language, RunRequest,
    SamplingRequest, WizardStep,
};
use checkup_report::ReportOptions;
use checkup_store::NewCheckup;
use tauri::{AppHandle, State};

use crate::{fleet, hosts};
use crate::{live, AppError, AppState};

/// The UI's first full screen (the history list) is painted. With
/// `GPU_CHECKUP_STARTUP_PROBE` set, the shell says so on stdout: the startup benchmark
/// (tests/e2e/benches/app.rs) times the process from its start to this line.
#[tauri::command(rename_all = "snake_case")]
pub fn store_status(
    state: tauri::State<'_, AppState>,
    args: cmd::StoreStatus,
) -> Option<checkup_model::StoreNotice> {
    let cmd::StoreStatus {} = args;
    state.store_notice.clone()
}

#[tauri::command(rename_all = "snake_case")]
pub fn ui_painted(args: cmd::UiPainted) {
    let cmd::UiPainted {} = args;
    if std::env::var_os("GPU_CHECKUP_STARTUP_PROBE").is_some() {
        use std::io::Write;
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "first paint");
        let _ = out.flush();
    }
}

/// The system's file chooser for a recording: a folder (a run folder or a
/// tensorboard_trace_handler folder) when `folder`, else a trace or a log file. `None` when
/// the user cancels.
#[tauri::command(rename_all = "snake_case")]
pub async fn pick_recording(
    app: AppHandle,
    args: cmd::PickRecording,
) -> Result<Option<String>, AppError> {
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
    .map_err(|e| AppError::Other(format!("the file chooser failed: {e}")))?;
    Ok(picked
        .and_then(|p| p.into_path().ok())
        .map(|p| p.display().to_string()))
}

#[tauri::command(rename_all = "snake_case")]
pub async fn list_checkups(
    state: State<'_, AppState>,
    args: cmd::ListCheckups,
) -> Result<Vec<CheckupSummary>, AppError> {
    let cmd::ListCheckups {} = args;
    Ok(state.store.list().await?)
}

#[tauri::command(rename_all = "snake_case")]
pub async fn open_checkup(
    state: State<'_, AppState>,
    args: cmd::OpenCheckup,
) -> Result<CheckupView, AppError> {
    let cmd::OpenCheckup { id, lang } = args;
    // The findings are facts the UI words itself; the charts are drawn here, in `lang`.
    let diagnosis = crate::reanalyse::diagnosis(&state.store, id).await?;
    let summary = state.store.summary(id).await?;
    let charts = diagnosis
        .as_ref()
        .map(|d| checkup_report::charts(d, checkup_text::report::text(lang)))
        .unwrap_or_default();
    // The UI shows the charts drawn above, not their series: a 30-minute run's series are
    // megabytes the web view would only hold on to.
    let diagnosis = diagnosis.map(|mut d| {
        d.charts = Default::default();
        d
    });
    let notes = state.store.notes(id).await?;
    let environment = state.store.environment(id).await?;
    let view = CheckupView {
        summary,
        diagnosis,
        charts,
        notes,
        environment,
    };
    // The stored run's series were read back and charted: megabytes for a long run.
    crate::give_back_freed_heap();
    Ok(view)
}

#[tauri::command(rename_all = "snake_case")]
pub async fn set_step(state: State<'_, AppState>, args: cmd::SetStep) -> Result<(), AppError> {
    Ok(state.store.set_wizard_step(args.id, args.step).await?)
}

/// What a report of checkup `id` in `lang` is made from.
async fn report_inputs(
    state: &AppState,
    id: i64,
    lang: Language,
) -> Result<(checkup_model::Diagnosis, ReportOptions), AppError> {
    let d = crate::reanalyse::diagnosis(&state.store, id)
        .await?
        .ok_or_else(|| {
            AppError::Other(format!(
                "checkup {id} has no diagnosis yet: sample or profile first, or open a recording"
            ))
        })?;
    let opts = ReportOptions {
        language: lang,
        baseline: None,
    };
    Ok((d, opts))
}

/// The report's content as HTML, for the report step's preview.
#[tauri::command(rename_all = "snake_case")]
pub async fn report_preview(
    state: State<'_, AppState>,
    args: cmd::ReportPreview,
) -> Result<String, AppError> {
    let (d, opts) = report_inputs(&state, args.id, args.lang).await?;
    let html = checkup_report::html_body(&d, &opts);
    drop(d);
    crate::give_back_freed_heap();
    Ok(html)
}

/// Writes the report in `format` (pdf, html, md, json) and returns where.
#[tauri::command(rename_all = "snake_case")]
pub async fn export_report(
    state: State<'_, AppState>,
    args: cmd::ExportReport,
) -> Result<String, AppError> {
    let cmd::ExportReport { id, format, lang } = args;
    let (d, opts) = report_inputs(&state, id, lang).await?;
    let exports = state.exports.clone();
    // Typesetting a report of thousands of ranks takes seconds of CPU: off the async
    // runtime, which keeps serving the UI's other commands meanwhile.
    tauri::async_runtime::spawn_blocking(move || {
        write_report(&exports, id, lang, format, &d, &opts)
    })
    .await
    .map_err(|e| AppError::Other(format!("the report export stopped: {e}")))?
}

fn write_report(
    exports: &std::path::Path,
    id: i64,
    lang: Language,
    format: ExportFormat,
    d: &checkup_model::Diagnosis,
    opts: &ReportOptions,
) -> Result<String, AppError> {
    std::fs::create_dir_all(exports)
        .map_err(|e| AppError::Other(format!("{}: {e}", exports.display())))?;
    let path = exports.join(format!(
        "checkup-{id}-{}.{}",
        lang.code(),
        format.extension()
    ));
    let write = |bytes: &[u8]| {
        std::fs::write(&path, bytes)
            .map_err(|e| AppError::Other(format!("{}: {e}", path.display())))
    };
    match format {
        ExportFormat::Pdf => write(&checkup_report::pdf(d, opts)?)?,
        ExportFormat::Html => write(checkup_report::html(d, opts).as_bytes())?,
        ExportFormat::Json => write(checkup_report::json(d)?.as_bytes())?,
        ExportFormat::Md => {
            let (md, charts) = checkup_report::markdown(d, opts);
            let dir = exports.join("charts");
            std::fs::create_dir_all(&dir)
                .map_err(|e| AppError::Other(format!("{}: {e}", dir.display())))?;
            for c in charts {
                std::fs::write(dir.join(format!("{}.svg", c.name)), c.svg)
                    .map_err(|e| AppError::Other(e.to_string()))?;
            }
            write(md.as_bytes())?
        }
    }
    Ok(path.display().to_string())
}

/// Connects to a GPU host (replacing the current one) and says what it has.
#[tauri::command(rename_all = "snake_case")]
pub async fn connect_host(
    state: State<'_, AppState>,
    args: cmd::ConnectHost,
) -> Result<HostInfo, AppError> {
    let cmd::ConnectHost { request } = args;
    if let Some(old) = state.host.lock().await.take() {
        old.close().await;
    }
    let (host, log) = hosts::connect(request, &state.data).await?;
    let info = hosts::info(&host, log).await;
    *state.host.lock().await = Some(host);
    info
}

#[tauri::command(rename_all = "snake_case")]
pub async fn disconnect_host(
    state: State<'_, AppState>,
    args: cmd::DisconnectHost,
) -> Result<(), AppError> {
    let cmd::DisconnectHost {} = args;
    if let Some(h) = state.host.lock().await.take() {
        h.close().await;
    }
    Ok(())
}

/// A new checkup on the connected host, starting with its environment check.
#[tauri::command(rename_all = "snake_case")]
pub async fn new_checkup(
    state: State<'_, AppState>,
    args: cmd::NewCheckup,
) -> Result<i64, AppError> {
    let cmd::NewCheckup { title, rerun_of } = args;
    let client = state
        .host
        .lock()
        .await
        .as_ref()
        .map(|h| (h.client(), h.label()))
        .ok_or(AppError::NoHost)?;
    let report = client.0.check(&Default::default()).await?;
    let title = if title.trim().is_empty() {
        format!("{} checkup", client.1)
    } else {
        title.trim().to_owned()
    };
    let id = state
        .store
        .create(&NewCheckup {
            title,
            host: client.1,
            source: None,
            is_demo: false,
            rerun_of,
        })
        .await?;
    state.store.save_environment(id, &report).await?;
    state
        .store
        .set_wizard_step(id, WizardStep::Environment)
        .await?;
    Ok(id)
}

/// The environment check again, in the interpreter the user picked (a venv, a conda env).
#[tauri::command(rename_all = "snake_case")]
pub async fn recheck_environment(
    state: State<'_, AppState>,
    args: cmd::RecheckEnvironment,
) -> Result<(), AppError> {
    let cmd::RecheckEnvironment { id, python } = args;
    let client = state.client().await?;
    let query = checkup_model::CheckQuery {
        python: Some(python.trim().to_owned()).filter(|p| !p.is_empty()),
        cwd: None,
    };
    let report = client.check(&query).await?;
    state.store.save_environment(id, &report).await?;
    Ok(())
}

/// A checkup's chart over time, drawn again for the seconds the user dragged across.
#[tauri::command(rename_all = "snake_case")]
pub async fn zoom_chart(
    state: State<'_, AppState>,
    args: cmd::ZoomChart,
) -> Result<Option<checkup_model::ChartSvg>, AppError> {
    let cmd::ZoomChart {
        id,
        name,
        from,
        to,
        lang,
    } = args;
    let diagnosis = crate::reanalyse::diagnosis(&state.store, id).await?;
    Ok(diagnosis.and_then(|d| {
        checkup_report::time_chart_window(&d, checkup_text::report::text(lang), name, from, to)
    }))
}

/// The processes using the connected host's GPUs now (the PID picker of the sampling step).
#[tauri::command(rename_all = "snake_case")]
pub async fn list_gpu_processes(
    state: State<'_, AppState>,
    args: cmd::ListGpuProcesses,
) -> Result<checkup_model::GpuProcessList, AppError> {
    let cmd::ListGpuProcesses {} = args;
    let client = state.client().await?;
    Ok(client.gpu_processes().await?)
}

/// Samples the host for `seconds`; progress and live curves arrive as `live-progress` events.
#[tauri::command(rename_all = "snake_case")]
pub async fn start_sampling(
    app: AppHandle,
    state: State<'_, AppState>,
    args: cmd::StartSampling,
) -> Result<(), AppError> {
    let cmd::StartSampling {
        id,
        seconds,
        pid,
        gpu,
        lang,
    } = args;
    if !(5.0..=7200.0).contains(&seconds) {
        return Err(AppError::Other(format!(
            "sample for 5 s to 2 h, not {seconds} s"
        )));
    }
    state.store.summary(id).await?;
    let phase = live::LivePhase::begin(&state.live)?;
    let req = SamplingRequest {
        pid,
        gpu,
        ..Default::default()
    };
    tauri::async_runtime::spawn(live::sample(app, id, seconds, req, lang, phase));
    Ok(())
}

/// Runs `command` on the host with the profiler probe; progress arrives as events.
#[tauri::command(rename_all = "snake_case")]
pub async fn start_profiling(
    app: AppHandle,
    state: State<'_, AppState>,
    args: cmd::StartProfiling,
) -> Result<(), AppError> {
    let cmd::StartProfiling {
        id,
        command,
        cwd,
        skip_steps,
        profile_steps,
    } = args;
    let argv = split_command(&command)?;
    state.store.summary(id).await?;
    let phase = live::LivePhase::begin(&state.live)?;
    let mut req = RunRequest::new(argv);
    req.cwd = cwd.filter(|c| !c.trim().is_empty());
    req.skip_steps = skip_steps;
    req.profile_steps = profile_steps.max(1);
    tauri::async_runtime::spawn(live::profile(app, id, req, phase));
    Ok(())
}

/// Splits a command line the way a shell would for plain words and quotes (no expansion).
fn split_command(line: &str) -> Result<Vec<String>, AppError> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let (mut quote, mut any) = (None::<char>, false);
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some('"'), '\\') => cur.extend(chars.next()),
            (Some(_), c) => cur.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                any = true;
            }
            (None, '\\') => {
                cur.extend(chars.next());
                any = true;
            }
            (None, c) if c.is_whitespace() => {
                if any || !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
                any = false;
            }
            (None, c) => cur.push(c),
        }
    }
    if quote.is_some() {
        return Err(AppError::Other(format!("unclosed quote in `{line}`")));
    }
    if any || !cur.is_empty() {
        out.push(cur);
    }
    if out.is_empty() {
        return Err(AppError::Other(
            "the command is empty: e.g. python train.py --epochs 1".into(),
        ));
    }
    Ok(out)
}

#[tauri::command(rename_all = "snake_case")]
pub async fn stop_live(state: State<'_, AppState>, args: cmd::StopLive) -> Result<(), AppError> {
    let cmd::StopLive {} = args;
    if let Some(phase) = state
        .live
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .as_ref()
    {
        phase.stop.store(true, Ordering::Relaxed);
    }
    Ok(())
}

/// Analyses a run folder, a trace file or a tensorboard_trace_handler folder offline.
#[tauri::command(rename_all = "snake_case")]
pub async fn open_recording(
    state: State<'_, AppState>,
    args: cmd::OpenRecording,
) -> Result<i64, AppError> {
    let path = PathBuf::from(args.path.trim());
    if !path.exists() {
        return Err(AppError::Other(format!(
            "{} does not exist",
            path.display()
        )));
    }
    let d = crate::analyse(path.clone()).await?;
    // A file is named with its folder: "trace.json.gz" alone says nothing in the history.
    let name = |p: &std::path::Path| p.file_name().map(|n| n.to_string_lossy().into_owned());
    let title = match (
        name(&path),
        path.is_file()
            .then(|| path.parent().and_then(name))
            .flatten(),
    ) {
        (Some(file), Some(folder)) => format!("{folder}/{file}"),
        (Some(file), None) => file,
        _ => path.display().to_string(),
    };
    crate::store_recording(&state.store, title, &path, &d, false).await
}

/// A host's GPU metrics from Prometheus, diagnosed and kept as a checkup of that host.
#[tauri::command(rename_all = "snake_case")]
pub async fn open_prometheus(
    state: State<'_, AppState>,
    args: cmd::OpenPrometheus,
) -> Result<i64, AppError> {
    let cmd::OpenPrometheus {
        url,
        host,
        gpus,
        from,
        to,
        last,
    } = args;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64());
    let (start, end) = checkup_prometheus::diagnose::TypedRange {
        from: Some(&from),
        to: Some(&to),
        last: Some(&last),
    }
    .resolve(now, ["from", "to", "last"])?;
    let selection = checkup_prometheus::Selection {
        host: Some(host.trim().to_owned()).filter(|h| !h.is_empty()),
        gpus,
        start,
        end,
    };
    // Blocking HTTP and the analysis: off the async threads.
    let url = url.trim().to_owned();
    let d = tauri::async_runtime::spawn_blocking(move || {
        checkup_prometheus::diagnose::diagnose(&url, &selection, &Default::default())
    })
    .await
    .map_err(|e| AppError::Other(format!("reading Prometheus stopped: {e}")))??;
    crate::give_back_freed_heap();
    // The host as the metrics' labels name it (the one chosen, or the only one there).
    let read_from = d.notes.iter().find_map(|n| match n {
        checkup_model::Note::SamplesFromPrometheus { host, .. } => Some(host.clone()),
        _ => None,
    });
    let host = read_from.unwrap_or(host);
    let checkup = NewCheckup {
        title: format!(
            "{host} from Prometheus, {}",
            checkup_prometheus::rfc3339(start)
        ),
        host,
        source: None,
        is_demo: false,
        rerun_of: None,
    };
    crate::store_diagnosed(&state.store, &checkup, &d).await
}

#[tauri::command(rename_all = "snake_case")]
pub async fn add_note(state: State<'_, AppState>, args: cmd::AddNote) -> Result<i64, AppError> {
    let cmd::AddNote {
        id,
        finding_id,
        author,
        body,
    } = args;
    if body.trim().is_empty() {
        return Err(AppError::Other("the note is empty".into()));
    }
    Ok(state
        .store
        .add_note(id, &finding_id, author.trim(), body.trim())
        .await?)
}

#[tauri::command(rename_all = "snake_case")]
pub async fn set_baseline(
    state: State<'_, AppState>,
    args: cmd::SetBaseline,
) -> Result<(), AppError> {
    Ok(state.store.set_baseline(args.id).await?)
}

/// `before` and `after` side by side: the later run compared with the earlier one's card.
#[tauri::command(rename_all = "snake_case")]
pub async fn compare_checkups(
    state: State<'_, AppState>,
    args: cmd::CompareCheckups,
) -> Result<CompareView, AppError> {
    let cmd::CompareCheckups { before, after } = args;
    let load = |id| {
        let store = &state.store;
        async move {
            let d = crate::reanalyse::diagnosis(store, id)
                .await?
                .ok_or_else(|| AppError::Other(format!("checkup {id} has no diagnosis yet")))?;
            Ok::<_, AppError>((store.summary(id).await?, d))
        }
    };
    let (b, bd) = load(before).await?;
    let (a, ad) = load(after).await?;
    let comparison = checkup_report::compare(
        &checkup_report::BaselineCard::from_diagnosis(&ad),
        &checkup_report::BaselineCard::from_diagnosis(&bd),
    );
    Ok(CompareView {
        before: b,
        after: a,
        comparison,
    })
}

#[cfg(test)]
mod tests {
    use super::split_command;

    #[test]
    fn every_command_of_the_contract_is_a_shell_command_taking_its_arguments() {
        let source = include_str!("commands.rs");
        let registered = include_str!("lib.rs");
        for name in checkup_model::commands::COMMAND_NAMES {
            let declared = [format!("pub fn {name}("), format!("pub async fn {name}(")]
                .iter()
                .any(|d| source.contains(d.as_str()));
            assert!(declared, "`{name}` is not a command here");
            assert!(
                registered.contains(&format!("commands::{name},")),
                "`{name}` is not registered"
            );
        }
        // Each command takes the contract's type as `args`, nothing mirrored by hand.
        let attribute = concat!("#[tauri::command(", "rename_all = \"snake_case\")]");
        let commands = source.matches(attribute).count();
        assert_eq!(commands, checkup_model::commands::COMMAND_NAMES.len());
        assert_eq!(source.matches(concat!("args: ", "cmd::")).count(), commands);
    }

    #[test]
    fn commands_split_like_a_shell_splits_words_and_quotes() {
        assert_eq!(
            split_command("python train.py --lr 3e-4").unwrap(),
            ["python", "train.py", "--lr", "3e-4"]
        );
        assert_eq!(
            split_command(r#"python "my train.py" --name 'a b' x\ y """#).unwrap(),
            ["python", "my train.py", "--name", "a b", "x y", ""]
        );
        assert!(split_command("python 'oops")
            .unwrap_err()
            .to_string()
            .contains("unclosed quote"));
        assert!(split_command("   ").is_err());
    }
}

/// Connects to several hosts at once, replacing the fleet connected before.
#[tauri::command(rename_all = "snake_case")]
pub async fn connect_fleet(
    state: State<'_, AppState>,
    args: cmd::ConnectFleet,
) -> Result<checkup_model::FleetView, AppError> {
    let cmd::ConnectFleet { source } = args;
    if let Some(old) = state.fleet.lock().await.take() {
        old.close().await;
    }
    let fleet = fleet::connect(source).await?;
    let view = fleet.view();
    *state.fleet.lock().await = Some(fleet);
    Ok(view)
}

/// The environment check on every host of the fleet, compared.
#[tauri::command(rename_all = "snake_case")]
pub async fn check_fleet(
    state: State<'_, AppState>,
    args: cmd::CheckFleet,
) -> Result<checkup_model::FleetEnvironment, AppError> {
    let cmd::CheckFleet {} = args;
    fleet::check(&state).await
}

/// Watches the fleet's GPUs; progress arrives as `fleet-progress` events.
#[tauri::command(rename_all = "snake_case")]
pub async fn watch_fleet(
    app: AppHandle,
    state: State<'_, AppState>,
    args: cmd::WatchFleet,
) -> Result<(), AppError> {
    let cmd::WatchFleet { seconds } = args;
    // NaN and infinity are outside the range too.
    if !(1.0..=checkup_model::SAMPLING_MAX_S_LIMIT).contains(&seconds) {
        return Err(AppError::Other(format!(
            "watch between 1 s and a week, not {seconds} s"
        )));
    }
    if state
        .fleet
        .lock()
        .await
        .as_ref()
        .is_none_or(|f| !f.any_connected())
    {
        return Err(AppError::NoFleet);
    }
    let phase = live::LivePhase::begin(&state.fleet_watch)?;
    tauri::async_runtime::spawn(fleet::watch(app, seconds, phase));
    Ok(())
}

/// A job's run folders copied from the fleet's hosts and diagnosed as one checkup.
#[tauri::command(rename_all = "snake_case")]
pub async fn gather_fleet_job(
    state: State<'_, AppState>,
    args: cmd::GatherFleetJob,
) -> Result<i64, AppError> {
    let cmd::GatherFleetJob { path } = args;
    fleet::gather_job(&state, &path).await
}

/// Ends the fleet watch early; each host's samples so far are analysed and kept.
#[tauri::command(rename_all = "snake_case")]
pub fn stop_fleet(state: State<'_, AppState>, args: cmd::StopFleet) {
    let cmd::StopFleet {} = args;
    if let Some(w) = state
        .fleet_watch
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .as_ref()
    {
        w.stop.store(true, Ordering::Relaxed);
    }
}

/// Leaves every host of the fleet.
#[tauri::command(rename_all = "snake_case")]
pub async fn disconnect_fleet(
    state: State<'_, AppState>,
    args: cmd::DisconnectFleet,
) -> Result<(), AppError> {
    let cmd::DisconnectFleet {} = args;
    if let Some(f) = state.fleet.lock().await.take() {
        f.close().await;
    }
    Ok(())
}
