/// What can go wrong on a GPU host. Each message says what to try next.
#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    /// NVML could not be loaded: no NVIDIA driver on this host.
    #[error("no NVIDIA driver: {0} (host sampling still works; install the NVIDIA driver or run on a GPU host)")]
    NoDriver(String),
    /// An NVML call failed.
    #[error("NVML: {0}")]
    Nvml(String),
    /// A file or folder that could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The path.
        path: String,
        /// What the system said.
        source: std::io::Error,
    },
    /// A command that could not be started.
    #[error("cannot start `{command}`: {source}")]
    Spawn {
        /// The command.
        command: String,
        /// What the system said.
        source: std::io::Error,
    },
    /// A request or setting that cannot be carried out, and why.
    #[error("{0}")]
    Invalid(String),
}

impl AgentError {
    /// An I/O error on `path`.
    pub fn io(path: impl AsRef<std::path::Path>, source: std::io::Error) -> Self {
        Self::Io {
            path: path.as_ref().display().to_string(),
            source,
        }
    }
}

/// The agent's result.
pub type Result<T, E = AgentError> = std::result::Result<T, E>;
