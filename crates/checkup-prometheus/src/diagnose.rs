//! A host's GPU metrics in Prometheus diagnosed like a recorded run: the range a user typed,
//! the metrics read, and the engine's diagnosis with a note of where the samples came from.
//! The CLI (`checkup analyze --prometheus`) and the app share it.

use std::path::PathBuf;

use checkup_model::{Diagnosis, Note};

use crate::time::{parse_duration, parse_instant};
use crate::{Client, PrometheusError, Selection};

/// How long a range is when only its end (or nothing) is given.
pub const DEFAULT_SPAN_S: f64 = 30.0 * 60.0;

/// A range as typed, each part optional: its start (`from`), else the `last` duration
/// before its end; its end (`to`), else now.
#[derive(Debug, Clone, Copy, Default)]
pub struct TypedRange<'a> {
    /// The start: Unix seconds, RFC 3339, `now-2h`.
    pub from: Option<&'a str>,
    /// The end (default: now).
    pub to: Option<&'a str>,
    /// The length before the end (default 30 minutes); ignored when `from` is given.
    pub last: Option<&'a str>,
}

impl TypedRange<'_> {
    /// Unix seconds of the start and end, `now` being the current time; a part that does not
    /// read is named by `names` (`["--from", "--to", "--last"]`).
    pub fn resolve(
        &self,
        now: f64,
        names: [&'static str; 3],
    ) -> Result<(f64, f64), PrometheusError> {
        let bad = |what: &'static str| move |message| PrometheusError::BadTime { what, message };
        let end = match given(self.to) {
            Some(t) => parse_instant(t, now).map_err(bad(names[1]))?,
            None => now,
        };
        let start = match (given(self.from), given(self.last)) {
            (Some(f), _) => parse_instant(f, now).map_err(bad(names[0]))?,
            (None, Some(d)) => end - parse_duration(d).map_err(bad(names[2]))?,
            (None, None) => end - DEFAULT_SPAN_S,
        };
        Ok((start, end))
    }
}

/// A part of a range as typed, unless blank (an app's empty input).
fn given(v: Option<&str>) -> Option<&str> {
    v.map(str::trim).filter(|s| !s.is_empty())
}

/// Reads the selection's metrics from the server at `url` and diagnoses them.
pub fn diagnose(
    url: &str,
    selection: &Selection,
    thresholds: &checkup_engine::Thresholds,
) -> Result<Diagnosis, PrometheusError> {
    let client = Client::new(url)?;
    let metrics = crate::read(&client, selection)?;
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
            crate::rfc3339(selection.start),
            crate::rfc3339(selection.end)
        ))],
        ..Default::default()
    };
    Ok(checkup_engine::diagnose_recording(rec, None, thresholds))
}

#[cfg(test)]
mod tests {
    use super::*;

    const NAMES: [&str; 3] = ["from", "to", "last"];

    #[test]
    fn a_typed_range_defaults_to_the_last_half_hour_and_names_a_part_that_does_not_read() {
        let now = 1_800_000_000.0;
        assert_eq!(
            TypedRange::default().resolve(now, NAMES).unwrap(),
            (now - 1800.0, now)
        );
        let last_2h = TypedRange {
            last: Some("2h"),
            to: Some("now-1h"),
            ..Default::default()
        };
        assert_eq!(
            last_2h.resolve(now, NAMES).unwrap(),
            (now - 3.0 * 3600.0, now - 3600.0)
        );
        // Blank fields (an app's empty inputs) count as not given.
        let blank = TypedRange {
            from: Some(" "),
            to: Some(""),
            last: Some(""),
        };
        assert_eq!(blank.resolve(now, NAMES).unwrap(), (now - 1800.0, now));
        let bad = TypedRange {
            from: Some("yesterday"),
            ..Default::default()
        };
        match bad.resolve(now, NAMES) {
            Err(PrometheusError::BadTime { what, .. }) => assert_eq!(what, "from"),
            other => panic!("{other:?}"),
        }
    }
}
