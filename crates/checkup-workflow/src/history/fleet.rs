//! Hosts worked with together. The connected host is a fleet of one; several SSH hosts or the
//! nodes of a Slurm job are a fleet of many. Both go through one concurrency limit
//! (`at_once`) and one reconnect loop ([`reconnect`]).

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use checkup_connect::AgentClient;
use checkup_model::{
    CheckReport, FleetEnvironment, FleetHost, FleetSource, FleetView, HostCheck, HostInfo,
    HostRequest, UiError,
};

use crate::hosts::{self, Host};
use crate::{Result, WorkflowError};

/// Hosts connected, checked, stored or stopped at once: a cluster's nodes behind one login
/// host would meet sshd's `MaxStartups` (10 by default) with more.
const AT_ONCE: usize = 8;
/// The most hosts one fleet holds.
const MOST_HOSTS: usize = 256;
/// Tries to reach a host again after its connection dropped, two seconds apart: an SSH
/// master's restart or a laptop's network coming back takes a few seconds.
pub const RECONNECT_TRIES: u32 = 10;
const RECONNECT_PAUSE: Duration = Duration::from_secs(2);

/// Where a fleet is kept: none until one is connected.
pub type FleetSlot = tokio::sync::Mutex<Option<Fleet>>;

/// One host of a fleet.
pub struct Member {
    pub(crate) spec: String,
    pub(crate) host: Option<Host>,
    info: Option<HostInfo>,
    error: Option<UiError>,
    /// Its last environment check, kept with the checkup a watch stores.
    pub(crate) check: Option<CheckReport>,
}

/// Connected hosts, in the order they were given.
pub struct Fleet {
    pub(crate) members: Vec<Member>,
    slurm_job: Option<(String, String)>,
}

impl Fleet {
    /// One host, as the user asked for it; an error when it cannot be reached.
    pub async fn one(request: HostRequest, data: &Path) -> Result<(Fleet, HostInfo)> {
        let (host, log) = hosts::connect(request, data).await?;
        let info = match hosts::info(&host, log).await {
            Ok(info) => info,
            Err(e) => {
                host.close().await;
                return Err(e);
            }
        };
        let member = Member {
            spec: info.label.clone(),
            host: Some(host),
            info: Some(info.clone()),
            error: None,
            check: None,
        };
        let fleet = Fleet {
            members: vec![member],
            slurm_job: None,
        };
        Ok((fleet, info))
    }

    /// Every host of `source`; a host that cannot be reached is kept with its error, the
    /// others still connect.
    pub async fn connect(source: FleetSource) -> Result<Fleet> {
        let (targets, slurm_job) = match source {
            FleetSource::Hosts { specs } => {
                let targets: Vec<_> = specs
                    .iter()
                    .map(|s| (s.clone(), hosts::ssh_target(s).map_err(WorkflowError::from)))
                    .collect();
                (targets, None)
            }
            FleetSource::Slurm { login, job } => {
                let login = hosts::ssh_target(login.trim())?;
                let (found, targets) =
                    checkup_connect::slurm::job_node_targets(&login, job.trim(), hosts::ssh_target)
                        .await?;
                let targets = found
                    .nodes
                    .into_iter()
                    .zip(targets.into_iter().map(Ok))
                    .collect();
                (targets, Some((job.trim().to_owned(), found.state)))
            }
        };
        if targets.is_empty() {
            return Err(WorkflowError::Invalid(
                "no hosts given: type one SSH alias or user@host per line, or a Slurm job and its login host".into(),
            ));
        }
        if targets.len() > MOST_HOSTS {
            return Err(WorkflowError::Invalid(format!(
                "{} hosts given; a fleet holds at most {MOST_HOSTS}",
                targets.len()
            )));
        }
        let members = at_once(targets, "connecting", |(spec, target)| async move {
            let connected = match target {
                Ok(t) => hosts::connect_ssh(t).await,
                Err(e) => Err(e),
            };
            match connected {
                Ok((host, log)) => match hosts::info(&host, log).await {
                    Ok(info) => Member {
                        spec,
                        host: Some(host),
                        info: Some(info),
                        error: None,
                        check: None,
                    },
                    Err(e) => {
                        host.close().await;
                        Member::failed(spec, &e)
                    }
                },
                Err(e) => Member::failed(spec, &e),
            }
        })
        .await?;
        Ok(Fleet { members, slurm_job })
    }

    pub fn view(&self) -> FleetView {
        FleetView {
            hosts: self
                .members
                .iter()
                .map(|m| FleetHost {
                    spec: m.spec.clone(),
                    info: m.info.clone(),
                    error: m.error.clone(),
                })
                .collect(),
            slurm_job: self.slurm_job.clone(),
        }
    }

