//! `checkup`: the headless face of GPU Checkup, for servers and CI.

mod gather;
mod inputs;
mod text;

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

#[derive(Parser)]
#[command(
    name = "checkup",
    version,
    about = "Find which layer makes GPU training slow: input pipeline, launches, memory bandwidth, communication, sync, stalls, throttling or environment"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Diagnose recordings: run folders, Kineto traces (.json/.json.gz), tensorboard_trace_handler
    /// folders, nvidia-smi logs, read as one checkup; or a host's GPU metrics in Prometheus.
    Analyze {
        #[command(flatten)]
        inputs: inputs::Inputs,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
        /// A 1-GPU run of the same model, for the multi-GPU scaling check.
        #[arg(long, conflicts_with = "prometheus")]
        partner: Option<PathBuf>,
        /// Language of the text: en or zh (Simplified Chinese). JSON is the same in both.
        #[arg(long, default_value = "en")]
        lang: checkup_model::Language,
    },
    /// Write a report of a recording: PDF, single-file HTML, Markdown with its charts in
    /// `charts/` beside it, or JSON.
    Report {
        #[command(flatten)]
        inputs: inputs::Inputs,
        /// The report's format; by default the output file's extension says it (.pdf, .html,
        /// .md, .json), and PDF without one.
        #[arg(long, value_enum)]
        format: Option<ReportFormat>,
        /// Output file (required for pdf and md); standard output for html and json when absent.
        #[arg(short, long)]
        output: Option<PathBuf>,
        /// A 1-GPU run of the same model, for the multi-GPU scaling check.
        #[arg(long, conflicts_with = "prometheus")]
        partner: Option<PathBuf>,
        /// Report language: en or zh (Simplified Chinese).
        #[arg(long, default_value = "en")]
        lang: checkup_model::Language,
        /// A baseline card (or a baseline run) to compare against.
        #[arg(long)]
        baseline: Option<PathBuf>,
    },
    /// Write the baseline card of a healthy run: a small text file to commit next to the
    /// training code.
    Baseline {
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        #[arg(short, long)]
        output: Option<PathBuf>,
    },
    /// Write a recording's GPU samples as DCGM-exporter's metrics in OpenMetrics text, for
    /// `promtool tsdb create-blocks-from openmetrics FILE DIR` to backfill into Prometheus.
    Openmetrics {
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// The Hostname label the metrics get (DCGM-exporter's name for the host).
        #[arg(long, value_name = "NAME")]
        hostname: String,
        /// Output file (standard output when absent).
        #[arg(short, long)]
        output: Option<PathBuf>,
    },
    /// Copy a job's run folders from its hosts over SSH: each rank's summary
    /// (`trace_summary.json`, written by `checkup-agent run` when the training ended) instead
    /// of its trace, then the trace of the rank the diagnosis follows. Then `checkup analyze
    /// DEST` reads them as one checkup.
    Gather {
        /// Each host's run folder as scp writes it, HOST:PATH (an ~/.ssh/config alias or
        /// user@host; a port goes in ~/.ssh/config). With --slurm, one PATH for every node,
        /// {node} standing for its SLURM_NODEID and {host} for its name.
        #[arg(required = true, value_name = "HOST:PATH")]
        sources: Vec<String>,
        /// A Slurm job id: its nodes are asked of the --login host, and reached through it.
        #[arg(long, value_name = "JOB", requires = "login")]
        slurm: Option<String>,
        /// The cluster's login host, where squeue/scontrol run (with --slurm).
        #[arg(long, value_name = "HOST", requires = "slurm")]
        login: Option<String>,
        /// A new or empty folder; each host's run folder lands in a folder named after it.
        #[arg(short, long)]
        output: PathBuf,
        /// Also copy these ranks' traces, e.g. 3,17.
        #[arg(
            long,
            value_delimiter = ',',
            value_name = "RANKS",
            conflicts_with = "all_traces"
        )]
        trace_ranks: Vec<u32>,
        /// Copy every trace (no summary is relied on).
        #[arg(long)]
        all_traces: bool,
        /// An ssh_config file to use instead of ~/.ssh/config (ssh -F).
        #[arg(long, value_name = "FILE")]
        ssh_config: Option<PathBuf>,
        /// Language of the text: en or zh (Simplified Chinese).
        #[arg(long, default_value = "en")]
        lang: checkup_model::Language,
    },
    /// Compare a run with a baseline (a card written by `checkup baseline`, or a run) and say
    /// what changed and why. Exit status for CI: 0 when the time per step is within
    /// --fail-over of the baseline's, 3 when it is slower by more, 4 when the two runs are
    /// different workloads (another model, size, batch, precision or rank count), 1 on an
    /// error.
    Compare {
        current: PathBuf,
        baseline: PathBuf,
        /// Language of the text: en or zh (Simplified Chinese).
        #[arg(long, default_value = "en")]
        lang: checkup_model::Language,
        /// The slowdown, in percent of the baseline's time per step, beyond which the exit
        /// status is 3.
        #[arg(long, value_name = "PERCENT", default_value_t = 10.0, value_parser = regression_percent)]
        fail_over: f64,
    },
}

