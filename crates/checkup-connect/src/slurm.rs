//! A Slurm job's nodes, asked of the cluster's login host over SSH: the controller while it
//! remembers the job (`scontrol show job`, running or ended within its `MinJobAge`), else the
//! accounting (`sacct`); the node list expanded in the job's order (`scontrol show
//! hostnames`), which is the order of `SLURM_NODEID`.

use crate::error::{ConnectError, Result};
use crate::ssh::{SshHost, SshTarget};

/// A job's state and its nodes, `SLURM_NODEID` order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobNodes {
    /// `RUNNING`, `COMPLETED`, …
    pub state: String,
    /// Host names, node 0 first.
    pub nodes: Vec<String>,
}

/// Job `job`'s nodes, asked of the login host, each as an SSH target reached through it
/// (`ssh -J`), as users reach a cluster's nodes. `node_target` makes a node's target from its
/// host name (the caller's SSH settings).
pub async fn job_node_targets(
    login: &SshTarget,
    job: &str,
    node_target: impl Fn(&str) -> Result<SshTarget>,
) -> Result<(JobNodes, Vec<SshTarget>)> {
    let host = SshHost::connect(login.clone()).await?;
    let found = job_nodes(&host, job).await;
    host.close().await;
    let found = found?;
    let targets = found
        .nodes
        .iter()
        .map(|node| {
            let mut target = node_target(node)?;
            target.jump = Some(login.to_string());
            Ok(target)
        })
        .collect::<Result<Vec<_>>>()?;
    Ok((found, targets))
}

/// Asks `login` where job `job` ran (or runs).
pub async fn job_nodes(login: &SshHost, job: &str) -> Result<JobNodes> {
    let host = login.target.to_string();
    let err = |detail: String| ConnectError::Slurm {
        host: host.clone(),
        job: job.to_owned(),
        detail,
    };
    // Job ids are numbers, with an array task (_N) or a heterogeneous part (+N).
    if job.is_empty()
        || !job
            .chars()
            .all(|c| c.is_ascii_digit() || c == '_' || c == '+')
    {
        return Err(err(
            "a Slurm job id is a number (e.g. 4242, or 4242_3 for an array task)".into(),
        ));
    }
    let out = login
        .exec(&format!(
            "command -v scontrol >/dev/null 2>&1 || exit 5; scontrol show job -o {job} 2>&1"
        ))
        .await?;
    let said = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    let (state, list) = match out.status.code() {
        Some(5) => {
            return Err(err(
                "no Slurm commands there (scontrol not found): give the cluster's login host"
                    .into(),
            ))
        }
        Some(0) => (field(&said, "JobState"), field(&said, "NodeList")),
        _ => from_accounting(login, job, &said).await.map_err(err)?,
    };
    let state = state.unwrap_or_default();
    let list = match list.filter(|l| !l.is_empty() && l != "(null)" && l != "None assigned") {
        Some(l) => l,
        None => return Err(err(format!("the job is {state} and has no nodes yet"))),
    };
    if !list
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "-_.,[]".contains(c))
    {
        return Err(err(format!(
            "its node list `{list}` is not one Slurm writes"
        )));
    }
    let out = login
        .exec(&format!("scontrol show hostnames '{list}' 2>&1"))
        .await?;
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    if !out.status.success() {
        return Err(err(format!(
            "expanding its node list failed: {}",
            text.trim()
        )));
    }
    let nodes: Vec<String> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(str::to_owned)
        .collect();
    if nodes.is_empty() {
        return Err(err(format!("its node list `{list}` names no host")));
    }
    Ok(JobNodes { state, nodes })
}

/// State and node list from `sacct`, for a job the controller no longer holds; what to say
/// when the accounting does not know it either.
async fn from_accounting(
    login: &SshHost,
    job: &str,
    controller_said: &str,
) -> std::result::Result<(Option<String>, Option<String>), String> {
    let out = login
        .exec(&format!("sacct -X -n -P -j {job} -o State,NodeList 2>&1"))
        .await
        .map_err(|e| e.to_string())?;
    let text = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    let first = text.lines().next().unwrap_or_default();
    match (out.status.success(), first.split_once('|')) {
        (true, Some((state, nodes))) => Ok((
            Some(state.split_whitespace().next().unwrap_or(state).to_owned()),
            Some(nodes.to_owned()),
        )),
        _ => Err(format!(
            "the controller does not know the job ({}) and the accounting has no record of it ({}): give each node's run folder as HOST:PATH",
            controller_said.lines().next().unwrap_or("no answer"),
            if text.is_empty() { "no answer" } else { first }
        )),
    }
}

/// `Key=value` of `scontrol -o` output.
fn field(line: &str, key: &str) -> Option<String> {
    line.split_whitespace()
        .find_map(|w| w.strip_prefix(key)?.strip_prefix('=').map(str::to_owned))
}

#[cfg(test)]
mod tests {
    use super::field;

    #[test]
    fn a_job_line_gives_its_state_and_node_list() {
        let line = "JobId=42 JobName=train UserId=me(1000) JobState=RUNNING Reason=None NodeList=gpu-[01-02,07] BatchHost=gpu-01 NumNodes=3";
        assert_eq!(field(line, "JobState").as_deref(), Some("RUNNING"));
        assert_eq!(field(line, "NodeList").as_deref(), Some("gpu-[01-02,07]"));
        assert_eq!(field(line, "ReqNodeList"), None);
    }
}
