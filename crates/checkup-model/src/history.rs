//! The app's history of checkups, as the store returns it and the UI shows it.

use serde::{Deserialize, Serialize};

/// A row of the history list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CheckupSummary {
    /// The checkup's id in the store.
    pub id: i64,
    /// Epoch seconds.
    pub created_at: f64,
    /// Its title.
    pub title: String,
    /// "this computer", an SSH alias or `user@host`, or "recording".
    pub host: String,
    /// The recording or command it was made from.
    pub source: Option<String>,
    /// Whether it is one of the bundled demo recordings.
    pub is_demo: bool,
    /// Where the wizard was left.
    pub wizard_step: crate::WizardStep,
    /// The primary finding's id, once diagnosed.
    pub primary: Option<String>,
    /// The leading finding, for the list's one-line verdict (worded by the UI).
    pub lead: Option<crate::Finding>,
    /// Whether it is the baseline later checkups are compared with.
    pub is_baseline: bool,
    /// The earlier checkup of the same training this one re-runs to check a fix: its
    /// diagnosis is compared with that one's.
    #[serde(default)]
    pub rerun_of: Option<i64>,
}

/// A review note a team attached to a finding.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FindingNote {
    /// The note's id.
    pub id: i64,
    /// The finding it is about.
    pub finding_id: String,
    /// Who wrote it.
    pub author: String,
    /// What it says (Markdown).
    pub body: String,
    /// Epoch seconds.
    pub created_at: f64,
}

/// Everything the app shows for one checkup.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CheckupView {
    /// Its row in the history.
    pub summary: CheckupSummary,
    /// Its diagnosis, once there is one.
    pub diagnosis: Option<crate::Diagnosis>,
    /// Charts drawn by the report's own chart code, in the view's language.
    pub charts: Vec<crate::ChartSvg>,
    /// The team's notes on its findings.
    pub notes: Vec<FindingNote>,
    /// A live host's environment check (recordings carry theirs in the diagnosis).
    #[serde(default)]
    pub environment: Option<crate::CheckReport>,
}

/// The GPU host the app is connected to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HostInfo {
    /// "this computer", the SSH alias or `user@host`, or `localhost:PORT`.
    pub label: String,
    /// The agent's health.
    pub health: crate::AgentHealth,
    /// What connecting did ("uploaded the agent", ...).
    pub log: Vec<String>,
}

/// What kind of error the app reports, which the catalogue words with its subject.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// The host cannot be reached (no route, refused, timed out).
    Unreachable,
    /// SSH refused the login.
    AuthRefused,
    /// The host's SSH key is unknown or changed.
    HostKey,
    /// The host runs a platform the agent is not built for.
    UnsupportedHost,
    /// No agent binary for the host, here or there.
    NoAgentBinary,
    /// The agent was started on the host and did not come up.
    AgentDidNotStart,
    /// The agent stopped answering.
    AgentGone,
    /// The agent's address cannot be reached.
    AgentUnreachable,
    /// The agent refused the token.
    Unauthorized,
    /// No host is connected.
    NoHost,
    /// No fleet is connected.
    NoFleet,
    /// Prometheus holds several hosts and none was named.
    PromSeveralHosts,
    /// Prometheus has no host of that name.
    PromUnknownHost,
    /// The Prometheus server cannot be reached.
    PromUnreachable,
    /// Prometheus has no GPU metrics for that host.
    PromNoMetrics,
    /// A time of the range cannot be read.
    PromBadTime,
    /// The range holds no samples.
    PromEmptyRange,
    /// The Prometheus address is not a URL.
    PromBadUrl,
    /// The server at that address is not Prometheus.
    PromNotPrometheus,
    /// Prometheus refused the query.
    PromRefused,
    /// Prometheus has no GPU of that number on the host.
    PromUnknownGpu,
    /// A recording holds no GPU data.
    NoGpuData,
    /// A stored checkup is of an older format and its recording is gone.
    StaleDiagnosis,
    /// The SSH connection failed.
    SshFailed,
    /// No `ssh` client on this computer.
    NoSshClient,
    /// The agent answered something this app does not understand.
    Protocol,
    /// A file cannot be read or written.
    File,
}

impl ErrorKind {
    /// Every kind.
    pub const ALL: [ErrorKind; 27] = [
        ErrorKind::Unreachable,
        ErrorKind::AuthRefused,
        ErrorKind::HostKey,
        ErrorKind::UnsupportedHost,
        ErrorKind::NoAgentBinary,
        ErrorKind::AgentDidNotStart,
        ErrorKind::AgentGone,
        ErrorKind::AgentUnreachable,
        ErrorKind::Unauthorized,
        ErrorKind::NoHost,
        ErrorKind::NoFleet,
        ErrorKind::PromSeveralHosts,
        ErrorKind::PromUnknownHost,
        ErrorKind::PromUnreachable,
        ErrorKind::PromNoMetrics,
        ErrorKind::PromBadTime,
        ErrorKind::PromEmptyRange,
        ErrorKind::PromBadUrl,
        ErrorKind::PromNotPrometheus,
        ErrorKind::PromRefused,
        ErrorKind::PromUnknownGpu,
        ErrorKind::NoGpuData,
        ErrorKind::StaleDiagnosis,
        ErrorKind::SshFailed,
        ErrorKind::NoSshClient,
        ErrorKind::Protocol,
        ErrorKind::File,
    ];
}

