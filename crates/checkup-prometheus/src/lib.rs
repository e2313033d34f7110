//! GPU metrics a team already collects: DCGM-exporter's metrics read back from a Prometheus
//! server through its HTTP API, as the NVML and GPM samples a recording holds, so the engine
//! diagnoses them like a recorded run (`checkup analyze --prometheus URL`). And the way back:
//! recorded samples written as DCGM-exporter's metrics in OpenMetrics text, which
//! `promtool tsdb create-blocks-from openmetrics` backfills into a server.
//!
//! One host at a time: the range's GPUs of the host chosen (by its `Hostname` or
//! `instance` label), every scraped sample as stored.

#![warn(missing_docs)]

pub mod api;
pub mod dcgm;
pub mod diagnose;
pub mod error;
pub mod openmetrics;
pub mod time;

use std::collections::{BTreeMap, BTreeSet};

use checkup_model::{GpmSample, GpuStatic, NvmlSample, RunFacts, SampleSet};

pub use api::Client;
pub use error::PrometheusError;

use dcgm::{labels, Field};

/// Which GPUs, over which time.
#[derive(Debug, Clone, PartialEq)]
pub struct Selection {
    /// The host, by its `Hostname` label, its `instance` label, or the instance's host part;
    /// None when the range holds one host only.
    pub host: Option<String>,
    /// GPU indices on it; empty for all of them.
    pub gpus: Vec<u32>,
    /// Unix seconds.
    pub start: f64,
    /// Unix seconds.
    pub end: f64,
}

/// A host's GPU metrics over a range, as samples.
#[derive(Debug, Clone, PartialEq)]
pub struct Metrics {
    /// The host, as its labels name it.
    pub host: String,
    /// The GPUs read.
    pub gpus: Vec<u32>,
    /// NVML-like readings from the device metrics, GPM-like ones from the profiling metrics.
    pub samples: SampleSet,
    /// What the labels and the static metrics say: GPU model, driver, power limit.
    pub facts: RunFacts,
    /// The median time between scrapes, seconds.
    pub interval_s: Option<f64>,
    /// DCGM-exporter metrics the server did not have for the selection (not every exporter
    /// is configured with the profiling metrics).
    pub missing: Vec<&'static str>,
}

/// The host a series comes from: its `Hostname` label (DCGM-exporter's), else `instance`.
fn host_of(l: &api::Labels) -> Option<&str> {
    l.get(labels::HOSTNAME)
        .or_else(|| l.get(labels::INSTANCE))
        .map(String::as_str)
}

/// Whether the name a user gave is this series' host.
fn is_host(l: &api::Labels, name: &str) -> bool {
    let instance = l.get(labels::INSTANCE).map(String::as_str);
    l.get(labels::HOSTNAME).map(String::as_str) == Some(name)
        || instance == Some(name)
        || instance.and_then(|i| i.rsplit_once(':')).map(|(h, _)| h) == Some(name)
}

fn gpu_of(l: &api::Labels) -> Option<u32> {
    l.get(labels::GPU)?.parse().ok()
}

/// A label value inside a PromQL selector.
fn quoted(v: &str) -> String {
    format!("\"{}\"", v.replace('\\', "\\\\").replace('"', "\\\""))
}

