use std::path::{Path, PathBuf};

/// A run-folder file that cannot be read: it names the file and says what is wrong in one
/// line.
#[derive(Debug, thiserror::Error)]
pub enum RecordingError {
    /// The file could not be read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// The file was read but is not what it should be (a line, a column, a value).
    #[error("{}: {message}", path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong, naming the line and column where it can.
        message: String,
    },
}

impl RecordingError {
    /// A read of `path` that failed.
    pub fn io(path: &Path, source: std::io::Error) -> Self {
        Self::Io {
            path: path.to_path_buf(),
            source,
        }
    }

    /// `path` holds something it should not: `message` says what.
    pub fn invalid(path: &Path, message: impl Into<String>) -> Self {
        Self::Invalid {
            path: path.to_path_buf(),
            message: message.into(),
        }
    }
}

/// A result whose error names the run-folder file.
pub type Result<T, E = RecordingError> = std::result::Result<T, E>;
