//! The live phases on the connected host: sampling (live curves, time left) and profiling a
//! command (steps done). Each runs as a task that reports its progress about ten times a
//! second, rides out dropped connections (the stream resumes from its last sequence number,
//! so no sample is lost), then downloads the run, analyses it and stores the diagnosis.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use checkup_connect::AgentClient;
use checkup_model::commands as cmd;
use checkup_model::{
    Language, LiveProgress, LiveSample, LiveStatus, ReconnectReason, RunRequest, RunState,
    SampleSet, SamplingRequest,
};

use crate::command_line::split_command;
use crate::{fleet, recordings, Result, Workflow, WorkflowError};

/// One live phase at a time: whether one runs, and the user's stop.
#[derive(Default)]
pub struct LiveSlot(std::sync::Mutex<Option<LivePhase>>);

/// A live phase in progress.
#[derive(Clone)]
pub struct LivePhase {
    stop: Arc<AtomicBool>,
    running: Arc<AtomicBool>,
}

impl LiveSlot {
    /// Claims the slot, unless a phase still runs (a stopped phase runs on while it
    /// downloads and analyses).
    pub fn begin(&self) -> Result<LivePhase> {
        let mut slot = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if slot
            .as_ref()
            .is_some_and(|s| s.running.load(Ordering::Relaxed))
        {
            return Err(WorkflowError::LiveBusy);
        }
        let phase = LivePhase {
            stop: Arc::default(),
            running: Arc::new(AtomicBool::new(true)),
        };
        *slot = Some(phase.clone());
        Ok(phase)
    }

    /// Asks the phase in progress, if any, to stop.
    pub fn stop(&self) {
        if let Some(phase) = self.0.lock().unwrap_or_else(|p| p.into_inner()).as_ref() {
            phase.stop.store(true, Ordering::Relaxed);
        }
    }
}

impl LivePhase {
    pub fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// Frees the slot: the phase has ended.
    pub fn end(&self) {
        self.running.store(false, Ordering::Relaxed);
    }
}

/// How often the live curves are drawn again: the agent samples NVML ten times a second.
const FRAME_EVERY: Duration = Duration::from_millis(100);
/// How often the engine analyses everything sampled so far, for the steady window it marks.
const REMARK_EVERY: Duration = Duration::from_secs(1);
/// The seconds a live chart shows: its last minute, scrolling.
const LIVE_SPAN_S: f64 = 60.0;
/// The longest sampling the app asks for.
const LONGEST_SAMPLING_S: f64 = 7200.0;

impl Workflow {
    /// Samples the connected host for `seconds`; progress and live curves go to
    /// [`Events::live`](crate::Events::live).
    pub async fn start_sampling(&self, args: cmd::StartSampling) -> Result<()> {
        let cmd::StartSampling {
            id,
            seconds,
            pid,
            gpu,
            lang,
        } = args;
        // NaN is outside the range too.
        if !(5.0..=LONGEST_SAMPLING_S).contains(&seconds) {
            return Err(WorkflowError::Invalid(format!(
                "sample for 5 s to 2 h, not {seconds} s"
            )));
        }
        self.store().summary(id).await?;
        self.host_client().await?;
        let phase = self.shared.live.begin()?;
        let req = SamplingRequest {
            pid,
            gpu,
            ..Default::default()
        };
        tokio::spawn(sample(self.clone(), id, seconds, req, lang, phase));
        Ok(())
    }

    /// Runs `command` on the connected host with the profiler probe; progress goes to
    /// [`Events::live`](crate::Events::live).
    pub async fn start_profiling(&self, args: cmd::StartProfiling) -> Result<()> {
        let cmd::StartProfiling {
            id,
            command,
            cwd,
            skip_steps,
            profile_steps,
        } = args;
        let argv = split_command(&command)?;
        self.store().summary(id).await?;
        self.host_client().await?;
        let phase = self.shared.live.begin()?;
        let mut req = RunRequest::new(argv);
        req.cwd = cwd.filter(|c| !c.trim().is_empty());
        req.skip_steps = skip_steps;
        req.profile_steps = profile_steps.max(1);
        tokio::spawn(profile(self.clone(), id, req, phase));
        Ok(())
    }

    /// Ends the live phase early; what it recorded until then is analysed and kept.
    pub async fn stop_live(&self, args: cmd::StopLive) -> Result<()> {
        let cmd::StopLive {} = args;
        self.shared.live.stop();
        Ok(())
    }

    /// The connected host reached again after its connection dropped; each try is reported.
    async fn reconnect_host(
        &self,
        p: &mut LiveProgress,
        why: ReconnectReason,
    ) -> Result<AgentClient> {
        let client = fleet::reconnect(&self.shared.host, 0, |attempt| {
            p.status = LiveStatus::Reconnecting;
            p.reconnect_attempt = attempt;
            p.reconnect_tries = fleet::RECONNECT_TRIES;
            p.reconnect_reason = Some(why);
            self.events().live(p);
        })
        .await?;
        p.reconnects += 1;
        Ok(client)
    }

