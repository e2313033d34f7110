//! Helpers shared by the connection tests: the real agent binary, built when missing.

#![allow(dead_code)]

use std::path::PathBuf;
use std::time::{Duration, Instant};

use checkup_connect::{AgentClient, SampleSubscription};
use checkup_model::{RunInfo, RunState, SamplingRequest, StreamEvent};

/// The workspace's `checkup-agent` binary, (re)built by cargo so the test runs the current code.
pub fn agent_binary() -> PathBuf {
    checkup_testkit::workspace_binary("checkup-agent", "checkup-agent")
}

/// Reads `n` events, failing after `timeout`.
pub async fn take(sub: &mut SampleSubscription, n: usize, timeout: Duration) -> Vec<StreamEvent> {
    let mut out = Vec::new();
    let deadline = Instant::now() + timeout;
    while out.len() < n {
        let left = deadline.saturating_duration_since(Instant::now());
        match tokio::time::timeout(left, sub.next()).await {
            Ok(Ok(Some(e))) => out.push(e),
            other => panic!("stream ended after {} events: {other:?}", out.len()),
        }
    }
    out
}

/// Polls a run until it is no longer running.
pub async fn wait_for_run(client: &AgentClient, id: &str, timeout: Duration) -> RunInfo {
    let deadline = Instant::now() + timeout;
    loop {
        let run = client.run(id).await.expect("run listed");
        if run.state != RunState::Running {
            return run;
        }
        assert!(
            Instant::now() < deadline,
            "run {id} still running after {timeout:?}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// Host samples at 10 Hz too (no GPU here): enough events for a stream test in a second.
pub fn host_at_10_hz() -> SamplingRequest {
    SamplingRequest {
        hz: 10.0,
        slow_hz: 10.0,
        ..Default::default()
    }
}
