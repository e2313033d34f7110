//! A GPU host reached with the system OpenSSH client. One master connection (ControlMaster)
//! carries everything: the agent's upload, its start, reading its token and the port forward,
//! so the user authenticates once, with their keys, agent, jump hosts and known_hosts as
//! already set up. The remote agent outlives a dropped connection (it exits by itself after
//! `--idle-exit`), so a reconnect finds it again and resumes the sample stream.

use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};
use std::str::FromStr;
use std::time::{Duration, Instant};

use checkup_model::ServeInfo;
use tokio::io::AsyncReadExt;
use tokio::process::{Child, Command};

use crate::client::AgentClient;
use crate::error::{ConnectError, Result};

/// Where the agent lives on the remote host (a `sh` word: `~` is expanded there).
pub const DEFAULT_REMOTE_DIR: &str = "~/.cache/gpu-checkup";

/// Shell test (with `$d` the agent's folder and `$pid` from its state file): the process is
/// this folder's agent serving. A state file left by an agent that died with the host (a
/// reboot, an OOM kill) names a pid the system may since have given to any process of the
/// user; that one must neither be taken for the agent nor be killed as another build.
const PID_IS_THIS_AGENT: &str = "[ -n \"$pid\" ] && [ \"$(tr '\\0' ' ' < /proc/\"$pid\"/cmdline 2>/dev/null | cut -d' ' -f1-2)\" = \"$d/checkup-agent serve\" ]";

/// Shell assignment (after `d=`): `$h`, this host's own folder inside the agent's folder.
/// The agent binary is shared; its state file, token, runs and log are the host's: a
/// cluster's nodes often share one home over NFS, and each node runs an agent of its own.
const HOST_STATE: &str = "h=\"$d/hosts/$(uname -n)\"";

/// The remote agent exits after this long without a client, sampling or a run.
const REMOTE_IDLE_EXIT_S: u64 = 1800;

/// Which host and how to reach it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SshTarget {
    /// An `~/.ssh/config` alias, `host` or `user@host`.
    pub destination: String,
    /// The SSH port, when not the config's or 22.
    pub port: Option<u16>,
    /// An ssh_config file to use instead of `~/.ssh/config` (`ssh -F`).
    pub config_file: Option<PathBuf>,
    /// The agent's folder on the host.
    pub remote_dir: String,
    /// A host to reach it through (`ssh -J`): a cluster's login host for its nodes.
    pub jump: Option<String>,
}

impl FromStr for SshTarget {
    type Err = ConnectError;

    /// `alias`, `host`, `user@host`, `user@host:port`, `user@[::1]:port`.
    fn from_str(spec: &str) -> Result<Self> {
        let spec = spec.trim();
        let bad = |why: &str| {
            ConnectError::Invalid(format!("`{spec}` is not an SSH host: {why}. Use an ~/.ssh/config alias or user@host[:port]"))
        };
        if spec.is_empty() {
            return Err(bad("it is empty"));
        }
        // A leading '-' would be read by ssh as an option.
        if spec.starts_with('-') || spec.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err(bad("it starts with '-' or has spaces"));
        }
        let (user, rest) = match spec.rsplit_once('@') {
            Some((u, r)) if !u.is_empty() => (Some(u), r),
            Some(_) => return Err(bad("the user before '@' is empty")),
            None => (None, spec),
        };
        let (host, port) = if let Some(inner) = rest.strip_prefix('[') {
            let (h, after) = inner
                .split_once(']')
                .ok_or_else(|| bad("'[' without ']'"))?;
            let port = match after.strip_prefix(':') {
                Some(p) => Some(
                    p.parse::<u16>()
                        .map_err(|_| bad("the port is not a number from 1 to 65535"))?,
                ),
                None if after.is_empty() => None,
                None => return Err(bad("unexpected text after ']'")),
            };
            (h.to_owned(), port)
        } else {
            match rest.rsplit_once(':') {
                Some((h, p)) if !h.contains(':') => (
                    h.to_owned(),
                    Some(
                        p.parse::<u16>()
                            .map_err(|_| bad("the port is not a number from 1 to 65535"))?,
                    ),
                ),
                _ => (rest.to_owned(), None),
            }
        };
        if host.is_empty() {
            return Err(bad("the host name is empty"));
        }
        if port == Some(0) {
            return Err(bad("port 0"));
        }
        let destination = match user {
            Some(u) => format!("{u}@{host}"),
            None => host,
        };
        Ok(Self {
            destination,
            port,
            config_file: None,
            remote_dir: DEFAULT_REMOTE_DIR.into(),
            jump: None,
        })
    }
}

