//! `checkup-agent run -- python train.py ...`: runs a training command with the probe
//! injected through Python's startup hook (a `sitecustomize` first on `PYTHONPATH`, chaining
//! to any existing one), samples while it runs, and leaves a run folder the engine reads.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Arc;
use std::time::Duration;

use checkup_recording::layout;
use serde::Serialize;

use crate::error::{AgentError, Result};
use crate::sampler::{self, SamplerConfig, SamplerReport};

/// The probe, shipped inside the agent binary.
const PROBE_SITECUSTOMIZE: &str = include_str!("../probe/sitecustomize.py");
const PROBE_CORE: &str = include_str!("../probe/checkup_probe.py");
const PROBE_TRAINING: &str = include_str!("../probe/checkup_training.py");
const PROBE_SESSION: &str = include_str!("../probe/checkup_session.py");
const PROBE_STACKS: &str = include_str!("../probe/checkup_stacks.py");

/// How `checkup-agent run` profiles a training command.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// The run folder to write.
    pub out: PathBuf,
    /// Steps to let pass before the profiler starts (warm-up).
    pub skip_steps: u32,
    /// Steps the profiler records.
    pub profile_steps: u32,
    /// NVML sampling rate.
    pub hz: f64,
    /// Whether to sample GPM metrics.
    pub gpm: bool,
    /// The training command and its arguments.
    pub command: Vec<String>,
    /// Where the command's output goes; None: the agent's own terminal.
    pub log: Option<PathBuf>,
    /// Working directory of the command; None: the agent's.
    pub cwd: Option<PathBuf>,
    /// Set to stop the command (its whole process tree, in its own process group); None:
    /// a command run from a terminal, which stops it with Ctrl-C itself.
    pub cancel: Option<Arc<AtomicBool>>,
    /// A recording whose GPU and host samples the run records in place of this host's (a
    /// replaying agent's runs show the GPUs its health and sampling show).
    pub replay: Option<PathBuf>,
}

/// After a cancel, how long the training gets to stop on SIGINT (its `finally` blocks, the
/// probe's trace) and then on SIGTERM before it is killed.
const CANCEL_GRACE: [Duration; 2] = [Duration::from_secs(10), Duration::from_secs(5)];

