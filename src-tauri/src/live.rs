//! The live phases of a checkup on a connected host: sampling (live curves, time left) and
//! profiling a command (steps done). Each runs as a task that reports `live-progress` events
//! about once a second, rides out dropped connections (the stream resumes from its last
//! sequence number, so no sample is lost), then downloads the run, analyses it and stores
//! the diagnosis.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use checkup_connect::AgentClient;
use checkup_model::{Language, ReconnectReason};
use checkup_model::{
    LiveProgress, LiveSample, LiveStatus, RunRequest, RunState, SampleSet, SamplingRequest,
};
use tauri::{AppHandle, Emitter, Manager};

use crate::{AppError, AppState};

pub const EVENT: &str = "live-progress";

/// Reconnect attempts before a live phase gives up.
const RECONNECT_TRIES: u32 = 10;

fn emit(app: &AppHandle, p: &LiveProgress) {
    let _ = app.emit(EVENT, p);
}

/// The live phase in progress (one at a time): whether it runs, and the user's stop.
#[derive(Clone, Default)]
pub struct LivePhase {
    pub stop: Arc<AtomicBool>,
    running: Arc<AtomicBool>,
}

impl LivePhase {
    /// Claims the app's one live slot, unless a phase still runs (a stopped sampling phase
    /// runs on while it downloads and analyses).
    pub fn begin(slot: &std::sync::Mutex<Option<LivePhase>>) -> Result<LivePhase, AppError> {
        let mut slot = slot.lock().unwrap_or_else(|p| p.into_inner());
        if slot
            .as_ref()
            .is_some_and(|s| s.running.load(Ordering::Relaxed))
        {
            return Err(AppError::Other(
                "a live phase is already running: stop it first".into(),
            ));
        }
        let phase = LivePhase {
            stop: Arc::default(),
            running: Arc::new(AtomicBool::new(true)),
        };
        *slot = Some(phase.clone());
        Ok(phase)
    }
}

impl LivePhase {
    /// Frees the live slot: the phase has ended.
    pub fn end(&self) {
        self.running.store(false, Ordering::Relaxed);
    }
}

/// The last report of a phase: done, with its error if any; frees the live slot.
fn finish(app: &AppHandle, mut p: LiveProgress, result: Result<(), AppError>, phase: &LivePhase) {
    p.error = result.err().as_ref().map(checkup_model::UiError::from);
    p.done = true;
    p.status = if p.error.is_some() {
        LiveStatus::Failed
    } else {
        LiveStatus::Done
    };
    phase.end();
    emit(app, &p);
}

async fn current_client(app: &AppHandle) -> Result<AgentClient, AppError> {
    app.state::<AppState>().client().await
}

/// Reconnects the host (new SSH master and forward, or a check that the agent still runs);
/// `why` is a message-catalogue key.
async fn reconnect(
    app: &AppHandle,
    p: &mut LiveProgress,
    why: ReconnectReason,
) -> Result<AgentClient, AppError> {
    let mut last = None;
    for attempt in 1..=RECONNECT_TRIES {
        p.status = LiveStatus::Reconnecting;
        p.reconnect_attempt = attempt;
        p.reconnect_tries = RECONNECT_TRIES;
        p.reconnect_reason = Some(why);
        emit(app, p);
        let state = app.state::<AppState>();
        let mut host = state.host.lock().await;
        let Some(h) = host.as_mut() else {
            return Err(AppError::NoHost);
        };
        match h.reconnect().await {
            Ok(()) => {
                p.reconnects += 1;
                return Ok(h.client());
            }
            Err(e) => last = Some(e),
        }
        drop(host);
        tokio::time::sleep(Duration::from_secs(2)).await;
    }
    Err(last.unwrap_or(AppError::NoHost))
}

fn recordings_dir(app: &AppHandle, id: i64) -> PathBuf {
    app.state::<AppState>()
        .data
        .join("recordings")
        .join(id.to_string())
}

/// How often the live curves are drawn again: the agent samples NVML ten times a second.
const FRAME_EVERY: Duration = Duration::from_millis(100);
/// How often the engine analyses everything sampled so far, for the steady window it marks.
const REMARK_EVERY: Duration = Duration::from_secs(1);
/// The seconds a live chart shows: its last minute, scrolling.
const LIVE_SPAN_S: f64 = 60.0;

