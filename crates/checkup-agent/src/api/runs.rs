//! `POST`, `GET` and `DELETE /v1/runs`: profiled runs of a training command, one at a time.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use axum::extract::Path as UrlPath;
use checkup_model::{RunInfo, RunRequest, RunState};

use super::state::{new_id, ActiveRun};
use crate::error::AgentError;
use crate::run::{RunOptions, RunOutcome};
use std::sync::Arc;

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;

use super::AgentState;
use crate::reply::error;

/// Runs listed in memory (`GET /v1/runs`); older ones are on disk.
const KEPT_RUNS: usize = 256;
/// Characters of a run's command kept for its listing: a command of megabytes (a pasted
/// config) would otherwise be held for the agent's life and sent with every listing.
const KEPT_COMMAND_CHARS: usize = 4096;

/// The command as its listing shows it: whole while short, else its first arguments (each
/// cut to the limit) and how many were left out.
fn kept_command(command: &[String]) -> Vec<String> {
    let mut kept = Vec::new();
    let mut used = 0;
    for (i, arg) in command.iter().enumerate() {
        if used >= KEPT_COMMAND_CHARS {
            kept.push(format!("… ({} more arguments)", command.len() - i));
            break;
        }
        let room = KEPT_COMMAND_CHARS - used;
        let cut: String = arg.chars().take(room).collect();
        used += cut.chars().count().max(1);
        if cut.len() < arg.len() {
            kept.push(format!("{cut}…"));
        } else {
            kept.push(cut);
        }
    }
    kept
}

pub(super) async fn start(
    State(s): State<Arc<AgentState>>,
    crate::reply::ApiJson(req): crate::reply::ApiJson<RunRequest>,
) -> Response {
    if req.command.is_empty() || req.command[0].trim().is_empty() {
        return error(StatusCode::UNPROCESSABLE_ENTITY, "command is empty: give the training command as a list, e.g. [\"python\", \"train.py\"]");
    }
    if let Some(cwd) = req.cwd.as_deref().filter(|c| !Path::new(c).is_dir()) {
        return error(
            StatusCode::UNPROCESSABLE_ENTITY,
            format!("working directory {cwd} does not exist on this host"),
        );
    }
    if let Err(e) = crate::run::check_settings(req.skip_steps, req.profile_steps, req.hz) {
        return error(StatusCode::UNPROCESSABLE_ENTITY, e.to_string());
    }
    let id = new_id("run");
    let cancel = Arc::new(AtomicBool::new(false));
    {
        let mut active = s.active_run.lock().unwrap_or_else(|p| p.into_inner());
        if active.is_some() {
            return error(StatusCode::CONFLICT, "a profiled run is already active");
        }
        *active = Some(ActiveRun {
            id: id.clone(),
            cancel: cancel.clone(),
        });
    }
    let info = RunInfo {
        id: id.clone(),
        command: kept_command(&req.command),
        state: RunState::Running,
        steps_done: 0,
        exit_code: None,
        error: None,
        output_tail: Vec::new(),
    };
    {
        let mut runs = s.runs.lock().unwrap_or_else(|p| p.into_inner());
        // The oldest ended runs leave the listing first; their folders stay on disk and
        // are still served by id.
        while runs.len() >= KEPT_RUNS {
            match runs.iter().position(|r| r.state != RunState::Running) {
                Some(i) => drop(runs.remove(i)),
                None => break,
            }
        }
        runs.push(info);
    }
    let out = s.runs_dir.join(&id);
    // The client is not at the agent's terminal: the command's output is kept in the run.
    let log = Some(out.join("train.log"));
    if let Err(e) = crate::private::create_dir(&out) {
        s.end_active_run();
        return error(
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("cannot create {}: {e}", out.display()),
        );
    }
    let opts = RunOptions {
        out,
        skip_steps: req.skip_steps,
        profile_steps: req.profile_steps,
        hz: req.hz,
        gpm: true,
        command: req.command,
        log,
        cwd: req.cwd.map(PathBuf::from),
        cancel: Some(cancel),
        replay: s.replay.clone(),
    };
    let state = s.clone();
    let run_id = id.clone();
    std::thread::spawn(move || {
        // A panic in the run must not leave it `running` and the run slot taken forever.
        let outcome: crate::Result<RunOutcome> =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                crate::run::run_command_streaming(&opts, Some(state.stream.clone()))
            }))
            .unwrap_or_else(|panic| {
                let why = panic
                    .downcast_ref::<String>()
                    .map(String::as_str)
                    .or_else(|| panic.downcast_ref::<&str>().copied())
                    .unwrap_or("no message");
                Err(AgentError::Invalid(format!(
                    "the run stopped on an internal error: {why}"
                )))
            });
        let mut runs = state.runs.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(r) = runs.iter_mut().find(|r| r.id == run_id) {
            match outcome {
                Ok(o) if o.cancelled => {
                    r.state = RunState::Cancelled;
                    r.exit_code = o.exit_code;
                    r.error = None;
                }
                Ok(o) => {
                    r.state = if o.exit_code == Some(0) {
                        RunState::Finished
                    } else {
                        RunState::Failed
                    };
                    r.exit_code = o.exit_code;
                    r.error = match o.exit_code {
                        Some(0) => o.probe_problem(),
                        Some(c) => Some(format!("the command exited with code {c}")),
                        None => Some("the command was killed by a signal".into()),
                    };
                }
                Err(e) => {
                    r.state = RunState::Failed;
                    r.error = Some(e.to_string());
                }
            }
        }
        drop(runs);
        state.end_active_run();
    });
    (StatusCode::ACCEPTED, Json(serde_json::json!({ "id": id }))).into_response()
}

