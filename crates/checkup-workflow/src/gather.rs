//! A job's run folders gathered from its hosts and diagnosed as one: each rank's summary in
//! place of its trace (`checkup-agent run` left them beside the traces), then the trace of
//! the rank the diagnosis follows, the one worth opening. `checkup gather` prints what was
//! copied; the app's fleet keeps the job as a checkup (`fleet_job`).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use checkup_connect::gather::{JobGather, JobSource, TraceChoice};
use checkup_connect::slurm::JobNodes;
use checkup_connect::SshTarget;
use checkup_model::Diagnosis;

use crate::Result;

/// Where a job's run folders are: each host's, or one path on every node of a Slurm job.
pub enum Where {
    /// `HOST:PATH`, one per host.
    Hosts(Vec<String>),
    /// A Slurm job, asked of its login host; `path` with `{node}` and `{host}` replaced on
    /// each node (see [`node_path`]), reached through the login host.
    Slurm {
        job: String,
        login: String,
        path: String,
    },
}

/// A run folder's path on the job's node `node` (its `SLURM_NODEID`, or its place in the
/// fleet) named `host`: `{node}` and `{host}` in `template` replaced.
pub fn node_path(template: &str, node: usize, host: &str) -> String {
    template
        .replace("{node}", &node.to_string())
        .replace("{host}", host)
}

/// Each host's run folder as an SSH source, with `ssh_config` for every connection; for a
/// Slurm job, also the job's state and nodes as its login host told them.
pub async fn sources(
    from: Where,
    ssh_config: Option<PathBuf>,
) -> Result<(Vec<JobSource>, Option<JobNodes>)> {
    let configured = |mut target: SshTarget| {
        target.config_file.clone_from(&ssh_config);
        target
    };
    match from {
        Where::Hosts(specs) => {
            let sources = specs
                .iter()
                .map(|s| {
                    let source: JobSource = s.parse()?;
                    Ok(JobSource {
                        target: configured(source.target),
                        path: source.path,
                    })
                })
                .collect::<Result<Vec<_>>>()?;
            Ok((sources, None))
        }
        Where::Slurm { job, login, path } => {
            let login = configured(login.parse()?);
            let (found, targets) = checkup_connect::slurm::job_node_targets(&login, &job, |node| {
                Ok(configured(node.parse()?))
            })
            .await?;
            let sources = found
                .nodes
                .iter()
                .zip(targets)
                .enumerate()
                .map(|(i, (node, target))| JobSource {
                    target,
                    path: node_path(&path, i, node),
                })
                .collect();
            Ok((sources, Some(found)))
        }
    }
}

/// A job copied and diagnosed.
pub struct Gathered {
    /// What was copied from each host, and what stayed there.
    pub job: JobGather,
    /// The diagnosis of what was copied before the followed rank's trace; the copied files
    /// stay when it fails.
    pub diagnosis: std::result::Result<Diagnosis, checkup_engine::EngineError>,
    /// The rank whose trace was copied after the diagnosis (the rank it follows), if any.
    pub followed_trace: Option<u32>,
}

/// Copies every run folder of `sources` into `dest` (with `traces`), diagnoses the job, then
/// copies the trace of the rank the diagnosis follows.
pub async fn gather(sources: &[JobSource], dest: &Path, traces: &TraceChoice) -> Result<Gathered> {
    let mut job = JobGather::copy(sources, dest, traces).await?;
    let diagnosis = checkup_engine::analyze_paths(&[dest.to_path_buf()], &Default::default());
    let followed = diagnosis.as_ref().ok().and_then(|d| d.diagnosed_rank);
    let copied = match followed {
        Some(rank) => job.copy_traces(&BTreeSet::from([rank])).await?,
        None => Vec::new(),
    };
    Ok(Gathered {
        job,
        diagnosis,
        followed_trace: copied.first().copied(),
    })
}
