//! A run folder's traces reduced where they were recorded: each rank's trace measured as the
//! analysis would measure it, written beside it as `trace_summary.json`. A job's hosts then
//! send kilobytes per rank instead of their traces; the analysis reads a summary wherever its
//! trace was not copied.

use std::path::{Path, PathBuf};

use checkup_model::{TraceSummaryFile, TRACE_SUMMARY_FORMAT};
use checkup_recording::{layout, trace_summary};

use super::{in_parallel, kineto, measure, rank_units, traces_in_unit};
use crate::error::{EngineError, Result};
use crate::thresholds::Thresholds;

/// One rank's trace, summarised.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summarised {
    /// The rank.
    pub rank: u32,
    /// The trace read.
    pub trace: PathBuf,
    /// Its size.
    pub trace_bytes: u64,
    /// The summary written beside it.
    pub summary: PathBuf,
    /// The summary's size.
    pub summary_bytes: u64,
}

/// Measures every rank's trace in the run folder `dir` (its `rankN/` folders, or the folder
/// itself for a run of one process) with the default thresholds, as many at once as there
/// are cores, and writes each rank's `trace_summary.json` beside its trace. A rank folder with
/// no trace is skipped (a run that was not profiled gives an empty list); one with several is
/// refused (a summary stands for one trace).
pub fn summarize_run(dir: &Path) -> Result<Vec<Summarised>> {
    let mut found: Vec<(Option<u32>, PathBuf)> = Vec::new();
    for (rank, unit) in rank_units(dir)? {
        let traces = traces_in_unit(&unit)?;
        match traces.as_slice() {
            [] => {}
            [one] => found.push((rank, one.clone())),
            [first, second, ..] => {
                return Err(EngineError::invalid(
                    &unit,
                    format!(
                    "it holds {} traces ({} and {}): a rank's folder holds one trace to summarise",
                    traces.len(),
                    file_name(first),
                    file_name(second)
                ),
                ))
            }
        }
    }
    let th = Thresholds::default();
    let one = |i: usize| -> Result<Summarised> {
        let (folder_rank, path) = &found[i];
        let mut t = kineto::read_trace(path)?;
        t.rank = t.rank.or(*folder_rank).or(Some(0));
        let trace_bytes = std::fs::metadata(path)
            .map_err(|e| EngineError::io(path, e))?
            .len();
        let measured = measure(t, &th);
        let rank = measured.summary.rank;
        let summary = path.with_file_name(layout::TRACE_SUMMARY);
        trace_summary::write_trace_summary(
            &summary,
            &TraceSummaryFile {
                format: TRACE_SUMMARY_FORMAT,
                made_by: trace_summary::VERSION.into(),
                trace: file_name(path),
                trace_bytes,
                rank: measured.rank,
                world_size: measured.world_size,
                device_name: measured.device_name,
                summary: measured.summary,
            },
        )?;
        let summary_bytes = std::fs::metadata(&summary)
            .map_err(|e| EngineError::io(&summary, e))?
            .len();
        Ok(Summarised {
            rank,
            trace: path.clone(),
            trace_bytes,
            summary,
            summary_bytes,
        })
    };
    let mut done = in_parallel(found.len(), one)?;
    done.sort_by_key(|(i, _)| *i);
    let mut out = done
        .into_iter()
        .map(|(_, r)| r)
        .collect::<Result<Vec<_>>>()?;
    out.sort_by_key(|s| s.rank);
    Ok(out)
}

fn file_name(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}
