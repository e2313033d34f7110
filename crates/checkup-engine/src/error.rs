use std::path::{Path, PathBuf};

/// Everything that can go wrong reading a recording. Each error names the file and says what
/// is wrong with it in one line, so the CLI can print it as is.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// A file that could not be read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// A file whose content is wrong: what and where.
    #[error("{}: {message}", path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        message: String,
    },
    /// A path that holds nothing the engine reads.
    #[error("{}: no recording found: expected a run folder (steps.csv, samples_*.csv, trace.json.gz or rankN/), a Kineto trace (.json or .json.gz), a tensorboard_trace_handler folder (*.pt.trace.json[.gz]), or an nvidia-smi log", path.display())]
    NothingToAnalyse {
        /// The path given.
        path: PathBuf,
    },
    /// A run folder whose files are all empty: the run was stopped before its first sample,
    /// or is still starting.
    #[error("{}: nothing recorded yet: {} {} empty (the run was stopped before its first sample, or is still starting); record again, or analyse it once the run has written its samples", path.display(), files.join(", "), if files.len() == 1 { "is" } else { "are" })]
    NothingRecordedYet {
        /// The run folder.
        path: PathBuf,
        /// Its empty files.
        files: Vec<String>,
    },
    /// A recording of the host alone.
    #[error("{}: only host samples: nothing was recorded on a GPU (the host has no NVIDIA driver, or no GPU was sampled), so there is nothing to diagnose", path.display())]
    NoGpuData {
        /// The recording.
        path: PathBuf,
    },
    /// A multi-rank run with ranks missing or numbered inconsistently.
    #[error("{}: {message}", path.display())]
    MissingRanks {
        /// The recording.
        path: PathBuf,
        /// Which ranks, and how they were expected.
        message: String,
    },
    /// A run-folder file (steps.csv, meta.json, samples_*.csv) that cannot be read.
    #[error(transparent)]
    Recording(#[from] checkup_recording::RecordingError),
}

impl EngineError {
    /// An I/O error on `path`; a gzip stream cut short is told as a truncated file.
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

    /// A content error on `path`.
    pub fn invalid(path: &Path, message: impl Into<String>) -> Self {
        Self::Invalid {
            path: path.to_path_buf(),
            message: message.into(),
        }
    }
}

/// The engine's result.
pub type Result<T, E = EngineError> = std::result::Result<T, E>;
