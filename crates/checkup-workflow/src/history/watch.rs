//! The fleet's commands: connect several hosts, compare their environments, watch every GPU
//! side by side (progress to [`Events::fleet`](crate::Events::fleet) each second), and keep
//! each host's samples as a checkup of that host, analysed like any sampling.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use checkup_connect::AgentClient;
use checkup_model::commands as cmd;
use checkup_model::{
    CheckReport, FleetEnvironment, FleetProgress, FleetView, GpuGlance, HostLive, LiveSample,
    LiveStatus, SampleSet, SamplingRequest, UiError,
};
use checkup_store::NewCheckup;

use crate::fleet::{self, at_once, Fleet};
use crate::live::LivePhase;
use crate::{recordings, Result, Workflow, WorkflowError};

/// The seconds of samples each host keeps in memory for its curves: the agent records the
/// whole watch, downloaded at the end.
const CURVE_SPAN_S: f64 = 60.0;
/// How often the fleet's curves are drawn again.
const FRAME_EVERY: Duration = Duration::from_secs(1);

impl Workflow {
    /// Connects to several hosts at once, replacing the fleet connected before.
    pub async fn connect_fleet(&self, args: cmd::ConnectFleet) -> Result<FleetView> {
        let cmd::ConnectFleet { source } = args;
        self.leave_fleet().await;
        let fleet = Fleet::connect(source).await?;
        let view = fleet.view();
        *self.shared.fleet.lock().await = Some(fleet);
        Ok(view)
    }

    /// The environment check on every host of the fleet, compared.
    pub async fn check_fleet(&self, args: cmd::CheckFleet) -> Result<FleetEnvironment> {
        let cmd::CheckFleet {} = args;
        fleet::check(&self.shared.fleet).await
    }

    /// Watches the fleet's GPUs for `seconds`.
    pub async fn watch_fleet(&self, args: cmd::WatchFleet) -> Result<()> {
        let cmd::WatchFleet { seconds } = args;
        // NaN and infinity are outside the range too.
        if !(1.0..=checkup_model::SAMPLING_MAX_S_LIMIT).contains(&seconds) {
            return Err(WorkflowError::Invalid(format!(
                "watch between 1 s and a week, not {seconds} s"
            )));
        }
        let clients = self
            .shared
            .fleet
            .lock()
            .await
            .as_ref()
            .map(Fleet::clients)
            .unwrap_or_default();
        if clients.is_empty() {
            return Err(WorkflowError::NoFleet);
        }
        let phase = self.shared.fleet_watch.begin()?;
        tokio::spawn(watch(self.clone(), clients, seconds, phase));
        Ok(())
    }

    /// Ends the fleet watch early; each host's samples so far are analysed and kept.
    pub fn stop_fleet(&self, args: cmd::StopFleet) -> Result<()> {
        let cmd::StopFleet {} = args;
        self.shared.fleet_watch.stop();
        Ok(())
    }

    /// Leaves every host of the fleet.
    pub async fn disconnect_fleet(&self, args: cmd::DisconnectFleet) -> Result<()> {
        let cmd::DisconnectFleet {} = args;
        self.leave_fleet().await;
        Ok(())
    }

    async fn leave_fleet(&self) {
        let old = self.shared.fleet.lock().await.take();
        if let Some(old) = old {
            old.close().await;
        }
    }
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

/// Watches every host of `clients` for `seconds` (or until stopped), reporting each second;
/// then stores each host's samples as a checkup of it.
async fn watch(
    wf: Workflow,
    clients: Vec<(usize, String, AgentClient)>,
    seconds: f64,
    phase: LivePhase,
) {
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
    for ((member, _, client), feed) in clients.into_iter().zip(&feeds) {
        let (wf, feed, phase) = (wf.clone(), feed.clone(), phase.clone());
        tasks.spawn(async move {
            let result = sample_host(&wf, member, client, seconds, &phase, &feed).await;
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
            wf.events().fleet(&p);
            store_checkups(&wf, &feeds).await;
            p.hosts = feeds.iter().map(|f| lock(f).live.clone()).collect();
            p.done = true;
            phase.end();
            wf.events().fleet(&p);
            wf.events().checkups_changed();
            return;
        }
        wf.events().fleet(&p);
    }
}

/// Every host's GPUs now, their curves drawn off the async threads.
async fn progress(feeds: &Feeds, started: Instant, seconds: f64) -> FleetProgress {
    let feeds = feeds.clone();
    let hosts = tokio::task::spawn_blocking(move || {
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
    wf: &Workflow,
    member: usize,
    mut client: AgentClient,
    seconds: f64,
    phase: &LivePhase,
    feed: &Mutex<Feed>,
) -> Result<()> {
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
    while started.elapsed().as_secs_f64() < seconds && !phase.stopped() {
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
                client = reconnect(wf, member, feed).await?;
                lock(feed).client = Some(client.clone());
                sub = client.samples(last).await?;
                lock(feed).live.status = LiveStatus::Sampling;
            }
            Err(_) => {}
        }
    }
    if client.stop_sampling().await.is_err() {
        let again = reconnect(wf, member, feed).await?;
        again.stop_sampling().await?;
        lock(feed).client = Some(again);
    }
    Ok(())
}

/// The host reached again after its stream dropped, its feed saying so meanwhile.
async fn reconnect(wf: &Workflow, member: usize, feed: &Mutex<Feed>) -> Result<AgentClient> {
    fleet::reconnect(&wf.shared.fleet, member, |_| {
        lock(feed).live.status = LiveStatus::Reconnecting;
    })
    .await
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

/// Downloads each sampled host's run, analyses it and stores it as a checkup of that host,
/// with the host's environment check when the fleet was checked.
async fn store_checkups(wf: &Workflow, feeds: &Feeds) {
    let checks: Vec<Option<CheckReport>> = wf
        .shared
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
            let wf = wf.clone();
            async move {
                let stored = store_one(&wf, &host, &client, &run_id, check).await;
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
    wf: &Workflow,
    host: &str,
    client: &AgentClient,
    run_id: &str,
    check: Option<CheckReport>,
) -> Result<i64> {
    // Stored once analysed: a host whose run could not be fetched leaves no empty checkup.
    let folder = wf
        .recordings()
        .join("fleet")
        .join(checkup_connect::folder_name(host))
        .join(run_id);
    let dir = client.download_run(run_id, &folder).await?;
    let d = recordings::analyse(dir.clone()).await?;
    let checkup = NewCheckup {
        title: format!("{host} checkup"),
        host: host.to_owned(),
        source: Some(dir.display().to_string()),
        is_demo: false,
        rerun_of: None,
    };
    let id = recordings::store_diagnosed(wf.store(), &checkup, &d).await?;
    if let Some(report) = &check {
        wf.store().save_environment(id, report).await?;
    }
    Ok(id)
}