/// Stops the active run `id`: SIGINT to its process group (the training's own clean-up and
/// the probe's trace run), SIGTERM after 10 s, SIGKILL after 15. Answers at once; the run's
/// state turns `cancelled` when it has ended, its files kept.
pub(super) async fn cancel(
    State(s): State<Arc<AgentState>>,
    UrlPath(id): UrlPath<String>,
) -> Response {
    let active = s
        .active_run
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .clone();
    match active {
        Some(run) if run.id == id => {
            run.cancel.store(true, Ordering::Relaxed);
            (StatusCode::ACCEPTED, Json(serde_json::json!({ "id": id }))).into_response()
        }
        _ => {
            let known = s
                .runs
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .iter()
                .any(|r| r.id == id);
            if known {
                error(StatusCode::CONFLICT, format!("run {id} has already ended"))
            } else {
                error(StatusCode::NOT_FOUND, format!("no run {id}"))
            }
        }
    }
}

pub(super) async fn list(State(s): State<Arc<AgentState>>) -> Json<Vec<RunInfo>> {
    let mut runs = s.runs.lock().unwrap_or_else(|p| p.into_inner()).clone();
    for r in &mut runs {
        let dir = s.runs_dir.join(&r.id);
        r.steps_done = steps_done(&dir);
        r.output_tail = output_tail(&dir.join("train.log"), 20);
    }
    Json(runs)
}

/// The profiled runs an earlier agent left in `runs_dir`, oldest first (the last
/// [`KEPT_RUNS`]): each as its `meta.json` says it ended, or `interrupted` without one,
/// whose probe files left behind are removed. Called at start, before any run of this
/// agent's.
pub(super) fn found_on_disk(runs_dir: &Path) -> Vec<RunInfo> {
    let Ok(entries) = std::fs::read_dir(runs_dir) else {
        return Vec::new();
    };
    let mut found: Vec<(u64, String)> = entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            let n = name.strip_prefix("run-")?.parse().ok()?;
            crate::retention::made_by_the_agent(&name).then_some((n, name))
        })
        .collect();
    found.sort();
    let skip = found.len().saturating_sub(KEPT_RUNS);
    found
        .into_iter()
        .skip(skip)
        .map(|(_, id)| {
            let dir = runs_dir.join(&id);
            let meta = std::fs::read_to_string(dir.join(checkup_recording::layout::META_JSON))
                .ok()
                .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok());
            let command: Vec<String> = meta
                .as_ref()
                .and_then(|m| serde_json::from_value(m["command"].clone()).ok())
                .unwrap_or_default();
            let exit_code = meta
                .as_ref()
                .and_then(|m| m["exit_code"].as_i64())
                .and_then(|c| i32::try_from(c).ok());
            let (state, error) = match &meta {
                None => {
                    // Nothing runs it any more: the guard ended the training with its agent.
                    let _ = std::fs::remove_dir_all(dir.join(".checkup-probe"));
                    (
                        RunState::Interrupted,
                        Some("the agent that ran it ended before the run did; what it recorded is kept".to_owned()),
                    )
                }
                Some(m) if m["cancelled"] == true => (RunState::Cancelled, None),
                Some(_) => match exit_code {
                    Some(0) => (RunState::Finished, None),
                    Some(c) => (
                        RunState::Failed,
                        Some(format!("the command exited with code {c}")),
                    ),
                    // Written before the agent said how a run ended: it ended.
                    None => (RunState::Finished, None),
                },
            };
            RunInfo {
                id,
                command: kept_command(&command),
                state,
                steps_done: 0,
                exit_code,
                error,
                output_tail: Vec::new(),
            }
        })
        .collect()
}

/// Steps done so far on rank 0, from the probe's progress file.
fn steps_done(run: &Path) -> u64 {
    [run.join("progress.json"), run.join("rank0/progress.json")]
        .iter()
        .find_map(|p| std::fs::read_to_string(p).ok())
        .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
        .and_then(|v| v.get("step").and_then(|s| s.as_u64()))
        .unwrap_or(0)
}

/// The last `n` lines of the command's output (read from the end: logs can be large).
fn output_tail(log: &Path, n: usize) -> Vec<String> {
    use std::io::{Read, Seek, SeekFrom};
    let Ok(mut f) = std::fs::File::open(log) else {
        return Vec::new();
    };
    let len = f.metadata().map_or(0, |m| m.len());
    let _ = f.seek(SeekFrom::Start(len.saturating_sub(8192)));
    let mut buf = Vec::new();
    let _ = f.read_to_end(&mut buf);
    let text = String::from_utf8_lossy(&buf);
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(n)..]
        .iter()
        .map(|l| l.to_string())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_command_is_kept_cut_with_what_was_left_out() {
        let short = vec!["python".to_owned(), "train.py".to_owned()];
        assert_eq!(kept_command(&short), short);
        let long = vec![
            "python".to_owned(),
            "x".repeat(2_000_000),
            "--lr".to_owned(),
        ];
        let kept = kept_command(&long);
        assert_eq!(
            kept.len(),
            3,
            "{:?}",
            kept.iter().map(String::len).collect::<Vec<_>>()
        );
        assert!(kept[1].ends_with('…') && kept[1].chars().count() == 4096 - 6 + 1);
        assert_eq!(kept[2], "… (1 more arguments)");
    }
}
