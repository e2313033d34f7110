//! GPU Checkup's engine: read what a checkup recorded, measure where the step time goes, and
//! say which layer is slow, with evidence and fixes, as typed facts (`checkup-text` words
//! them).
//!
//! ```no_run
//! let diagnosis = checkup_engine::analyze_paths(&["run_folder".into()], &Default::default())?;
//! println!("{}: {} findings", diagnosis.primary, diagnosis.findings.len());
//! # Ok::<(), checkup_engine::EngineError>(())
//! ```

#![warn(missing_docs)]

pub mod analysis;
pub mod diagnosis;
/// Errors, each naming the file and what is wrong with it.
pub mod error;
pub mod ingest;
pub mod thresholds;

use std::path::PathBuf;

use checkup_model::Diagnosis;

pub use error::{EngineError, Result};
pub use thresholds::Thresholds;

/// How to diagnose: a 1-GPU partner run for the scaling check, the thresholds.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// A 1-GPU run of the same model, for the multi-GPU scaling check.
    pub partner: Option<Vec<PathBuf>>,
    /// The decision thresholds ([`Thresholds::default`] unless tuned).
    pub thresholds: Thresholds,
}

/// Reads the inputs, analyses them and returns the diagnosis.
pub fn analyze_paths(paths: &[PathBuf], options: &Options) -> Result<Diagnosis> {
    let rec = ingest::load_with(paths, &options.thresholds)?;
    // Host samples alone say nothing about the GPU: no verdict rather than a made-up one.
    if rec.traces.is_empty()
        && rec.steps.is_empty()
        && rec.samples.nvml.is_empty()
        && rec.samples.gpm.is_empty()
    {
        return Err(EngineError::NoGpuData {
            path: paths.first().cloned().unwrap_or_default(),
        });
    }
    let partner = match &options.partner {
        Some(p) => {
            let prec = ingest::load_with(p, &options.thresholds)?;
            let pa = analysis::analyze(&prec, &options.thresholds);
            Some((
                prec,
                pa,
                p.iter()
                    .map(|x| x.display().to_string())
                    .collect::<Vec<_>>()
                    .join(" "),
            ))
        }
        None => None,
    };
    Ok(diagnose_recording(
        rec,
        partner.as_ref().map(|(r, a, n)| (&r.facts, a, n.clone())),
        &options.thresholds,
    ))
}

/// Diagnoses an already loaded recording (the agent and the app hold recordings in memory);
/// its traces were measured when loaded, with the thresholds given to [`ingest::load_with`].
pub fn diagnose_recording(
    rec: ingest::Recording,
    partner: Option<(&checkup_model::RunFacts, &analysis::Analysis, String)>,
    th: &Thresholds,
) -> Diagnosis {
    let a = analysis::analyze(&rec, th);
    let sources = rec
        .sources
        .iter()
        .chain(rec.traces.iter().map(|t| &t.source))
        .map(|p| p.display().to_string())
        .collect();
    diagnosis::diagnose(rec.facts, a, partner, rec.notes, sources, th)
}
