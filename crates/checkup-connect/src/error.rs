//! The connection errors, each worded so a user can act on it.

use std::path::PathBuf;

use checkup_model::ErrorKind;

/// What went wrong reaching a GPU host or its agent, in words a user can act on: every
/// message says what happened and what to try next.
#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    /// The host does not answer SSH.
    #[error("cannot reach {host}: {detail}. Check the host name and that you can `ssh {host}` from a terminal")]
    Unreachable {
        /// The host as the user named it.
        host: String,
        /// What ssh, the network or the agent said.
        detail: String,
    },
    /// SSH reached the host and it refused every key.
    #[error("{host} refused the login: {detail}. The app logs in with your SSH keys and ssh-agent (no password prompts): add a key with `ssh-copy-id {host}` or load it with `ssh-add`")]
    AuthRefused {
        /// The host as the user named it.
        host: String,
        /// What ssh, the network or the agent said.
        detail: String,
    },
    /// The host key is unknown or changed.
    #[error("{host}'s host key is not known or has changed: {detail}. Connect once with `ssh {host}` in a terminal to check and accept the key")]
    HostKey {
        /// The host as the user named it.
        host: String,
        /// What ssh, the network or the agent said.
        detail: String,
    },
    /// Another SSH failure.
    #[error("ssh to {host} failed: {detail}")]
    Ssh {
        /// The host as the user named it.
        host: String,
        /// What ssh, the network or the agent said.
        detail: String,
    },
    /// No `ssh` program on this computer.
    #[error("the system `ssh` client could not be started ({0}); install OpenSSH (Debian: apt install openssh-client)")]
    NoSshClient(std::io::Error),
    /// The host is not Linux x86-64.
    #[error("{host} runs {platform}; the agent is built for Linux x86-64")]
    UnsupportedHost {
        /// The host as the user named it.
        host: String,
        /// What the host said it runs (`uname -sm`).
        platform: String,
    },
    /// The agent binary to upload is not where it should be.
    #[error("no agent binary at {0}: build it with `cargo build -p checkup-agent` or set GPU_CHECKUP_AGENT")]
    NoAgentBinary(PathBuf),
    /// The agent was started and did not come up.
    #[error("the agent did not start: {0}")]
    AgentDidNotStart(String),
    /// The agent exited while in use.
    #[error("the agent stopped (it crashed or was killed){0}; connect again to restart it")]
    AgentGone(String),
    /// Nothing answers at the agent's address.
    #[error("the agent at {addr} is not answering ({detail}); if you forwarded it yourself, check the tunnel is still up")]
    AgentUnreachable {
        /// The agent's address.
        addr: String,
        /// What ssh, the network or the agent said.
        detail: String,
    },
    #[error(
        "the agent refused the token: check you copied the token of this agent (its token file)"
    )]
    /// The agent refused the token.
    Unauthorized,
    /// The agent answered with an error.
    #[error("the agent answered {status}: {message}")]
    Agent {
        /// The HTTP status.
        status: u16,
        /// The agent's message.
        message: String,
    },
    /// The agent's answer could not be read.
    #[error("unexpected answer from the agent for {what}: {detail}")]
    Protocol {
        /// The request.
        what: String,
        /// What ssh, the network or the agent said.
        detail: String,
    },
    /// A local file could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// A Slurm job whose nodes the login host could not give.
    #[error("Slurm job {job} on {host}: {detail}")]
    Slurm {
        /// The login host asked.
        host: String,
        /// The job id.
        job: String,
        /// What went wrong, and what to do.
        detail: String,
    },
    /// A folder on a host that cannot be gathered as asked, and why.
    #[error("{place}: {detail}")]
    RemoteFolder {
        /// `host:path`.
        place: String,
        /// What is wrong, and what to do.
        detail: String,
    },
    /// A request that cannot be made as given.
    #[error("{0}")]
    Invalid(String),
}

impl ConnectError {
    /// The kind of error, with its subject (host, address, path) and detail, for a UI that
    /// words it in its own language; `None` for errors that are shown as they are.
    pub fn parts(&self) -> Option<(ErrorKind, String, String)> {
        Some(match self {
            Self::Unreachable { host, detail } => {
                (ErrorKind::Unreachable, host.clone(), detail.clone())
            }
            Self::AuthRefused { host, detail } => {
                (ErrorKind::AuthRefused, host.clone(), detail.clone())
            }
            Self::HostKey { host, detail } => (ErrorKind::HostKey, host.clone(), detail.clone()),
            Self::UnsupportedHost { host, platform } => {
                (ErrorKind::UnsupportedHost, host.clone(), platform.clone())
            }
            Self::NoAgentBinary(path) => (
                ErrorKind::NoAgentBinary,
                path.display().to_string(),
                String::new(),
            ),
            Self::AgentDidNotStart(detail) => {
                (ErrorKind::AgentDidNotStart, String::new(), detail.clone())
            }
            Self::AgentGone(detail) => (ErrorKind::AgentGone, String::new(), detail.clone()),
            Self::AgentUnreachable { addr, detail } => {
                (ErrorKind::AgentUnreachable, addr.clone(), detail.clone())
            }
            Self::Unauthorized => (ErrorKind::Unauthorized, String::new(), String::new()),
            Self::Ssh { host, detail } => (ErrorKind::SshFailed, host.clone(), detail.clone()),
            Self::NoSshClient(e) => (ErrorKind::NoSshClient, String::new(), e.to_string()),
            Self::Protocol { what, detail } => (
                ErrorKind::Protocol,
                String::new(),
                format!("{what}: {detail}"),
            ),
            Self::Io { path, source } => (
                ErrorKind::File,
                path.display().to_string(),
                source.to_string(),
            ),
            Self::Agent { .. }
            | Self::Slurm { .. }
            | Self::RemoteFolder { .. }
            | Self::Invalid(_) => return None,
        })
    }

    /// A failed read or write of `path`.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Self::Io {
            path: path.into(),
            source,
        }
    }
}

/// A result whose error a user can act on.
pub type Result<T> = std::result::Result<T, ConnectError>;
