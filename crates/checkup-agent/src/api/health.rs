//! `GET /v1/health`, `/v1/check` and `/v1/gpu-processes`: what the agent and its host can do.

use axum::extract::Query;
use checkup_model::AgentHealth;

use std::sync::Arc;

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;

use super::AgentState;
use crate::reply::error;

pub(super) async fn health(State(s): State<Arc<AgentState>>) -> Json<AgentHealth> {
    let sampling = s
        .sampling
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .as_ref()
        .map(|x| x.id.clone());
    Json(AgentHealth {
        agent: env!("CARGO_PKG_VERSION").into(),
        gpus: s.gpus,
        gpu_error: s.gpu_error.clone(),
        gpu_problem: s.gpu_problem.clone(),
        sampling,
        run_active: s.run_is_active(),
        last_seq: s.stream.last_seq(),
        replaying: s.replay.as_ref().map(|p| p.display().to_string()),
    })
}

pub(super) async fn check(
    State(s): State<Arc<AgentState>>,
    Query(q): Query<checkup_model::CheckQuery>,
) -> Response {
    let opts = crate::check::CheckOptions {
        python: q.python,
        cwd: q.cwd.map(std::path::PathBuf::from),
        replay: s.replay.clone(),
        ..Default::default()
    };
    match tokio::task::spawn_blocking(move || crate::check::run_check(&opts)).await {
        Ok(report) => Json(report).into_response(),
        Err(e) => error(
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("check failed: {e}"),
        ),
    }
}

pub(super) async fn gpu_processes(State(s): State<Arc<AgentState>>) -> Response {
    let replay = s.replay.clone();
    match tokio::task::spawn_blocking(move || crate::processes::gpu_processes(replay.as_deref()))
        .await
    {
        Ok(list) => Json(list).into_response(),
        Err(e) => error(
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("listing the GPU processes failed: {e}"),
        ),
    }
}
