//! The agent's API: HTTP and a WebSocket on loopback (by default), every request
//! authenticated with a bearer token generated at start and written to a file only its user
//! can read. It only ever runs the training command an authenticated client asked for.
//!
//! | method and path | what |
//! |---|---|
//! | `GET /v1/health` | version, GPUs (or why none), whether sampling runs, the last sample sequence number |
//! | `GET /v1/check?python=&cwd=` | the static environment check, in the given interpreter (else the active or a local environment's) |
//! | `POST /v1/sampling` `{"hz"?, "slow_hz"?, "pid"?, "gpu"?, "max_s"?}` | start sampling into a new run folder (follow `pid`, or the process on `gpu`) |
//! | `DELETE /v1/sampling` | stop sampling; returns the sampler's report |
//! | `POST /v1/runs` `{"command": [..], "cwd"?, "skip_steps"?, "profile_steps"?, "hz"?}` | start a profiled run |
//! | `GET /v1/runs` | runs with their state, steps done and, once ended, the output's last lines |
//! | `DELETE /v1/runs/{id}` | stop the active run (SIGINT, SIGTERM, SIGKILL to its process group); it ends `cancelled` |
//! | `GET /v1/runs/{id}/files` and `/files/{path}` | a run's files, and one file's bytes |
//! | `GET /v1/samples?since=N` (WebSocket) | every sample with `seq > N`, then live ones |

use std::net::SocketAddr;
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::{Path as UrlPath, Query, Request, State};
use axum::http::{header, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use checkup_model::{AgentHealth, RunInfo, RunRequest, RunState, SamplingRequest, ServeInfo};
use serde::Deserialize;

use crate::error::AgentError;
use crate::run::{RunOptions, RunOutcome};
use crate::sampler::{self, Sampled, SamplerConfig, SamplerReport};
use crate::stream::{LiveSample, SampleStream};

/// Puts freshly taken samples on the live stream, as the API's sample events.
pub fn publish(stream: &SampleStream, s: Sampled<'_>) {
    match s {
        Sampled::Nvml(v) => v
            .iter()
            .for_each(|x| stream.push(LiveSample::Nvml(x.clone()))),
        Sampled::Gpm(v) => v
            .iter()
            .for_each(|x| stream.push(LiveSample::Gpm(x.clone()))),
        Sampled::Host(x) => stream.push(LiveSample::Host(x.clone())),
    }
}

/// Compares secrets in time independent of where they differ.
pub fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// 32 random bytes from the kernel, hex encoded.
pub fn new_token() -> std::io::Result<String> {
    use std::io::Read;
    let mut bytes = [0u8; 32];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut bytes)?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// Writes the token readable by its owner only (mode 0600, set at creation).
pub fn write_token(path: &Path, token: &str) -> std::io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let _ = std::fs::remove_file(path);
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)?;
    f.write_all(token.as_bytes())
}

struct Sampling {
    id: String,
    stop: Arc<AtomicBool>,
    handle: std::thread::JoinHandle<crate::Result<SamplerReport>>,
}

/// What the HTTP API serves from: the token, the GPUs found, the live stream, sampling and profiled runs in progress, the run folders.
pub struct AgentState {
    token: String,
    gpus: u32,
    gpu_error: Option<String>,
    gpu_problem: Option<checkup_model::GpuProblem>,
    /// Epoch seconds of the last authenticated request (for `--idle-exit`).
    last_request: AtomicU64,
    runs_dir: PathBuf,
    stream: Arc<SampleStream>,
    sampling: Mutex<Option<Sampling>>,
    runs: Mutex<Vec<RunInfo>>,
    /// The profiled run in progress. One at a time: two trainings on one GPU would spoil
    /// both measurements.
    active_run: Mutex<Option<ActiveRun>>,
    /// Sampling plays this recorded run back instead of reading the GPUs (demos, tests).
    replay: Option<PathBuf>,
    /// One permit per open sample stream.
    stream_clients: Arc<tokio::sync::Semaphore>,
}

/// The profiled run in progress: its id and the flag that stops it.
#[derive(Clone)]
struct ActiveRun {
    id: String,
    cancel: Arc<AtomicBool>,
}

/// Sample streams served at once: the app opens one per host; more are refused (503) so that
/// clients that never close cannot pile up.
pub const MAX_STREAM_CLIENTS: usize = 16;