/// The live curves: the engine's marks from its last full analysis, redone each second
/// (`remark`), and a frame of the last minute's curves drawn each tenth of a second (`frame`).
struct LiveCurves {
    lang: Language,
    marks: Option<checkup_model::Diagnosis>,
}

impl LiveCurves {
    fn new(lang: Language) -> Self {
        LiveCurves { lang, marks: None }
    }

    /// Analyses everything sampled so far.
    fn remark(&mut self, samples: &SampleSet) {
        let rec = checkup_engine::ingest::Recording {
            samples: samples.clone(),
            ..Default::default()
        };
        self.marks = Some(checkup_engine::diagnose_recording(
            rec,
            None,
            &Default::default(),
        ));
    }

    /// The charts of the last minute as sampled now (none before the first analysis).
    fn frame(&self, samples: &SampleSet) -> Vec<checkup_model::ChartSvg> {
        let Some(marks) = &self.marks else {
            return Vec::new();
        };
        let mut d = marks.clone();
        let c = &marks.charts;
        let steady = c.steady.map(|(a, b)| (a + c.t0, b + c.t0));
        d.charts = checkup_engine::analysis::charts::live_chart_data(samples, steady, LIVE_SPAN_S);
        checkup_report::live_charts(&d, checkup_text::report::text(self.lang), LIVE_SPAN_S)
    }
}

/// Downloads a run, analyses it and stores the diagnosis (keeping the environment check).
async fn analyse_and_store(
    app: &AppHandle,
    client: &AgentClient,
    id: i64,
    run_id: &str,
) -> Result<(), AppError> {
    let dir = client
        .download_run(run_id, &recordings_dir(app, id).join(run_id))
        .await?;
    let d = crate::analyse(dir).await?;
    let state = app.state::<AppState>();
    state.store.save_diagnosis(id, &d).await?;
    Ok(())
}

/// Samples the host for `seconds` (or until stopped), streaming live curves.
pub async fn sample(
    app: AppHandle,
    id: i64,
    seconds: f64,
    req: SamplingRequest,
    lang: Language,
    phase: LivePhase,
) {
    let mut p = LiveProgress {
        checkup_id: id,
        phase: checkup_model::LivePhase::Sampling,
        total_s: Some(seconds),
        status: LiveStatus::Starting,
        ..Default::default()
    };
    let result = sample_inner(&app, id, seconds, req, lang, &phase.stop, &mut p).await;
    finish(&app, p, result, &phase);
}

async fn sample_inner(
    app: &AppHandle,
    id: i64,
    seconds: f64,
    req: SamplingRequest,
    lang: Language,
    stop: &AtomicBool,
    p: &mut LiveProgress,
) -> Result<(), AppError> {
    let mut client = current_client(app).await?;
    let since = client.health().await?.last_seq;
    let run_id = client.start_sampling(&req).await?;
    let mut sub = client.samples(since).await?;
    let mut samples = SampleSet::default();
    let started = Instant::now();
    let mut curves = LiveCurves::new(lang);
    let mut last_frame = Instant::now() - FRAME_EVERY;
    let mut last_remark = Instant::now() - REMARK_EVERY;
    p.status = LiveStatus::Sampling;
    while started.elapsed().as_secs_f64() < seconds && !stop.load(Ordering::Relaxed) {
        let due = FRAME_EVERY.saturating_sub(last_frame.elapsed());
        match tokio::time::timeout(due, sub.next()).await {
            Ok(Ok(Some(e))) => {
                p.samples += 1;
                match e.sample {
                    LiveSample::Nvml(s) => samples.nvml.push(s),
                    LiveSample::Gpm(s) => samples.gpm.push(s),
                    LiveSample::Host(s) => samples.host.push(s),
                }
            }
            Ok(Ok(None)) | Ok(Err(_)) => {
                let last = sub.last_seq();
                client = reconnect(app, p, ReconnectReason::StreamDropped).await?;
                sub = client.samples(last).await?;
                p.status = LiveStatus::Sampling;
            }
            Err(_) => {} // the next frame is due
        }
        if last_frame.elapsed() >= FRAME_EVERY {
            last_frame = Instant::now();
            p.elapsed_s = started.elapsed().as_secs_f64();
            p.frame += 1;
            let remark = last_remark.elapsed() >= REMARK_EVERY;
            if remark {
                last_remark = Instant::now();
            }
            // Drawn off the async runtime: the curves and samples go there and come back. The
            // run itself is the agent's; a drawing that failed only restarts the curves.
            let job = (
                std::mem::replace(&mut curves, LiveCurves::new(lang)),
                std::mem::take(&mut samples),
            );
            let drawn = tokio::task::spawn_blocking(move || {
                let (mut c, s) = job;
                if remark {
                    c.remark(&s);
                }
                let charts = c.frame(&s);
                (c, s, charts)
            })
            .await;
            let charts = match drawn {
                Ok((c, s, charts)) => {
                    (curves, samples) = (c, s);
                    charts
                }
                Err(_) => Vec::new(),
            };
            p.charts = charts;
            emit(app, p);
        }
    }
    p.status = LiveStatus::Analysing;
    p.elapsed_s = started.elapsed().as_secs_f64();
    emit(app, p);
    let client = match client.stop_sampling().await {
        Ok(_) => client,
        Err(_) => {
            let c = reconnect(app, p, ReconnectReason::StopUnanswered).await?;
            c.stop_sampling().await?;
            c
        }
    };
    analyse_and_store(app, &client, id, &run_id).await
}

