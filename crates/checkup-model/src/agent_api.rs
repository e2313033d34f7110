//! What `checkup-agent`'s API sends and accepts: the agent serves these types and the app's
//! client reads them, so both sides always agree.

use serde::{Deserialize, Serialize};

use crate::{EnvCheck, GpmSample, HostSample, NvmlSample, RunFacts};

/// `GET /v1/health`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct AgentHealth {
    /// The agent's version (the app re-uploads an agent of another version).
    pub agent: String,
    /// GPUs the agent reads.
    pub gpus: u32,
    /// Why there are no GPU readings ("no NVIDIA driver: ..."), when there are none, as one
    /// English line (what agents before `gpu_problem` sent).
    pub gpu_error: Option<String>,
    /// The same, typed, for a UI to word in its language with the system's message apart.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu_problem: Option<GpuProblem>,
    /// The sampling run in progress.
    pub sampling: Option<String>,
    /// Whether a profiled run is in progress.
    pub run_active: bool,
    /// The last sample sequence number handed out.
    pub last_seq: u64,
    /// The recorded run this agent's sampling plays back (`serve --replay`), if any: its
    /// samples are that recording's, not this host's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replaying: Option<String>,
}

/// Why an agent has no GPU readings. `detail` is what the driver's library said.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum GpuProblem {
    /// The NVIDIA driver's library is not installed or not loaded.
    NoDriver {
        /// What the library loader said.
        detail: String,
    },
    /// The driver is there but did not answer.
    Nvml {
        /// What NVML said.
        detail: String,
    },
    /// The agent was built without NVML.
    NoNvmlInBuild,
}

/// `GET /v1/gpu-processes`: the processes using the GPUs now, to pick the training from.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct GpuProcessList {
    /// The compute processes, GPU by GPU.
    pub processes: Vec<crate::GpuProcess>,
    /// Why the GPUs could not be asked, when they could not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu_problem: Option<GpuProblem>,
    /// The recording whose processes these are, when the agent plays one back.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recorded_in: Option<String>,
}

/// `GET /v1/check`: the static environment check.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CheckReport {
    /// The run's facts as the host shows them.
    pub facts: RunFacts,
    /// The checks, one line each.
    pub checks: Vec<EnvCheck>,
    /// `python -m torch.utils.collect_env` output, when asked for.
    pub collect_env: Option<String>,
    /// The interpreter the check ran torch's checks in.
    #[serde(default)]
    pub python: Option<String>,
    /// Training environments found on the host (active venv / conda env, ones in the
    /// working folder), to pick from.
    #[serde(default)]
    pub interpreters: Vec<String>,
    /// The recording whose GPUs and driver these are, when the agent plays one back
    /// (`serve --replay`): the rest is this host's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpus_recorded_in: Option<String>,
}

/// `GET /v1/check?python=…&cwd=…`: the interpreter to check, and the folder the training
/// runs in (its environments are looked for there).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CheckQuery {
    /// The interpreter to check (default: the one on PATH).
    pub python: Option<String>,
    /// The folder the training runs in.
    pub cwd: Option<String>,
}

/// `POST /v1/sampling`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SamplingRequest {
    /// NVML rate.
    #[serde(default = "default_hz")]
    pub hz: f64,
    /// GPM and host rate.
    #[serde(default = "default_slow_hz")]
    pub slow_hz: f64,
    /// The training process to follow (its tree's CPU and memory).
    pub pid: Option<u32>,
    /// Follow the process using this GPU (the one with the most GPU memory on it).
    pub gpu: Option<u32>,
    /// Sampling stops by itself after this many seconds, so a client that went away does
    /// not leave it running (and the agent busy) for good.
    #[serde(default = "default_sampling_max_s")]
    pub max_s: f64,
}

impl Default for SamplingRequest {
    fn default() -> Self {
        Self {
            hz: default_hz(),
            slow_hz: default_slow_hz(),
            pid: None,
            gpu: None,
            max_s: default_sampling_max_s(),
        }
    }
}

/// `POST /v1/runs`: a training command to run with the probe injected.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunRequest {
    /// The command as its arguments, e.g. `["python", "train.py"]`.
    pub command: Vec<String>,
    /// Working directory (default: the agent's).
    #[serde(default)]
    pub cwd: Option<String>,
    /// Steps to let pass before the profiler starts (warm-up).
    #[serde(default = "default_skip")]
    pub skip_steps: u32,
    /// Steps the profiler records.
    #[serde(default = "default_profile")]
    pub profile_steps: u32,
    /// NVML sampling rate.
    #[serde(default = "default_hz")]
    pub hz: f64,
}

impl RunRequest {
    /// A run of `command` with the default warm-up, profiled steps and rate.
    pub fn new(command: Vec<String>) -> Self {
        Self {
            command,
            cwd: None,
            skip_steps: default_skip(),
            profile_steps: default_profile(),
            hz: default_hz(),
        }
    }
}

/// NVML samples per second by default.
pub fn default_hz() -> f64 {
    10.0
}

/// GPM and host samples per second by default.
pub fn default_slow_hz() -> f64 {
    1.0
}

/// Eight hours: a working day of training watched live.
pub fn default_sampling_max_s() -> f64 {
    8.0 * 3600.0
}

/// The longest sampling a request may ask for: a week.
pub const SAMPLING_MAX_S_LIMIT: f64 = 7.0 * 24.0 * 3600.0;

fn default_skip() -> u32 {
    10
}

fn default_profile() -> u32 {
    8
}

/// Where a profiled run is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunState {
    /// The training runs.
    Running,
    /// It exited with 0.
    Finished,
    /// It failed to start or exited with an error.
    Failed,
    /// Stopped on a client's request (`DELETE /v1/runs/{id}`); what it recorded is kept.
    Cancelled,
    /// Found on disk by an agent started later without the account a run writes when it
    /// ends: the agent that ran it ended first (and ended the training with it). What it
    /// recorded is kept and reads as a recording.
    Interrupted,
}

/// `GET /v1/runs`: one profiled run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunInfo {
    /// The run's id, its folder's name.
    pub id: String,
    /// The command.
    pub command: Vec<String>,
    /// Where it is.
    pub state: RunState,
    /// Training steps seen so far (rank 0), for progress.
    #[serde(default)]
    pub steps_done: u64,
    /// The exit code, once it ended (None: killed by a signal).
    pub exit_code: Option<i32>,
    /// Why it failed, in a line.
    pub error: Option<String>,
    /// The last lines the command printed, for showing why it failed.
    #[serde(default)]
    pub output_tail: Vec<String>,
}

/// One sample on the live stream.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "sample", rename_all = "snake_case")]
pub enum LiveSample {
    /// An NVML reading.
    Nvml(NvmlSample),
    /// A GPM reading.
    Gpm(GpmSample),
    /// A host reading.
    Host(HostSample),
}

/// `GET /v1/samples?since=N` (WebSocket): each text message is one event; a client that
/// reconnects with the last `seq` it saw gets everything after it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StreamEvent {
    /// Its sequence number, one more than the event before.
    pub seq: u64,
    /// The sample.
    #[serde(flatten)]
    pub sample: LiveSample,
}

/// The one JSON line `checkup-agent serve` prints (and writes to `--state-file`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ServeInfo {
    /// The address it listens on.
    pub listening: String,
    /// The file holding the bearer token.
    pub token_file: String,
    /// Where its recordings are kept.
    pub runs: String,
    /// Its process id.
    pub pid: u32,
    /// Its version.
    pub agent: String,
}