    /// Downloads a run, analyses it and stores the diagnosis (keeping the environment check).
    async fn analyse_and_store(&self, client: &AgentClient, id: i64, run_id: &str) -> Result<()> {
        let folder = self.recordings().join(id.to_string()).join(run_id);
        let dir = client.download_run(run_id, &folder).await?;
        let d = recordings::analyse(dir).await?;
        self.store().save_diagnosis(id, &d).await?;
        Ok(())
    }

    /// The last report of a phase: done, with its error if any; frees the slot.
    fn finish(&self, mut p: LiveProgress, result: Result<()>, phase: &LivePhase) {
        p.error = result.err().as_ref().map(checkup_model::UiError::from);
        p.done = true;
        p.status = if p.error.is_some() {
            LiveStatus::Failed
        } else {
            LiveStatus::Done
        };
        phase.end();
        self.events().live(&p);
    }
}

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

/// Samples the host for `seconds` (or until stopped), streaming live curves.
async fn sample(
    wf: Workflow,
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
    let result = sample_until_done(&wf, id, seconds, req, lang, &phase, &mut p).await;
    wf.finish(p, result, &phase);
}

async fn sample_until_done(
    wf: &Workflow,
    id: i64,
    seconds: f64,
    req: SamplingRequest,
    lang: Language,
    phase: &LivePhase,
    p: &mut LiveProgress,
) -> Result<()> {
    let (mut client, _) = wf.host_client().await?;
    let since = client.health().await?.last_seq;
    let run_id = client.start_sampling(&req).await?;
    let mut sub = client.samples(since).await?;
    let mut samples = SampleSet::default();
    let started = Instant::now();
    let mut curves = LiveCurves::new(lang);
    let mut last_frame = Instant::now() - FRAME_EVERY;
    let mut last_remark = Instant::now() - REMARK_EVERY;
    p.status = LiveStatus::Sampling;
    while started.elapsed().as_secs_f64() < seconds && !phase.stopped() {
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
                client = wf.reconnect_host(p, ReconnectReason::StreamDropped).await?;
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
            p.charts = match drawn {
                Ok((c, s, charts)) => {
                    (curves, samples) = (c, s);
                    charts
                }
                Err(_) => Vec::new(),
            };
            wf.events().live(p);
        }
    }
    p.status = LiveStatus::Analysing;
    p.elapsed_s = started.elapsed().as_secs_f64();
    wf.events().live(p);
    let client = match client.stop_sampling().await {
        Ok(_) => client,
        Err(_) => {
            let c = wf
                .reconnect_host(p, ReconnectReason::StopUnanswered)
                .await?;
            c.stop_sampling().await?;
            c
        }
    };
    wf.analyse_and_store(&client, id, &run_id).await
}

/// Runs a training command with the probe, reporting steps done, then analyses its run.
async fn profile(wf: Workflow, id: i64, req: RunRequest, phase: LivePhase) {
    let target = u64::from(req.skip_steps + req.profile_steps);
    let mut p = LiveProgress {
        checkup_id: id,
        phase: checkup_model::LivePhase::Profiling,
        steps_target: Some(target),
        status: LiveStatus::Starting,
        ..Default::default()
    };
    let result = profile_until_done(&wf, id, req, &phase, &mut p).await;
    wf.finish(p, result, &phase);
}

async fn profile_until_done(
    wf: &Workflow,
    id: i64,
    req: RunRequest,
    phase: &LivePhase,
    p: &mut LiveProgress,
) -> Result<()> {
    let (mut client, _) = wf.host_client().await?;
    let run_id = client.start_run(&req).await?;
    let started = Instant::now();
    let mut cancel_asked = false;
    let run = loop {
        tokio::time::sleep(Duration::from_secs(1)).await;
        // The user's stop: the agent stops the training's process tree; what it recorded
        // until then is analysed like any run's.
        if phase.stopped() && !cancel_asked {
            cancel_asked = client.cancel_run(&run_id).await.is_ok();
        }
        let run = match client.run(&run_id).await {
            Ok(r) => r,
            Err(checkup_connect::ConnectError::AgentUnreachable { .. }) => {
                client = wf
                    .reconnect_host(p, ReconnectReason::ConnectionDropped)
                    .await?;
                continue;
            }
            Err(e) => return Err(e.into()),
        };
        p.elapsed_s = started.elapsed().as_secs_f64();
        p.steps_done = run.steps_done;
        p.status = LiveStatus::Running;
        wf.events().live(p);
        if run.state != RunState::Running {
            break run;
        }
    };
    p.output_tail = run.output_tail.clone();
    p.status = LiveStatus::Analysing;
    wf.events().live(p);
    match wf.analyse_and_store(&client, id, &run_id).await {
        Ok(()) => match run.error {
            None => Ok(()),
            // Training ran but the probe did not attach: the samples' diagnosis stands, and
            // why there is no trace is said.
            Some(why) if run.state == RunState::Finished => Err(WorkflowError::Other(format!(
                "{why} (the samples were analysed)"
            ))),
            // Training failed but left steps and a trace: the diagnosis stands, the failure is said.
            Some(why) => Err(WorkflowError::Other(format!(
                "{why} (the steps recorded before it were analysed)"
            ))),
        },
        Err(e) => Err(match run.error {
            Some(why) => WorkflowError::Other(format!("{why}; nothing to analyse: {e}")),
            None => e,
        }),
    }
}
