//! `checkup gather`: a job's run folders copied from its hosts, summaries in place of traces,
//! then the trace of the rank the diagnosis follows, so the one trace worth opening is there.
//! The copying and diagnosing are the workflow's, shared with the app's fleet.

use std::path::{Path, PathBuf};

use checkup_connect::gather::TraceChoice;
use checkup_model::Language;
use checkup_workflow::gather::{self, Where};

use crate::{text, CliError};

/// Copies every run folder into `output` and says what was copied, what stayed on the hosts
/// and what to run next. Files already copied stay when a later step fails.
pub fn gather(
    from: Where,
    output: &Path,
    traces: &TraceChoice,
    ssh_config: Option<PathBuf>,
    l: Language,
) -> Result<String, CliError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|source| CliError::Write {
            path: "the async runtime".into(),
            source,
        })?;
    runtime.block_on(async {
        let mut said = String::new();
        let job = match &from {
            Where::Slurm { job, .. } => Some(job.clone()),
            Where::Hosts(_) => None,
        };
        let (sources, found) = gather::sources(from, ssh_config).await?;
        if let (Some(job), Some(found)) = (job, found) {
            said.push_str(&text::gather_slurm_job(&job, &found.state, &found.nodes, l));
        }
        let gathered = gather::gather(&sources, output, traces).await?;
        said.push_str(&text::gather_copied(&gathered.job.nodes, l));
        if let Some(rank) = gathered.followed_trace {
            said.push_str(&text::gather_diagnosed_trace(rank, l));
        }
        said.push_str(&text::gather_next_step(output, l));
        // An analysis that fails is said after what was copied: the files stay.
        if let Err(e) = gathered.diagnosis {
            print!("{}", checkup_text::visible(&said));
            return Err(e.into());
        }
        Ok(said)
    })
}
