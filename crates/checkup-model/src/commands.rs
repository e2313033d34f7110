//! The contract between the UI and the desktop shell: one type per command, holding its
//! arguments, naming the command and its answer. The UI calls `invoke(C::NAME, {args})` for
//! any `C: Command` through one typed function, and the shell's command takes `args: C`: a
//! renamed or retyped field fails to build on both sides, instead of being refused at run
//! time.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::{
    CheckupSummary, CheckupView, CompareView, FleetEnvironment, FleetSource, FleetView, HostInfo,
    Language, StoreNotice,
};

/// A command of the shell: `Self` is its arguments.
pub trait Command: Serialize + DeserializeOwned {
    /// The shell's command (its function's name).
    const NAME: &'static str;
    /// What the command answers.
    type Answer: Serialize + DeserializeOwned;
}

/// An event the shell sends the UI on its own: `Self` is its payload. The shell emits and
/// the UI listens under the one `NAME`.
pub trait Event: Serialize + DeserializeOwned {
    /// The name it is emitted and listened to under.
    const NAME: &'static str;
}

impl Event for crate::LiveProgress {
    const NAME: &'static str = "live-progress";
}

impl Event for crate::FleetProgress {
    const NAME: &'static str = "fleet-progress";
}

/// The list of checkups changed without the UI asking (the demo import, a fleet watch's
/// checkups stored).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckupsChanged;

impl Event for CheckupsChanged {
    const NAME: &'static str = "checkups-changed";
}

/// The wizard's steps, in order.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WizardStep {
    /// Check the host and the training's environment.
    #[default]
    Environment,
    /// Watch the running training's GPU and host.
    Sampling,
    /// Profile a run of the training.
    Profiling,
    /// What is slow, why, and what to change.
    Diagnosis,
    /// The report for the team.
    Report,
}

impl WizardStep {
    /// Every step, in order.
    pub const ALL: [WizardStep; 5] = [
        WizardStep::Environment,
        WizardStep::Sampling,
        WizardStep::Profiling,
        WizardStep::Diagnosis,
        WizardStep::Report,
    ];

    /// The stable name, as stored and as the UI's element ids use it.
    pub fn key(self) -> &'static str {
        match self {
            WizardStep::Environment => "environment",
            WizardStep::Sampling => "sampling",
            WizardStep::Profiling => "profiling",
            WizardStep::Diagnosis => "diagnosis",
            WizardStep::Report => "report",
        }
    }

    /// The step with this key.
    pub fn from_key(key: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.key() == key)
    }

    /// The steps a step offers when its work is done, the usual one first: after the
    /// environment, watching the running training (or profiling a run of it); after
    /// sampling, profiling for the cause (or what sampling alone found); then the diagnosis
    /// and its report.
    pub fn next_offered(self) -> &'static [WizardStep] {
        match self {
            WizardStep::Environment => &[WizardStep::Sampling, WizardStep::Profiling],
            WizardStep::Sampling => &[WizardStep::Profiling, WizardStep::Diagnosis],
            WizardStep::Profiling => &[WizardStep::Diagnosis],
            WizardStep::Diagnosis => &[WizardStep::Report],
            WizardStep::Report => &[],
        }
    }

    /// Where the wizard moves by itself when this step's live phase has finished with a
    /// result: the diagnosis, which now holds what the phase found. Steps without a live
    /// phase stay where the user is.
    pub fn after_live_phase(self) -> Option<WizardStep> {
        match self {
            WizardStep::Sampling | WizardStep::Profiling => Some(WizardStep::Diagnosis),
            _ => None,
        }
    }
}

/// What a report is exported as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExportFormat {
    /// PDF, typeset.
    Pdf,
    /// HTML with inline SVG charts.
    Html,
    /// Markdown.
    Md,
    /// JSON: the diagnosis as data.
    Json,
}

impl ExportFormat {
    /// Every format.
    pub const ALL: [ExportFormat; 4] = [
        ExportFormat::Pdf,
        ExportFormat::Html,
        ExportFormat::Md,
        ExportFormat::Json,
    ];

    /// The file extension.
    pub fn extension(self) -> &'static str {
        match self {
            ExportFormat::Pdf => "pdf",
            ExportFormat::Html => "html",
            ExportFormat::Md => "md",
            ExportFormat::Json => "json",
        }
    }
}