#[derive(Clone, Copy, PartialEq, Debug, ValueEnum)]
enum ReportFormat {
    Pdf,
    Html,
    Md,
    Json,
}

impl ReportFormat {
    fn name(self) -> &'static str {
        match self {
            Self::Pdf => "pdf",
            Self::Html => "html",
            Self::Md => "md",
            Self::Json => "json",
        }
    }

    /// The format a file name's extension names, if it names one.
    fn of_file(path: &std::path::Path) -> Option<Self> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "pdf" => Some(Self::Pdf),
            "html" | "htm" => Some(Self::Html),
            "md" | "markdown" => Some(Self::Md),
            "json" => Some(Self::Json),
            _ => None,
        }
    }

    /// The format asked for with --format, else the one the output file's name says, else
    /// PDF. A --format that contradicts the file's extension is refused rather than writing,
    /// say, a PDF into `report.md`.
    fn choose(asked: Option<Self>, output: Option<&std::path::Path>) -> Result<Self, CliError> {
        let named = output.and_then(Self::of_file);
        match (asked, named) {
            (Some(a), Some(n)) if a != n => Err(CliError::FormatMismatch {
                path: output.map(|p| p.display().to_string()).unwrap_or_default(),
                named: n.name(),
                asked: a.name(),
            }),
            (Some(a), _) => Ok(a),
            (None, Some(n)) => Ok(n),
            (None, None) => Ok(Self::Pdf),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub(crate) enum CliError {
    #[error(transparent)]
    Engine(#[from] checkup_engine::EngineError),
    #[error(transparent)]
    Report(#[from] checkup_report::ReportError),
    #[error(transparent)]
    Prometheus(#[from] checkup_prometheus::PrometheusError),
    #[error(transparent)]
    Connect(#[from] checkup_connect::ConnectError),
    #[error(transparent)]
    Workflow(#[from] checkup_workflow::WorkflowError),
    #[error("{path}: cannot write: {source}")]
    Write {
        path: String,
        source: std::io::Error,
    },
    #[error("{path}: cannot read the baseline card: {source}")]
    ReadBaseline {
        path: String,
        source: std::io::Error,
    },
    #[error("{0}: {1}")]
    Baseline(String, checkup_report::ReportError),
    #[error(
        "with --slurm, give one path for every node (e.g. /scratch/job/node{{node}}), not {0}"
    )]
    SlurmPath(usize),
    #[error("--format {0} writes files: give the output path with -o")]
    NeedsOutput(&'static str),
    #[error("{path}: the file name says {named} but --format says {asked}: drop --format or rename the file")]
    FormatMismatch {
        path: String,
        named: &'static str,
        asked: &'static str,
    },
}

/// Exit statuses of `checkup compare` beyond success (0) and an error (1).
const EXIT_REGRESSED: u8 = 3;
const EXIT_DIFFERENT_WORKLOADS: u8 = 4;

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(Verdict::Done) => ExitCode::SUCCESS,
        Ok(Verdict::Regressed) => ExitCode::from(EXIT_REGRESSED),
        Ok(Verdict::DifferentWorkloads) => ExitCode::from(EXIT_DIFFERENT_WORKLOADS),
        Err(e) => {
            // Errors name files, and a file's name may hold anything.
            eprintln!("checkup: {}", checkup_text::visible(&e.to_string()));
            ExitCode::FAILURE
        }
    }
}

/// How a command that ran ends: a comparison may end in a verdict a CI job gates on.
enum Verdict {
    Done,
    Regressed,
    DifferentWorkloads,
}

/// `--fail-over`: a percentage of at least 0.
fn regression_percent(v: &str) -> Result<f64, String> {
    match v.trim_end_matches('%').parse::<f64>() {
        Ok(p) if p.is_finite() && p >= 0.0 => Ok(p),
        _ => Err(format!(
            "`{v}` is not a percentage of at least 0 (10 means 10 % slower)"
        )),
    }
}

fn options(partner: Option<PathBuf>) -> checkup_engine::Options {
    checkup_engine::Options {
        partner: partner.map(|p| vec![p]),
        ..Default::default()
    }
}

/// Compares and says how it ends for a CI gate: a different workload before a regression,
/// since its step time says nothing about this one's.
fn compare(
    current: PathBuf,
    baseline: &std::path::Path,
    lang: checkup_model::Language,
    fail_over_pct: f64,
) -> Result<Verdict, CliError> {
    let now = checkup_engine::analyze_paths(&[current], &options(None))?;
    let base = load_card(baseline)?;
    let cmp = checkup_report::compare(&checkup_report::BaselineCard::from_diagnosis(&now), &base);
    say(&text::comparison(&cmp, lang))?;
    Ok(if cmp.different_workloads() {
        Verdict::DifferentWorkloads
    } else if cmp.regression_beyond(fail_over_pct / 100.0).is_some() {
        Verdict::Regressed
    } else {
        Verdict::Done
    })
}

fn run(cli: Cli) -> Result<Verdict, CliError> {
    match cli.command {
        Command::Analyze {
            inputs,
            json,
            partner,
            lang,
        } => {
            let d = inputs.diagnose(&options(partner))?;
            if json {
                write_out(None, (checkup_report::json(&d)? + "\n").as_bytes())
            } else {
                say(&text::render(&d, lang))
            }
        }
        Command::Report {
            inputs,
            format,
            output,
            partner,
            lang,
            baseline,
        } => {
            let format = ReportFormat::choose(format, output.as_deref())?;
            let d = inputs.diagnose(&options(partner))?;
            let opts = checkup_report::ReportOptions {
                language: lang,
                baseline: baseline.map(|b| load_card(&b)).transpose()?,
            };
            match format {
                ReportFormat::Pdf => {
                    let out = output.ok_or(CliError::NeedsOutput("pdf"))?;
                    write_out(Some(out), &checkup_report::pdf(&d, &opts)?)
                }
                ReportFormat::Md => {
                    let out = output.ok_or(CliError::NeedsOutput("md"))?;
                    let (md, charts) = checkup_report::markdown(&d, &opts);
                    let dir = out
                        .parent()
                        .map(|p| p.join("charts"))
                        .unwrap_or_else(|| PathBuf::from("charts"));
                    std::fs::create_dir_all(&dir).map_err(|source| CliError::Write {
                        path: dir.display().to_string(),
                        source,
                    })?;
                    for c in &charts {
                        write_out(Some(dir.join(format!("{}.svg", c.name))), c.svg.as_bytes())?;
                    }
                    write_out(Some(out), md.as_bytes())
                }
                ReportFormat::Html => write_out(output, checkup_report::html(&d, &opts).as_bytes()),
                ReportFormat::Json => {
                    write_out(output, (checkup_report::json(&d)? + "\n").as_bytes())
                }
            }
        }
        Command::Baseline { paths, output } => {
            let d = checkup_engine::analyze_paths(&paths, &options(None))?;
            write_out(
                output,
                checkup_report::BaselineCard::from_diagnosis(&d)
                    .to_text()
                    .as_bytes(),
            )
        }
        Command::Openmetrics {
            paths,
            hostname,
            output,
        } => {
            let rec = checkup_engine::ingest::load(&paths)?;
            let labelling = checkup_prometheus::openmetrics::Labelling {
                hostname,
                model: rec.facts.gpu_name.clone(),
                driver: rec.facts.driver_version.clone(),
            };
            let mut text = Vec::new();
            checkup_prometheus::openmetrics::write(&rec.samples, &labelling, &mut text)
                .expect("writing to memory");
            write_out(output, &text)
        }
        Command::Gather {
            sources,
            slurm,
            login,
            output,
            trace_ranks,
            all_traces,
            ssh_config,
            lang,
        } => {
            let traces = match (all_traces, trace_ranks.is_empty()) {
                (true, _) => checkup_connect::gather::TraceChoice::All,
                (false, true) => checkup_connect::gather::TraceChoice::SummariesOnly,
                (false, false) => {
                    checkup_connect::gather::TraceChoice::Ranks(trace_ranks.into_iter().collect())
                }
            };
            let from = match (slurm, login, sources.as_slice()) {
                (Some(job), Some(login), [path]) => checkup_workflow::gather::Where::Slurm {
                    job,
                    login,
                    path: path.clone(),
                },
                (Some(_), _, _) => return Err(CliError::SlurmPath(sources.len())),
                _ => checkup_workflow::gather::Where::Hosts(sources),
            };
            let said = gather::gather(from, &output, &traces, ssh_config, lang)?;
            say(&said)
        }
        Command::Compare {
            current,
            baseline,
            lang,
            fail_over,
        } => return compare(current, &baseline, lang, fail_over),
    }?;
    Ok(Verdict::Done)
}

/// A baseline is a card file, or a run to compute the card from.
fn load_card(path: &std::path::Path) -> Result<checkup_report::BaselineCard, CliError> {
    let is_card = path.is_file()
        && std::fs::read(path).is_ok_and(|b| b.starts_with(b"# GPU Checkup baseline card"));
    if is_card {
        let text = std::fs::read_to_string(path).map_err(|source| CliError::ReadBaseline {
            path: path.display().to_string(),
            source,
        })?;
        checkup_report::BaselineCard::parse(&text)
            .map_err(|e| CliError::Baseline(path.display().to_string(), e))
    } else {
        let d = checkup_engine::analyze_paths(&[path.to_path_buf()], &options(None))?;
        Ok(checkup_report::BaselineCard::from_diagnosis(&d))
    }
}

/// Text for a terminal: names from the recording in it can hold escape sequences, which
/// are shown by their code point instead of being obeyed.
fn say(text: &str) -> Result<(), CliError> {
    write_out(None, checkup_text::visible(text).as_bytes())
}

fn write_out(path: Option<PathBuf>, bytes: &[u8]) -> Result<(), CliError> {
    match path {
        Some(p) => std::fs::write(&p, bytes).map_err(|source| CliError::Write {
            path: p.display().to_string(),
            source,
        }),
        None => {
            let mut stdout = std::io::stdout().lock();
            match stdout.write_all(bytes).and_then(|_| stdout.flush()) {
                // A closed pipe (`checkup analyze ... | head`) is not an error worth a message.
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
                other => other.map_err(|source| CliError::Write {
                    path: "standard output".into(),
                    source,
                }),
            }
        }
    }
}
