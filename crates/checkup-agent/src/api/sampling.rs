//! `POST` and `DELETE /v1/sampling`: sampling into a new run folder, streamed live.

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

use checkup_model::SamplingRequest;

use super::state::{new_id, Sampling};
use crate::sampler::{self, SamplerConfig};
use std::sync::Arc;

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;

use super::AgentState;
use crate::reply::error;

/// Checks a sampling request's settings before anything starts (a message saying which).
pub fn check_sampling(req: &SamplingRequest) -> Result<(), String> {
    if !(0.1..=100.0).contains(&req.hz) || !(0.1..=req.hz).contains(&req.slow_hz) {
        return Err(format!(
            "hz must be between 0.1 and 100 and slow_hz between 0.1 and hz, not {} and {}",
            req.hz, req.slow_hz
        ));
    }
    if !(1.0..=checkup_model::SAMPLING_MAX_S_LIMIT).contains(&req.max_s) {
        return Err(format!(
            "max_s must be between 1 and {} (a week), not {}",
            checkup_model::SAMPLING_MAX_S_LIMIT,
            req.max_s
        ));
    }
    if req.pid.is_some() && req.gpu.is_some() {
        return Err("give pid or gpu, not both".into());
    }
    Ok(())
}

pub(super) async fn start(
    State(s): State<Arc<AgentState>>,
    crate::reply::ApiJson(req): crate::reply::ApiJson<SamplingRequest>,
) -> Response {
    if let Err(why) = check_sampling(&req) {
        return error(StatusCode::UNPROCESSABLE_ENTITY, why);
    }
    let pid = match (req.pid, req.gpu) {
        (_, Some(g)) => {
            match tokio::task::spawn_blocking(move || crate::check::process_on_gpu(g)).await {
                Ok(Ok(pid)) => Some(pid),
                Ok(Err(e)) => return error(StatusCode::UNPROCESSABLE_ENTITY, e.to_string()),
                Err(e) => return error(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
            }
        }
        (pid, None) => pid,
    };
    let mut slot = s.sampling.lock().unwrap_or_else(|p| p.into_inner());
    // One that stopped at its time limit makes room; its folder stays with the runs.
    if slot.as_ref().is_some_and(|x| x.handle.is_finished()) {
        if let Some(done) = slot.take() {
            let _ = done.handle.join();
        }
    }
    if let Some(running) = slot.as_ref() {
        return error(
            StatusCode::CONFLICT,
            format!("already sampling into {}", running.id),
        );
    }
    let id = new_id("sampling");
    let dir = s.runs_dir.join(&id);
    // The folder exists for every id given out, even if the agent is killed before its
    // first sample.
    if let Err(e) = crate::private::create_dir(&dir) {
        return error(
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("{}: {e}", dir.display()),
        );
    }
    let stop = Arc::new(AtomicBool::new(false));
    let config = SamplerConfig {
        hz: req.hz,
        gpm: true,
        slow_hz: req.slow_hz,
        root_pid: Arc::new(AtomicU32::new(pid.unwrap_or(0))),
        breakdown: false,
        replay: s.replay.clone(),
    };
    let (stream, stop2) = (s.stream.clone(), stop.clone());
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs_f64(req.max_s);
    let handle = std::thread::spawn(move || {
        sampler::run_with_sink(&dir, &config, &stop2, &mut |x| {
            stream.publish(x);
            // Checked at every sample: the sampler stops at its next tick.
            if std::time::Instant::now() >= deadline {
                stop2.store(true, Ordering::Relaxed);
            }
        })
    });
    *slot = Some(Sampling {
        id: id.clone(),
        stop,
        handle,
    });
    (StatusCode::CREATED, Json(serde_json::json!({ "id": id }))).into_response()
}

pub(super) async fn stop(State(s): State<Arc<AgentState>>) -> Response {
    let Some(sampling) = s.sampling.lock().unwrap_or_else(|p| p.into_inner()).take() else {
        return error(StatusCode::CONFLICT, "not sampling");
    };
    sampling.stop.store(true, Ordering::Relaxed);
    let id = sampling.id.clone();
    match tokio::task::spawn_blocking(move || sampling.handle.join()).await {
        Ok(Ok(Ok(report))) => {
            Json(serde_json::json!({ "id": id, "report": report })).into_response()
        }
        Ok(Ok(Err(e))) => error(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
        _ => error(
            StatusCode::INTERNAL_SERVER_ERROR,
            "the sampler stopped unexpectedly",
        ),
    }
}