/// Why a live phase reconnects to its agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReconnectReason {
    /// The sample stream dropped.
    StreamDropped,
    /// A stop asked of the agent went unanswered.
    StopUnanswered,
    /// The connection to the agent dropped.
    ConnectionDropped,
}

/// An error as the app shows it. `code` names its kind: a message-catalogue key the UI words
/// in the chosen language, filling in `{subject}` (a host, an address, a path) and `{detail}`
/// (what the system said). `message` is the whole sentence in English, shown when there is
/// no code.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct UiError {
    /// Its kind, which the catalogue words; `None`: shown as its message.
    pub code: Option<ErrorKind>,
    /// What it is about: a host, an address, a path.
    pub subject: String,
    /// What the system said.
    pub detail: String,
    /// The whole sentence in English.
    pub message: String,
}

impl UiError {
    /// An error with no code: shown as its message.
    pub fn plain(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            ..Self::default()
        }
    }
}

/// The host of a checkup made from a recording opened offline (the UI words it).
pub const RECORDING_HOST: &str = "recording";

/// Where a live phase stands; the UI words it in the chosen language.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LiveStatus {
    /// Connecting or starting.
    #[default]
    Starting,
    /// Sampling the host.
    Sampling,
    /// The profiled command runs.
    Running,
    /// The connection dropped; trying again (samples resume where they stopped).
    Reconnecting,
    /// Downloading the run and analysing it.
    Analysing,
    /// Finished with a result.
    Done,
    /// Failed: `error` says why.
    Failed,
}

impl LiveStatus {
    /// Every status.
    pub const ALL: [LiveStatus; 7] = [
        Self::Starting,
        Self::Sampling,
        Self::Running,
        Self::Reconnecting,
        Self::Analysing,
        Self::Done,
        Self::Failed,
    ];
}

/// Which live phase reports: watching the training, or running it with the probe.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LivePhase {
    /// Live sampling (wizard step 2).
    #[default]
    Sampling,
    /// A profiled run (wizard step 3).
    Profiling,
}

impl LivePhase {
    /// The wizard step this phase runs in.
    pub fn step(self) -> crate::WizardStep {
        match self {
            LivePhase::Sampling => crate::WizardStep::Sampling,
            LivePhase::Profiling => crate::WizardStep::Profiling,
        }
    }
}

/// What a live phase (sampling or profiling) reports while it runs, about once a second.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LiveProgress {
    /// The checkup the phase belongs to.
    pub checkup_id: i64,
    /// Sampling or profiling.
    pub phase: LivePhase,
    /// Seconds since it started.
    pub elapsed_s: f64,
    /// Planned length (sampling), when known.
    pub total_s: Option<f64>,
    /// Training steps seen (profiling).
    pub steps_done: u64,
    /// Steps until the profiler window has been recorded (profiling).
    pub steps_target: Option<u64>,
    /// Samples taken.
    pub samples: u64,
    /// Reconnects so far (each resumed without losing samples).
    pub reconnects: u32,
    /// Live curves with the steady window and stalls marked (sampling): the last minute,
    /// drawn again ten times a second.
    pub charts: Vec<crate::ChartSvg>,
    /// How many times the live curves have been drawn in this phase.
    pub frame: u64,
    /// Where the phase stands.
    pub status: LiveStatus,
    /// While reconnecting: this attempt (of `reconnect_tries`).
    pub reconnect_attempt: u32,
    /// Tries before giving up.
    pub reconnect_tries: u32,
    /// Why it is reconnecting.
    pub reconnect_reason: Option<ReconnectReason>,
    /// Whether the phase has ended.
    pub done: bool,
    /// Why it failed.
    pub error: Option<UiError>,
    /// The command's last output lines when a profiled run failed.
    pub output_tail: Vec<String>,
}

/// Two checkups side by side: the later one compared with the earlier one's card.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CompareView {
    /// The earlier checkup.
    pub before: CheckupSummary,
    /// The later one.
    pub after: CheckupSummary,
    /// The later one compared with the earlier one's card.
    pub comparison: crate::RunComparison,
}

/// Why the history database was not opened as it was, and what was done instead. The app
/// starts in every case and says so; nothing of the old file is changed or lost.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum StoreNotice {
    /// Not a database, or damaged: kept under `kept_as`, a new history started at `path`.
    StartedAfresh {
        /// The database file.
        path: String,
        /// Where the old file was kept.
        kept_as: String,
        /// What SQLite said.
        detail: String,
    },
    /// Cannot be written (permissions, a read-only disk) or was written by a newer version:
    /// opened read-only, so the history shows and nothing is saved.
    ReadOnly {
        /// The database file.
        path: String,
        /// Whether a newer version of the app wrote it.
        newer_version: bool,
        /// What SQLite said.
        detail: String,
    },
    /// Another program holds it locked: this session's history is kept in `temporary`.
    Temporary {
        /// The database file.
        path: String,
        /// The file holding this session's history.
        temporary: String,
        /// What SQLite said.
        detail: String,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_live_phase_crosses_to_the_ui_by_the_name_it_always_had_and_runs_in_its_step() {
        let p = LiveProgress {
            phase: LivePhase::Profiling,
            ..Default::default()
        };
        let json = serde_json::to_value(&p).unwrap();
        assert_eq!(json["phase"], "profiling");
        assert_eq!(serde_json::from_value::<LiveProgress>(json).unwrap(), p);
        assert_eq!(LivePhase::Sampling.step(), crate::WizardStep::Sampling);
        assert_eq!(LivePhase::Profiling.step(), crate::WizardStep::Profiling);
    }
}
