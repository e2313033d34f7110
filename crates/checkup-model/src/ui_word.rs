//! The app's own words by name (buttons, step names, help, errors): the UI asks the
//! catalogue for a `UiWord`, and `checkup-text` words each in every language in one
//! exhaustive `match`, so a word the UI uses but no language has does not build.

/// One of the app's own words or sentences; each variant's doc is its English.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum UiWord {
    /// "GPU Checkup"
    AppTitle,
    /// "The checkup history {path} could not be read ({detail}). It was kept unchanged as …"
    StoreStartedAfresh,
    /// "The checkup history {path} cannot be written ({detail}), so it is shown read-only: …"
    StoreReadOnly,
    /// "The checkup history {path} was written by a newer version of GPU Checkup, so this …"
    StoreNewer,
    /// "The checkup history {path} is locked by another program, probably another GPU …"
    StoreTemporary,
    /// "Pick a checkup on the left, or connect to a GPU host to start one (the demo checkups …"
    Pick,
    /// "1 Environment"
    Environment,
    /// "2 Live sampling"
    Sampling,
    /// "3 Profiling"
    Profiling,
    /// "4 Diagnosis"
    Diagnosis,
    /// "5 Report"
    Report,
    /// "The job is the training to watch. Its PID (process ID) is the number the system …"
    JobHelp,
    /// "Show the processes on the GPUs"
    FindProcesses,
    /// "No process is using a GPU right now: start the training first, then show the …"
    NoGpuProcesses,
    /// "Use"
    UseThis,
    /// "GPU memory"
    GpuMemory,
    /// "These are the processes of the recording this agent plays back ({path}), not of this …"
    ProcessesRecorded,
    /// "t = {t} s"
    HoverTime,
    /// "{label}: {value} {unit}"
    HoverValue,
    /// "Point at a curve to read its values; drag across the chart to zoom in on those seconds."
    ZoomHelp,
    /// "Whole run"
    ZoomReset,
    /// "Next: {step} →"
    NextStep,
    /// "Sampling finished: {samples} samples over {seconds} s. Below is what they show; …"
    ArrivedAfterSampling,
    /// "Profiling finished: {steps} steps recorded. Below is the diagnosis."
    ArrivedAfterProfiling,
    /// "Checks the GPU host before anything else: the driver and CUDA versions, whether …"
    IntroEnvironment,
    /// "Takes a few seconds. Next: watch the running training (step 2), or run a few …"
    IntroEnvironmentNext,
    /// "Watches the GPU and the host while your training runs, without touching it: GPU …"
    IntroSampling,
    /// "Sample for a minute or more once the training is past its start-up. Next: profile a …"
    IntroSamplingNext,
    /// "Runs your training command with GPU Checkup's probe, without changing your code: it …"
    IntroProfiling,
    /// "Takes as long as the command runs: a short run of your real training, 100 to 300 …"
    IntroProfilingNext,
    /// "What limits this run and what to change first. The top says how long a step takes …"
    IntroDiagnosis,
    /// "Apply the first fix, then press Re-run and compare under it: a new checkup of the …"
    IntroDiagnosisNext,
    /// "A report for your team's review: page 1 holds the verdict, the headline figures, the …"
    IntroReport,
    /// "Mark a healthy run as the baseline, then compare later checkups with it to see what …"
    IntroReportNext,
    /// "Checkups"
    History,
    /// "demo"
    Demo,
    /// "Folder…"
    PickFolder,
    /// "File…"
    PickFile,
    /// "recording"
    RecordingHost,
    /// "baseline"
    Baseline,
    /// "GPU host"
    Host,
    /// "Not connected."
    NoHost,
    /// "no GPU"
    NoGpu,
    /// "samples replayed from the recording"
    Replaying,
    /// "This computer"
    ThisComputer,
    /// "SSH"
    Ssh,
    /// "Agent already forwarded"
    Forwarded,
    /// "token"
    Token,
    /// "Connect"
    Connect,
    /// "Connecting…"
    Connecting,
    /// "GPU metrics in Prometheus"
    Prometheus,
    /// "host (Hostname or instance label)"
    PromHost,
    /// "GPUs: 0, 1 (all when empty)"
    PromGpus,
    /// "from: now-2h, RFC 3339"
    PromFrom,
    /// "to: now"
    PromTo,
    /// "or the last: 30m (the default)"
    PromLast,
    /// "Read and diagnose"
    ReadPrometheus,
    /// "Reading the GPU metrics from Prometheus…"
    ReadingPrometheus,
    /// "Several hosts"
    SeveralHosts,
    /// "Connect all"
    ConnectFleet,
    /// "or the nodes of a Slurm job, through its login host:"
    OrSlurmJob,
    /// "job id"
    SlurmJob,
    /// "login host"
    SlurmLogin,
    /// "Connect the job's nodes"
    ConnectSlurm,
    /// "Connecting to the hosts (uploading and starting each agent where needed)…"
    ConnectingFleet,
    /// "Several hosts: {n} of {m} connected"
    FleetConnected,
    /// "The hosts of one job side by side. Compare their environments first: one host on …"
    IntroFleet,
    /// "Slurm job {job} ({state})"
    FleetJob,
    /// "Compare environments"
    CheckFleet,
    /// "Checking every host…"
    CheckingFleet,
    /// "Watch every GPU"
    WatchFleet,
    /// "Disconnect all"
    DisconnectFleet,
    /// "No host differs from the others in driver, GPU model, persistence mode, PCIe link, …"
    FleetSame,
    /// "What stands out between the hosts"
    FleetDifferences,
    /// "Host"
    ColHost,
    /// "Agent"
    ColAgent,
    /// "Driver"
    ColDriver,
    /// "GPUs"
    ColGpus,
    /// "Checks not passed"
    ColNotPassed,
    /// "GPUs and driver from the recording {path}"
    GpusRecorded,
    /// "Open its checkup"
    OpenItsCheckup,
    /// "throttled"
    Throttled,
    /// "Diagnose the job's run folders"
    GatherJob,
    /// "Copying each host's run folder (summaries in place of traces) and diagnosing the job…"
    GatheringJob,
    /// "The folder `checkup-agent run -o` wrote on each host: {node} is the host's place in …"
    GatherJobHelp,
    /// "Each GPU's last minute: solid, GPU-Util (NVML); dashed, SM active (GPM). Then its …"
    FleetLegend,
    /// "New checkup on this host"
    NewCheckup,
    /// "Checking the environment…"
    Checking,
    /// "Open a recording"
    OpenRecording,
    /// "Open"
    Open,
    /// "analysing"
    Analysing,
    /// "No environment check for this checkup."
    NoChecks,
    /// "Training interpreter (the Python of its venv or conda env)"
    Interpreter,
    /// "Check again with it"
    CheckAgain,
    /// "check"
    Check,
    /// "value"
    Value,
    /// "what it means"
    Meaning,
    /// "fix"
    Fix,
    /// "pass"
    Pass,
    /// "warn"
    Warn,
    /// "fail"
    Fail,
    /// "unknown"
    Unknown,
    /// "Connect to a GPU host to sample it live."
    ConnectToSample,
    /// "Seconds"
    Seconds,
    /// "Job"
    Job,
    /// "Start sampling"
    StartSampling,
    /// "Stop"
    Stop,
    /// "left"
    TimeLeft,
    /// "samples"
    Samples,
    /// "reconnects, no samples lost"
    Reconnects,
    /// "No samples yet."
    NoSamples,
    /// "starting"
    Starting,
    /// "Cannot reach {subject}. Check the host name and that `ssh {subject}` works from a …"
    ErrUnreachable,
    /// "{subject} refused the login. The app logs in with your SSH keys and ssh-agent (no …"
    ErrAuthRefused,
    /// "{subject}'s host key is not known or has changed. Connect once with `ssh {subject}` …"
    ErrHostKey,
    /// "{subject} runs {detail}; the agent is built for Linux x86-64."
    ErrUnsupportedHost,
    /// "No agent binary at {subject}: build it with `cargo build -p checkup-agent` or set …"
    ErrNoAgentBinary,
    /// "The agent did not start on the host. Connect again; if it fails again, the details …"
    ErrAgentDidNotStart,
    /// "The agent stopped (it crashed or was killed); connect again to restart it."
    ErrAgentGone,
    /// "The agent at {subject} is not answering; if you forwarded it yourself, check the …"
    ErrAgentUnreachable,
    /// "The SSH connection to {subject} failed. Check that `ssh {subject}` works from a …"
    ErrSshFailed,
    /// "The system's `ssh` program could not be started: install OpenSSH (Debian and Ubuntu: …"
    ErrNoSshClient,
    /// "The agent's answer was not understood; the app and the agent may be different …"
    ErrProtocol,
    /// "Cannot read or write {subject}: check that it exists and that you may use it."
    ErrFile,
    /// "Details"
    Details,
    /// "No GPU readings: the NVIDIA driver is not installed or not loaded on this host. Host …"
    GpuProblemNoDriver,
    /// "No GPU readings: the NVIDIA driver did not answer the agent. Run `nvidia-smi` on the …"
    GpuProblemNvml,
    /// "No GPU readings: this agent was built without NVIDIA support. Use the agent the app …"
    GpuProblemNoNvmlBuild,
    /// "The agent refused the token: check you copied the token of this agent (its token file)."
    ErrUnauthorized,
    /// "No GPU host connected: pick this computer, an SSH host or a forwarded agent first."
    ErrNoHost,
    /// "The range holds GPU metrics of several hosts ({subject}): type one of them in the …"
    ErrPromSeveralHosts,
    /// "Prometheus has no GPU metrics from {subject} in the range; hosts that have them: …"
    ErrPromUnknownHost,
    /// "Cannot reach Prometheus at {subject}: check the address (http://HOST:9090) and that …"
    ErrPromUnreachable,
    /// "Prometheus at {subject} has no DCGM-exporter GPU metrics for this host in the range: …"
    ErrPromNoMetrics,
    /// "The time range's “{subject}” does not read: give Unix seconds, RFC 3339 …"
    ErrPromBadTime,
    /// "The time range is empty: its start must come before its end."
    ErrPromEmptyRange,
    /// "“{subject}” is not a Prometheus address: give it with its scheme, as http://HOST:9090."
    ErrPromBadUrl,
    /// "{subject} did not answer as Prometheus's HTTP API does: is it the Prometheus …"
    ErrPromNotPrometheus,
    /// "Prometheus at {subject} refused the query; its reason is below. A timeout or too …"
    ErrPromRefused,
    /// "The host has no GPU {subject} in the range; its GPUs there: {detail}. Leave the GPU …"
    ErrPromUnknownGpu,
    /// "No hosts connected together: give several SSH hosts or a Slurm job first."
    ErrNoFleet,
    /// "This checkup was stored by an older version of GPU Checkup, and its recording …"
    ErrStaleDiagnosis,
    /// "Only host samples: nothing was recorded on a GPU (the host has no NVIDIA driver, or …"
    ErrNoGpuData,
    /// "sampling"
    StatusSampling,
    /// "reconnecting"
    Reconnecting,
    /// "the sample stream dropped"
    WhyStreamDropped,
    /// "the agent did not answer the stop"
    WhyStopUnanswered,
    /// "the connection dropped"
    WhyConnectionDropped,
    /// "running"
    Running,
    /// "done"
    Done,
    /// "failed"
    Failed,
    /// "Connect to a GPU host to profile a training command."
    ConnectToProfile,
    /// "Command"
    Command,
    /// "Folder"
    Cwd,
    /// "Skip steps"
    SkipSteps,
    /// "Profile steps"
    ProfileSteps,
    /// "Profile it"
    StartProfiling,
    /// "Stop the run"
    StopProfiling,
    /// "steps"
    Steps,
    /// "No profiler trace in this checkup yet."
    NoTrace,
    /// "This checkup has no diagnosis yet: sample or profile it first."
    NoDiagnosis,
    /// "Primary bottleneck"
    Primary,
    /// "Measurement window"
    Window,
    /// "confidence"
    Confidence,
    /// "of step time"
    OfStepTime,
    /// "evidence"
    Evidence,
    /// "source"
    Source,
    /// "Copy"
    Copy,
    /// "your name"
    Author,
    /// "note for the review"
    Note,
    /// "Add note"
    AddNote,
    /// "critical"
    Critical,
    /// "major"
    Major,
    /// "minor"
    Minor,
    /// "info"
    Info,
    /// "Export"
    Export,
    /// "Preview"
    Preview,
    /// "Written:"
    Written,
    /// "Make this the project's baseline"
    SetBaseline,
    /// "Compare side by side"
    Compare,
    /// "another checkup…"
    ComparePick,
    /// "Compare"
    CompareGo,
    /// "Re-run and compare"
    RerunCompare,
    /// "After applying the fix: a new checkup of the same training on this host, compared …"
    RerunHelp,
    /// "Connect to the host the training runs on (left) to re-run it after the fix."
    RerunNeedsHost,
    /// "{title}, after a fix"
    RerunTitle,
    /// "This checkup re-runs “{title}” to check a fix: start the training with the fix …"
    RerunOf,
    /// "This checkup re-ran an earlier one that has since been deleted: there is nothing to …"
    RerunOfDeleted,
    /// "Compared with the checkup before the fix"
    RerunCompared,
    /// "before"
    Before,
    /// "after"
    After,
    /// "change"
    Change,
}

