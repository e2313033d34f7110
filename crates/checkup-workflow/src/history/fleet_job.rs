//! A job's run folders on the fleet's hosts, gathered and kept as one checkup.

use checkup_connect::gather::{JobSource, TraceChoice};
use checkup_model::commands as cmd;
use checkup_store::NewCheckup;

use crate::gather::{gather, node_path};
use crate::hosts::Host;
use crate::recordings::{self, give_back_freed_heap};
use crate::{Result, Workflow, WorkflowError};

impl Workflow {
    /// Copies a job's run folder from every host of the fleet (`path` with `{node}` for the
    /// host's place in the fleet and `{host}` for its name), diagnoses the job and keeps it
    /// as a checkup.
    pub async fn gather_fleet_job(&self, args: cmd::GatherFleetJob) -> Result<i64> {
        let template = args.path.trim();
        if template.is_empty() {
            return Err(WorkflowError::Invalid(
                "give the job's run folder on the hosts, e.g. /scratch/run/node{node}".into(),
            ));
        }
        let sources = self.fleet_sources(template).await?;
        let millis = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis());
        let dest = self
            .recordings()
            .join("fleet-jobs")
            .join(millis.to_string());
        let hosts: Vec<String> = sources
            .iter()
            .map(|s| s.target.destination.clone())
            .collect();
        // The copy streams over the hosts with borrowed state that is not `Send` for every
        // lifetime a spawned future must be: it runs on a thread of its own, with the
        // analysis.
        let folder = dest.clone();
        let d = tokio::task::spawn_blocking(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .map_err(|e| WorkflowError::Other(format!("cannot start the copy: {e}")))?;
            runtime.block_on(async {
                let gathered = gather(&sources, &folder, &TraceChoice::SummariesOnly).await?;
                match gathered.followed_trace {
                    // Read again with the trace, so the checkup says which traces stayed on
                    // the hosts.
                    Some(_) => Ok(checkup_engine::analyze_paths(
                        std::slice::from_ref(&folder),
                        &Default::default(),
                    )?),
                    None => Ok::<_, WorkflowError>(gathered.diagnosis?),
                }
            })
        })
        .await
        .map_err(|e| WorkflowError::Other(format!("the copy stopped: {e}")))??;
        give_back_freed_heap();
        // A list short enough for the history's side bar.
        let named = match hosts.len() {
            0..=3 => hosts.join(", "),
            n => format!("{}, … ({n} hosts)", hosts[..2].join(", ")),
        };
        let checkup = NewCheckup {
            title: format!("Job on {named}"),
            host: named,
            source: Some(dest.display().to_string()),
            is_demo: false,
            rerun_of: None,
        };
        recordings::store_diagnosed(self.store(), &checkup, &d).await
    }

    /// The job's run folder on each host of the fleet, every host connected.
    async fn fleet_sources(&self, template: &str) -> Result<Vec<JobSource>> {
        let fleet = self.shared.fleet.lock().await;
        let fleet = fleet.as_ref().ok_or(WorkflowError::NoFleet)?;
        fleet
            .members
            .iter()
            .enumerate()
            .map(|(i, m)| {
                let target = m.host.as_ref().and_then(Host::ssh_target).ok_or_else(|| {
                    WorkflowError::Invalid(format!(
                        "{} is not connected: its part of the job cannot be copied (connect it again, or leave it out of the list)",
                        m.spec
                    ))
                })?;
                Ok(JobSource {
                    target: target.clone(),
                    path: node_path(template, i, &m.spec),
                })
            })
            .collect()
    }
}
