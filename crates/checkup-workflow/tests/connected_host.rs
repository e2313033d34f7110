//! The workflow without a window, against the real agent on loopback playing a recorded
//! H200 run back: a forwarded host connected as a fleet of one, a checkup started with its
//! environment check, sampling with live progress into a stored diagnosis, one live phase at
//! a time, and the host left.

use std::io::BufRead;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use checkup_model::commands as cmd;
use checkup_model::{FleetProgress, HostRequest, Language, LiveProgress, LiveStatus, WizardStep};
use checkup_workflow::{Events, Workflow, WorkflowError};

/// What the workflow reported, in order.
#[derive(Default)]
struct Heard {
    live: Mutex<Vec<LiveProgress>>,
}

impl Events for Heard {
    fn live(&self, progress: &LiveProgress) {
        self.live.lock().unwrap().push(progress.clone());
    }
    fn fleet(&self, _: &FleetProgress) {}
    fn checkups_changed(&self) {}
}

/// `checkup-agent serve --replay RECORDING`, stopped when dropped.
struct ReplayingAgent {
    child: Child,
    addr: String,
    token: String,
    _dir: tempfile::TempDir,
}

impl ReplayingAgent {
    fn start(recording: &std::path::Path) -> Self {
        let agent = checkup_testkit::workspace_binary("checkup-agent", "checkup-agent");
        let dir = tempfile::tempdir().unwrap();
        let token_file = dir.path().join("token");
        let mut child = Command::new(agent)
            .args(["serve", "--token-file"])
            .arg(&token_file)
            .arg("--runs")
            .arg(dir.path().join("runs"))
            .arg("--replay")
            .arg(recording)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let started: serde_json::Value = serde_json::from_str(&line).unwrap();
        let addr = started["listening"].as_str().unwrap().to_owned();
        let token = std::fs::read_to_string(&token_file).unwrap();
        ReplayingAgent {
            child,
            addr,
            token: token.trim().to_owned(),
            _dir: dir,
        }
    }
}

impl Drop for ReplayingAgent {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_forwarded_host_is_checked_sampled_and_its_diagnosis_stored() {
    let recording = checkup_testkit::corpus("memory_bound");
    let agent = ReplayingAgent::start(&recording);
    let data = tempfile::tempdir().unwrap();
    let heard = Arc::new(Heard::default());
    let wf = Workflow::open(
        data.path().to_path_buf(),
        &data.path().join("checkups.db"),
        heard.clone(),
    )
    .await
    .unwrap();

    // Nothing connected yet: said as such, not as a failure to reach something.
    let none = wf
        .new_checkup(cmd::NewCheckup {
            title: String::new(),
            rerun_of: None,
        })
        .await;
    assert!(matches!(none, Err(WorkflowError::NoHost)), "{none:?}");

    let info = wf
        .connect_host(cmd::ConnectHost {
            request: HostRequest::Forwarded {
                addr: agent.addr.clone(),
                token: agent.token.clone(),
            },
        })
        .await
        .unwrap();
    assert_eq!(info.label, agent.addr);

    let id = wf
        .new_checkup(cmd::NewCheckup {
            title: "  ".into(),
            rerun_of: None,
        })
        .await
        .unwrap();
    let summary = wf.store().summary(id).await.unwrap();
    assert_eq!(summary.title, format!("{} checkup", agent.addr));
    assert_eq!(summary.wizard_step, WizardStep::Environment);
    assert!(wf.store().environment(id).await.unwrap().is_some());

    let sampling = |seconds| cmd::StartSampling {
        id,
        seconds,
        pid: None,
        gpu: None,
        lang: Language::En,
    };
    let too_short = wf.start_sampling(sampling(1.0)).await;
    assert!(
        too_short.is_err_and(|e| e.to_string() == "sample for 5 s to 2 h, not 1 s"),
        "a sampling too short to read a step is refused by name"
    );
    wf.start_sampling(sampling(6.0)).await.unwrap();
    // One live phase at a time.
    let second = wf.start_sampling(sampling(6.0)).await;
    assert!(matches!(second, Err(WorkflowError::LiveBusy)), "{second:?}");

    let last = tokio::time::timeout(Duration::from_secs(90), async {
        loop {
            if let Some(p) = heard.live.lock().unwrap().last().filter(|p| p.done) {
                return p.clone();
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    })
    .await
    .expect("the sampling ends and says so");
    assert_eq!(last.status, LiveStatus::Done, "{:?}", last.error);
    assert!(last.samples > 30, "{} samples streamed", last.samples);
    let frames = heard
        .live
        .lock()
        .unwrap()
        .iter()
        .filter(|p| !p.charts.is_empty())
        .count();
    assert!(frames > 10, "the live curves were drawn {frames} times");

    // The run was downloaded into the data folder, analysed and stored with the checkup.
    let d = wf
        .store()
        .diagnosis(id)
        .await
        .unwrap()
        .expect("a diagnosis");
    // The recording's GPU, busy (its first seconds start from idle), as played back.
    let gpu = &d.samples[0];
    assert!(gpu.nvml_samples > 30, "{} NVML samples", gpu.nvml_samples);
    let util = gpu.util_gpu_mean.unwrap();
    assert!(util > 80.0, "GPU-Util {util:.1} %");
    assert!(d.sources[0].starts_with(
        &data
            .path()
            .join("recordings")
            .join(id.to_string())
            .display()
            .to_string()
    ));

    // A host left is gone: nothing starts on it.
    wf.disconnect_host(cmd::DisconnectHost {}).await.unwrap();
    let after = wf.start_sampling(sampling(6.0)).await;
    assert!(matches!(after, Err(WorkflowError::NoHost)), "{after:?}");
}