/// Runs a training command with the probe, reporting steps done, then analyses its run.
pub async fn profile(app: AppHandle, id: i64, req: RunRequest, phase: LivePhase) {
    let target = u64::from(req.skip_steps + req.profile_steps);
    let mut p = LiveProgress {
        checkup_id: id,
        phase: checkup_model::LivePhase::Profiling,
        steps_target: Some(target),
        status: LiveStatus::Starting,
        ..Default::default()
    };
    let result = profile_inner(&app, id, req, &phase.stop, &mut p).await;
    finish(&app, p, result, &phase);
}

async fn profile_inner(
    app: &AppHandle,
    id: i64,
    req: RunRequest,
    stop: &AtomicBool,
    p: &mut LiveProgress,
) -> Result<(), AppError> {
    let mut client = current_client(app).await?;
    let run_id = client.start_run(&req).await?;
    let started = Instant::now();
    let mut cancel_asked = false;
    let run = loop {
        tokio::time::sleep(Duration::from_secs(1)).await;
        // The user's stop: the agent stops the training's process tree; what it recorded
        // until then is analysed like any run's.
        if stop.load(Ordering::Relaxed) && !cancel_asked {
            cancel_asked = client.cancel_run(&run_id).await.is_ok();
        }
        let run = match client.run(&run_id).await {
            Ok(r) => r,
            Err(checkup_connect::ConnectError::AgentUnreachable { .. }) => {
                client = reconnect(app, p, ReconnectReason::ConnectionDropped).await?;
                continue;
            }
            Err(e) => return Err(e.into()),
        };
        p.elapsed_s = started.elapsed().as_secs_f64();
        p.steps_done = run.steps_done;
        p.status = LiveStatus::Running;
        emit(app, p);
        if run.state != RunState::Running {
            break run;
        }
    };
    p.output_tail = run.output_tail.clone();
    p.status = LiveStatus::Analysing;
    emit(app, p);
    match analyse_and_store(app, &client, id, &run_id).await {
        Ok(()) => match run.error {
            None => Ok(()),
            // Training ran but the probe did not attach: the samples' diagnosis stands, and
            // why there is no trace is said.
            Some(why) if run.state == RunState::Finished => Err(AppError::Other(format!(
                "{why} (the samples were analysed)"
            ))),
            // Training failed but left steps and a trace: the diagnosis stands, the failure is said.
            Some(why) => Err(AppError::Other(format!(
                "{why} (the steps recorded before it were analysed)"
            ))),
        },
        Err(e) => Err(match run.error {
            Some(why) => AppError::Other(format!("{why}; nothing to analyse: {e}")),
            None => e,
        }),
    }
}