/// Where the checkup runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum HostRequest {
    /// This computer: the bundled agent on loopback.
    Local,
    /// An `~/.ssh/config` alias or `user@host[:port]`.
    Ssh {
        /// The alias or `user@host[:port]`.
        spec: String,
    },
    /// An agent the user started and forwarded: its address and token.
    Forwarded {
        /// `host:port` of the forwarded agent.
        addr: String,
        /// Its bearer token.
        token: String,
    },
}

macro_rules! command {
    ($(#[$doc:meta])* $name:ident = $fn:literal -> $answer:ty { $($(#[$fdoc:meta])* $field:ident: $ty:ty),* $(,)? }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
        pub struct $name {
            $($(#[$fdoc])* #[doc = concat!("The `", stringify!($field), "` argument of `", $fn, "`.")] pub $field: $ty,)*
        }

        impl Command for $name {
            const NAME: &'static str = $fn;
            type Answer = $answer;
        }
    };
}

command!(
    /// The UI's first full screen is painted (the startup benchmark times it).
    UiPainted = "ui_painted" -> () {}
);
command!(
    /// The system's file chooser for a recording; `None` when cancelled.
    PickRecording = "pick_recording" -> Option<String> { folder: bool }
);
command!(
    /// Every checkup in the history, newest first.
    ListCheckups = "list_checkups" -> Vec<CheckupSummary> {}
);
command!(
    /// How the history database was opened, when not as it was (damaged, read-only, locked).
    StoreStatus = "store_status" -> Option<StoreNotice> {}
);
command!(
    /// One checkup, its charts drawn in `lang`.
    OpenCheckup = "open_checkup" -> CheckupView { id: i64, lang: Language }
);
command!(
    /// Remembers the wizard step a checkup is at.
    SetStep = "set_step" -> () { id: i64, step: WizardStep }
);
command!(
    /// One of a checkup's charts over time drawn again for its seconds `from`..`to` (a zoom);
    /// `None` when the chart is not over time or has no data there.
    ZoomChart = "zoom_chart" -> Option<crate::ChartSvg> {
        id: i64,
        name: crate::ChartId,
        from: f64,
        to: f64,
        lang: Language,
    }
);
command!(
    /// The report's content as an HTML fragment.
    ReportPreview = "report_preview" -> String { id: i64, lang: Language }
);
command!(
    /// Writes the report and answers where.
    ExportReport = "export_report" -> String { id: i64, format: ExportFormat, lang: Language }
);
command!(
    /// Connects to a host (this computer, SSH or a forwarded agent), starting its agent.
    ConnectHost = "connect_host" -> HostInfo { request: HostRequest }
);
command!(
    /// Leaves the connected host.
    DisconnectHost = "disconnect_host" -> () {}
);
command!(
    /// A checkup on the connected host; answers its id. `rerun_of`: the earlier checkup of
    /// the same training it re-runs after a fix, to be compared with.
    NewCheckup = "new_checkup" -> i64 { title: String, rerun_of: Option<i64> }
);
command!(
    /// Runs a checkup's environment check again in the training's interpreter `python`.
    RecheckEnvironment = "recheck_environment" -> () { id: i64, python: String }
);
command!(
    /// Samples the host; progress comes as `live-progress` events.
    StartSampling = "start_sampling" -> () {
        id: i64,
        seconds: f64,
        pid: Option<u32>,
        gpu: Option<u32>,
        /// The live charts' language.
        lang: Language,
    }
);
command!(
    /// Runs the training command with the profiling probe.
    StartProfiling = "start_profiling" -> () {
        id: i64,
        command: String,
        cwd: Option<String>,
        skip_steps: u32,
        profile_steps: u32,
    }
);
command!(
    /// The processes using the connected host's GPUs now, to pick the training from.
    ListGpuProcesses = "list_gpu_processes" -> crate::GpuProcessList {}
);
command!(
    /// Stops the sampling or profiling in progress; what it recorded is kept.
    StopLive = "stop_live" -> () {}
);
command!(
    /// Analyses a recording offline; answers the new checkup's id.
    OpenRecording = "open_recording" -> i64 { path: String }
);
command!(
    /// Diagnoses a host's GPU metrics from a Prometheus server (DCGM-exporter's) over a
    /// range as typed (`from`, else the `last` duration before `to`, else the last 30
    /// minutes; `to` defaults to now); answers the new checkup's id.
    OpenPrometheus = "open_prometheus" -> i64 {
        url: String,
        /// The host by its `Hostname` or `instance` label; empty when the range holds one.
        host: String,
        /// GPU indices on it; empty for all.
        gpus: Vec<u32>,
        from: String,
        to: String,
        last: String,
    }
);
command!(
    /// Adds a note to a finding of a checkup; answers the note's id.
    AddNote = "add_note" -> i64 { id: i64, finding_id: String, author: String, body: String }
);
command!(
    /// Makes a checkup the baseline later ones are compared with.
    SetBaseline = "set_baseline" -> () { id: i64 }
);
command!(
    /// The later checkup compared with the earlier one.
    CompareCheckups = "compare_checkups" -> CompareView { before: i64, after: i64 }
);

command!(
    /// Connects to several hosts at once (a list of SSH hosts or a Slurm job's nodes),
    /// replacing the fleet connected before; a host that cannot be reached is listed with why.
    ConnectFleet = "connect_fleet" -> FleetView { source: FleetSource }
);
command!(
    /// Runs the environment check on every host of the fleet and compares them.
    CheckFleet = "check_fleet" -> FleetEnvironment {}
);
command!(
    /// Watches every host's GPUs for `seconds`; progress comes as `fleet-progress` events,
    /// and each host's samples are stored as a checkup of it at the end.
    WatchFleet = "watch_fleet" -> () { seconds: f64 }
);
command!(
    /// Copies a job's run folder from every host of the fleet (`path` with `{node}`, the
    /// host's place in the fleet from 0, and `{host}`, its name as given), each rank's
    /// summary in place of its trace, diagnoses the job, copies the trace of the rank the
    /// diagnosis follows, and answers the new checkup's id.
    GatherFleetJob = "gather_fleet_job" -> i64 { path: String }
);
command!(
    /// Ends the fleet watch early; what was sampled is kept.
    StopFleet = "stop_fleet" -> () {}
);
command!(
    /// Leaves every host of the fleet (their agents stop).
    DisconnectFleet = "disconnect_fleet" -> () {}
);

/// Every command's name: the shell registers each (its test checks).
pub const COMMAND_NAMES: [&str; 28] = [
    UiPainted::NAME,
    PickRecording::NAME,
    ListCheckups::NAME,
    StoreStatus::NAME,
    OpenCheckup::NAME,
    SetStep::NAME,
    ZoomChart::NAME,
    ReportPreview::NAME,
    ExportReport::NAME,
    ConnectHost::NAME,
    DisconnectHost::NAME,
    NewCheckup::NAME,
    RecheckEnvironment::NAME,
    StartSampling::NAME,
    StartProfiling::NAME,
    ListGpuProcesses::NAME,
    StopLive::NAME,
    OpenRecording::NAME,
    OpenPrometheus::NAME,
    AddNote::NAME,
    SetBaseline::NAME,
    CompareCheckups::NAME,
    ConnectFleet::NAME,
    CheckFleet::NAME,
    WatchFleet::NAME,
    GatherFleetJob::NAME,
    StopFleet::NAME,
    DisconnectFleet::NAME,
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_travel_with_the_field_names_the_shell_reads() {
        let a = serde_json::to_value(AddNote {
            id: 3,
            finding_id: "host_sync".into(),
            author: String::new(),
            body: "fixed".into(),
        })
        .unwrap();
        assert_eq!(a["finding_id"], "host_sync");
        let s = serde_json::to_value(SetStep {
            id: 1,
            step: WizardStep::Report,
        })
        .unwrap();
        assert_eq!(s["step"], "report");
        let h = serde_json::to_value(HostRequest::Ssh { spec: "gpu".into() }).unwrap();
        assert_eq!(h["kind"], "ssh");
    }

    #[test]
    fn wizard_steps_read_back_from_their_keys() {
        for s in WizardStep::ALL {
            assert_eq!(WizardStep::from_key(s.key()), Some(s));
        }
        assert_eq!(WizardStep::from_key("nowhere"), None);
    }

    #[test]
    fn every_step_but_the_report_offers_a_later_one_and_live_phases_end_at_the_diagnosis() {
        for s in WizardStep::ALL {
            let here = WizardStep::ALL.iter().position(|x| *x == s).unwrap();
            for next in s.next_offered() {
                let there = WizardStep::ALL.iter().position(|x| x == next).unwrap();
                assert!(there > here, "{s:?} offers {next:?}, which comes before it");
            }
            assert_eq!(s.next_offered().is_empty(), s == WizardStep::Report);
        }
        assert_eq!(
            WizardStep::Sampling.after_live_phase(),
            Some(WizardStep::Diagnosis)
        );
        assert_eq!(
            WizardStep::Profiling.after_live_phase(),
            Some(WizardStep::Diagnosis)
        );
        assert_eq!(WizardStep::Environment.after_live_phase(), None);
    }
}
