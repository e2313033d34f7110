//! A GPU host: this computer (the bundled agent), an SSH host, or an agent the user
//! forwarded already.

use checkup_connect::{AgentClient, LocalAgent, SshAgent, SshTarget};
use checkup_model::{HostInfo, HostRequest};

use crate::WorkflowError;

pub enum Host {
    Local(LocalAgent),
    Ssh(SshAgent),
    Forwarded { addr: String, client: AgentClient },
}

impl Host {
    pub fn client(&self) -> AgentClient {
        match self {
            Host::Local(a) => a.client.clone(),
            Host::Ssh(a) => a.client.clone(),
            Host::Forwarded { client, .. } => client.clone(),
        }
    }

    /// The SSH host, when it is one.
    pub fn ssh_target(&self) -> Option<&checkup_connect::SshTarget> {
        match self {
            Host::Ssh(a) => Some(&a.target),
            _ => None,
        }
    }

    pub fn label(&self) -> String {
        match self {
            Host::Local(_) => "this computer".into(),
            Host::Ssh(a) => a.target.to_string(),
            Host::Forwarded { addr, .. } => addr.clone(),
        }
    }

    /// After a dropped connection: the same agent again, reached afresh.
    pub async fn reconnect(&mut self) -> Result<(), WorkflowError> {
        match self {
            Host::Local(a) => Ok(a.ensure_running()?),
            Host::Ssh(a) => Ok(a.reconnect().await?),
            // The tunnel is the user's: check it answers again.
            Host::Forwarded { client, .. } => client.health().await.map(|_| ()).map_err(Into::into),
        }
    }

    pub async fn close(self) {
        match self {
            Host::Local(a) => a.stop().await,
            Host::Ssh(a) => a.disconnect().await,
            Host::Forwarded { .. } => {}
        }
    }
}

pub async fn connect(
    req: HostRequest,
    state_dir: &std::path::Path,
) -> Result<(Host, Vec<String>), WorkflowError> {
    Ok(match req {
        HostRequest::Local => (
            Host::Local(
                LocalAgent::start(&checkup_connect::bundled_agent(), &state_dir.join("agent"))
                    .await?,
            ),
            Vec::new(),
        ),
        HostRequest::Ssh { spec } => connect_ssh(ssh_target(&spec)?).await?,
        HostRequest::Forwarded { addr, token } => {
            let addr = addr
                .trim()
                .trim_start_matches("http://")
                .trim_end_matches('/');
            // The agent listens on IPv4 loopback; "localhost" may resolve to ::1 first.
            let addr = match addr.strip_prefix("localhost:") {
                Some(port) => format!("127.0.0.1:{port}"),
                None => addr.to_owned(),
            };
            let client = AgentClient::new(&addr, &token)?;
            client.health().await?;
            (Host::Forwarded { addr, client }, Vec::new())
        }
    })
}

/// An SSH host as the user gave it, with the app's SSH settings.
pub fn ssh_target(spec: &str) -> Result<SshTarget, checkup_connect::ConnectError> {
    let mut target: SshTarget = spec.parse()?;
    target.config_file = std::env::var_os("GPU_CHECKUP_SSH_CONFIG").map(Into::into);
    // Hosts whose home is small or shared can keep the agent elsewhere (/scratch).
    if let Some(dir) = std::env::var_os("GPU_CHECKUP_REMOTE_DIR") {
        target.set_remote_dir(&dir.to_string_lossy());
    }
    Ok(target)
}

/// Connects to an SSH host, uploading and starting its agent where needed; answers what
/// connecting did.
pub async fn connect_ssh(target: SshTarget) -> Result<(Host, Vec<String>), WorkflowError> {
    let agent = SshAgent::connect(target, &remote_agent_binary()).await?;
    let log = agent.log.clone();
    Ok((Host::Ssh(agent), log))
}

/// The agent copied to SSH hosts: the glibc-2.31 build when present (it runs on older
/// distributions), else the bundled one.
fn remote_agent_binary() -> std::path::PathBuf {
    let bundled = checkup_connect::bundled_agent();
    let portable = bundled
        .parent()
        .and_then(|d| d.parent())
        .map(|t| t.join("x86_64-unknown-linux-gnu/release/checkup-agent"));
    std::env::var_os("GPU_CHECKUP_REMOTE_AGENT")
        .map(Into::into)
        .or(portable.filter(|p| p.is_file()))
        .unwrap_or(bundled)
}

pub async fn info(host: &Host, log: Vec<String>) -> Result<HostInfo, WorkflowError> {
    Ok(HostInfo {
        label: host.label(),
        health: host.client().health().await?,
        log,
    })
}
