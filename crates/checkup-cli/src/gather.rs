//! `checkup gather`: a job's run folders copied from its hosts, summaries in place of traces,
//! then the trace of the rank the diagnosis follows, so the one trace worth opening is there.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use checkup_connect::gather::{JobGather, JobSource, TraceChoice};
use checkup_connect::SshTarget;
use checkup_model::Language;

use crate::{text, CliError};

/// Where the run folders are: each host's, or one path on every node of a Slurm job.
pub enum Where {
    /// `HOST:PATH`, one per host.
    Hosts(Vec<String>),
    /// A Slurm job, asked of its login host; `path` with `{node}` (`SLURM_NODEID`) and
    /// `{host}` replaced on each node, reached through the login host.
    Slurm {
        job: String,
        login: String,
        path: String,
    },
}

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
        let sources = match from {
            Where::Hosts(specs) => specs
                .iter()
                .map(|s| {
                    let mut source: JobSource = s.parse()?;
                    source.target.config_file.clone_from(&ssh_config);
                    Ok(source)
                })
                .collect::<Result<Vec<_>, CliError>>()?,
            Where::Slurm { job, login, path } => {
                let mut login: SshTarget = login.parse()?;
                login.config_file.clone_from(&ssh_config);
                let (found, targets) =
                    checkup_connect::slurm::job_node_targets(&login, &job, |node| {
                        let mut target: SshTarget = node.parse()?;
                        target.config_file.clone_from(&ssh_config);
                        Ok(target)
                    })
                    .await?;
                said.push_str(&text::gather_slurm_job(&job, &found.state, &found.nodes, l));
                found
                    .nodes
                    .iter()
                    .zip(targets)
                    .enumerate()
                    .map(|(i, (node, target))| {
                        Ok(JobSource {
                            target,
                            path: path
                                .replace("{node}", &i.to_string())
                                .replace("{host}", node),
                        })
                    })
                    .collect::<Result<Vec<_>, CliError>>()?
            }
        };
        let mut job = JobGather::copy(&sources, output, traces).await?;
        // The rank the diagnosis follows: its trace is the one worth opening.
        let diagnosis = checkup_engine::analyze_paths(&[output.to_path_buf()], &Default::default());
        let followed = diagnosis.as_ref().ok().and_then(|d| d.diagnosed_rank);
        let fetched = match followed {
            Some(rank) => job.copy_traces(&BTreeSet::from([rank])).await?,
            None => Vec::new(),
        };
        said.push_str(&text::gather_copied(&job.nodes, l));
        if let Some(rank) = fetched.first() {
            said.push_str(&text::gather_diagnosed_trace(*rank, l));
        }
        said.push_str(&text::gather_next_step(output, l));
        // An analysis that fails is said after what was copied: the files stay.
        if let Err(e) = diagnosis {
            print!("{said}");
            return Err(e.into());
        }
        Ok(said)
    })
}