impl AgentState {
    /// The state of an agent that keeps its runs in `runs_dir` (and its stream's spill file there), replaying a recorded run instead of the GPUs when `replay` is set; `(gpus, gpu_problem)` are the GPUs it reads, or why it reads none.
    pub fn new(
        token: String,
        runs_dir: PathBuf,
        replay: Option<PathBuf>,
        (gpus, gpu_problem): (u32, Option<checkup_model::GpuProblem>),
    ) -> std::io::Result<Arc<Self>> {
        let stream = Arc::new(SampleStream::new(&runs_dir.join(".stream.jsonl"), 20_000)?);
        Ok(Arc::new(Self {
            token,
            gpus,
            gpu_error: gpu_problem.as_ref().map(problem_line),
            gpu_problem,
            last_request: AtomicU64::new(sampler::now_s() as u64),
            runs_dir,
            stream,
            sampling: Mutex::new(None),
            runs: Mutex::new(Vec::new()),
            active_run: Mutex::new(None),
            replay,
            stream_clients: Arc::new(tokio::sync::Semaphore::new(MAX_STREAM_CLIENTS)),
        }))
    }

    fn run_is_active(&self) -> bool {
        self.active_run
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .is_some()
    }

    fn end_active_run(&self) {
        *self.active_run.lock().unwrap_or_else(|p| p.into_inner()) = None;
    }

    /// Nothing to do and nobody asked for anything for `idle_s`.
    fn idle_for(&self, idle_s: u64) -> bool {
        // Sampling that ended by itself (its time limit) no longer keeps the agent up.
        let busy = self.run_is_active()
            || self
                .sampling
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .as_ref()
                .is_some_and(|x| !x.handle.is_finished());
        !busy
            && (sampler::now_s() as u64).saturating_sub(self.last_request.load(Ordering::Relaxed))
                >= idle_s
    }
}

/// How many GPUs NVML sees, or why it sees none.
fn gpu_presence() -> (u32, Option<checkup_model::GpuProblem>) {
    #[cfg(feature = "nvml")]
    {
        use checkup_model::GpuProblem;
        match crate::collect::nvml::NvmlCollector::new() {
            Ok(nv) => (nv.gpu_count(), None),
            Err(crate::AgentError::NoDriver(detail)) => (0, Some(GpuProblem::NoDriver { detail })),
            Err(e) => (
                0,
                Some(GpuProblem::Nvml {
                    detail: e.to_string(),
                }),
            ),
        }
    }
    #[cfg(not(feature = "nvml"))]
    (0, Some(checkup_model::GpuProblem::NoNvmlInBuild))
}

/// The English line older clients show (`AgentHealth::gpu_error`).
fn problem_line(p: &checkup_model::GpuProblem) -> String {
    use checkup_model::GpuProblem;
    match p {
        GpuProblem::NoDriver { detail } => crate::AgentError::NoDriver(detail.clone()).to_string(),
        GpuProblem::Nvml { detail } => detail.clone(),
        GpuProblem::NoNvmlInBuild => "this agent was built without NVML".into(),
    }
}

pub(crate) fn error(status: StatusCode, message: impl Into<String>) -> Response {
    (status, Json(serde_json::json!({ "error": message.into() }))).into_response()
}

async fn require_token(State(state): State<Arc<AgentState>>, req: Request, next: Next) -> Response {
    let given = req
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .unwrap_or("");
    if !constant_time_eq(given.as_bytes(), state.token.as_bytes()) {
        return error(
            StatusCode::UNAUTHORIZED,
            "missing or wrong bearer token (see the agent's token file)",
        );
    }
    state
        .last_request
        .store(sampler::now_s() as u64, Ordering::Relaxed);
    next.run(req).await
}

/// The API's routes, behind the token and, before it, [`crate::listen::local_clients_only`]
/// (`allow_remote`: the agent listens for other hosts, so any `Host` is accepted).
pub fn router(state: Arc<AgentState>, allow_remote: bool) -> Router {
    Router::new()
        .route("/v1/health", get(health))
        .route("/v1/check", get(check))
        .route("/v1/gpu-processes", get(gpu_processes))
        .route(
            "/v1/sampling",
            axum::routing::post(start_sampling).delete(stop_sampling),
        )
        .route("/v1/runs", get(list_runs).post(start_run))
        .route("/v1/runs/{id}", axum::routing::delete(cancel_run))
        .route("/v1/runs/{id}/files", get(list_files))
        .route("/v1/runs/{id}/files/{*path}", get(get_file))
        .route("/v1/samples", get(samples_ws))
        .layer(middleware::from_fn_with_state(state.clone(), require_token))
        .layer(middleware::from_fn_with_state(
            allow_remote,
            crate::listen::local_clients_only,
        ))
        .with_state(state)
}

