//! What a command diagnoses: recordings on disk, or a host's GPU metrics in Prometheus.

use std::path::PathBuf;
use std::time::{SystemTime, UNIX_EPOCH};

use checkup_model::{Diagnosis, Note};
use checkup_prometheus::time::{parse_duration, parse_instant};
use checkup_prometheus::{Client, PrometheusError, Selection};

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
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0.0, |d| d.as_secs_f64());
        let bad = |what: &'static str| move |message| PrometheusError::BadTime { what, message };
        let end = match &self.to {
            Some(t) => parse_instant(t, now).map_err(bad("--to"))?,
            None => now,
        };
        let start = match (&self.from, &self.last) {
            (Some(f), _) => parse_instant(f, now).map_err(bad("--from"))?,
            (None, Some(d)) => end - parse_duration(d).map_err(bad("--last"))?,
            (None, None) => end - 30.0 * 60.0,
        };
        let client = Client::new(url)?;
        let metrics = checkup_prometheus::read(
            &client,
            &Selection {
                host: self.host.clone(),
                gpus: self.gpus.clone(),
                start,
                end,
            },
        )?;
        let gpus: Vec<String> = metrics.gpus.iter().map(u32::to_string).collect();
        let rec = checkup_engine::ingest::Recording {
            facts: metrics.facts,
            samples: metrics.samples,
            notes: vec![Note::SamplesFromPrometheus {
                url: client.url().to_owned(),
                host: metrics.host.clone(),
                interval_s: metrics.interval_s,
            }],
            sources: vec![PathBuf::from(format!(
                "{} host {} GPU {} from {} to {}",
                client.url(),
                metrics.host,
                gpus.join(","),
                checkup_prometheus::rfc3339(start),
                checkup_prometheus::rfc3339(end)
            ))],
            ..Default::default()
        };
        Ok(checkup_engine::diagnose_recording(
            rec,
            None,
            &options.thresholds,
        ))
    }
}
