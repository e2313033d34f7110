//! Several hosts at once: a list of SSH hosts or the nodes of a Slurm job, each with its
//! agent (uploaded and started where needed, eight hosts at a time), their environment
//! checks compared, and their GPUs watched side by side. A watch keeps each host's samples as
//! a checkup of that host, analysed like any sampling.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use checkup_connect::gather::{JobGather, JobSource, TraceChoice};
use checkup_connect::AgentClient;
use checkup_model::{
    CheckReport, FleetEnvironment, FleetHost, FleetProgress, FleetSource, FleetView, GpuGlance,
    HostCheck, HostInfo, HostLive, LiveSample, LiveStatus, SampleSet, SamplingRequest, UiError,
};
use tauri::{AppHandle, Emitter, Manager};

use crate::hosts::{self, Host};
use crate::live::LivePhase;
use crate::{AppError, AppState};

pub const EVENT: &str = "fleet-progress";

/// Hosts connected, checked or stopped at once: a cluster's nodes behind one login host
/// would meet sshd's `MaxStartups` (10 by default) with more.
const AT_ONCE: usize = 8;
/// The most hosts one fleet holds.
const MOST_HOSTS: usize = 256;
/// The seconds of samples each host keeps in memory for its curves: the agent records the
/// whole watch, downloaded at the end.
const CURVE_SPAN_S: f64 = 60.0;
/// How often the fleet's curves are drawn again.
const FRAME_EVERY: Duration = Duration::from_secs(1);
/// Tries to reach a host again after its sample stream dropped.
const RECONNECT_TRIES: u32 = 3;

/// One host of the fleet.
pub struct Member {
    spec: String,
    host: Option<Host>,
    info: Option<HostInfo>,
    error: Option<UiError>,
    /// Its last environment check, kept with the checkup a watch stores.
    check: Option<CheckReport>,
}

/// The connected fleet.
pub struct Fleet {
    members: Vec<Member>,
    slurm_job: Option<(String, String)>,
}

impl Fleet {
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

    /// The connected hosts' names and agent clients, in fleet order.
    fn clients(&self) -> Vec<(usize, String, AgentClient)> {
        self.members
            .iter()
            .enumerate()
            .filter_map(|(i, m)| Some((i, m.spec.clone(), m.host.as_ref()?.client())))
            .collect()
    }

    pub async fn close(self) {
        let mut set = tokio::task::JoinSet::new();
        for host in self.members.into_iter().filter_map(|m| m.host) {
            set.spawn(host.close());
        }
        while set.join_next().await.is_some() {}
    }
}

/// Runs `work` on every item, `AT_ONCE` at a time, and answers the results in the items'
/// order; `what` names the work if one of them stopped (a panic) once all have ended.
async fn at_once<T, R, Fut>(
    items: Vec<T>,
    what: &str,
    work: impl Fn(T) -> Fut,
) -> Result<Vec<R>, AppError>
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
            Err(e) => stopped = Some(AppError::Other(format!("{what} stopped: {e}"))),
        }
    }
    if let Some(e) = stopped {
        return Err(e);
    }
    done.sort_by_key(|(i, _)| *i);
    Ok(done.into_iter().map(|(_, r)| r).collect())
}

/// Connects to every host of `source`; a host that cannot be reached is kept with its error,
/// the others still connect.
pub async fn connect(source: FleetSource) -> Result<Fleet, AppError> {
    let (targets, slurm_job) = match source {
        FleetSource::Hosts { specs } => {
            let targets: Vec<_> = specs
                .iter()
                .map(|s| (s.clone(), hosts::ssh_target(s).map_err(AppError::from)))
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
        return Err(AppError::Other(
            "no hosts given: type one SSH alias or user@host per line, or a Slurm job and its login host".into(),
        ));
    }
    if targets.len() > MOST_HOSTS {
        return Err(AppError::Other(format!(
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
                    failed(spec, &e)
                }
            },
            Err(e) => failed(spec, &e),
        }
    })
    .await?;
    Ok(Fleet { members, slurm_job })
}

fn failed(spec: String, e: &AppError) -> Member {
    Member {
        spec,
        host: None,
        info: None,
        error: Some(UiError::from(e)),
        check: None,
    }
}

