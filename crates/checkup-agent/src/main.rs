//! `checkup-agent`: runs on the GPU host.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Arc;

use checkup_agent::check::{run_check, CheckOptions};
use checkup_agent::run::{run_command, RunOptions};
use checkup_agent::sampler::{self, SamplerConfig};
use checkup_agent::AgentError;
use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "checkup-agent",
    version,
    about = "GPU Checkup's agent: environment check, NVML/GPM and host sampling, and zero-code-change profiling of training commands"
)]
struct Cli {
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Check the environment (read-only, seconds): driver, GPUs, clocks, PCIe, MIG, ECC,
    /// power, versions, /dev/shm, disk, other GPU processes.
    Check {
        /// The Python of the training environment.
        #[arg(long)]
        python: Option<String>,
        /// Where data and checkpoints live.
        #[arg(long)]
        data_dir: Option<PathBuf>,
        /// DataLoader workers per GPU you plan to use.
        #[arg(long)]
        workers: Option<u32>,
        /// Also print `python -m torch.utils.collect_env`.
        #[arg(long)]
        collect_env: bool,
        #[arg(long)]
        json: bool,
    },
    /// Sample GPUs and the host into a run folder (attach mode: --pid follows a running job).
    Sample {
        #[arg(short, long)]
        out: PathBuf,
        #[arg(long, default_value_t = 30.0)]
        seconds: f64,
        #[arg(long, default_value_t = 10.0)]
        hz: f64,
        /// GPM and host sampling rate.
        #[arg(long, default_value_t = 1.0)]
        slow_hz: f64,
        /// A running training process to follow (its tree's CPU and memory).
        #[arg(long, conflicts_with = "gpu")]
        pid: Option<u32>,
        /// Follow the process using this GPU (the one with the most GPU memory).
        #[arg(long)]
        gpu: Option<u32>,
        #[arg(long)]
        no_gpm: bool,
        /// Also report the CPU time of each part of the loop (costs a little itself).
        #[arg(long)]
        breakdown: bool,
        /// Play this recorded run folder back instead of sampling (demos and tests on a
        /// machine without a GPU).
        #[arg(long, conflicts_with_all = ["pid", "gpu"])]
        replay: Option<PathBuf>,
    },
    /// Serve the API on loopback: prints {"listening": ADDR, "token_file": PATH} and serves
    /// until interrupted.
    Serve {
        #[arg(long, default_value = "127.0.0.1:0")]
        listen: std::net::SocketAddr,
        /// Allow --listen on an address other hosts can reach (the API runs commands over
        /// plain HTTP: prefer loopback and an SSH port forward).
        #[arg(long)]
        allow_remote: bool,
        /// Where the bearer token is written (mode 0600).
        #[arg(long)]
        token_file: Option<PathBuf>,
        /// Where run folders are kept.
        #[arg(long)]
        runs: Option<PathBuf>,
        /// Also write the startup line to this file (mode 0600), so a client reconnecting
        /// later finds this agent.
        #[arg(long)]
        state_file: Option<PathBuf>,
        /// Exit after this many seconds without requests, sampling or runs.
        #[arg(long)]
        idle_exit: Option<u64>,
        /// Exit when the process that started the agent ends.
        #[arg(long)]
        exit_with_parent: bool,
        /// Sampling plays this recorded run folder back (its GPU and host samples at their
        /// recorded pace) instead of reading this host: demos and tests without a GPU.
        #[arg(long)]
        replay: Option<PathBuf>,
        /// At start, remove the agent's run folders in which nothing was written for this
        /// many days (the app keeps its own copy of every run it downloaded); 0 keeps them.
        #[arg(long, default_value_t = checkup_agent::retention::DEFAULT_KEEP_DAYS)]
        keep_runs_days: u64,
    },
    /// Run a training command with the probe injected and sampling on:
    /// checkup-agent run -o RUN -- python train.py ...
    Run {
        #[arg(short, long)]
        out: PathBuf,
        /// Steps to let pass before profiling (warm-up).
        #[arg(long, default_value_t = 10)]
        skip_steps: u32,
        /// Steps to profile with torch.profiler (0: none).
        #[arg(long, default_value_t = 8)]
        profile_steps: u32,
        #[arg(long, default_value_t = 10.0)]
        hz: f64,
        #[arg(long)]
        no_gpm: bool,
        #[arg(last = true, required = true)]
        command: Vec<String>,
    },
    /// Internal: how a run the API started is guarded (ends with the agent).
    #[command(hide = true)]
    Guard {
        #[arg(last = true, required = true)]
        command: Vec<String>,
    },
    /// Reduce each rank's trace of run folders to `trace_summary.json` beside it (`run` does
    /// this when the training ends): `checkup gather` then copies summaries, not traces.
    Summarize {
        /// Run folders written by `checkup-agent run` (one per host of a job).
        #[arg(required = true)]
        runs: Vec<PathBuf>,
    },
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("checkup-agent: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> Result<ExitCode, AgentError> {
    match cli.command {
        Cmd::Check {
            python,
            data_dir,
            workers,
            collect_env,
            json,
        } => {
            let report = run_check(&CheckOptions {
                python,
                data_dir,
                workers,
                collect_env,
                cwd: None,
                replay: None,
            });
            let mut out = std::io::stdout().lock();
            if json {
                let _ = writeln!(
                    out,
                    "{}",
                    serde_json::to_string_pretty(&report).unwrap_or_default()
                );
            } else {
                if let Some(env) = &report.collect_env {
                    let _ = writeln!(out, "{env}");
                }
                for c in &report.checks {
                    let status = format!("{:?}", c.status).to_uppercase();
                    let t = checkup_text::checks::text(c, checkup_model::Language::En);
                    let _ = writeln!(out, "[{status:<7}] {}: {}", t.title, t.value);
                    if c.status != checkup_model::CheckStatus::Pass {
                        let _ = writeln!(out, "          {}", t.meaning);
                        if let Some(fix) = &t.fix {
                            let _ = writeln!(out, "          fix: {fix}");
                        }
                    }
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        Cmd::Sample {
            out,
            seconds,
            hz,
            slow_hz,
            pid,
            gpu,
            no_gpm,
            breakdown,
            replay,
        } => {
            let pid = match gpu {
                Some(g) => Some(checkup_agent::check::process_on_gpu(g)?),
                None => pid,
            };
            let stop = Arc::new(AtomicBool::new(false));
            let config = SamplerConfig {
                hz,
                gpm: !no_gpm,
                slow_hz,
                root_pid: Arc::new(AtomicU32::new(pid.unwrap_or(0))),
                breakdown,
                replay,
            };
            let timer = {
                let stop = stop.clone();
                std::thread::spawn(move || {
                    std::thread::sleep(std::time::Duration::from_secs_f64(seconds.max(0.0)));
                    stop.store(true, Ordering::Relaxed);
                })
            };
            let report = sampler::run(&out, &config, &stop)?;
            let _ = timer.join();
            eprintln!("{}", serde_json::to_string(&report).unwrap_or_default());
            Ok(ExitCode::SUCCESS)
        }
        Cmd::Serve {
            listen,
            allow_remote,
            token_file,
            runs,
            state_file,
            idle_exit,
            exit_with_parent,
            replay,
            keep_runs_days,
        } => {
            // XDG: an empty or relative XDG_STATE_HOME is ignored; no shared folder (/tmp)
            // stands in for a home, where another user could plant the folder first.
            let absolute =
                |v: std::ffi::OsString| Some(PathBuf::from(v)).filter(|p| p.is_absolute());
            let state_dir = std::env::var_os("XDG_STATE_HOME")
                .and_then(absolute)
                .or_else(|| {
                    std::env::var_os("HOME")
                        .and_then(absolute)
                        .map(|h| h.join(".local/state"))
                })
                .map(|d| d.join("checkup-agent"));
            let default = |what: &str, name: &str| {
                state_dir.as_ref().map(|d| d.join(name)).ok_or_else(|| {
                    AgentError::Invalid(format!(
                        "no state folder for the {what}: set HOME or XDG_STATE_HOME to an absolute path, or give --token-file and --runs"
                    ))
                })
            };
            let token_file = match token_file {
                Some(t) => t,
                None => default("token", "token")?,
            };
            let runs = match runs {
                Some(r) => r,
                None => default("runs", "runs")?,
            };
            let rt = tokio::runtime::Runtime::new()
                .map_err(|e| AgentError::Invalid(format!("cannot start the async runtime: {e}")))?;
            let options = checkup_agent::api::ServeOptions {
                addr: listen,
                token_file,
                runs_dir: runs,
                state_file,
                idle_exit_s: idle_exit,
                exit_with_parent,
                allow_remote,
                replay,
                keep_runs: (keep_runs_days > 0)
                    .then(|| std::time::Duration::from_secs(keep_runs_days.saturating_mul(86_400))),
            };
            rt.block_on(checkup_agent::api::serve(options))?;
            Ok(ExitCode::SUCCESS)
        }
        Cmd::Run {
            out,
            skip_steps,
            profile_steps,
            hz,
            no_gpm,
            command,
        } => {
            let outcome = run_command(&RunOptions {
                out,
                skip_steps,
                profile_steps,
                hz,
                gpm: !no_gpm,
                command,
                log: None,
                cwd: None,
                cancel: None,
                replay: None,
            })?;
            eprintln!(
                "checkup-agent: {}",
                serde_json::to_string(&outcome).unwrap_or_default()
            );
            if let Some(problem) = outcome.probe_problem() {
                eprintln!("checkup-agent: {problem}");
            }
            if let Some(problem) = &outcome.summary_problem {
                eprintln!("checkup-agent: the traces were not summarised: {problem}");
            }
            // The training command's exit code is the agent's: scripts chaining on it keep working.
            Ok(match outcome.exit_code {
                Some(0) => ExitCode::SUCCESS,
                Some(c) => ExitCode::from(c.clamp(1, 255) as u8),
                None => ExitCode::FAILURE,
            })
        }
        Cmd::Guard { command } => checkup_agent::guard::run(&command),
        Cmd::Summarize { runs } => {
            let mut out = std::io::stdout().lock();
            for run in runs {
                let done = checkup_engine::ingest::summarize_run(&run)
                    .map_err(|e| AgentError::Invalid(e.to_string()))?;
                if done.is_empty() {
                    return Err(AgentError::Invalid(format!(
                        "{}: no trace to summarise (rankN/trace.json.gz or *.pt.trace.json.gz): was the run profiled (--profile-steps)?",
                        run.display()
                    )));
                }
                for s in done {
                    let _ = writeln!(
                        out,
                        "rank {}: {} ({:.1} MB) -> {} ({:.1} kB)",
                        s.rank,
                        s.trace.display(),
                        s.trace_bytes as f64 / 1e6,
                        s.summary.display(),
                        s.summary_bytes as f64 / 1e3
                    );
                }
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}
