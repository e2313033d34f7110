//! "This computer": the bundled agent started as a child process on loopback.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use checkup_model::ServeInfo;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, BufReader};
use tokio::process::{Child, Command};

use crate::client::AgentClient;
use crate::error::{ConnectError, Result};

/// Where the bundled agent binary is: `GPU_CHECKUP_AGENT`, else `checkup-agent` next to the
/// running program (how the app ships it and how cargo builds it).
pub fn bundled_agent() -> PathBuf {
    if let Some(p) = std::env::var_os("GPU_CHECKUP_AGENT") {
        return PathBuf::from(p);
    }
    let exe = std::env::current_exe().unwrap_or_default();
    let dir = exe.parent().unwrap_or(Path::new("."));
    // Test binaries live one level down, in target/<profile>/deps.
    [dir.join("checkup-agent"), dir.join("../checkup-agent")]
        .into_iter()
        .find(|p| p.is_file())
        .unwrap_or_else(|| dir.join("checkup-agent"))
}

/// A running local agent; it is stopped when this is dropped.
pub struct LocalAgent {
    child: Child,
    /// What the agent said when it started: its address, token file, runs folder and PID.
    pub info: ServeInfo,
    /// A client of it.
    pub client: AgentClient,
}

impl LocalAgent {
    /// Starts `binary serve` with its token and runs under `state_dir` and waits for its
    /// startup line.
    pub async fn start(binary: &Path, state_dir: &Path) -> Result<Self> {
        if !binary.is_file() {
            return Err(ConnectError::NoAgentBinary(binary.to_path_buf()));
        }
        std::fs::create_dir_all(state_dir).map_err(|e| ConnectError::io(state_dir, e))?;
        let token_file = state_dir.join("token");
        let mut child = Command::new(binary)
            .arg("serve")
            .args(["--listen", "127.0.0.1:0"])
            .arg("--token-file")
            .arg(&token_file)
            .arg("--runs")
            .arg(state_dir.join("runs"))
            // Killed with the app even when the app is killed without a word.
            .arg("--exit-with-parent")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| ConnectError::AgentDidNotStart(format!("{}: {e}", binary.display())))?;
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| ConnectError::AgentDidNotStart("no stdout".into()))?;
        let mut line = String::new();
        let read = tokio::time::timeout(
            Duration::from_secs(15),
            BufReader::new(stdout).read_line(&mut line),
        )
        .await;
        let info: Option<ServeInfo> = serde_json::from_str(line.trim()).ok();
        let Some(info) = info.filter(|_| matches!(read, Ok(Ok(n)) if n > 0)) else {
            let mut err = String::new();
            if let Some(mut e) = child.stderr.take() {
                let _ =
                    tokio::time::timeout(Duration::from_secs(2), e.read_to_string(&mut err)).await;
            }
            let _ = child.kill().await;
            return Err(ConnectError::AgentDidNotStart(if err.trim().is_empty() {
                "no startup line within 15 s".into()
            } else {
                err.trim().to_owned()
            }));
        };
        let token = std::fs::read_to_string(&info.token_file)
            .map_err(|e| ConnectError::io(&info.token_file, e))?;
        let client = AgentClient::new(&info.listening, &token)?;
        Ok(Self {
            child,
            info,
            client,
        })
    }

    /// `Err(AgentGone)` when the agent process has exited.
    pub fn ensure_running(&mut self) -> Result<()> {
        match self.child.try_wait() {
            Ok(None) => Ok(()),
            Ok(Some(status)) => Err(ConnectError::AgentGone(format!(" ({status})"))),
            Err(e) => Err(ConnectError::AgentGone(format!(" ({e})"))),
        }
    }

    /// Stops the agent.
    pub async fn stop(mut self) {
        let _ = self.child.kill().await;
    }
}