/// Runs the environment check on every connected host and compares them.
pub async fn check(state: &AppState) -> Result<FleetEnvironment, AppError> {
    let clients = state
        .fleet
        .lock()
        .await
        .as_ref()
        .map(Fleet::clients)
        .ok_or(AppError::NoFleet)?;
    let checked = at_once(clients, "the check", |(i, host, client)| async move {
        (i, host, client.check(&Default::default()).await)
    })
    .await?;
    let mut fleet = state.fleet.lock().await;
    let fleet = fleet.as_mut().ok_or(AppError::NoFleet)?;
    let mut env = FleetEnvironment::default();
    let mut facts = Vec::new();
    for (i, host, result) in checked {
        let (report, error) = match result {
            Ok(r) => (Some(r), None),
            Err(e) => (None, Some(UiError::from(&AppError::from(e)))),
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

/// What one host's sampling task shares with the frame loop.
#[derive(Default)]
struct Feed {
    /// The host's place in the fleet (its member).
    member: usize,
    live: HostLive,
    /// The last `CURVE_SPAN_S` seconds of its samples.
    samples: SampleSet,
    run_id: Option<String>,
    client: Option<AgentClient>,
}

type Feeds = Vec<Arc<Mutex<Feed>>>;

fn lock(f: &Mutex<Feed>) -> std::sync::MutexGuard<'_, Feed> {
    f.lock().unwrap_or_else(|p| p.into_inner())
}

/// Watches every connected host's GPUs for `seconds` (or until stopped), reporting
/// `fleet-progress` each second; then stores each host's samples as a checkup of it.
pub async fn watch(app: AppHandle, seconds: f64, phase: LivePhase) {
    let clients = {
        let state = app.state::<AppState>();
        let fleet = state.fleet.lock().await;
        fleet.as_ref().map(Fleet::clients).unwrap_or_default()
    };
    let feeds: Feeds = clients
        .iter()
        .map(|(member, host, client)| {
            Arc::new(Mutex::new(Feed {
                member: *member,
                live: HostLive {
                    host: host.clone(),
                    ..Default::default()
                },
                client: Some(client.clone()),
                ..Default::default()
            }))
        })
        .collect();
    let started = Instant::now();
    let mut tasks = tokio::task::JoinSet::new();
    for ((i, _, client), feed) in clients.into_iter().zip(&feeds) {
        let (app, feed, stop) = (app.clone(), feed.clone(), phase.stop.clone());
        tasks.spawn(async move {
            let result = sample_host(&app, i, client, seconds, &stop, &feed).await;
            let mut f = lock(&feed);
            match result {
                Ok(()) => f.live.status = LiveStatus::Analysing,
                Err(e) => {
                    f.live.status = LiveStatus::Failed;
                    f.live.error = Some(UiError::from(&e));
                }
            }
        });
    }
    loop {
        let finished = tokio::time::timeout(FRAME_EVERY, async {
            while tasks.join_next().await.is_some() {}
        })
        .await
        .is_ok();
        let mut p = progress(&feeds, started, seconds).await;
        if finished {
            // The last frame before the analyses: every curve as it ended.
            emit(&app, &p);
            store_checkups(&app, &feeds).await;
            p.hosts = feeds.iter().map(|f| lock(f).live.clone()).collect();
            p.done = true;
            phase.end();
            emit(&app, &p);
            let _ = app.emit("checkups-changed", ());
            return;
        }
        emit(&app, &p);
    }
}

fn emit(app: &AppHandle, p: &FleetProgress) {
    let _ = app.emit(EVENT, p);
}

/// Every host's GPUs now, their curves drawn off the async threads.
async fn progress(feeds: &Feeds, started: Instant, seconds: f64) -> FleetProgress {
    let feeds = feeds.clone();
    let hosts = tauri::async_runtime::spawn_blocking(move || {
        feeds
            .iter()
            .map(|f| {
                // Drawn from a copy: the host's sampling task keeps adding meanwhile.
                let samples = lock(f).samples.clone();
                let mut gpus = GpuGlance::latest(&samples);
                let curves =
                    checkup_engine::analysis::charts::live_chart_data(&samples, None, CURVE_SPAN_S);
                for g in &mut gpus {
                    g.chart = curves
                        .gpus
                        .iter()
                        .find(|s| s.gpu == g.gpu)
                        .map(|s| checkup_report::gpu_glance(s, CURVE_SPAN_S));
                }
                let mut f = lock(f);
                f.live.gpus = gpus;
                f.live.clone()
            })
            .collect()
    })
    .await
    .unwrap_or_default();
    FleetProgress {
        elapsed_s: started.elapsed().as_secs_f64().min(seconds),
        total_s: seconds,
        hosts,
        done: false,
    }
}

/// Samples one host until the watch ends, keeping its last minute in `feed`.
async fn sample_host(
    app: &AppHandle,
    member: usize,
    mut client: AgentClient,
    seconds: f64,
    stop: &AtomicBool,
    feed: &Mutex<Feed>,
) -> Result<(), AppError> {
    let since = client.health().await?.last_seq;
    let request = SamplingRequest {
        // A watch the app lost track of stops on its own a minute after it was due.
        max_s: seconds + 60.0,
        ..Default::default()
    };
    let run_id = client.start_sampling(&request).await?;
    lock(feed).run_id = Some(run_id);
    let mut sub = client.samples(since).await?;
    lock(feed).live.status = LiveStatus::Sampling;
    let started = Instant::now();
    while started.elapsed().as_secs_f64() < seconds && !stop.load(Ordering::Relaxed) {
        match tokio::time::timeout(Duration::from_millis(250), sub.next()).await {
            Ok(Ok(Some(e))) => {
                let mut f = lock(feed);
                f.live.samples += 1;
                let s = &mut f.samples;
                match e.sample {
                    LiveSample::Nvml(x) => s.nvml.push(x),
                    LiveSample::Gpm(x) => s.gpm.push(x),
                    LiveSample::Host(x) => s.host.push(x),
                }
                keep_last_minute(s);
            }
            Ok(Ok(None)) | Ok(Err(_)) => {
                let last = sub.last_seq();
                lock(feed).live.status = LiveStatus::Reconnecting;
                client = reconnect(app, member).await?;
                lock(feed).client = Some(client.clone());
                sub = client.samples(last).await?;
                lock(feed).live.status = LiveStatus::Sampling;
            }
            Err(_) => {}
        }
    }
    match client.stop_sampling().await {
        Ok(_) => Ok(()),
        Err(_) => {
            let again = reconnect(app, member).await?;
            again.stop_sampling().await?;
            lock(feed).client = Some(again);
            Ok(())
        }
    }
}

/// Drops samples older than the curves show (the agent keeps them all in its run).
fn keep_last_minute(s: &mut SampleSet) {
    let newest = s.nvml.last().map_or(f64::NEG_INFINITY, |x| x.ts);
    let from = newest - CURVE_SPAN_S - 5.0;
    // Trimmed in batches, not at every sample.
    if s.nvml.first().is_some_and(|x| x.ts < from - 10.0) {
        s.nvml.retain(|x| x.ts >= from);
        s.gpm.retain(|x| x.ts >= from);
        s.host.retain(|x| x.ts >= from);
    }
}

/// The fleet's host `member` reached again (a new SSH master and forward).
async fn reconnect(app: &AppHandle, member: usize) -> Result<AgentClient, AppError> {
    let mut last = None;
    for _ in 0..RECONNECT_TRIES {
        let state = app.state::<AppState>();
        let mut fleet = state.fleet.lock().await;
        let host = fleet
            .as_mut()
            .and_then(|f| f.members.get_mut(member))
            .and_then(|m| m.host.as_mut())
            .ok_or(AppError::NoFleet)?;
        match host.reconnect().await {
            Ok(()) => return Ok(host.client()),
            Err(e) => last = Some(e),
        }
        drop(fleet);
        tokio::time::sleep(Duration::from_secs(2)).await;
    }
    Err(last.unwrap_or(AppError::NoFleet))
}

/// Downloads each sampled host's run, analyses it and stores it as a checkup of that host,
/// with the host's environment check when the fleet was checked.
async fn store_checkups(app: &AppHandle, feeds: &Feeds) {
    let state = app.state::<AppState>();
    let checks: Vec<Option<CheckReport>> = state
        .fleet
        .lock()
        .await
        .as_ref()
        .map(|f| f.members.iter().map(|m| m.check.clone()).collect())
        .unwrap_or_default();
    // The hosts whose sampling ended with a run to fetch, with their environment check.
    let runs: Vec<_> = feeds
        .iter()
        .filter_map(|feed| {
            let f = lock(feed);
            if f.live.status == LiveStatus::Failed {
                return None;
            }
            let check = checks.get(f.member).cloned().flatten();
            Some((
                feed.clone(),
                f.live.host.clone(),
                f.run_id.clone()?,
                f.client.clone()?,
                check,
            ))
        })
        .collect();
    // A stopped task leaves its host as it was; the others are stored all the same.
    let _ = at_once(
        runs,
        "storing the runs",
        |(feed, host, run_id, client, check)| {
            let app = app.clone();
            async move {
                let stored = store_one(&app, &host, &client, &run_id, check).await;
                let mut f = lock(&feed);
                match stored {
                    Ok(id) => {
                        f.live.checkup_id = Some(id);
                        f.live.status = LiveStatus::Done;
                    }
                    Err(e) => {
                        f.live.status = LiveStatus::Failed;
                        f.live.error = Some(UiError::from(&e));
                    }
                }
            }
        },
    )
    .await;
}

async fn store_one(
    app: &AppHandle,
    host: &str,
    client: &AgentClient,
    run_id: &str,
    check: Option<CheckReport>,
) -> Result<i64, AppError> {
    let state = app.state::<AppState>();
    // Stored once analysed: a host whose run could not be fetched leaves no empty checkup.
    let folder = checkup_connect::folder_name(host);
    let dir = client
        .download_run(
            run_id,
            &state
                .data
                .join("recordings")
                .join("fleet")
                .join(folder)
                .join(run_id),
        )
        .await?;
    let d = crate::analyse(dir.clone()).await?;
    let checkup = checkup_store::NewCheckup {
        title: format!("{host} checkup"),
        host: host.to_owned(),
        source: Some(dir.display().to_string()),
        is_demo: false,
        rerun_of: None,
    };
    let id = crate::store_diagnosed(&state.store, &checkup, &d).await?;
    if let Some(report) = &check {
        state.store.save_environment(id, report).await?;
    }
    Ok(id)
}

/// Copies a job's run folder from every host of the fleet (`path` with `{node}` and
/// `{host}`), each rank's summary in place of its trace (`checkup-agent run` left them
/// beside the traces), diagnoses the job, copies the trace of the rank the diagnosis
/// follows, and stores the job as a checkup.
pub async fn gather_job(state: &AppState, path: &str) -> Result<i64, AppError> {
    let path = path.trim();
    if path.is_empty() {
        return Err(AppError::Other(
            "give the job's run folder on the hosts, e.g. /scratch/run/node{node}".into(),
        ));
    }
    let sources = {
        let fleet = state.fleet.lock().await;
        let fleet = fleet.as_ref().ok_or(AppError::NoFleet)?;
        fleet
            .members
            .iter()
            .enumerate()
            .map(|(i, m)| {
                let target = m.host.as_ref().and_then(Host::ssh_target).ok_or_else(|| {
                    AppError::Other(format!(
                        "{} is not connected: its part of the job cannot be copied (connect it again, or leave it out of the list)",
                        m.spec
                    ))
                })?;
                Ok(JobSource {
                    target: target.clone(),
                    path: path
                        .replace("{node}", &i.to_string())
                        .replace("{host}", &m.spec),
                })
            })
            .collect::<Result<Vec<_>, AppError>>()?
    };
    let millis = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis());
    let dest = state
        .data
        .join("recordings")
        .join("fleet-jobs")
        .join(millis.to_string());
    let hosts: Vec<String> = sources
        .iter()
        .map(|s| s.target.destination.clone())
        .collect();
    // The copy streams over the hosts with borrowed state that is not `Send` for every
    // lifetime a command's future must be: it runs on a thread of its own, with the analysis.
    let folder = dest.clone();
    let d = tauri::async_runtime::spawn_blocking(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| AppError::Other(format!("cannot start the copy: {e}")))?;
        runtime.block_on(async {
            let mut job = JobGather::copy(&sources, &folder, &TraceChoice::SummariesOnly).await?;
            let analyse = || {
                checkup_engine::analyze_paths(std::slice::from_ref(&folder), &Default::default())
            };
            let d = analyse()?;
            // The rank the diagnosis follows: its trace is the one worth having at hand. Read
            // again with it, so the stored checkup says which traces stayed on the hosts.
            let copied = match d.diagnosed_rank {
                Some(rank) => {
                    job.copy_traces(&std::collections::BTreeSet::from([rank]))
                        .await?
                }
                None => Vec::new(),
            };
            Ok::<_, AppError>(if copied.is_empty() { d } else { analyse()? })
        })
    })
    .await
    .map_err(|e| AppError::Other(format!("the copy stopped: {e}")))??;
    crate::give_back_freed_heap();
    // A list short enough for the history's side bar.
    let named = match hosts.len() {
        0..=3 => hosts.join(", "),
        n => format!("{}, … ({n} hosts)", hosts[..2].join(", ")),
    };
    let checkup = checkup_store::NewCheckup {
        title: format!("Job on {named}"),
        host: named,
        source: Some(dest.display().to_string()),
        is_demo: false,
        rerun_of: None,
    };
    crate::store_diagnosed(&state.store, &checkup, &d).await
}
