//! `GET /v1/runs/{id}/files` and `/files/{path}`: a run folder's files, never through a
//! link and never outside the folder.

use std::path::{Component, Path, PathBuf};

use axum::extract::Path as UrlPath;
use axum::http::header;

use std::sync::Arc;

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;

use super::AgentState;
use crate::reply::error;

/// A run folder by id: only ids this agent created, so no path from a client reaches the disk.
fn run_dir(s: &AgentState, id: &str) -> Option<PathBuf> {
    let known = s
        .runs
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .iter()
        .any(|r| r.id == id)
        || s.sampling
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .as_ref()
            .is_some_and(|x| x.id == id)
        // Folders the agent names itself, on disk from this agent or an earlier one.
        || crate::retention::made_by_the_agent(id);
    // A folder, not a link to one: a link planted in the runs folder would serve whatever it
    // points at.
    known
        .then(|| s.runs_dir.join(id))
        .filter(|p| std::fs::symlink_metadata(p).is_ok_and(|m| m.is_dir()))
}

/// How deep and how many files a run folder's listing goes: a run writes a few levels
/// (`rank0/`, `static/`) and dozens of files.
const MAX_LIST_DEPTH: usize = 8;
const MAX_LISTED_FILES: usize = 10_000;
/// The largest file served: traces of long windows reach gigabytes, nothing a run writes
/// comes near this.
const MAX_SERVED_FILE_BYTES: u64 = 16 << 30;

/// The regular files under `dir`, without following links (a link may point out of the run
/// folder, or back into it in a loop), at most `MAX_LIST_DEPTH` deep.
fn files_under(dir: &Path, prefix: &Path, depth: usize, out: &mut Vec<String>) {
    if depth > MAX_LIST_DEPTH {
        return;
    }
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        if out.len() >= MAX_LISTED_FILES {
            return;
        }
        let Ok(kind) = e.file_type() else {
            continue;
        };
        // Only names a client can ask for again: UTF-8 (a URL path is), and not hidden (the
        // probe's own folders are no part of the run's files and are not served either).
        let Some(name) = e.file_name().to_str().map(str::to_owned) else {
            continue;
        };
        if name.starts_with('.') {
            continue;
        }
        let rel = prefix.join(name);
        if kind.is_dir() {
            files_under(&e.path(), &rel, depth + 1, out);
        } else if kind.is_file() {
            out.push(rel.display().to_string());
        }
    }
}

pub(super) async fn list(
    State(s): State<Arc<AgentState>>,
    UrlPath(id): UrlPath<String>,
) -> Response {
    let Some(dir) = run_dir(&s, &id) else {
        return error(StatusCode::NOT_FOUND, format!("no run {id}"));
    };
    let mut files = Vec::new();
    files_under(&dir, Path::new(""), 0, &mut files);
    files.sort();
    Json(files).into_response()
}

pub(super) async fn get(
    State(s): State<Arc<AgentState>>,
    UrlPath((id, path)): UrlPath<(String, String)>,
) -> Response {
    let Some(dir) = run_dir(&s, &id) else {
        return error(StatusCode::NOT_FOUND, format!("no run {id}"));
    };
    let rel = Path::new(&path);
    if rel.components().any(|c| !matches!(c, Component::Normal(_))) {
        return error(
            StatusCode::BAD_REQUEST,
            "file paths are relative to the run folder, without `..`",
        );
    }
    // What the listing leaves out is not served: hidden names are the probe's, not the run's.
    if rel
        .components()
        .any(|c| c.as_os_str().to_string_lossy().starts_with('.'))
    {
        return error(StatusCode::NOT_FOUND, format!("no file {path} in run {id}"));
    }
    // No link anywhere on the way: one could lead out of the run folder.
    let mut at = dir.clone();
    for part in rel.components() {
        at.push(part);
        match std::fs::symlink_metadata(&at) {
            Ok(m) if m.file_type().is_symlink() => {
                return error(
                    StatusCode::FORBIDDEN,
                    format!("{path} in run {id} goes through a link; links are not served"),
                )
            }
            Ok(_) => {}
            Err(_) => return error(StatusCode::NOT_FOUND, format!("no file {path} in run {id}")),
        }
    }
    let len = match std::fs::metadata(&at) {
        Ok(m) if m.is_file() => m.len(),
        _ => return error(StatusCode::NOT_FOUND, format!("no file {path} in run {id}")),
    };
    if len > MAX_SERVED_FILE_BYTES {
        return error(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!(
                "{path} in run {id} is {len} bytes; at most {MAX_SERVED_FILE_BYTES} are served"
            ),
        );
    }
    match tokio::fs::File::open(&at).await {
        Ok(file) => (
            [
                (header::CONTENT_TYPE, "application/octet-stream".to_owned()),
                (header::CONTENT_LENGTH, len.to_string()),
            ],
            axum::body::Body::from_stream(tokio_util::io::ReaderStream::new(file)),
        )
            .into_response(),
        Err(_) => error(StatusCode::NOT_FOUND, format!("no file {path} in run {id}")),
    }
}