impl UiWord {
    /// Every word.
    pub const ALL: [UiWord; 192] = [
        UiWord::AppTitle,
        UiWord::StoreStartedAfresh,
        UiWord::StoreReadOnly,
        UiWord::StoreNewer,
        UiWord::StoreTemporary,
        UiWord::Pick,
        UiWord::Environment,
        UiWord::Sampling,
        UiWord::Profiling,
        UiWord::Diagnosis,
        UiWord::Report,
        UiWord::JobHelp,
        UiWord::FindProcesses,
        UiWord::NoGpuProcesses,
        UiWord::UseThis,
        UiWord::GpuMemory,
        UiWord::ProcessesRecorded,
        UiWord::HoverTime,
        UiWord::HoverValue,
        UiWord::ZoomHelp,
        UiWord::ZoomReset,
        UiWord::NextStep,
        UiWord::ArrivedAfterSampling,
        UiWord::ArrivedAfterProfiling,
        UiWord::IntroEnvironment,
        UiWord::IntroEnvironmentNext,
        UiWord::IntroSampling,
        UiWord::IntroSamplingNext,
        UiWord::IntroProfiling,
        UiWord::IntroProfilingNext,
        UiWord::IntroDiagnosis,
        UiWord::IntroDiagnosisNext,
        UiWord::IntroReport,
        UiWord::IntroReportNext,
        UiWord::History,
        UiWord::Demo,
        UiWord::PickFolder,
        UiWord::PickFile,
        UiWord::RecordingHost,
        UiWord::Baseline,
        UiWord::Host,
        UiWord::NoHost,
        UiWord::NoGpu,
        UiWord::Replaying,
        UiWord::ThisComputer,
        UiWord::Ssh,
        UiWord::Forwarded,
        UiWord::Token,
        UiWord::Connect,
        UiWord::Connecting,
        UiWord::Prometheus,
        UiWord::PromHost,
        UiWord::PromGpus,
        UiWord::PromFrom,
        UiWord::PromTo,
        UiWord::PromLast,
        UiWord::ReadPrometheus,
        UiWord::ReadingPrometheus,
        UiWord::SeveralHosts,
        UiWord::ConnectFleet,
        UiWord::OrSlurmJob,
        UiWord::SlurmJob,
        UiWord::SlurmLogin,
        UiWord::ConnectSlurm,
        UiWord::ConnectingFleet,
        UiWord::FleetConnected,
        UiWord::IntroFleet,
        UiWord::FleetJob,
        UiWord::CheckFleet,
        UiWord::CheckingFleet,
        UiWord::WatchFleet,
        UiWord::DisconnectFleet,
        UiWord::FleetSame,
        UiWord::FleetDifferences,
        UiWord::ColHost,
        UiWord::ColAgent,
        UiWord::ColDriver,
        UiWord::ColGpus,
        UiWord::ColNotPassed,
        UiWord::GpusRecorded,
        UiWord::OpenItsCheckup,
        UiWord::Throttled,
        UiWord::GatherJob,
        UiWord::GatheringJob,
        UiWord::GatherJobHelp,
        UiWord::FleetLegend,
        UiWord::NewCheckup,
        UiWord::Checking,
        UiWord::OpenRecording,
        UiWord::Open,
        UiWord::Analysing,
        UiWord::NoChecks,
        UiWord::Interpreter,
        UiWord::CheckAgain,
        UiWord::Check,
        UiWord::Value,
        UiWord::Meaning,
        UiWord::Fix,
        UiWord::Pass,
        UiWord::Warn,
        UiWord::Fail,
        UiWord::Unknown,
        UiWord::ConnectToSample,
        UiWord::Seconds,
        UiWord::Job,
        UiWord::StartSampling,
        UiWord::Stop,
        UiWord::TimeLeft,
        UiWord::Samples,
        UiWord::Reconnects,
        UiWord::NoSamples,
        UiWord::Starting,
        UiWord::ErrUnreachable,
        UiWord::ErrAuthRefused,
        UiWord::ErrHostKey,
        UiWord::ErrUnsupportedHost,
        UiWord::ErrNoAgentBinary,
        UiWord::ErrAgentDidNotStart,
        UiWord::ErrAgentGone,
        UiWord::ErrAgentUnreachable,
        UiWord::ErrSshFailed,
        UiWord::ErrNoSshClient,
        UiWord::ErrProtocol,
        UiWord::ErrFile,
        UiWord::Details,
        UiWord::GpuProblemNoDriver,
        UiWord::GpuProblemNvml,
        UiWord::GpuProblemNoNvmlBuild,
        UiWord::ErrUnauthorized,
        UiWord::ErrNoHost,
        UiWord::ErrPromSeveralHosts,
        UiWord::ErrPromUnknownHost,
        UiWord::ErrPromUnreachable,
        UiWord::ErrPromNoMetrics,
        UiWord::ErrPromBadTime,
        UiWord::ErrPromEmptyRange,
        UiWord::ErrPromBadUrl,
        UiWord::ErrPromNotPrometheus,
        UiWord::ErrPromRefused,
        UiWord::ErrPromUnknownGpu,
        UiWord::ErrNoFleet,
        UiWord::ErrStaleDiagnosis,
        UiWord::ErrNoGpuData,
        UiWord::StatusSampling,
        UiWord::Reconnecting,
        UiWord::WhyStreamDropped,
        UiWord::WhyStopUnanswered,
        UiWord::WhyConnectionDropped,
        UiWord::Running,
        UiWord::Done,
        UiWord::Failed,
        UiWord::ConnectToProfile,
        UiWord::Command,
        UiWord::Cwd,
        UiWord::SkipSteps,
        UiWord::ProfileSteps,
        UiWord::StartProfiling,
        UiWord::StopProfiling,
        UiWord::Steps,
        UiWord::NoTrace,
        UiWord::NoDiagnosis,
        UiWord::Primary,
        UiWord::Window,
        UiWord::Confidence,
        UiWord::OfStepTime,
        UiWord::Evidence,
        UiWord::Source,
        UiWord::Copy,
        UiWord::Author,
        UiWord::Note,
        UiWord::AddNote,
        UiWord::Critical,
        UiWord::Major,
        UiWord::Minor,
        UiWord::Info,
        UiWord::Export,
        UiWord::Preview,
        UiWord::Written,
        UiWord::SetBaseline,
        UiWord::Compare,
        UiWord::ComparePick,
        UiWord::CompareGo,
        UiWord::RerunCompare,
        UiWord::RerunHelp,
        UiWord::RerunNeedsHost,
        UiWord::RerunTitle,
        UiWord::RerunOf,
        UiWord::RerunOfDeleted,
        UiWord::RerunCompared,
        UiWord::Before,
        UiWord::After,
        UiWord::Change,
    ];
}
