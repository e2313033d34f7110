//! "This computer": the real agent process started on loopback, driven through the client.

mod common;

use std::time::Duration;

use checkup_connect::{AgentClient, ConnectError, LocalAgent};
use checkup_model::{LiveSample, RunRequest, RunState};
use common::{agent_binary, host_at_10_hz, take, wait_for_run};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_local_agent_checks_samples_and_streams_without_loss_across_a_reconnect() {
    let state = tempfile::tempdir().unwrap();
    let agent = LocalAgent::start(&agent_binary(), state.path())
        .await
        .expect("agent starts");
    assert!(
        agent.info.listening.starts_with("127.0.0.1:"),
        "{}",
        agent.info.listening
    );
    let client = &agent.client;

    let health = client.health().await.unwrap();
    assert_eq!(health.agent, env!("CARGO_PKG_VERSION"));
    if !std::path::Path::new("/proc/driver/nvidia/version").exists() {
        assert_eq!(health.gpus, 0);
        assert!(
            health
                .gpu_error
                .as_deref()
                .unwrap_or("")
                .contains("no NVIDIA driver"),
            "{health:?}"
        );
    }
    let check = client.check(&Default::default()).await.unwrap();
    assert!(
        check
            .checks
            .iter()
            .any(|c| c.id == checkup_model::CheckId::DevShm),
        "{:?}",
        check.checks.iter().map(|c| &c.id).collect::<Vec<_>>()
    );

    // A training folder with its own environment: the agent finds it and checks torch there.
    let work = tempfile::tempdir().unwrap();
    let venv_python = work.path().join(".venv/bin/python");
    std::fs::create_dir_all(venv_python.parent().unwrap()).unwrap();
    let system_python = which_python3();
    std::os::unix::fs::symlink(&system_python, &venv_python).unwrap();
    let query = checkup_model::CheckQuery {
        python: None,
        cwd: Some(work.path().display().to_string()),
    };
    let found = client.check(&query).await.unwrap();
    let venv = venv_python.display().to_string();
    assert!(
        found.interpreters.contains(&venv),
        "{:?}",
        found.interpreters
    );
    assert_eq!(found.python.as_deref(), Some(venv.as_str()));
    let torch = found
        .checks
        .iter()
        .find(|c| c.id == checkup_model::CheckId::Torch)
        .expect("a torch check");
    assert!(
        matches!(&torch.value, checkup_model::CheckValue::Torch { python, .. } if *python == venv),
        "{torch:?}"
    );
    // One the user picks wins over the one found.
    let picked = client
        .check(&checkup_model::CheckQuery {
            python: Some(system_python.display().to_string()),
            ..query
        })
        .await
        .unwrap();
    assert_eq!(picked.python, Some(system_python.display().to_string()));

    // Host sampling at 10 Hz: events flow; drop the socket, resume from the last seq.
    let id = client.start_sampling(&host_at_10_hz()).await.unwrap();
    let mut sub = client.samples(0).await.unwrap();
    let first = take(&mut sub, 5, Duration::from_secs(10)).await;
    let last = sub.last_seq();
    drop(sub);
    tokio::time::sleep(Duration::from_millis(600)).await; // samples keep coming meanwhile
    let mut sub = client.samples(last).await.unwrap();
    let after = take(&mut sub, 5, Duration::from_secs(10)).await;
    let seqs: Vec<u64> = first.iter().chain(&after).map(|e| e.seq).collect();
    assert_eq!(
        seqs,
        (1..=10).collect::<Vec<_>>(),
        "no gap and no repeat across the reconnect"
    );
    assert!(after
        .iter()
        .all(|e| matches!(e.sample, LiveSample::Host(_))));

    let stopped = client.stop_sampling().await.unwrap();
    assert_eq!(stopped, id);
    let dest = tempfile::tempdir().unwrap();
    let run_dir = client
        .download_run(&id, &dest.path().join("copy"))
        .await
        .unwrap();
    let host_csv = std::fs::read_to_string(run_dir.join("samples_host.csv")).unwrap();
    assert!(host_csv.lines().count() > 5, "{host_csv}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_command_run_through_the_agent_reports_its_output_and_exit_code() {
    let state = tempfile::tempdir().unwrap();
    let agent = LocalAgent::start(&agent_binary(), state.path())
        .await
        .unwrap();
    let work = tempfile::tempdir().unwrap();
    let mut req = RunRequest::new(vec![
        "sh".into(),
        "-c".into(),
        "pwd; echo training; exit 3".into(),
    ]);
    req.cwd = Some(work.path().display().to_string());
    let id = agent.client.start_run(&req).await.unwrap();
    let run = wait_for_run(&agent.client, &id, Duration::from_secs(30)).await;
    assert_eq!(run.state, RunState::Failed);
    assert_eq!(run.exit_code, Some(3));
    assert_eq!(run.error.as_deref(), Some("the command exited with code 3"));
    assert_eq!(
        run.output_tail,
        vec![work.path().display().to_string(), "training".to_string()]
    );

    let missing = RunRequest {
        cwd: Some("/no/such/dir".into()),
        ..RunRequest::new(vec!["true".into()])
    };
    let e = agent.client.start_run(&missing).await.unwrap_err();
    assert!(
        matches!(&e, ConnectError::Agent { status: 422, message } if message.contains("/no/such/dir")),
        "{e}"
    );
}

#[tokio::test]
async fn wrong_tokens_and_dead_agents_are_told_apart() {
    let state = tempfile::tempdir().unwrap();
    let mut agent = LocalAgent::start(&agent_binary(), state.path())
        .await
        .unwrap();
    let wrong = AgentClient::new(&agent.info.listening, "0123456789abcdef").unwrap();
    assert!(matches!(
        wrong.health().await,
        Err(ConnectError::Unauthorized)
    ));
    assert!(matches!(
        wrong.samples(0).await,
        Err(ConnectError::Unauthorized)
    ));
    assert!(AgentClient::new(&agent.info.listening, "with space").is_err());

    let addr = agent.info.listening.clone();
    agent.ensure_running().unwrap();
    let client = agent.client.clone();
    agent.stop().await;
    let e = client.health().await.unwrap_err();
    assert!(matches!(e, ConnectError::AgentUnreachable { .. }), "{e}");
    assert!(e.to_string().contains(&addr), "{e}");
}

#[tokio::test]
async fn a_missing_agent_binary_says_how_to_get_one() {
    let state = tempfile::tempdir().unwrap();
    let e = LocalAgent::start(
        std::path::Path::new("/nonexistent/checkup-agent"),
        state.path(),
    )
    .await
    .err()
    .unwrap();
    assert!(
        e.to_string().contains("cargo build -p checkup-agent"),
        "{e}"
    );
}

/// The machine's python3, resolved on PATH.
fn which_python3() -> std::path::PathBuf {
    std::env::var_os("PATH")
        .into_iter()
        .flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .map(|d| d.join("python3"))
        .find(|p| p.is_file())
        .expect("python3 on PATH")
}
