//! The sampling loop: NVML at `hz` (10 by default); GPM, the GPUs' compute processes and
//! the host at `slow_hz` (1); written to a run folder until stopped. It also measures its own
//! CPU cost.

use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use crate::collect::host::HostCollector;
use crate::error::Result;
use crate::recorder::Recorder;

/// How the sampling loop runs.
#[derive(Debug, Clone)]
pub struct SamplerConfig {
    /// NVML sampling rate.
    pub hz: f64,
    /// Whether to read GPM metrics.
    pub gpm: bool,
    /// GPM and host sampling rate (each GPM window and host reading costs more than an NVML
    /// tick; 1 Hz keeps the agent near 0.15 % of a core).
    pub slow_hz: f64,
    /// The process whose tree is followed (0: none yet).
    pub root_pid: Arc<AtomicU32>,
    /// Time each part of the loop ([`SamplerReport::cpu_ms_per_s`]). Off by default: the
    /// eight thread-CPU clock reads per tick are syscalls that cost a tenth of the budget.
    pub breakdown: bool,
    /// Play this recorded run folder back instead of sampling the GPUs and the host (see
    /// [`crate::collect::replay`]).
    pub replay: Option<std::path::PathBuf>,
}

/// What a finished sampling run reports about itself.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct SamplerReport {
    /// Loop iterations.
    pub ticks: u64,
    /// Wall seconds sampled.
    pub seconds: f64,
    /// The sampler thread's own CPU time per wall second, percent of one core.
    pub cpu_pct_of_core: f64,
    /// The whole agent process's CPU time per wall second over the same span (every thread:
    /// the sampler, the timer or API threads, the kernel's work on their behalf).
    pub process_cpu_pct_of_core: f64,
    /// GPUs sampled.
    pub gpus: u32,
    /// Whether GPM was read.
    pub gpm: bool,
    /// CPU milliseconds per wall second spent in each part of the loop.
    pub cpu_ms_per_s: CpuBreakdown,
    /// What went wrong or was left out while sampling.
    pub notes: Vec<String>,
}

/// CPU milliseconds per wall second in each part of the sampling loop.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct CpuBreakdown {
    /// Reading NVML.
    pub nvml: f64,
    /// Reading GPM.
    pub gpm: f64,
    /// Reading the host (/proc).
    pub host: f64,
    /// Writing the CSV files.
    pub write: f64,
}

/// Seconds since the Unix epoch, the time base of every sample.
pub fn now_s() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

/// A CPU-time clock's reading (user + system).
fn cpu_clock(clock: libc::clockid_t) -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes into the timespec we own.
    unsafe { libc::clock_gettime(clock, &mut ts) };
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// CPU time of the calling thread.
fn thread_cpu() -> Duration {
    cpu_clock(libc::CLOCK_THREAD_CPUTIME_ID)
}

/// CPU time of the whole process (every thread).
fn process_cpu() -> Duration {
    cpu_clock(libc::CLOCK_PROCESS_CPUTIME_ID)
}

/// Wakes a loop at a fixed rate, on deadlines (so the rate does not drift with the work).
struct Ticker {
    period: Duration,
    next: Instant,
}

impl Ticker {
    fn new(hz: f64, start: Instant) -> Self {
        Self {
            period: Duration::from_secs_f64(1.0 / hz.max(0.1)),
            next: start,
        }
    }

    /// Sleeps until the next tick. Behind schedule (a slow NVML call), it skips ahead rather
    /// than bursting.
    fn wait(&mut self) {
        self.next += self.period;
        let now = Instant::now();
        if self.next > now {
            std::thread::sleep(self.next - now);
        } else {
            self.next = now;
        }
    }
}

/// The loop's own CPU use since it started: seconds, and the thread's and the process's CPU
/// time per wall second (percent of one core).
struct CpuMeter {
    start: Instant,
    thread: Duration,
    process: Duration,
}

impl CpuMeter {
    fn start() -> Self {
        Self {
            start: Instant::now(),
            thread: thread_cpu(),
            process: process_cpu(),
        }
    }

    fn finish(&self, report: &mut SamplerReport) {
        report.seconds = self.start.elapsed().as_secs_f64();
        let pct = |d: Duration| d.as_secs_f64() / report.seconds.max(1e-9) * 100.0;
        report.cpu_pct_of_core = pct(thread_cpu() - self.thread);
        report.process_cpu_pct_of_core = pct(process_cpu() - self.process);
    }
}

/// Adds the thread CPU time of each part of the loop to that part's total, when the
/// breakdown is asked for (the clock reads are syscalls: off, they are not made).
struct PartTimer {
    on: bool,
}

impl PartTimer {
    fn time<T>(&self, total: &mut Duration, part: impl FnOnce() -> T) -> T {
        if !self.on {
            return part();
        }
        let t0 = thread_cpu();
        let out = part();
        *total += thread_cpu().saturating_sub(t0);
        out
    }
}

