//! What a command diagnoses: recordings on disk, or a host's GPU metrics in Prometheus.

use std::path::PathBuf;

use checkup_model::Diagnosis;
use checkup_prometheus::diagnose::TypedRange;
use checkup_prometheus::PrometheusError;
use checkup_workflow::prometheus::Range;

/// The inputs of `analyze` and `report`.
#[derive(clap::Args)]
pub struct Inputs {
    /// Run folders, Kineto traces (.json/.json.gz), tensorboard_trace_handler folders,
    /// nvidia-smi logs; several are read as one checkup.
    #[arg(required_unless_present = "prometheus")]
    pub paths: Vec<PathBuf>,
    /// Diagnose a host's GPU metrics from this Prometheus server instead (DCGM-exporter's
    /// DCGM_FI_* metrics), e.g. http://prometheus:9090.
    #[arg(long, value_name = "URL", conflicts_with = "paths")]
    pub prometheus: Option<String>,
    /// With --prometheus: the host, by its Hostname or instance label (needed when the
    /// range holds several).
    #[arg(long, requires = "prometheus")]
    pub host: Option<String>,
    /// With --prometheus: a GPU index on the host; repeat for several (all by default).
    #[arg(long = "gpu", value_name = "INDEX", requires = "prometheus")]
    pub gpus: Vec<u32>,
    /// With --prometheus: the range's start: Unix seconds, RFC 3339
    /// (2026-12-03T04:00:00Z) or now-2h.
    #[arg(long, value_name = "TIME", requires = "prometheus")]
    pub from: Option<String>,
    /// With --prometheus: the range's end (default: now).
    #[arg(long, value_name = "TIME", requires = "prometheus")]
    pub to: Option<String>,
    /// With --prometheus: the range as the last DURATION before --to (30m, 2h, 1d); the
    /// default is 30m.
    #[arg(
        long,
        value_name = "DURATION",
        requires = "prometheus",
        conflicts_with = "from"
    )]
    pub last: Option<String>,
}

impl Inputs {
    /// Reads and diagnoses the inputs.
    pub fn diagnose(
        &self,
        options: &checkup_engine::Options,
    ) -> Result<Diagnosis, crate::CliError> {
        match &self.prometheus {
            None => Ok(checkup_engine::analyze_paths(&self.paths, options)?),
            Some(url) => Ok(self.diagnose_prometheus(url, options)?),
        }
    }

    fn diagnose_prometheus(
        &self,
        url: &str,
        options: &checkup_engine::Options,
    ) -> Result<Diagnosis, PrometheusError> {
        Range {
            url,
            host: self.host.clone(),
            gpus: self.gpus.clone(),
            times: TypedRange {
                from: self.from.as_deref(),
                to: self.to.as_deref(),
                last: self.last.as_deref(),
            },
            names: ["--from", "--to", "--last"],
        }
        .diagnose(&options.thresholds)
    }
}
