//! The run folder, owned once: its layout, the columns of its CSV files and the readers of
//! the files the agent writes (`steps.csv`, `meta.json`, `samples_*.csv`). The agent writes
//! with these names and columns and replays with these readers; the engine reads with them.
//! Other sources (Kineto traces, nvidia-smi logs) are the engine's ingest.
#![warn(missing_docs)]

pub mod csv_table;
mod error;
pub mod layout;
pub mod meta;
pub mod samples;
pub mod schema;
pub mod steps;
pub mod trace_summary;
pub mod training;

pub use error::{RecordingError, Result};

/// Files for the readers' tests.
#[cfg(test)]
mod test_files {
    use std::io::Write;

    /// A temporary file holding `text`.
    pub fn file(text: &str) -> tempfile::NamedTempFile {
        let mut f = tempfile::NamedTempFile::new().unwrap();
        f.write_all(text.as_bytes()).unwrap();
        f
    }
}