    /// Whether any host answered.
    pub fn any_connected(&self) -> bool {
        self.members.iter().any(|m| m.host.is_some())
    }

    /// The connected hosts' places, names and agent clients, in fleet order.
    pub fn clients(&self) -> Vec<(usize, String, AgentClient)> {
        self.members
            .iter()
            .enumerate()
            .filter_map(|(i, m)| Some((i, m.spec.clone(), m.host.as_ref()?.client())))
            .collect()
    }

    /// The first connected host's client and name: the host of a fleet of one.
    pub fn first(&self) -> Option<(AgentClient, String)> {
        self.clients()
            .into_iter()
            .next()
            .map(|(_, name, client)| (client, name))
    }

    pub async fn close(self) {
        let hosts: Vec<Host> = self.members.into_iter().filter_map(|m| m.host).collect();
        let _ = at_once(hosts, "disconnecting", Host::close).await;
    }
}

impl Member {
    fn failed(spec: String, e: &WorkflowError) -> Member {
        Member {
            spec,
            host: None,
            info: None,
            error: Some(UiError::from(e)),
            check: None,
        }
    }
}

/// Runs `work` on every item, `AT_ONCE` at a time, and answers the results in the items'
/// order; `what` names the work if one of them stopped (a panic) once all have ended.
pub(crate) async fn at_once<T, R, Fut>(
    items: Vec<T>,
    what: &str,
    work: impl Fn(T) -> Fut,
) -> Result<Vec<R>>
where
    R: Send + 'static,
    Fut: std::future::Future<Output = R> + Send + 'static,
{
    let permits = Arc::new(tokio::sync::Semaphore::new(AT_ONCE));
    let mut set = tokio::task::JoinSet::new();
    for (i, item) in items.into_iter().enumerate() {
        let (permits, task) = (permits.clone(), work(item));
        set.spawn(async move {
            let _permit = permits.acquire_owned().await;
            (i, task.await)
        });
    }
    // Every task is waited for, even after one stopped: none is left half done.
    let mut done = Vec::new();
    let mut stopped = None;
    while let Some(result) = set.join_next().await {
        match result {
            Ok(r) => done.push(r),
            Err(e) => stopped = Some(WorkflowError::Other(format!("{what} stopped: {e}"))),
        }
    }
    if let Some(e) = stopped {
        return Err(e);
    }
    done.sort_by_key(|(i, _)| *i);
    Ok(done.into_iter().map(|(_, r)| r).collect())
}

/// Host `member` of the fleet in `slot` reached again after its connection dropped (a new
/// SSH master and forward, the local agent restarted, or a forwarded agent answering again);
/// `attempt` hears each try's number before it is made.
pub async fn reconnect(
    slot: &FleetSlot,
    member: usize,
    mut attempt: impl FnMut(u32),
) -> Result<AgentClient> {
    let mut last = None;
    for n in 1..=RECONNECT_TRIES {
        attempt(n);
        let mut fleet = slot.lock().await;
        let Some(host) = fleet
            .as_mut()
            .and_then(|f| f.members.get_mut(member))
            .and_then(|m| m.host.as_mut())
        else {
            // Disconnected meanwhile: nothing to reach again.
            return Err(WorkflowError::NoHost);
        };
        match host.reconnect().await {
            Ok(()) => return Ok(host.client()),
            Err(e) => last = Some(e),
        }
        drop(fleet);
        tokio::time::sleep(RECONNECT_PAUSE).await;
    }
    Err(last.unwrap_or(WorkflowError::NoHost))
}

/// Runs the environment check on every connected host of the fleet in `slot` and compares
/// them; each host's check is kept for the checkup a watch stores.
pub async fn check(slot: &FleetSlot) -> Result<FleetEnvironment> {
    let clients = slot
        .lock()
        .await
        .as_ref()
        .map(Fleet::clients)
        .ok_or(WorkflowError::NoFleet)?;
    let checked = at_once(clients, "the check", |(i, host, client)| async move {
        (i, host, client.check(&Default::default()).await)
    })
    .await?;
    let mut fleet = slot.lock().await;
    let fleet = fleet.as_mut().ok_or(WorkflowError::NoFleet)?;
    let mut env = FleetEnvironment::default();
    let mut facts = Vec::new();
    for (i, host, result) in checked {
        let (report, error) = match result {
            Ok(r) => (Some(r), None),
            Err(e) => (None, Some(UiError::from(&WorkflowError::from(e)))),
        };
        if let Some(r) = &report {
            facts.push((host.clone(), r.facts.clone()));
        }
        if let Some(m) = fleet.members.get_mut(i) {
            m.check.clone_from(&report);
        }
        env.hosts.push(HostCheck {
            host,
            report,
            error,
        });
    }
    env.differences = checkup_environment::across_hosts(&facts);
    Ok(env)
}
