//! `rankN/trace_summary.json`: a rank's trace as the engine measured it on the host that
//! recorded it. Written by the agent (`checkup-agent summarize`, and at the end of
//! `checkup-agent run`), read by the engine where the trace was left on the host.

use std::path::Path;

use checkup_model::{TraceSummaryFile, TRACE_SUMMARY_FORMAT};

use crate::error::{RecordingError, Result};

/// This build's version: a summary is read only by the version that measured it.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// Reads a summary this version made. One of another version or format is refused with what
/// to do, never read as if its measurement were this version's.
pub fn read_trace_summary(path: &Path) -> Result<TraceSummaryFile> {
    let text = std::fs::read_to_string(path).map_err(|e| RecordingError::io(path, e))?;
    if text.trim().is_empty() {
        return Err(RecordingError::invalid(path, "file is empty"));
    }
    let file: TraceSummaryFile = serde_json::from_str(&text)
        .map_err(|e| RecordingError::invalid(path, format!("not a trace summary: {e}")))?;
    if file.format != TRACE_SUMMARY_FORMAT || file.made_by != VERSION {
        return Err(RecordingError::invalid(
            path,
            format!(
                "this summary was measured by GPU Checkup {} (format {}) and this is {VERSION} (format {TRACE_SUMMARY_FORMAT}): summarise the run again with this version's agent (`checkup-agent summarize RUN` on its host) or copy the rank's trace ({})",
                file.made_by, file.format, file.trace
            ),
        ));
    }
    Ok(file)
}

/// Writes `file` to `path` through a temporary file beside it, so that a reader never sees
/// half a summary.
pub fn write_trace_summary(path: &Path, file: &TraceSummaryFile) -> Result<()> {
    let text = serde_json::to_string(file)
        .map_err(|e| RecordingError::invalid(path, format!("cannot write the summary: {e}")))?;
    let tmp = path.with_extension("json.partial");
    std::fs::write(&tmp, text).map_err(|e| RecordingError::io(&tmp, e))?;
    std::fs::rename(&tmp, path).map_err(|e| RecordingError::io(path, e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use checkup_model::RankSummary;

    fn summary_of_rank(rank: u32) -> TraceSummaryFile {
        TraceSummaryFile {
            format: TRACE_SUMMARY_FORMAT,
            made_by: VERSION.into(),
            trace: "trace.json.gz".into(),
            trace_bytes: 114_804,
            rank: Some(rank),
            world_size: Some(4),
            device_name: Some("NVIDIA H200".into()),
            summary: RankSummary {
                rank,
                ..RankSummary::default()
            },
        }
    }

    #[test]
    fn a_summary_reads_back_as_written() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("trace_summary.json");
        write_trace_summary(&path, &summary_of_rank(3)).unwrap();
        assert_eq!(read_trace_summary(&path).unwrap(), summary_of_rank(3));
        assert!(!dir.path().join("trace_summary.json.partial").exists());
    }

    #[test]
    fn figures_read_back_to_the_same_bits() {
        // Values from an H200 job's ranks that a fast float parser read back one bit off.
        let mut file = summary_of_rank(1);
        file.summary.kernels.gemm_conv_time_share = 0.463_713_727_529_050_43;
        file.summary.kernels.share_under_10us = 0.473_347_547_973_414;
        file.summary.comm.overlap_share = 0.105_724_389_797_989_15;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("trace_summary.json");
        write_trace_summary(&path, &file).unwrap();
        let back = read_trace_summary(&path).unwrap();
        for (a, b) in [
            (
                back.summary.kernels.gemm_conv_time_share,
                file.summary.kernels.gemm_conv_time_share,
            ),
            (
                back.summary.kernels.share_under_10us,
                file.summary.kernels.share_under_10us,
            ),
            (
                back.summary.comm.overlap_share,
                file.summary.comm.overlap_share,
            ),
        ] {
            assert_eq!(a.to_bits(), b.to_bits(), "{b} read back as {a}");
        }
    }

    #[test]
    fn a_summary_of_another_version_is_refused_with_what_to_do() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("trace_summary.json");
        let mut old = summary_of_rank(1);
        old.made_by = "0.0.9".into();
        write_trace_summary(&path, &old).unwrap();
        let e = read_trace_summary(&path).unwrap_err().to_string();
        assert!(
            e.ends_with(&format!("this summary was measured by GPU Checkup 0.0.9 (format 1) and this is {VERSION} (format 1): summarise the run again with this version's agent (`checkup-agent summarize RUN` on its host) or copy the rank's trace (trace.json.gz)")),
            "{e}"
        );
    }

    #[test]
    fn an_empty_or_foreign_file_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("trace_summary.json");
        std::fs::write(&path, "").unwrap();
        assert!(read_trace_summary(&path)
            .unwrap_err()
            .to_string()
            .ends_with("file is empty"));
        std::fs::write(&path, "{\"traceEvents\": []}").unwrap();
        let e = read_trace_summary(&path).unwrap_err().to_string();
        assert!(
            e.contains("not a trace summary: missing field `format`"),
            "{e}"
        );
    }
}