async fn health(State(s): State<Arc<AgentState>>) -> Json<AgentHealth> {
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

async fn check(
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

async fn gpu_processes(State(s): State<Arc<AgentState>>) -> Response {
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

fn new_id(prefix: &str) -> String {
    format!("{prefix}-{}", (sampler::now_s() * 1000.0) as u64)
}

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

async fn start_sampling(
    State(s): State<Arc<AgentState>>,
    Json(req): Json<SamplingRequest>,
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
            publish(&stream, x);
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

async fn stop_sampling(State(s): State<Arc<AgentState>>) -> Response {
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

async fn start_run(State(s): State<Arc<AgentState>>, Json(req): Json<RunRequest>) -> Response {
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
        command: req.command.clone(),
        state: RunState::Running,
        steps_done: 0,
        exit_code: None,
        error: None,
        output_tail: Vec::new(),
    };
    s.runs.lock().unwrap_or_else(|p| p.into_inner()).push(info);
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
async fn cancel_run(State(s): State<Arc<AgentState>>, UrlPath(id): UrlPath<String>) -> Response {
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

async fn list_runs(State(s): State<Arc<AgentState>>) -> Json<Vec<RunInfo>> {
    let mut runs = s.runs.lock().unwrap_or_else(|p| p.into_inner()).clone();
    for r in &mut runs {
        let dir = s.runs_dir.join(&r.id);
        r.steps_done = steps_done(&dir);
        r.output_tail = output_tail(&dir.join("train.log"), 20);
    }
    Json(runs)
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
        || id.starts_with("sampling-") && id[9..].bytes().all(|b| b.is_ascii_digit());
    known.then(|| s.runs_dir.join(id)).filter(|p| p.is_dir())
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
        let rel = prefix.join(e.file_name());
        if kind.is_dir() {
            if !e.file_name().to_string_lossy().starts_with('.') {
                files_under(&e.path(), &rel, depth + 1, out);
            }
        } else if kind.is_file() {
            out.push(rel.display().to_string());
        }
    }
}

async fn list_files(State(s): State<Arc<AgentState>>, UrlPath(id): UrlPath<String>) -> Response {
    let Some(dir) = run_dir(&s, &id) else {
        return error(StatusCode::NOT_FOUND, format!("no run {id}"));
    };
    let mut files = Vec::new();
    files_under(&dir, Path::new(""), 0, &mut files);
    files.sort();
    Json(files).into_response()
}

async fn get_file(
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

#[derive(Debug, Deserialize)]
struct SamplesQuery {
    #[serde(default)]
    since: u64,
}

async fn samples_ws(
    State(s): State<Arc<AgentState>>,
    Query(q): Query<SamplesQuery>,
    ws: WebSocketUpgrade,
) -> Response {
    let Ok(permit) = s.stream_clients.clone().try_acquire_owned() else {
        return error(
            StatusCode::SERVICE_UNAVAILABLE,
            format!("the agent streams samples to at most {MAX_STREAM_CLIENTS} clients at once; close another stream and try again"),
        );
    };
    ws.on_upgrade(move |socket| async move {
        stream_samples(socket, s, q.since).await;
        drop(permit);
    })
}

/// Sends every event after `since`, then each new one as it arrives, as JSON text messages
/// `{"seq": N, "kind": "nvml"|"gpm"|"host", "sample": {...}}`.
async fn stream_samples(mut socket: WebSocket, s: Arc<AgentState>, since: u64) {
    let mut last = since;
    loop {
        // Register for wake-ups before reading, so an event pushed in between is not missed.
        let notified = s.stream.notify.notified();
        tokio::pin!(notified);
        notified.as_mut().enable();
        let events = s.stream.since(last, 2000);
        if events.is_empty() {
            tokio::select! {
                _ = &mut notified => continue,
                msg = socket.recv() => match msg {
                    Some(Ok(Message::Close(_))) | None | Some(Err(_)) => return,
                    _ => continue,
                },
            }
        }
        for e in events {
            let Ok(text) = serde_json::to_string(&e) else {
                continue;
            };
            if socket.send(Message::Text(text.into())).await.is_err() {
                return;
            }
            last = e.seq;
        }
    }
}

/// How `checkup-agent serve` listens.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    /// The address to listen on: loopback unless `allow_remote`.
    pub addr: SocketAddr,
    /// Where the bearer token is written (mode 0600) for clients on this host.
    pub token_file: PathBuf,
    /// Where recordings are kept.
    pub runs_dir: PathBuf,
    /// Also write the startup line here (mode 0600): how a client that reconnects over SSH
    /// finds an agent that kept running.
    pub state_file: Option<PathBuf>,
    /// Exit after this many seconds with no request, no sampling and no run.
    pub idle_exit_s: Option<u64>,
    /// Exit when the process that started this one ends (an app that starts its own agent
    /// may be killed without a chance to stop it).
    pub exit_with_parent: bool,
    /// Listen on an address other hosts can reach: the API runs commands over plain HTTP,
    /// so only when the user asks for it by name.
    pub allow_remote: bool,
    /// Sampling plays this recorded run folder back instead of reading the GPUs.
    pub replay: Option<PathBuf>,
    /// Run folders in which nothing was written for this long are removed at start (None:
    /// kept forever).
    pub keep_runs: Option<std::time::Duration>,
}

/// Binds, prints where it listens and where the token is (one JSON line, [`ServeInfo`]), and
/// serves until interrupted, terminated or idle for `idle_exit_s`.
pub async fn serve(o: ServeOptions) -> crate::Result<()> {
    if !o.addr.ip().is_loopback() && !o.allow_remote {
        return Err(crate::AgentError::Invalid(format!(
            "refusing to listen on {}: the API runs commands over plain HTTP, so other hosts must not reach it; keep the default 127.0.0.1 and reach the agent through an SSH port forward, or pass --allow-remote to listen there anyway",
            o.addr
        )));
    }
    if !o.addr.ip().is_loopback() {
        eprintln!(
            "checkup-agent: listening on {}, reachable from other hosts (--allow-remote); anyone who holds the token can run commands as this user",
            o.addr
        );
    }
    let token = new_token().map_err(|e| crate::AgentError::io("/dev/urandom", e))?;
    write_token(&o.token_file, &token).map_err(|e| crate::AgentError::io(&o.token_file, e))?;
    // A recording to replay is refused at start, not at the first sampling request. A
    // replaying agent reads the recording's GPUs: its health counts those, with no problem of
    // this host's (a driver it lacks) in their place.
    let presence = match &o.replay {
        Some(r) => (crate::collect::replay::Replay::open(r)?.gpus(), None),
        None => gpu_presence(),
    };
    if let Some(keep) = o.keep_runs {
        let pruned = crate::retention::prune(&o.runs_dir, keep, std::time::SystemTime::now());
        if !pruned.folders.is_empty() {
            eprintln!(
                "checkup-agent: removed {} run folders untouched for {} days ({:.1} MB): {}",
                pruned.folders.len(),
                keep.as_secs() / 86_400,
                pruned.bytes as f64 / 1e6,
                pruned.folders.join(", ")
            );
        }
    }
    let state = AgentState::new(token, o.runs_dir.clone(), o.replay.clone(), presence)
        .map_err(|e| crate::AgentError::io(&o.runs_dir, e))?;
    let listener = tokio::net::TcpListener::bind(o.addr)
        .await
        .map_err(|e| crate::AgentError::Invalid(format!("cannot listen on {}: {e}", o.addr)))?;
    let local = listener
        .local_addr()
        .map_err(|e| crate::AgentError::Invalid(e.to_string()))?;
    let info = ServeInfo {
        listening: local.to_string(),
        token_file: o.token_file.display().to_string(),
        runs: o.runs_dir.display().to_string(),
        pid: std::process::id(),
        agent: env!("CARGO_PKG_VERSION").into(),
    };
    let line = serde_json::to_string(&info).unwrap_or_default();
    if let Some(path) = &o.state_file {
        write_token(path, &line).map_err(|e| crate::AgentError::io(path, e))?;
    }
    {
        use std::io::Write;
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "{line}");
        let _ = out.flush();
    }
    let watched = state.clone();
    let state_file = o.state_file.clone();
    let shutdown = async move {
        let mut term =
            tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).ok();
        let idle = async {
            match o.idle_exit_s {
                Some(s) => loop {
                    tokio::time::sleep(std::time::Duration::from_secs(s.clamp(1, 10))).await;
                    if watched.idle_for(s) {
                        break;
                    }
                },
                None => std::future::pending().await,
            }
        };
        let parent = std::os::unix::process::parent_id();
        let orphaned = async {
            if !o.exit_with_parent {
                return std::future::pending().await;
            }
            // An orphan is adopted by init or a subreaper: its parent id changes.
            while std::os::unix::process::parent_id() == parent {
                tokio::time::sleep(std::time::Duration::from_secs(1)).await;
            }
        };
        tokio::select! {
            _ = orphaned => {}
            _ = tokio::signal::ctrl_c() => {}
            _ = async { match term.as_mut() { Some(t) => { t.recv().await; } None => std::future::pending().await } } => {}
            _ = idle => {}
        }
        // Open live streams would hold a graceful shutdown forever: give them 3 s.
        let state_file = state_file.clone();
        tokio::spawn(async move {
            tokio::time::sleep(std::time::Duration::from_secs(3)).await;
            if let Some(path) = &state_file {
                let _ = std::fs::remove_file(path);
            }
            std::process::exit(0);
        });
    };
    // Requests under way get at most the 3 s the shutdown gives them.
    crate::listen::serve(listener, router(state, o.allow_remote), shutdown).await;
    if let Some(path) = &o.state_file {
        let _ = std::fs::remove_file(path);
    }
    Ok(())
}
