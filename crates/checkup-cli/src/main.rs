//! `checkup`: the headless face of GPU Checkup, for servers and CI.

mod text;

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

#[derive(Parser)]
#[command(name = "checkup", version, about = "Find which layer makes GPU training slow: input pipeline, launches, memory bandwidth, communication, sync, stalls, throttling or environment")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Diagnose recordings: run folders, Kineto traces (.json/.json.gz), tensorboard_trace_handler
    /// folders, nvidia-smi logs. Several paths are read as one checkup.
    Analyze {
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
        /// A 1-GPU run of the same model, for the multi-GPU scaling check.
        #[arg(long)]
        partner: Option<PathBuf>,
    },
    /// Write a report of a recording.
    Report {
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        #[arg(long, value_enum, default_value = "md")]
        format: ReportFormat,
        /// Output file; standard output when absent.
        #[arg(short, long)]
        output: Option<PathBuf>,
        #[arg(long)]
        partner: Option<PathBuf>,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum ReportFormat {
    Md,
    Html,
    Json,
}

#[derive(Debug, thiserror::Error)]
enum CliError {
    #[error(transparent)]
    Engine(#[from] checkup_engine::EngineError),
    #[error(transparent)]
    Report(#[from] checkup_report::ReportError),
    #[error("{path}: cannot write: {source}")]
    Write { path: String, source: std::io::Error },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("checkup: {e}");
            ExitCode::FAILURE
        }
    }
}

fn options(partner: Option<PathBuf>) -> checkup_engine::Options {
    checkup_engine::Options { partner: partner.map(|p| vec![p]), ..Default::default() }
}

fn run(cli: Cli) -> Result<(), CliError> {
    match cli.command {
        Command::Analyze { paths, json, partner } => {
            let d = checkup_engine::analyze_paths(&paths, &options(partner))?;
            let out = if json { checkup_report::json(&d)? + "\n" } else { text::render(&d) };
            write_out(None, out.as_bytes())
        }
        Command::Report { paths, format, output, partner } => {
            let d = checkup_engine::analyze_paths(&paths, &options(partner))?;
            let out = match format {
                ReportFormat::Md => checkup_report::markdown(&d),
                ReportFormat::Html => checkup_report::html(&d),
                ReportFormat::Json => checkup_report::json(&d)? + "\n",
            };
            write_out(output, out.as_bytes())
        }
    }
}

fn write_out(path: Option<PathBuf>, bytes: &[u8]) -> Result<(), CliError> {
    match path {
        Some(p) => std::fs::write(&p, bytes).map_err(|source| CliError::Write { path: p.display().to_string(), source }),
        None => {
            let mut stdout = std::io::stdout().lock();
            match stdout.write_all(bytes).and_then(|_| stdout.flush()) {
                // A closed pipe (`checkup analyze ... | head`) is not an error worth a message.
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
                other => other.map_err(|source| CliError::Write { path: "standard output".into(), source }),
            }
        }
    }
}