/// Waits for the command, stopping its process group when `cancel` is set: SIGINT, then
/// SIGTERM, then SIGKILL, each after its grace period. Answers its exit status and whether
/// it was cancelled.
fn wait_or_cancel(
    child: &mut std::process::Child,
    cancel: &AtomicBool,
) -> std::io::Result<(ExitStatus, bool)> {
    let group = child.id() as i32;
    let mut cancelled_at: Option<std::time::Instant> = None;
    let mut signals_sent = 0;
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok((status, cancelled_at.is_some()));
        }
        if cancel.load(Ordering::Relaxed) {
            let at = *cancelled_at.get_or_insert_with(std::time::Instant::now);
            let due = match signals_sent {
                0 => Some(libc::SIGINT),
                1 if at.elapsed() >= CANCEL_GRACE[0] => Some(libc::SIGTERM),
                2 if at.elapsed() >= CANCEL_GRACE[0] + CANCEL_GRACE[1] => Some(libc::SIGKILL),
                _ => None,
            };
            if let Some(sig) = due {
                // SAFETY: kill(2) on the process group this run created; no memory involved.
                unsafe { libc::kill(-group, sig) };
                signals_sent += 1;
            }
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The largest window the probe profiles: a trace of more steps is gigabytes and slows the
/// training for as long.
pub const MAX_PROFILE_STEPS: u32 = 1_000;
/// Warm-up steps before the window: far beyond any training's start-up.
pub const MAX_SKIP_STEPS: u32 = 10_000_000;

/// Checks the settings a client or the command line gave, before anything starts.
pub fn check_settings(skip_steps: u32, profile_steps: u32, hz: f64) -> Result<()> {
    if !(0.1..=100.0).contains(&hz) {
        return Err(AgentError::Invalid(format!(
            "hz must be between 0.1 and 100, not {hz}"
        )));
    }
    if profile_steps > MAX_PROFILE_STEPS {
        return Err(AgentError::Invalid(format!(
            "profile_steps must be at most {MAX_PROFILE_STEPS}, not {profile_steps}"
        )));
    }
    if skip_steps > MAX_SKIP_STEPS {
        return Err(AgentError::Invalid(format!(
            "skip_steps must be at most {MAX_SKIP_STEPS}, not {skip_steps}"
        )));
    }
    Ok(())
}

/// How a profiled run ended.
#[derive(Debug, Clone, Serialize)]
pub struct RunOutcome {
    /// The training's exit code (None: killed by a signal).
    pub exit_code: Option<i32>,
    /// Stopped through [`RunOptions::cancel`].
    pub cancelled: bool,
    /// What the sampler reports about itself.
    pub sampler: SamplerReport,
    /// The probe's own report lines, as it wrote them.
    pub probe: Vec<serde_json::Value>,
    /// The run folder written.
    pub out: PathBuf,
    /// The ranks whose traces were summarised beside them (`trace_summary.json`).
    pub summarised_ranks: Vec<u32>,
    /// Why the traces could not be summarised, when the run was profiled.
    pub summary_problem: Option<String>,
    /// How long summarising took, after the training had ended.
    pub summarised_in_s: f64,
}

impl RunOutcome {
    /// Why the probe did not attach (torch missing, hooks refused), from the first rank that
    /// says so: the command ran, but without step timings or a trace. None when it attached
    /// or never ran (a command that is not Python).
    pub fn probe_problem(&self) -> Option<String> {
        self.probe.iter().find(|s| s["ok"] == false).map(|s| {
            let why = s["error"].as_str().unwrap_or("no reason given");
            format!("the profiling probe did not attach ({why}); training ran without it")
        })
    }
}

/// Writes the probe into `dir` and returns the PYTHONPATH that puts it first.
pub fn install_probe(dir: &Path) -> Result<String> {
    std::fs::create_dir_all(dir).map_err(|e| AgentError::io(dir, e))?;
    for (name, text) in [
        ("sitecustomize.py", PROBE_SITECUSTOMIZE),
        ("checkup_probe.py", PROBE_CORE),
        ("checkup_training.py", PROBE_TRAINING),
        ("checkup_session.py", PROBE_SESSION),
        ("checkup_stacks.py", PROBE_STACKS),
    ] {
        let p = dir.join(name);
        std::fs::write(&p, text).map_err(|e| AgentError::io(&p, e))?;
    }
    let existing = std::env::var("PYTHONPATH").unwrap_or_default();
    Ok(if existing.is_empty() {
        dir.display().to_string()
    } else {
        format!("{}:{existing}", dir.display())
    })
}

/// The command that starts `program`: through the agent's guard for a run the API started
/// (so that the training's process group ends with the agent), else `program` itself. A
/// guard that cannot be found (the agent's binary replaced meanwhile) leaves the run
/// unguarded rather than not started.
fn guarded(program: &str, api_run: bool) -> Command {
    match std::env::current_exe().ok().filter(|_| api_run) {
        Some(agent) => {
            let mut cmd = Command::new(agent);
            cmd.args([crate::guard::SUBCOMMAND, "--", program]);
            cmd
        }
        None => Command::new(program),
    }
}

/// Runs the training under the probe while sampling, until it exits; writes the run folder.
pub fn run_command(opts: &RunOptions) -> Result<RunOutcome> {
    run_command_streaming(opts, None)
}

/// As [`run_command`], also publishing every sample to a live stream.
pub fn run_command_streaming(
    opts: &RunOptions,
    stream: Option<Arc<crate::stream::SampleStream>>,
) -> Result<RunOutcome> {
    check_settings(opts.skip_steps, opts.profile_steps, opts.hz)?;
    let Some((program, args)) = opts.command.split_first() else {
        return Err(AgentError::Invalid(
            "no command to run: give it after `--`, e.g. checkup-agent run -- python train.py"
                .into(),
        ));
    };
    crate::private::create_dir(&opts.out).map_err(|e| AgentError::io(&opts.out, e))?;
    let probe_dir = opts.out.join(".checkup-probe");
    let pythonpath = install_probe(&probe_dir)?;
    let stop = Arc::new(AtomicBool::new(false));
    let root = Arc::new(AtomicU32::new(0));
    let config = SamplerConfig {
        hz: opts.hz,
        gpm: opts.gpm,
        slow_hz: 1.0,
        root_pid: root.clone(),
        breakdown: false,
        replay: opts.replay.clone(),
    };
    let started = sampler::now_s();
    let sampler_thread = {
        let (dir, stop) = (opts.out.clone(), stop.clone());
        std::thread::spawn(move || match stream {
            Some(stream) => {
                sampler::run_with_sink(&dir, &config, &stop, &mut |s| stream.publish(s))
            }
            None => sampler::run(&dir, &config, &stop),
        })
    };
    let mut cmd = guarded(program, opts.cancel.is_some());
    if let Some(dir) = &opts.cwd {
        cmd.current_dir(dir);
    }
    if let Some(log) = &opts.log {
        let file = std::fs::File::create(log).map_err(|e| AgentError::io(log, e))?;
        let err = file.try_clone().map_err(|e| AgentError::io(log, e))?;
        cmd.stdout(file).stderr(err);
    }
    if opts.cancel.is_some() {
        use std::os::unix::process::CommandExt;
        // Its own group: a cancel reaches torchrun's ranks and the DataLoader workers too.
        cmd.process_group(0);
        // SAFETY: only prctl and getppid run between fork and exec.
        let agent = std::process::id() as libc::pid_t;
        unsafe { cmd.pre_exec(move || crate::guard::die_with_parent(agent)) };
    }
    let spawned = cmd
        .args(args)
        .env("PYTHONPATH", &pythonpath)
        .env("CHECKUP_OUT", &opts.out)
        .env("CHECKUP_SKIP_STEPS", opts.skip_steps.to_string())
        .env("CHECKUP_PROFILE_STEPS", opts.profile_steps.to_string())
        .spawn();
    let status: Result<(ExitStatus, bool)> = match spawned {
        Ok(mut child) => {
            root.store(child.id(), Ordering::Relaxed);
            match &opts.cancel {
                Some(cancel) => wait_or_cancel(&mut child, cancel),
                None => child.wait().map(|s| (s, false)),
            }
            .map_err(|e| AgentError::Spawn {
                command: program.clone(),
                source: e,
            })
        }
        Err(e) => Err(AgentError::Spawn {
            command: program.clone(),
            source: e,
        }),
    };
    stop.store(true, Ordering::Relaxed);
    let report = sampler_thread
        .join()
        .map_err(|_| AgentError::Invalid("the sampler thread panicked".into()))??;
    let (status, cancelled) = status?;
    let ended = sampler::now_s();
    let probe = read_probe_status(&opts.out);
    let how = Ended {
        started,
        ended,
        exit_code: status.code(),
        cancelled,
    };
    write_meta(opts, &report, &probe, &how)?;
    write_static_facts(&opts.out)?;
    let _ = std::fs::remove_dir_all(&probe_dir);
    // Each rank's trace is reduced where it lies once the training is over, never during it:
    // a job's hosts then send summaries rather than traces (`checkup gather`).
    let summarising = std::time::Instant::now();
    let (summarised_ranks, summary_problem) = match opts.profile_steps {
        0 => (Vec::new(), None),
        _ => match checkup_engine::ingest::summarize_run(&opts.out) {
            Ok(done) => (done.iter().map(|s| s.rank).collect(), None),
            Err(e) => (Vec::new(), Some(e.to_string())),
        },
    };
    Ok(RunOutcome {
        exit_code: status.code(),
        cancelled,
        sampler: report,
        probe,
        out: opts.out.clone(),
        summarised_ranks,
        summary_problem,
        summarised_in_s: summarising.elapsed().as_secs_f64(),
    })
}

/// `probe_status.json` of the run folder and of each `rankN/`.
fn read_probe_status(out: &Path) -> Vec<serde_json::Value> {
    let mut dirs = vec![out.to_path_buf()];
    if let Ok(rd) = std::fs::read_dir(out) {
        let mut ranks: Vec<PathBuf> = rd
            .flatten()
            .map(|e| e.path())
            .filter(|p| {
                p.is_dir()
                    && p.file_name()
                        .and_then(|n| n.to_str())
                        .and_then(layout::rank_of_dir)
                        .is_some()
            })
            .collect();
        ranks.sort();
        dirs.extend(ranks);
    }
    dirs.iter()
        .filter_map(|d| std::fs::read_to_string(d.join(layout::PROBE_STATUS)).ok())
        .filter_map(|t| serde_json::from_str(&t).ok())
        .collect()
}

/// Steps of the run: its own `steps.csv`, else its lowest rank's (on a node of a job that
/// is not rank 0).
fn count_steps(out: &Path) -> Option<u64> {
    let mut ranks: Vec<u32> = std::fs::read_dir(out)
        .ok()?
        .flatten()
        .filter_map(|e| layout::rank_of_dir(e.file_name().to_str()?))
        .collect();
    ranks.sort_unstable();
    let text = std::iter::once(out.join(layout::STEPS_CSV))
        .chain(
            ranks
                .iter()
                .map(|r| out.join(layout::rank_dir(*r)).join(layout::STEPS_CSV)),
        )
        .find_map(|p| std::fs::read_to_string(p).ok())?;
    Some(text.lines().count().saturating_sub(1) as u64)
}

/// How a run ended, for its `meta.json`: an agent started later lists the run from it.
struct Ended {
    started: f64,
    ended: f64,
    exit_code: Option<i32>,
    cancelled: bool,
}

fn write_meta(
    opts: &RunOptions,
    report: &SamplerReport,
    probe: &[serde_json::Value],
    how: &Ended,
) -> Result<()> {
    let Ended {
        started,
        ended,
        exit_code,
        cancelled,
    } = *how;
    let ranks = probe
        .iter()
        .filter(|p| p.get("rank").is_some())
        .count()
        .max(1);
    // Under a multi-node launcher this folder holds one node's ranks; the job's size is
    // what the ranks were told.
    let world_size = probe
        .iter()
        .filter_map(|p| p["world_size"].as_u64())
        .max()
        .unwrap_or(ranks as u64);
    let torch = probe
        .iter()
        .find_map(|p| p.get("torch").and_then(|t| t.as_str()).map(str::to_owned));
    let window = (opts.profile_steps > 0).then(|| {
        [
            opts.skip_steps,
            opts.skip_steps.saturating_add(opts.profile_steps - 1),
        ]
    });
    let env: serde_json::Map<String, serde_json::Value> = [
        "NCCL_P2P_DISABLE",
        "NCCL_SHM_DISABLE",
        "NCCL_NVLS_ENABLE",
        "NCCL_IB_DISABLE",
        "CUDA_VISIBLE_DEVICES",
        // Turns PyTorch's caching allocator off: every tensor from and to the driver.
        "PYTORCH_NO_CUDA_MEMORY_CACHING",
        // A debugging setting: every kernel launch waits for its kernel.
        "CUDA_LAUNCH_BLOCKING",
    ]
    .iter()
    .map(|k| {
        (
            k.to_string(),
            std::env::var(k)
                .ok()
                .map_or(serde_json::Value::Null, serde_json::Value::String),
        )
    })
    .collect();
    let meta = serde_json::json!({
        "scenario": opts.command.join(" "),
        "command": opts.command,
        "info": {},
        "world_size": world_size,
        "node": node_of(probe),
        "steps": count_steps(&opts.out),
        "wall_s": ((ended - started) * 1000.0).round() / 1000.0,
        "profile_steps": window,
        "torch": torch,
        "started": started,
        "ended": ended,
        "exit_code": exit_code,
        "cancelled": cancelled,
        "env": env,
        "gpm": report.gpm,
        "sampler_notes": report.notes,
        "agent_cpu_pct_of_core": (report.cpu_pct_of_core * 1000.0).round() / 1000.0,
        "recorded_by": format!("checkup-agent {}", env!("CARGO_PKG_VERSION")),
    });
    let path = opts.out.join(layout::META_JSON);
    std::fs::write(
        &path,
        serde_json::to_string_pretty(&meta).unwrap_or_default(),
    )
    .map_err(|e| AgentError::io(&path, e))
}

/// This folder's host as part of a job: its name, its node index, its ranks and its
/// clock's offset to rank 0's (the median of its ranks' measurements: they share one
/// clock). Null for a run of one process.
fn node_of(probe: &[serde_json::Value]) -> serde_json::Value {
    let ranks: Vec<u64> = probe.iter().filter_map(|p| p["rank"].as_u64()).collect();
    let job = probe.iter().any(|p| p["world_size"].as_u64() > Some(1));
    if !job {
        return serde_json::Value::Null;
    }
    let mut offsets: Vec<f64> = probe
        .iter()
        .filter_map(|p| p["clock_offset_s"].as_f64())
        .collect();
    offsets.sort_by(f64::total_cmp);
    let clock_offset_s = (!offsets.is_empty()).then(|| offsets[offsets.len() / 2]);
    let clock_rtt_s = probe
        .iter()
        .filter_map(|p| p["clock_rtt_s"].as_f64())
        .filter(|rtt| *rtt > 0.0)
        .min_by(f64::total_cmp);
    let hostname = probe
        .iter()
        .find_map(|p| p["hostname"].as_str().map(str::to_owned))
        .or_else(|| {
            std::fs::read_to_string("/proc/sys/kernel/hostname")
                .ok()
                .map(|h| h.trim().to_owned())
        });
    serde_json::json!({
        "hostname": hostname,
        "node_rank": probe.iter().find_map(|p| p["node_rank"].as_u64()),
        "ranks": ranks,
        "clock_offset_s": clock_offset_s,
        "clock_rtt_s": clock_rtt_s,
    })
}

/// `static/facts.json`: the GPUs and driver as NVML saw them (the engine reads it like the
/// corpus' `nvidia-smi -q -x` snapshot).
fn write_static_facts(out: &Path) -> Result<()> {
    let dir = out.join(layout::STATIC_DIR);
    std::fs::create_dir_all(&dir).map_err(|e| AgentError::io(&dir, e))?;
    let path = dir.join(layout::FACTS_JSON);
    let facts = crate::check::gpu_facts();
    std::fs::write(
        &path,
        serde_json::to_string_pretty(&facts).unwrap_or_default(),
    )
    .map_err(|e| AgentError::io(&path, e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use checkup_recording::schema;

    /// The names in a Python list assigned to `name` in the probe's source.
    fn probe_list(name: &str) -> Vec<String> {
        let start = PROBE_CORE
            .find(&format!("{name} = ["))
            .unwrap_or_else(|| panic!("{name} not in the probe"));
        let body = &PROBE_CORE[start..];
        let body = &body[body.find('[').unwrap() + 1..body.find(']').unwrap()];
        body.split(',')
            .map(|s| s.trim().trim_matches('"').to_owned())
            .filter(|s| !s.is_empty())
            .collect()
    }

    #[test]
    fn the_probe_writes_the_columns_the_readers_read() {
        assert_eq!(probe_list("STEPS_HEADER"), schema::STEPS_COLUMNS);
        assert_eq!(probe_list("EVENTS_HEADER"), schema::EVENTS_COLUMNS);
        assert_eq!(probe_list("MEMORY_HEADER"), schema::MEMORY_COLUMNS);
    }

    #[test]
    fn a_node_of_a_job_is_named_with_its_ranks_and_its_ranks_median_clock_offset() {
        let rank = |r: u32, offset: f64| {
            serde_json::json!({"rank": r, "world_size": 8, "node_rank": 1, "hostname": "gpu-b",
                               "clock_offset_s": offset, "clock_rtt_s": 1e-4 + f64::from(r) * 1e-6})
        };
        let node = node_of(&[
            rank(4, 0.003),
            rank(5, 0.0031),
            rank(6, 0.5),
            rank(7, 0.0029),
        ]);
        assert_eq!(node["hostname"], "gpu-b");
        assert_eq!(node["node_rank"], 1);
        assert_eq!(node["ranks"], serde_json::json!([4, 5, 6, 7]));
        // One rank's bad measurement does not move the node's clock.
        assert_eq!(node["clock_offset_s"], 0.0031);
        assert_eq!(node["clock_rtt_s"], 1e-4 + 4e-6);
        let alone = serde_json::json!({"rank": 0, "world_size": 1});
        assert!(node_of(&[alone]).is_null());
    }

    #[test]
    fn the_probe_is_installed_with_its_torch_observers() {
        let dir = tempfile::tempdir().unwrap();
        let path = install_probe(dir.path()).unwrap();
        assert!(path.starts_with(&dir.path().display().to_string()));
        for f in [
            "sitecustomize.py",
            "checkup_probe.py",
            "checkup_training.py",
            "checkup_session.py",
            "checkup_stacks.py",
        ] {
            assert!(dir.path().join(f).is_file(), "{f}");
        }
    }
}
