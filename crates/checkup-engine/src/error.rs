use std::path::{Path, PathBuf};

/// Everything that can go wrong reading a recording. Each error names the file and says what
/// is wrong with it in one line, so the CLI can print it as is.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}: {message}", path.display())]
    Invalid { path: PathBuf, message: String },
    #[error("{}: no recording found: expected a run folder (steps.csv, samples_*.csv, trace.json.gz or rankN/), a Kineto trace (.json or .json.gz), a tensorboard_trace_handler folder (*.pt.trace.json[.gz]), or an nvidia-smi log", path.display())]
    NothingToAnalyse { path: PathBuf },
    #[error("{}: only host samples: nothing was recorded on a GPU (the host has no NVIDIA driver, or no GPU was sampled), so there is nothing to diagnose", path.display())]
    NoGpuData { path: PathBuf },
    #[error("{}: {message}", path.display())]
    MissingRanks { path: PathBuf, message: String },
    /// A run-folder file (steps.csv, meta.json, samples_*.csv) that cannot be read.
    #[error(transparent)]
    Recording(#[from] checkup_recording::RecordingError),
}

impl EngineError {
    pub fn io(path: &Path, source: std::io::Error) -> Self {
        // A gzip stream that stops early surfaces as UnexpectedEof from flate2.
        if source.kind() == std::io::ErrorKind::UnexpectedEof {
            return Self::invalid(path, "file is truncated (the data ends early; was it still being written or cut during a copy?)");
        }
        Self::Io {
            path: path.to_path_buf(),
            source,
        }
    }

    pub fn invalid(path: &Path, message: impl Into<String>) -> Self {
        Self::Invalid {
            path: path.to_path_buf(),
            message: message.into(),
        }
    }
}

pub type Result<T, E = EngineError> = std::result::Result<T, E>;
