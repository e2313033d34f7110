//! What the API serves from: the token, the GPUs found, the live stream, the sampling and
//! the profiled run in progress, the run folders.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use checkup_model::RunInfo;

use crate::sampler::{self, SamplerReport};
use crate::stream::SampleStream;

pub(super) struct Sampling {
    pub(super) id: String,
    pub(super) stop: Arc<AtomicBool>,
    pub(super) handle: std::thread::JoinHandle<crate::Result<SamplerReport>>,
}

/// What the HTTP API serves from: the token, the GPUs found, the live stream, sampling and profiled runs in progress, the run folders.
pub struct AgentState {
    pub(super) token: String,
    pub(super) gpus: u32,
    pub(super) gpu_error: Option<String>,
    pub(super) gpu_problem: Option<checkup_model::GpuProblem>,
    /// Epoch seconds of the last authenticated request (for `--idle-exit`).
    pub(super) last_request: AtomicU64,
    pub(super) runs_dir: PathBuf,
    pub(super) stream: Arc<SampleStream>,
    pub(super) sampling: Mutex<Option<Sampling>>,
    pub(super) runs: Mutex<Vec<RunInfo>>,
    /// The profiled run in progress. One at a time: two trainings on one GPU would spoil
    /// both measurements.
    pub(super) active_run: Mutex<Option<ActiveRun>>,
    /// Sampling plays this recorded run back instead of reading the GPUs (demos, tests).
    pub(super) replay: Option<PathBuf>,
    /// One permit per open sample stream.
    pub(super) stream_clients: Arc<tokio::sync::Semaphore>,
}

/// The profiled run in progress: its id and the flag that stops it.
#[derive(Clone)]
pub(super) struct ActiveRun {
    pub(super) id: String,
    pub(super) cancel: Arc<AtomicBool>,
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
        let found = super::runs::found_on_disk(&runs_dir);
        Ok(Arc::new(Self {
            token,
            gpus,
            gpu_error: gpu_problem.as_ref().map(problem_line),
            gpu_problem,
            last_request: AtomicU64::new(sampler::now_s() as u64),
            runs_dir,
            stream,
            sampling: Mutex::new(None),
            // What earlier agents ran here is listed too, each as it ended.
            runs: Mutex::new(found),
            active_run: Mutex::new(None),
            replay,
            stream_clients: Arc::new(tokio::sync::Semaphore::new(MAX_STREAM_CLIENTS)),
        }))
    }

    pub(super) fn run_is_active(&self) -> bool {
        self.active_run
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .is_some()
    }

    pub(super) fn end_active_run(&self) {
        *self.active_run.lock().unwrap_or_else(|p| p.into_inner()) = None;
    }

    /// Nothing to do and nobody asked for anything for `idle_s`.
    pub(super) fn idle_for(&self, idle_s: u64) -> bool {
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
pub(super) fn gpu_presence() -> (u32, Option<checkup_model::GpuProblem>) {
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
pub(super) fn problem_line(p: &checkup_model::GpuProblem) -> String {
    use checkup_model::GpuProblem;
    match p {
        GpuProblem::NoDriver { detail } => crate::AgentError::NoDriver(detail.clone()).to_string(),
        GpuProblem::Nvml { detail } => detail.clone(),
        GpuProblem::NoNvmlInBuild => "this agent was built without NVML".into(),
    }
}

pub(super) fn new_id(prefix: &str) -> String {
    format!("{prefix}-{}", (sampler::now_s() * 1000.0) as u64)
}