/// Samples as they are taken, for live streaming.
#[derive(Debug, Clone, Copy)]
pub enum Sampled<'a> {
    /// NVML readings of every GPU at one tick.
    Nvml(&'a [checkup_model::NvmlSample]),
    /// GPM readings.
    Gpm(&'a [checkup_model::GpmSample]),
    /// A host reading.
    Host(&'a checkup_model::HostSample),
}

/// Samples into `dir` until `stop` is set. Runs on the calling thread.
pub fn run(dir: &Path, config: &SamplerConfig, stop: &AtomicBool) -> Result<SamplerReport> {
    run_with_sink(dir, config, stop, &mut |_| {})
}

/// As [`run`], also handing every sample to `sink` (the API's live stream).
pub fn run_with_sink(
    dir: &Path,
    config: &SamplerConfig,
    stop: &AtomicBool,
    sink: &mut dyn FnMut(Sampled<'_>),
) -> Result<SamplerReport> {
    if let Some(recording) = &config.replay {
        return replay(dir, recording, config.hz, stop, sink);
    }
    let mut rec = Recorder::create(dir)?;
    let mut report = SamplerReport::default();
    #[cfg(feature = "nvml")]
    let mut gpu = match crate::collect::nvml::NvmlCollector::new() {
        Ok(mut c) => {
            report.gpus = c.gpu_count();
            let tiers = c.set_rate(config.hz);
            if tiers.util > 1 {
                report.notes.push(format!(
                    "GPU-Util and power read every {} ticks: the driver updates GPU-Util every {:.0} ms",
                    tiers.util,
                    c.util_period_s() * 1e3
                ));
            }
            report.gpm = config.gpm && c.gpm_supported();
            if config.gpm && !c.gpm_supported() {
                report.notes.push("GPM is not supported on these GPUs (Hopper or newer needed): SM activity, tensor and DRAM metrics unavailable".into());
            }
            Some(c)
        }
        Err(e) => {
            report.notes.push(e.to_string());
            None
        }
    };
    #[cfg(not(feature = "nvml"))]
    report
        .notes
        .push("built without NVML support: host sampling only".into());
    let mut host = HostCollector::new(None);
    let slow_every = (config.hz / config.slow_hz.clamp(0.1, config.hz.max(0.1)))
        .round()
        .max(1.0) as u64;
    let meter = CpuMeter::start();
    let mut ticker = Ticker::new(config.hz, meter.start);
    let mut tick: u64 = 0;
    let (mut nvml_cpu, mut gpm_cpu, mut host_cpu, mut write_cpu) = (
        Duration::ZERO,
        Duration::ZERO,
        Duration::ZERO,
        Duration::ZERO,
    );
    let part = PartTimer {
        on: config.breakdown,
    };
    while !stop.load(Ordering::Relaxed) {
        let ts = now_s();
        #[cfg(feature = "nvml")]
        if let Some(g) = gpu.as_mut() {
            let samples = part.time(&mut nvml_cpu, || g.sample(ts));
            part.time(&mut write_cpu, || rec.write_nvml(&samples))?;
            sink(Sampled::Nvml(&samples));
            if tick.is_multiple_of(slow_every) {
                if report.gpm {
                    let samples = part.time(&mut gpm_cpu, || g.sample_gpm(ts));
                    part.time(&mut write_cpu, || rec.write_gpm(&samples))?;
                    sink(Sampled::Gpm(&samples));
                }
                let processes = part.time(&mut nvml_cpu, || g.sample_processes(ts));
                part.time(&mut write_cpu, || rec.write_gpu_processes(&processes))?;
                host.set_gpu_pids(processes.iter().map(|p| p.pid).collect());
            }
        }
        if tick.is_multiple_of(slow_every) {
            let sample = part.time(&mut host_cpu, || {
                let root = config.root_pid.load(Ordering::Relaxed);
                host.set_root((root != 0).then_some(root));
                host.sample(ts)
            });
            if let Some(s) = sample {
                part.time(&mut write_cpu, || rec.write_host(&s))?;
                sink(Sampled::Host(&s));
            }
        }
        tick += 1;
        ticker.wait();
    }
    rec.flush()?;
    report.ticks = tick;
    meter.finish(&mut report);
    let per_s =
        |d: Duration| (d.as_secs_f64() * 1e3 / report.seconds.max(1e-9) * 1000.0).round() / 1000.0;
    report.cpu_ms_per_s = CpuBreakdown {
        nvml: per_s(nvml_cpu),
        gpm: per_s(gpm_cpu),
        host: per_s(host_cpu),
        write: per_s(write_cpu),
    };
    Ok(report)
}

/// [`run_with_sink`] for a recorded run played back: its samples, written and handed on as
/// they come due, ticking at `hz`.
fn replay(
    dir: &Path,
    recording: &Path,
    hz: f64,
    stop: &AtomicBool,
    sink: &mut dyn FnMut(Sampled<'_>),
) -> Result<SamplerReport> {
    let mut playback = crate::collect::replay::Replay::open(recording)?;
    let mut rec = Recorder::create(dir)?;
    let mut report = SamplerReport {
        gpus: playback.gpus(),
        gpm: playback.has_gpm(),
        notes: vec![format!(
            "replaying the recording {} (its GPU and host samples, at their recorded pace), not sampling this host",
            playback.dir().display()
        )],
        ..SamplerReport::default()
    };
    let (meter, started) = (CpuMeter::start(), now_s());
    let mut ticker = Ticker::new(hz, meter.start);
    while !stop.load(Ordering::Relaxed) {
        let due = playback.due(meter.start.elapsed().as_secs_f64(), started);
        if !due.nvml.is_empty() {
            rec.write_nvml(&due.nvml)?;
            sink(Sampled::Nvml(&due.nvml));
        }
        if !due.gpm.is_empty() {
            rec.write_gpm(&due.gpm)?;
            sink(Sampled::Gpm(&due.gpm));
        }
        for h in &due.host {
            rec.write_host(h)?;
            sink(Sampled::Host(h));
        }
        report.ticks += 1;
        ticker.wait();
    }
    rec.flush()?;
    meter.finish(&mut report);
    Ok(report)
}
