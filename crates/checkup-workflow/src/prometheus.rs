//! A host's GPU metrics read from Prometheus over a range the user typed, diagnosed: by the
//! CLI (`checkup analyze --prometheus`) and kept as a checkup of that host by the app
//! (`prometheus_checkup`).

use checkup_model::Diagnosis;
use checkup_prometheus::diagnose::TypedRange;
use checkup_prometheus::{PrometheusError, Selection};

/// A range of one host's GPU metrics, as typed.
pub struct Range<'a> {
    /// The server, e.g. `http://prometheus:9090`.
    pub url: &'a str,
    /// The host by its `Hostname` or `instance` label; needed when the range holds several.
    pub host: Option<String>,
    /// GPU indices on the host; all when empty.
    pub gpus: Vec<u32>,
    /// The range as typed: start, end, or the last duration before the end.
    pub times: TypedRange<'a>,
    /// The names the user typed the range's three parts under, for errors that name them.
    pub names: [&'static str; 3],
}

impl Range<'_> {
    /// The series to read: the host, its GPUs and the range in Unix seconds as of now.
    pub fn selection(&self) -> Result<Selection, PrometheusError> {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0.0, |d| d.as_secs_f64());
        let (start, end) = self.times.resolve(now, self.names)?;
        Ok(Selection {
            host: self.host.clone(),
            gpus: self.gpus.clone(),
            start,
            end,
        })
    }

    /// Reads the range and diagnoses it (blocking HTTP and the analysis: call it off the
    /// async threads).
    pub fn diagnose(
        &self,
        thresholds: &checkup_engine::Thresholds,
    ) -> Result<Diagnosis, PrometheusError> {
        checkup_prometheus::diagnose::diagnose(self.url, &self.selection()?, thresholds)
    }
}
