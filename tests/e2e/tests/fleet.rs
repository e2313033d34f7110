//! Several hosts from the app, as a user with a small cluster reaches them: three SSH
//! aliases through a real `sshd` on loopback, each "node" an agent playing back the real
//! two-H200 recording `agent_ddp` (one node with persistence off on a GPU, one on an older
//! driver with a GPU's PCIe link at x8), and one alias whose key is refused. The fleet's
//! environments are compared and what stands out is named; every GPU is watched at once, and
//! each host's samples become a checkup of it. Then the nodes of a real Slurm job are found
//! through its login host and connected the same way.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use checkup_e2e::App;
use checkup_testkit::{copy_dir, corpus, host_state_dir, workspace_binary, TestSlurm, TestSshd};

/// An agent already serving on a "node", playing back a recording: the app finds it running
/// in the node's agent folder, as it finds one it started before.
struct NodeAgent(Child);

impl NodeAgent {
    /// Starts `agent` from `dir/checkup-agent` (the build the app uploads), its state where
    /// the app looks for it, replaying `recording`.
    fn start(agent: &Path, dir: &Path, recording: &Path) -> Self {
        let state = host_state_dir(dir);
        std::fs::create_dir_all(&state).unwrap();
        let binary = dir.join("checkup-agent");
        std::fs::copy(agent, &binary).unwrap();
        let child = Command::new(&binary)
            .arg("serve")
            .args(["--listen", "127.0.0.1:0", "--state-file"])
            .arg(state.join("agent.json"))
            .arg("--token-file")
            .arg(state.join("token"))
            .arg("--runs")
            .arg(state.join("runs"))
            .arg("--replay")
            .arg(recording)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let deadline = std::time::Instant::now() + Duration::from_secs(20);
        while !state.join("agent.json").is_file() {
            assert!(
                std::time::Instant::now() < deadline,
                "no agent.json in {}",
                state.display()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        NodeAgent(child)
    }
}

impl Drop for NodeAgent {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `agent_ddp` (two H200s) copied into `dir`, its recorded GPU facts edited by `edit`.
fn recording(dir: &Path, edit: impl FnOnce(&mut serde_json::Value)) -> PathBuf {
    copy_dir(&corpus("agent_ddp"), dir);
    let facts = dir.join("static/facts.json");
    let mut v: serde_json::Value = serde_json::from_slice(&std::fs::read(&facts).unwrap()).unwrap();
    edit(&mut v);
    std::fs::write(&facts, serde_json::to_vec_pretty(&v).unwrap()).unwrap();
    dir.to_path_buf()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fleet_of_ssh_hosts_is_compared_watched_and_kept_as_a_checkup_per_host() {
    let slurm = TestSlurm::start("node-1");
    let conf = slurm.conf();
    let sshd = TestSshd::start_with_env(&[("SLURM_CONF", conf.as_path())]);
    let agent = workspace_binary("checkup-agent", "checkup-agent");
    let recordings = tempfile::tempdir().unwrap();
    let r = recordings.path();
    let node1 = recording(&r.join("node-1"), |_| {});
    let node2 = recording(&r.join("node-2"), |f| {
        f["gpus"][1]["persistence_mode"] = false.into();
    });
    let node3 = recording(&r.join("node-3"), |f| {
        f["driver_version"] = "570.86.15".into();
        f["gpus"][0]["pcie_width_current"] = 8.into();
    });
    let remote = sshd.remote_dir();
    let _agents: Vec<NodeAgent> = [("node-1", &node1), ("node-2", &node2), ("node-3", &node3)]
        .iter()
        .map(|(name, rec)| NodeAgent::start(&agent, &remote.join(name), rec))
        .collect();
    let app = App::launch(
        "fleet",
        &[
            ("GPU_CHECKUP_SSH_CONFIG", OsString::from(sshd.config_file())),
            (
                "GPU_CHECKUP_REMOTE_DIR",
                OsString::from(format!("{}/{{host}}", remote.display())),
            ),
            ("GPU_CHECKUP_REMOTE_AGENT", OsString::from(&agent)),
        ],
    )
    .await;

    app.click("#fleet-connect summary").await;
    // The refused host first: the others keep their own places (their environment checks
    // go with their checkups).
    app.type_into("#fleet-hosts", "wrong-key node-1, node-2 node-3")
        .await;
    app.click("#connect-fleet").await;
    let table = app
        .wait_for_text("#fleet-hosts-table", Duration::from_secs(90), |t| {
            t.matches("agent ").count() >= 3
        })
        .await;
    eprintln!("{table}");
    assert_eq!(app.count("#fleet-hosts-table tr").await, 5, "{table}");
    assert_eq!(
        app.text("#open-fleet").await,
        "Several hosts: 3 of 4 connected"
    );
    // The refused host says so in its row; the others connected all the same.
    let refused = app.text("#fleet-hosts-table tr:nth-child(2)").await;
    assert!(refused.starts_with("wrong-key"), "{refused}");
    assert!(refused.contains("refused"), "{refused}");
    // Each node's agent reads the two recorded H200s.
    assert_eq!(table.matches("agent 0.1.0 · 2 GPU").count(), 3, "{table}");

    app.click("#check-fleet").await;
    let differences = app
        .wait_for_text("#fleet-differences", Duration::from_secs(120), |t| {
            !t.is_empty()
        })
        .await;
    assert!(differences.starts_with("node-2: "), "{differences}");
    let mut lines = Vec::new();
    for i in 1..=app.count("#fleet-differences li").await {
        lines.push(
            app.text(&format!("#fleet-differences li:nth-child({i})"))
                .await,
        );
    }
    assert_eq!(
        lines,
        [
            "node-2: persistence mode is off on GPU 1 while other hosts keep it on. Each new process waits for the driver to load, and settings may reset between runs.",
            "node-3: driver 570.86.15, older than the 580.159.04 other hosts run. It runs other CUDA and NCCL code: this host can be slower, or fail where the others do not.",
            "node-3: GPU 0's PCIe link is Gen5 x8 where the same GPUs on other hosts have Gen5 x16. Copies between host and GPU (input batches, checkpoints) are slower there: check the slot, riser or BIOS setting.",
        ]
    );
    let table = app.text("#fleet-hosts-table").await;
    assert!(table.contains("570.86.15"), "{table}");
    assert!(table.contains("2 × NVIDIA H200"), "{table}");
    assert_eq!(app.count("#fleet-hosts-table tr.stands-out").await, 2);
    app.screenshot("1-environments-compared").await;

    // Long enough to reach the recording's training steps (it starts idle).
    app.type_into("#fleet-seconds", "15").await;
    app.click("#watch-fleet").await;
    // Every GPU of the three hosts, with its curve, while they are watched.
    app.wait_for_count(".fleet-gpu .glance svg", 6, Duration::from_secs(40))
        .await;
    let readings = app.text(".fleet-host").await;
    assert!(readings.contains("GPU-Util"), "{readings}");
    app.scroll_to(".fleet-grid").await;
    app.screenshot("2-watching").await;
    app.wait_for_count(".open-host-checkup", 3, Duration::from_secs(120))
        .await;
    app.scroll_to(".fleet-grid").await;
    app.screenshot("3-watched").await;
    let store = checkup_store::Store::open(&app.database()).await.unwrap();
    let kept: Vec<_> = store
        .list()
        .await
        .unwrap()
        .into_iter()
        .filter(|c| !c.is_demo)
        .collect();
    let mut hosts: Vec<&str> = kept.iter().map(|c| c.host.as_str()).collect();
    hosts.sort();
    assert_eq!(hosts, ["node-1", "node-2", "node-3"]);
    for c in &kept {
        let d = store.diagnosis(c.id).await.unwrap();
        assert!(
            d.is_some_and(|d| !d.charts.gpus.is_empty()),
            "{} has its samples",
            c.host
        );
        assert!(
            store.environment(c.id).await.unwrap().is_some(),
            "{} keeps its environment check",
            c.host
        );
    }

    // The same page in Chinese: the differences are worded there too.
    app.click("#lang-zh").await;
    let zh = app
        .wait_for_text("#fleet-differences", Duration::from_secs(10), |t| {
            t.starts_with("node-2：")
        })
        .await;
    assert!(zh.contains("GPU 0 的 PCIe 链路为 Gen5 x8"), "{zh}");
    app.screenshot("4-environments-compared-zh").await;
    app.click("#lang-en").await;

    // A two-host job's run folders, as `checkup-agent run` left them on each host (each
    // rank's trace summarised beside it), copied and diagnosed from the fleet of its hosts.
    // Connecting the fleet anew leaves the one before: its agents stop, and these hosts'
    // agents are started afresh (no recording to play back: this machine's own readings).
    for node in ["node0", "node1"] {
        let run = remote.join("job").join(node);
        copy_dir(&corpus("two_node_slow_rank").join(node), &run);
        let summarised = Command::new(&agent)
            .arg("summarize")
            .arg(&run)
            .output()
            .unwrap();
        assert!(summarised.status.success(), "{summarised:?}");
    }
    app.type_into("#fleet-hosts", "node-1 node-2").await;
    app.click("#connect-fleet").await;
    app.wait_for_text("#open-fleet", Duration::from_secs(60), |t| {
        t == "Several hosts: 2 of 2 connected"
    })
    .await;
    app.type_into(
        "#fleet-job-path",
        &format!("{}/job/node{{node}}", remote.display()),
    )
    .await;
    app.click("#gather-fleet-job").await;
    let rank = app
        .wait_for_text("#diagnosed-rank", Duration::from_secs(90), |t| {
            !t.is_empty()
        })
        .await;
    assert_eq!(
        rank,
        "Diagnosed rank: 3 on vm#1 (the slowest; the others wait for it)"
    );
    assert_eq!(app.text("#checkup-title").await, "Job on node-1, node-2");
    let page = app.text("main").await;
    // Rank 3's trace was read; the others' summaries stand for theirs.
    assert!(
        page.contains("Ranks 0–2 were measured on their hosts"),
        "{page}"
    );
    app.screenshot("5-job-gathered").await;
    let (store, job) = app.stored("Job on node-1, node-2").await;
    let folder = std::path::PathBuf::from(job.source.clone().expect("its copied folders"));
    // Only the followed rank's trace came; the others' stayed on their hosts.
    assert!(folder.join("node-2/rank3/trace.json.gz").is_file());
    assert!(!folder.join("node-1/rank0/trace.json.gz").exists());
    assert!(store.diagnosis(job.id).await.unwrap().is_some());
    app.click("#open-fleet").await;

    // A running Slurm job's node, found through the login host and reached through it. The
    // fleet before is left first: its agents stop, so this node's agent is started afresh
    // (no recording to play back: this machine's own, GPU-less, readings).
    let job = slurm.submit_running("sleep 120");
    app.type_into("#slurm-job", &job).await;
    app.type_into("#slurm-login", "gpu-host").await;
    app.click("#connect-slurm").await;
    let on_job = app
        .wait_for_text("#fleet-job", Duration::from_secs(90), |t| !t.is_empty())
        .await;
    assert_eq!(on_job, format!("Slurm job {job} (RUNNING)"));
    let table = app
        .wait_for_text("#fleet-hosts-table", Duration::from_secs(30), |t| {
            t.contains("agent ")
        })
        .await;
    assert!(
        table.contains("node-1") && table.contains("agent 0.1.0"),
        "{table}"
    );
    assert_eq!(app.count("#fleet-hosts-table tr").await, 2);
    app.screenshot("6-slurm-job").await;
    app.quit().await;
}