impl SshTarget {
    /// Puts the agent in `template` on the host, `{host}` replaced by this host's name as
    /// given (characters a folder name cannot hold as `_`): one folder per host where hosts
    /// share a home and even a host name (containers, or one machine reached by several
    /// aliases).
    pub fn set_remote_dir(&mut self, template: &str) {
        self.remote_dir = template.replace("{host}", &folder_name(&self.destination));
    }
}

/// A host's name as a folder name: characters other than letters, digits and `._-` as `_`
/// (`alice@10.0.0.7` → `alice_10.0.0.7`).
pub fn folder_name(host: &str) -> String {
    host.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "._-".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
}

impl std::fmt::Display for SshTarget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.port {
            Some(p) => write!(f, "{}:{p}", self.destination),
            None => f.write_str(&self.destination),
        }
    }
}

/// Classifies ssh's stderr into what the user should do.
fn ssh_error(host: &str, stderr: &str) -> ConnectError {
    let detail = stderr
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("Warning: Permanently added"))
        .collect::<Vec<_>>()
        .join(" ");
    let host = host.to_owned();
    let has = |s: &str| detail.contains(s);
    if has("Permission denied") || has("Too many authentication failures") {
        ConnectError::AuthRefused { host, detail }
    } else if has("Host key verification failed")
        || has("HOST IDENTIFICATION HAS CHANGED")
        || has("host key is known")
    {
        ConnectError::HostKey { host, detail }
    } else if has("Could not resolve")
        || has("Connection refused")
        || has("timed out")
        || has("No route to host")
        || has("Network is unreachable")
        || has("Connection closed")
        || has("Connection reset")
    {
        ConnectError::Unreachable { host, detail }
    } else {
        ConnectError::Ssh {
            host,
            detail: if detail.is_empty() {
                "no message from ssh".into()
            } else {
                detail
            },
        }
    }
}

/// The exit status of the start command when the file on the host is not the bundled agent.
const CHECKSUM_MISMATCH: i32 = 97;

