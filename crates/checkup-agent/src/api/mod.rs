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
use std::path::PathBuf;
use std::sync::Arc;

use axum::middleware;
use axum::routing::get;
use axum::Router;
use checkup_model::ServeInfo;

mod auth;
mod files;
mod health;
mod runs;
mod samples;
mod sampling;
mod state;

pub use auth::{carries_token, constant_time_eq, new_token, write_token};
pub use sampling::check_sampling;
pub use state::{AgentState, MAX_STREAM_CLIENTS};

/// The API's routes, behind the token and, before it, [`crate::listen::local_clients_only`]
/// (`allow_remote`: the agent listens for other hosts, so any `Host` is accepted).
pub fn router(state: Arc<AgentState>, allow_remote: bool) -> Router {
    Router::new()
        .route("/v1/health", get(health::health))
        .route("/v1/check", get(health::check))
        .route("/v1/gpu-processes", get(health::gpu_processes))
        .route(
            "/v1/sampling",
            axum::routing::post(sampling::start).delete(sampling::stop),
        )
        .route("/v1/runs", get(runs::list).post(runs::start))
        .route("/v1/runs/{id}", axum::routing::delete(runs::cancel))
        .route("/v1/runs/{id}/files", get(files::list))
        .route("/v1/runs/{id}/files/{*path}", get(files::get))
        .route("/v1/samples", get(samples::stream))
        .layer(middleware::from_fn_with_state(
            state.clone(),
            auth::require_token,
        ))
        .layer(middleware::from_fn_with_state(
            allow_remote,
            crate::listen::local_clients_only,
        ))
        .with_state(state)
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
    // The runs folder is the agent's alone: made private, refused when another user could
    // write there, and held by one agent at a time (a second one would take the token over
    // and share the stream file).
    crate::private::create_dir(&o.runs_dir).map_err(|e| crate::AgentError::io(&o.runs_dir, e))?;
    crate::private::check_owned(&o.runs_dir).map_err(|why| {
        crate::AgentError::Invalid(format!(
            "refusing the runs folder {}: {why}",
            o.runs_dir.display()
        ))
    })?;
    let _lock = crate::private::lock(&o.runs_dir.join(".agent.lock")).map_err(|why| {
        crate::AgentError::Invalid(format!(
            "refusing the runs folder {}: {why}; stop that agent or give --runs another folder",
            o.runs_dir.display()
        ))
    })?;
    let token = new_token().map_err(|e| crate::AgentError::io("/dev/urandom", e))?;
    write_token(&o.token_file, &token).map_err(|e| crate::AgentError::io(&o.token_file, e))?;
    // A recording to replay is refused at start, not at the first sampling request. A
    // replaying agent reads the recording's GPUs: its health counts those, with no problem of
    // this host's (a driver it lacks) in their place.
    let presence = match &o.replay {
        Some(r) => (crate::collect::replay::Replay::open(r)?.gpus(), None),
        None => state::gpu_presence(),
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
    let proof: std::sync::Arc<str> = token.as_str().into();
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
    crate::listen::serve(listener, router(state, o.allow_remote), proof, shutdown).await;
    if let Some(path) = &o.state_file {
        let _ = std::fs::remove_file(path);
    }
    Ok(())
}