/// RFC 3339 in UTC, to the second, for messages.
pub fn rfc3339(t: f64) -> String {
    let secs = t.floor() as i64;
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Civil date from days since the epoch (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// Reads the selected GPUs' metrics over the range.
pub fn read(client: &Client, sel: &Selection) -> Result<Metrics, PrometheusError> {
    if sel.end <= sel.start {
        return Err(PrometheusError::EmptyRange {
            from: rfc3339(sel.start),
            to: rfc3339(sel.end),
        });
    }
    let no_metrics = |selection: String| PrometheusError::NoMetrics {
        url: client.url().to_owned(),
        metric: dcgm::GPU_UTIL,
        selection,
        from: rfc3339(sel.start),
        to: rfc3339(sel.end),
    };
    let all = client.series(dcgm::GPU_UTIL, sel.start, sel.end)?;
    if all.is_empty() {
        return Err(no_metrics(match &sel.host {
            Some(h) => format!("for host {h}"),
            None => "for any host".into(),
        }));
    }
    let hosts: BTreeSet<&str> = all.iter().filter_map(host_of).collect();
    let on_host: Vec<&api::Labels> = match &sel.host {
        Some(h) => {
            let matched: Vec<_> = all.iter().filter(|l| is_host(l, h)).collect();
            if matched.is_empty() {
                return Err(PrometheusError::UnknownHost {
                    host: h.clone(),
                    known: hosts.iter().map(|s| s.to_string()).collect(),
                });
            }
            matched
        }
        None if hosts.len() > 1 => {
            return Err(PrometheusError::SeveralHosts {
                hosts: hosts.iter().map(|s| s.to_string()).collect(),
            })
        }
        None => all.iter().collect(),
    };
    let first = on_host[0];
    let host = host_of(first).unwrap_or_default().to_owned();
    // Select by the label that named the host: the exporter's Hostname where it sets one.
    let host_matcher = match first.get(labels::HOSTNAME) {
        Some(h) => format!("{}={}", labels::HOSTNAME, quoted(h)),
        None => format!(
            "{}={}",
            labels::INSTANCE,
            quoted(first.get(labels::INSTANCE).map_or("", String::as_str))
        ),
    };
    let host_gpus: BTreeSet<u32> = on_host.iter().filter_map(|l| gpu_of(l)).collect();
    for g in &sel.gpus {
        if !host_gpus.contains(g) {
            return Err(PrometheusError::UnknownGpu {
                host: host.clone(),
                missing: *g,
                have: host_gpus.iter().copied().collect(),
            });
        }
    }
    let gpus: Vec<u32> = if sel.gpus.is_empty() {
        host_gpus.iter().copied().collect()
    } else {
        sel.gpus
            .iter()
            .copied()
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect()
    };
    let gpu_matcher = if sel.gpus.is_empty() {
        String::new()
    } else {
        let alternatives: Vec<String> = gpus.iter().map(u32::to_string).collect();
        format!(",{}=~\"{}\"", labels::GPU, alternatives.join("|"))
    };
    let selector = |metric: &str| format!("{metric}{{{host_matcher}{gpu_matcher}}}");
    let seconds = (sel.end - sel.start).ceil().max(1.0) as u64;

    let mut nvml: BTreeMap<(i64, u32), NvmlSample> = BTreeMap::new();
    let mut gpm: BTreeMap<(i64, u32), GpmSample> = BTreeMap::new();
    let mut missing = Vec::new();
    let mut fields: Vec<(&'static str, Option<Field>)> = dcgm::METRICS
        .iter()
        .map(|m| (m.name, Some(m.field)))
        .collect();
    fields.push((dcgm::FB_FREE, None));
    let mut free: BTreeMap<(i64, u32), f64> = BTreeMap::new();
    for (name, field) in fields {
        let mut series = client.raw_samples(&selector(name), seconds, sel.end)?;
        if series.is_empty() && name == dcgm::THROTTLE_REASONS {
            series = client.raw_samples(&selector(dcgm::THROTTLE_REASONS_OLD), seconds, sel.end)?;
        }
        if series.is_empty() {
            missing.push(name);
            continue;
        }
        for s in series {
            let Some(gpu) = gpu_of(&s.labels) else {
                continue;
            };
            for (t, v) in s.samples.into_iter().filter(|(t, _)| *t >= sel.start) {
                let key = ((t * 1000.0).round() as i64, gpu);
                match field {
                    Some(Field::Nvml { set, .. }) => set(
                        nvml.entry(key).or_insert_with(|| NvmlSample {
                            ts: t,
                            gpu,
                            ..Default::default()
                        }),
                        v,
                    ),
                    Some(Field::Gpm { set, .. }) => set(
                        gpm.entry(key).or_insert_with(|| GpmSample {
                            ts: t,
                            gpu,
                            ..Default::default()
                        }),
                        v,
                    ),
                    None => {
                        free.insert(key, v);
                    }
                }
            }
        }
    }
    // The card's memory: used and free at the same scrape.
    for (key, s) in nvml.iter_mut() {
        if let (Some(used), Some(f)) = (s.mem_used_mib, free.get(key)) {
            s.mem_total_mib = Some(used + f);
        }
    }
    let nvml: Vec<NvmlSample> = sorted(nvml.into_values().collect(), |s| (s.ts, s.gpu));
    let gpm: Vec<GpmSample> = sorted(gpm.into_values().collect(), |s| (s.ts, s.gpu));
    if nvml.is_empty() {
        return Err(no_metrics(format!(
            "for GPU {} of host {host}",
            gpus.iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    let interval_s = median_interval(&nvml, gpus[0]);
    let facts = facts(&on_host, &gpus, &nvml, client.url(), &host);
    Ok(Metrics {
        host,
        gpus,
        samples: SampleSet {
            nvml,
            gpm,
            host: Vec::new(),
        },
        facts,
        interval_s,
        missing,
    })
}

fn sorted<T>(mut v: Vec<T>, key: impl Fn(&T) -> (f64, u32)) -> Vec<T> {
    v.sort_by(|a, b| {
        let (ka, kb) = (key(a), key(b));
        ka.0.total_cmp(&kb.0).then(ka.1.cmp(&kb.1))
    });
    v
}

fn median_interval(nvml: &[NvmlSample], gpu: u32) -> Option<f64> {
    let ts: Vec<f64> = nvml.iter().filter(|s| s.gpu == gpu).map(|s| s.ts).collect();
    let mut gaps: Vec<f64> = ts.windows(2).map(|w| w[1] - w[0]).collect();
    if gaps.is_empty() {
        return None;
    }
    gaps.sort_by(f64::total_cmp);
    Some(gaps[gaps.len() / 2])
}

/// What the labels and the static fields say about the run's GPUs.
fn facts(
    series: &[&api::Labels],
    gpus: &[u32],
    nvml: &[NvmlSample],
    url: &str,
    host: &str,
) -> RunFacts {
    let label = |name: &str| series.iter().find_map(|l| l.get(name).cloned());
    let model = label(labels::MODEL);
    let host_gpus: BTreeSet<u32> = series.iter().filter_map(|l| gpu_of(l)).collect();
    let gpu_statics = gpus
        .iter()
        .map(|&g| {
            let of_gpu = || nvml.iter().filter(move |s| s.gpu == g);
            let mut limits: Vec<f64> = of_gpu().filter_map(|s| s.power_limit_w).collect();
            limits.sort_by(f64::total_cmp);
            GpuStatic {
                index: g,
                name: series
                    .iter()
                    .find(|l| gpu_of(l) == Some(g))
                    .and_then(|l| l.get(labels::MODEL).cloned()),
                power_limit_w: limits.get(limits.len() / 2).copied(),
                sm_clock_max_mhz: of_gpu().filter_map(|s| s.sm_clock_max_mhz).reduce(f64::max),
                ..Default::default()
            }
        })
        .collect();
    let mut extra = BTreeMap::new();
    extra.insert("prometheus".to_owned(), url.to_owned());
    extra.insert("host".to_owned(), host.to_owned());
    RunFacts {
        gpu_name: model,
        gpu_count: Some(host_gpus.len() as u32),
        driver_version: label(labels::DRIVER),
        started: nvml.first().map(|s| s.ts),
        ended: nvml.last().map(|s| s.ts),
        gpus: gpu_statics,
        extra,
        ..Default::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(pairs: &[(&str, &str)]) -> api::Labels {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn a_host_is_found_by_its_hostname_its_instance_or_the_instance_host() {
        let l = labels(&[("Hostname", "gpu-07"), ("instance", "10.0.0.7:9400")]);
        assert!(is_host(&l, "gpu-07"));
        assert!(is_host(&l, "10.0.0.7:9400"));
        assert!(is_host(&l, "10.0.0.7"));
        assert!(!is_host(&l, "gpu-0"));
        assert_eq!(host_of(&l), Some("gpu-07"));
        assert_eq!(host_of(&labels(&[("instance", "a:9400")])), Some("a:9400"));
    }

    #[test]
    fn label_values_are_quoted_for_promql() {
        assert_eq!(quoted(r#"a"b\c"#), r#""a\"b\\c""#);
    }

    #[test]
    fn times_in_messages_are_utc_rfc3339() {
        assert_eq!(rfc3339(0.0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(1_796_270_400.7), "2026-12-03T04:00:00Z");
        assert_eq!(rfc3339(951_782_400.0), "2000-02-29T00:00:00Z");
    }
}