/// The SHA-256 of the agent binary, hex: the remote copy is replaced when it differs.
fn sha256_hex(path: &Path) -> Result<String> {
    use sha2::Digest;
    let bytes = std::fs::read(path).map_err(|e| ConnectError::io(path, e))?;
    Ok(sha2::Sha256::digest(&bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect())
}

/// The agent on an SSH host, reachable on a local forwarded port.
pub struct SshAgent {
    /// The host connected to.
    pub target: SshTarget,
    control_dir: tempfile::TempDir,
    master: Child,
    /// What the agent said when it started on the host: its address, token file, runs
    /// folder and PID.
    pub info: ServeInfo,
    /// A client of it through the forwarded port.
    pub client: AgentClient,
    /// What happened while connecting ("uploaded the agent", ...), for the UI.
    pub log: Vec<String>,
}

impl SshAgent {
    /// Connects, uploads `agent_binary` if the host lacks it or has another build, starts it
    /// (or finds it running), forwards its port and reads its token.
    pub async fn connect(target: SshTarget, agent_binary: &Path) -> Result<Self> {
        if !target
            .remote_dir
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "~/._-".contains(c))
        {
            return Err(ConnectError::Invalid(format!(
                "remote folder `{}` may only use letters, digits and ~/._-",
                target.remote_dir
            )));
        }
        if !agent_binary.is_file() {
            return Err(ConnectError::NoAgentBinary(agent_binary.to_path_buf()));
        }
        let control_dir = tempfile::Builder::new()
            .prefix("gpu-checkup-ssh")
            .tempdir()
            .map_err(|e| ConnectError::io(std::env::temp_dir(), e))?;
        let master = start_master(&target, &control_dir.path().join("master")).await?;
        let mut log = Vec::new();
        let mut session = Session {
            target: &target,
            control: control_dir.path().join("master"),
        };
        let info = session.ensure_agent(agent_binary, &mut log).await?;
        let client = session.forward(&info).await?;
        Ok(Self {
            target,
            control_dir,
            master,
            info,
            client,
            log,
        })
    }

    /// After a dropped connection: a new master if the old one died, the same agent found
    /// again (it kept sampling), a new forward and client. The sample stream then resumes
    /// from its last sequence number.
    pub async fn reconnect(&mut self) -> Result<()> {
        let control = self.control_dir.path().join("master");
        let alive = matches!(self.master.try_wait(), Ok(None))
            && control_check(&self.target, &control).await;
        if !alive {
            let _ = self.master.kill().await;
            let _ = std::fs::remove_file(&control);
            self.master = start_master(&self.target, &control).await?;
        }
        let session = Session {
            target: &self.target,
            control,
        };
        let info = session
            .running_agent()
            .await?
            .ok_or_else(|| ConnectError::AgentGone(format!(" on {}", self.target)))?;
        self.client = session.forward(&info).await?;
        self.info = info;
        Ok(())
    }

    /// Runs a shell command on the host over the master connection.
    pub async fn exec(&self, script: &str) -> Result<Output> {
        Session {
            target: &self.target,
            control: self.control_dir.path().join("master"),
        }
        .exec(script, None)
        .await
    }

    /// Stops the remote agent and closes the connection.
    pub async fn disconnect(mut self) {
        // The agent may have exited on its own since (idle exit) and its pid been reused.
        let script = format!(
            "d={}; pid={}; {PID_IS_THIS_AGENT} && kill \"$pid\" 2>/dev/null",
            self.target.remote_dir, self.info.pid
        );
        let _ = self.exec(&script).await;
        let _ = self.master.kill().await;
    }
}

/// A host reached for its files and commands only, no agent: one master connection, so the
/// user authenticates once however many commands follow (`checkup gather`).
pub struct SshHost {
    /// The host connected to.
    pub target: SshTarget,
    control_dir: tempfile::TempDir,
    master: Child,
}

impl SshHost {
    /// Opens the master connection (keys, ssh-agent, jump hosts as ssh_config says).
    pub async fn connect(target: SshTarget) -> Result<Self> {
        let control_dir = tempfile::Builder::new()
            .prefix("gpu-checkup-ssh")
            .tempdir()
            .map_err(|e| ConnectError::io(std::env::temp_dir(), e))?;
        let master = start_master(&target, &control_dir.path().join("master")).await?;
        Ok(Self {
            target,
            control_dir,
            master,
        })
    }

    fn session(&self) -> Session<'_> {
        Session {
            target: &self.target,
            control: self.control_dir.path().join("master"),
        }
    }

    /// Runs a shell command on the host; its output is returned whole (keep it small).
    pub async fn exec(&self, script: &str) -> Result<Output> {
        self.session().exec(script, None).await
    }

    /// Runs a shell command on the host with its standard output written to the file `out`
    /// as it comes (archives of any size); returns its exit status and standard error.
    pub async fn exec_into(
        &self,
        script: &str,
        out: &Path,
    ) -> Result<(std::process::ExitStatus, String)> {
        self.session().exec_into(script, out).await
    }

    /// Closes the master connection.
    pub async fn close(mut self) {
        let _ = self.master.kill().await;
    }
}

