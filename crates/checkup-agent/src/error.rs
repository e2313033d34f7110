/// What can go wrong on a GPU host. Each message says what to try next.
#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    #[error("no NVIDIA driver: {0} (host sampling still works; install the NVIDIA driver or run on a GPU host)")]
    NoDriver(String),
    #[error("NVML: {0}")]
    Nvml(String),
    #[error("{path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("cannot start `{command}`: {source}")]
    Spawn {
        command: String,
        source: std::io::Error,
    },
    #[error("{0}")]
    Invalid(String),
}

impl AgentError {
    pub fn io(path: impl AsRef<std::path::Path>, source: std::io::Error) -> Self {
        Self::Io {
            path: path.as_ref().display().to_string(),
            source,
        }
    }
}

pub type Result<T, E = AgentError> = std::result::Result<T, E>;