fn base_args(target: &SshTarget, control: &Path) -> Vec<String> {
    let mut args: Vec<String> = [
        // No prompts: the app has no terminal. Keys and ssh-agent work; known_hosts is honoured.
        "-o",
        "BatchMode=yes",
        "-o",
        "ConnectTimeout=10",
        "-o",
        "ServerAliveInterval=10",
        "-o",
        "ServerAliveCountMax=3",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    args.push("-S".into());
    args.push(control.display().to_string());
    if let Some(p) = target.port {
        args.extend(["-p".into(), p.to_string()]);
    }
    if let Some(f) = &target.config_file {
        args.extend(["-F".into(), f.display().to_string()]);
    }
    if let Some(j) = &target.jump {
        args.extend(["-J".into(), j.clone()]);
    }
    args
}

fn ssh() -> Command {
    let mut c = Command::new("ssh");
    c.kill_on_drop(true);
    c
}

async fn control_check(target: &SshTarget, control: &Path) -> bool {
    ssh()
        .args(base_args(target, control))
        .args(["-O", "check", "--", &target.destination])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .await
        .is_ok_and(|s| s.success())
}

/// Starts the master connection and waits until it accepts sessions (or says why not).
async fn start_master(target: &SshTarget, control: &Path) -> Result<Child> {
    let mut child = ssh()
        .args(base_args(target, control))
        .args([
            "-M",
            "-N",
            "-o",
            "ControlPersist=no",
            "--",
            &target.destination,
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(ConnectError::NoSshClient)?;
    let started = Instant::now();
    loop {
        if let Ok(Some(_)) = child.try_wait() {
            let mut err = String::new();
            if let Some(mut e) = child.stderr.take() {
                let _ = e.read_to_string(&mut err).await;
            }
            return Err(ssh_error(&target.to_string(), &err));
        }
        if control.exists() && control_check(target, control).await {
            return Ok(child);
        }
        if started.elapsed() > Duration::from_secs(40) {
            let _ = child.kill().await;
            return Err(ConnectError::Unreachable {
                host: target.to_string(),
                detail: "no answer within 40 s".into(),
            });
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

struct Session<'a> {
    target: &'a SshTarget,
    control: PathBuf,
}

impl Session<'_> {
    /// `ssh` running `script` on the host over the master connection.
    fn command(&self, script: &str) -> Command {
        let mut cmd = ssh();
        cmd.args(base_args(self.target, &self.control)).args([
            "-o",
            "ControlMaster=no",
            "--",
            &self.target.destination,
            script,
        ]);
        cmd
    }

    /// 255 is ssh's own failure (the connection); other codes are the script's.
    fn check_connection(&self, status: std::process::ExitStatus, stderr: &str) -> Result<()> {
        match status.code() {
            Some(255) => Err(ssh_error(&self.target.to_string(), stderr)),
            _ => Ok(()),
        }
    }

    async fn exec(&self, script: &str, stdin_file: Option<&Path>) -> Result<Output> {
        let stdin = match stdin_file {
            Some(p) => Stdio::from(std::fs::File::open(p).map_err(|e| ConnectError::io(p, e))?),
            None => Stdio::null(),
        };
        let out = self
            .command(script)
            .stdin(stdin)
            .output()
            .await
            .map_err(ConnectError::NoSshClient)?;
        self.check_connection(out.status, &String::from_utf8_lossy(&out.stderr))?;
        Ok(out)
    }

    /// [`Session::exec`] with standard output written to the file `out` as it comes.
    async fn exec_into(
        &self,
        script: &str,
        out: &Path,
    ) -> Result<(std::process::ExitStatus, String)> {
        let file = std::fs::File::create(out).map_err(|e| ConnectError::io(out, e))?;
        let mut child = self
            .command(script)
            .stdin(Stdio::null())
            .stdout(Stdio::from(file))
            .stderr(Stdio::piped())
            .spawn()
            .map_err(ConnectError::NoSshClient)?;
        let mut err = String::new();
        if let Some(mut e) = child.stderr.take() {
            let _ = e.read_to_string(&mut err).await;
        }
        let status = child.wait().await.map_err(ConnectError::NoSshClient)?;
        self.check_connection(status, &err)?;
        Ok((status, err))
    }

    fn dir(&self) -> &str {
        &self.target.remote_dir
    }

    /// The agent running on the host per its state file, if its process is alive and still
    /// that agent.
    async fn running_agent(&self) -> Result<Option<ServeInfo>> {
        // One round trip: the state file, then "alive" if its pid still runs.
        let d = self.dir();
        let script = format!(
            "d={d}; {HOST_STATE}; f=\"$h/agent.json\"; cat \"$f\" 2>/dev/null || exit 0; echo; \
             pid=$(sed -n 's/.*\"pid\":\\([0-9]*\\).*/\\1/p' \"$f\"); \
             {PID_IS_THIS_AGENT} && echo alive"
        );
        let out = self.exec(&script, None).await?;
        let text = String::from_utf8_lossy(&out.stdout);
        let mut lines = text.lines();
        let Ok(info) = serde_json::from_str::<ServeInfo>(lines.next().unwrap_or("")) else {
            return Ok(None);
        };
        Ok((lines.next() == Some("alive")).then_some(info))
    }

    async fn ensure_agent(
        &mut self,
        agent_binary: &Path,
        log: &mut Vec<String>,
    ) -> Result<ServeInfo> {
        let d = self.dir().to_owned();
        let host = self.target.to_string();
        // The platform, the agent's copy in its folder (an empty line when there is none),
        // and any `checkup-agent` installed on the host (`pip install gpu-checkup`, the
        // server tarball or the .deb: on the PATH a command sees, or pip's user folder,
        // which a non-interactive shell often leaves off it).
        let probe = self
            .exec(
                &format!(
                    "d={d}; uname -sm; echo \"$(sha256sum \"$d/checkup-agent\" 2>/dev/null | cut -c1-64)\"; \
                     for p in \"$(command -v checkup-agent 2>/dev/null)\" \"$HOME/.local/bin/checkup-agent\"; do \
                     [ -f \"$p\" ] && echo \"$(sha256sum \"$p\" | cut -c1-64) $p\"; done"
                ),
                None,
            )
            .await?;
        let text = String::from_utf8_lossy(&probe.stdout).into_owned();
        let mut lines = text.lines();
        let platform = lines.next().unwrap_or("").trim().to_owned();
        if platform != "Linux x86_64" {
            return Err(ConnectError::UnsupportedHost {
                host,
                platform: if platform.is_empty() {
                    "an unknown system".into()
                } else {
                    platform
                },
            });
        }
        let remote_sha = lines.next().unwrap_or("").trim().to_owned();
        let installed = installed_agents(lines);
        let local_sha = sha256_hex(agent_binary)?;
        if remote_sha != local_sha {
            // Another build may be serving: stop it before replacing it.
            if let Some(old) = self.running_agent().await? {
                let _ = self
                    .exec(
                        &format!(
                            "d={d}; {HOST_STATE}; kill {} 2>/dev/null; rm -f \"$h/agent.json\"",
                            old.pid
                        ),
                        None,
                    )
                    .await;
                log.push(format!("stopped agent {} (another build)", old.agent));
            }
            // This app's build installed on the host is copied there: nothing crosses the
            // link. Another build is left as it is, and this app's uploaded beside it.
            let same_build = installed.iter().find(|(sha, _)| *sha == local_sha);
            let write = |source: &str| {
                format!("d={d}; p=\"$d/checkup-agent.part.$$\"; mkdir -p \"$d\" && chmod 700 \"$d\" && {source} > \"$p\" && chmod 700 \"$p\" && mv -f \"$p\" \"$d/checkup-agent\" || {{ rm -f \"$p\"; exit 1; }}")
            };
            let up = match same_build {
                Some((_, path)) => {
                    self.exec(&write(&format!("cat {}", shell_word(path))), None)
                        .await?
                }
                None => self.exec(&write("cat"), Some(agent_binary)).await?,
            };
            if !up.status.success() {
                return Err(ConnectError::Ssh {
                    host,
                    detail: format!(
                        "{} failed: {}",
                        if same_build.is_some() {
                            "copying the installed agent"
                        } else {
                            "uploading the agent"
                        },
                        String::from_utf8_lossy(&up.stderr).trim()
                    ),
                });
            }
            match same_build {
                Some((_, path)) => log.push(format!(
                    "copied the agent installed at {path} (this app's build) to {d}: nothing uploaded"
                )),
                None => {
                    for (_, path) in &installed {
                        log.push(format!(
                            "{path} is another build of the agent than this app's ({v}: pip install gpu-checkup=={v} matches it); left as it is",
                            v = env!("CARGO_PKG_VERSION")
                        ));
                    }
                    log.push(format!(
                        "uploaded the agent to {d} ({} MB)",
                        std::fs::metadata(agent_binary).map_or(0, |m| m.len() / 1_000_000)
                    ));
                }
            }
        }
        if let Some(info) = self.running_agent().await? {
            log.push(format!("found the agent running (pid {})", info.pid));
            return Ok(info);
        }
        // Checked again right before it runs: the file is started only if it is still the
        // bundled build (nothing replaced it since the check above or the upload). A state
        // file left behind stays: it names no live agent (`running_agent` checks), and
        // removing it here would remove the one an agent started at the same moment by
        // another app just wrote; that agent holds the runs folder, and this one is refused
        // and the other's found. Each upload writes a part file of its own, renamed whole.
        let start = format!(
            "d={d}; test \"$(sha256sum \"$d/checkup-agent\" 2>/dev/null | cut -c1-64)\" = {local_sha} || exit {CHECKSUM_MISMATCH}; {HOST_STATE}; mkdir -p \"$h\" && chmod 700 \"$h\" || exit 1; cd \"$HOME\" || exit 1; nohup \"$d/checkup-agent\" serve --listen 127.0.0.1:0 --state-file \"$h/agent.json\" --token-file \"$h/token\" --runs \"$h/runs\" --idle-exit {REMOTE_IDLE_EXIT_S} > \"$h/agent.log\" 2>&1 < /dev/null &"
        );
        let run = self.exec(&start, None).await?;
        if run.status.code() == Some(CHECKSUM_MISMATCH) {
            return Err(ConnectError::Ssh {
                host,
                detail: format!(
                    "{d}/checkup-agent is not the agent this app bundles (its SHA-256 differs from {local_sha}); it was not started"
                ),
            });
        }
        let started = Instant::now();
        while started.elapsed() < Duration::from_secs(20) {
            if let Some(info) = self.running_agent().await? {
                log.push(format!("started the agent (pid {})", info.pid));
                return Ok(info);
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        let tail = self
            .exec(
                &format!("d={d}; {HOST_STATE}; tail -n 20 \"$h/agent.log\" 2>/dev/null"),
                None,
            )
            .await?;
        let why = String::from_utf8_lossy(&tail.stdout).trim().to_owned();
        Err(ConnectError::AgentDidNotStart(if why.is_empty() {
            format!("no agent.json on {host} within 20 s")
        } else {
            why
        }))
    }

    /// Forwards a free local port to the agent and returns a client that has answered.
    async fn forward(&self, info: &ServeInfo) -> Result<AgentClient> {
        let token_out = self
            .exec(&format!("cat {}", shell_word(&info.token_file)), None)
            .await?;
        let token = String::from_utf8_lossy(&token_out.stdout).trim().to_owned();
        if token.is_empty() {
            return Err(ConnectError::AgentDidNotStart(format!(
                "cannot read the token file {} on {}",
                info.token_file, self.target
            )));
        }
        let mut last_err = None;
        // A free port can be taken between asking and forwarding: try a few.
        for _ in 0..3 {
            let port = std::net::TcpListener::bind("127.0.0.1:0")
                .and_then(|l| l.local_addr())
                .map_err(|e| ConnectError::io("127.0.0.1:0", e))?
                .port();
            let spec = format!("127.0.0.1:{port}:{}", info.listening);
            let out = ssh()
                .args(base_args(self.target, &self.control))
                .args(["-O", "forward", "-L", &spec, "--", &self.target.destination])
                .stdin(Stdio::null())
                .output()
                .await
                .map_err(ConnectError::NoSshClient)?;
            if !out.status.success() {
                last_err = Some(ssh_error(
                    &self.target.to_string(),
                    &String::from_utf8_lossy(&out.stderr),
                ));
                continue;
            }
            let client = AgentClient::new(&format!("127.0.0.1:{port}"), &token)?;
            match client.health().await {
                Ok(_) => return Ok(client),
                Err(e) => last_err = Some(e),
            }
        }
        Err(last_err.unwrap_or_else(|| ConnectError::Invalid("port forward failed".into())))
    }
}

/// The `checkup-agent` binaries installed on the host, as the probe in `ensure_agent` lists
/// them ("SHA-256 PATH" a line), each path once.
fn installed_agents<'a>(lines: impl Iterator<Item = &'a str>) -> Vec<(String, String)> {
    let mut found: Vec<(String, String)> = Vec::new();
    for line in lines {
        let Some((sha, path)) = line.trim().split_once(' ') else {
            continue;
        };
        if sha.len() == 64 && path.starts_with('/') && !found.iter().any(|(_, p)| p == path) {
            found.push((sha.to_owned(), path.to_owned()));
        }
    }
    found
}

/// Single-quotes a path for the remote shell.
fn shell_word(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> SshTarget {
        s.parse().unwrap()
    }

    #[test]
    fn a_remote_folder_template_gets_each_host_s_name() {
        let mut t = parse("alice@10.0.0.7:2222");
        t.set_remote_dir("/scratch/checkup/{host}");
        assert_eq!(t.remote_dir, "/scratch/checkup/alice_10.0.0.7");
        let mut t = parse("node-3");
        t.set_remote_dir("~/.cache/gpu-checkup");
        assert_eq!(t.remote_dir, "~/.cache/gpu-checkup");
    }

    #[test]
    fn host_specs_parse_into_destination_and_port() {
        assert_eq!(parse("gpu-box").destination, "gpu-box");
        assert_eq!(parse("gpu-box").port, None);
        let t = parse("alice@10.0.0.7:2222");
        assert_eq!(
            (t.destination.as_str(), t.port),
            ("alice@10.0.0.7", Some(2222))
        );
        let t = parse("bob@[::1]:22");
        assert_eq!((t.destination.as_str(), t.port), ("bob@::1", Some(22)));
        assert_eq!(
            parse("alice@10.0.0.7:2222").to_string(),
            "alice@10.0.0.7:2222"
        );
    }

    #[test]
    fn bad_host_specs_say_what_is_wrong() {
        for (spec, why) in [
            ("", "empty"),
            ("-oProxyCommand=x", "starts with '-'"),
            ("a b", "spaces"),
            ("@host", "user before '@' is empty"),
            ("h:99999", "port is not a number"),
            ("h:0", "port 0"),
        ] {
            let e = spec.parse::<SshTarget>().unwrap_err().to_string();
            assert!(e.contains(why), "{spec}: {e}");
        }
    }

    #[test]
    fn ssh_messages_become_advice() {
        assert!(matches!(
            ssh_error("h", "alice@h: Permission denied (publickey)."),
            ConnectError::AuthRefused { .. }
        ));
        assert!(matches!(
            ssh_error("h", "Host key verification failed."),
            ConnectError::HostKey { .. }
        ));
        assert!(matches!(
            ssh_error("h", "ssh: connect to host h port 22: Connection refused"),
            ConnectError::Unreachable { .. }
        ));
        assert!(matches!(
            ssh_error(
                "h",
                "ssh: Could not resolve hostname h: Name or service not known"
            ),
            ConnectError::Unreachable { .. }
        ));
    }

    #[test]
    fn an_agent_installed_on_the_path_and_in_pip_s_user_folder_is_listed_once() {
        let sha = "a".repeat(64);
        let probe = format!(
            "{sha} /home/u/.local/bin/checkup-agent\n{sha} /home/u/.local/bin/checkup-agent\n\n"
        );
        assert_eq!(
            super::installed_agents(probe.lines()),
            vec![(sha.clone(), "/home/u/.local/bin/checkup-agent".to_owned())]
        );
        // A line that is no checksum and absolute path is not an install.
        assert!(
            super::installed_agents(["sha256sum: denied", "abc relative/path"].into_iter())
                .is_empty()
        );
    }

    #[test]
    fn remote_paths_are_quoted_for_the_shell() {
        assert_eq!(shell_word("/home/a b/it's"), "'/home/a b/it'\\''s'");
    }
}
