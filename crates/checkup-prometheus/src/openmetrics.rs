//! Recorded samples as the metrics DCGM-exporter would have exposed, in OpenMetrics text:
//! `promtool tsdb create-blocks-from openmetrics FILE DIR` turns it into blocks a Prometheus
//! server loads, so a recording can be looked at beside the cluster's own metrics (and the
//! Prometheus reader is tested against a real server holding real recordings).

use std::collections::BTreeSet;
use std::io::{self, Write};

use checkup_model::{GpmSample, NvmlSample, SampleSet};

use crate::dcgm::{self, labels, Field};

/// How the recorded GPUs are labelled, as DCGM-exporter labels them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Labelling {
    /// The `Hostname` label.
    pub hostname: String,
    /// The `modelName` label ("NVIDIA H200").
    pub model: Option<String>,
    /// The `DCGM_FI_DRIVER_VERSION` label.
    pub driver: Option<String>,
}

/// Writes every metric the samples have, family by family, each series in time order, and
/// the closing `# EOF`.
pub fn write(samples: &SampleSet, labelling: &Labelling, out: &mut impl Write) -> io::Result<()> {
    let gpus: BTreeSet<u32> = samples
        .nvml
        .iter()
        .map(|s| s.gpu)
        .chain(samples.gpm.iter().map(|s| s.gpu))
        .collect();
    let series_labels = |gpu: u32| {
        let mut l = vec![
            (labels::GPU, gpu.to_string()),
            (labels::HOSTNAME, labelling.hostname.clone()),
        ];
        if let Some(m) = &labelling.model {
            l.push((labels::MODEL, m.clone()));
        }
        if let Some(d) = &labelling.driver {
            l.push((labels::DRIVER, d.clone()));
        }
        let inner: Vec<String> = l
            .into_iter()
            .map(|(k, v)| format!("{k}=\"{}\"", escape(&v)))
            .collect();
        format!("{{{}}}", inner.join(","))
    };
    let family = |name: &str, points: &dyn Fn(u32) -> Vec<(f64, f64)>, out: &mut dyn Write| {
        let per_gpu: Vec<(u32, Vec<(f64, f64)>)> = gpus
            .iter()
            .map(|&g| (g, points(g)))
            .filter(|(_, p)| !p.is_empty())
            .collect();
        if per_gpu.is_empty() {
            return Ok(());
        }
        writeln!(out, "# TYPE {name} gauge")?;
        for (gpu, points) in per_gpu {
            let l = series_labels(gpu);
            let mut last = f64::NEG_INFINITY;
            for (t, v) in points {
                // A series' timestamps must rise; a repeated reading is dropped.
                if t > last {
                    writeln!(out, "{name}{l} {v} {t:.3}")?;
                    last = t;
                }
            }
        }
        Ok::<(), io::Error>(())
    };
    for m in dcgm::METRICS {
        match m.field {
            Field::Nvml { get, .. } => family(m.name, &|g| points(&samples.nvml, g, get), out)?,
            Field::Gpm { get, .. } => family(m.name, &|g| points(&samples.gpm, g, get), out)?,
        }
    }
    let free = |s: &NvmlSample| Some(s.mem_total_mib? - s.mem_used_mib?);
    family(dcgm::FB_FREE, &|g| points(&samples.nvml, g, free), out)?;
    writeln!(out, "# EOF")
}

/// A reading of one GPU at one time.
trait Reading {
    fn ts(&self) -> f64;
    fn gpu(&self) -> u32;
}

impl Reading for NvmlSample {
    fn ts(&self) -> f64 {
        self.ts
    }
    fn gpu(&self) -> u32 {
        self.gpu
    }
}

impl Reading for GpmSample {
    fn ts(&self) -> f64 {
        self.ts
    }
    fn gpu(&self) -> u32 {
        self.gpu
    }
}

/// GPU `gpu`'s (time, value) points where the readings have the value.
fn points<S: Reading>(
    samples: &[S],
    gpu: u32,
    value: impl Fn(&S) -> Option<f64>,
) -> Vec<(f64, f64)> {
    samples
        .iter()
        .filter(|s| s.gpu() == gpu)
        .filter_map(|s| Some((s.ts(), value(s)?)))
        .collect()
}

fn escape(v: &str) -> String {
    v.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn families_are_whole_and_series_rise_in_time() {
        let nvml = |ts, gpu, util| NvmlSample {
            ts,
            gpu,
            util_gpu: Some(util),
            mem_used_mib: Some(1000.0),
            mem_total_mib: Some(4000.0),
            ..Default::default()
        };
        let samples = SampleSet {
            nvml: vec![
                nvml(10.0, 0, 50.0),
                nvml(10.0, 1, 60.0),
                nvml(11.0, 0, 55.0),
                nvml(11.0, 0, 56.0),
            ],
            gpm: vec![GpmSample {
                ts: 10.0,
                gpu: 0,
                sm_util: Some(80.0),
                ..Default::default()
            }],
            host: vec![],
        };
        let mut out = Vec::new();
        let labelling = Labelling {
            hostname: "h200-a".into(),
            model: Some("NVIDIA H200".into()),
            driver: None,
        };
        write(&samples, &labelling, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let util: Vec<&str> = text
            .lines()
            .filter(|l| l.starts_with("DCGM_FI_DEV_GPU_UTIL{"))
            .collect();
        assert_eq!(
            util,
            [
                r#"DCGM_FI_DEV_GPU_UTIL{gpu="0",Hostname="h200-a",modelName="NVIDIA H200"} 50 10.000"#,
                r#"DCGM_FI_DEV_GPU_UTIL{gpu="0",Hostname="h200-a",modelName="NVIDIA H200"} 55 11.000"#,
                r#"DCGM_FI_DEV_GPU_UTIL{gpu="1",Hostname="h200-a",modelName="NVIDIA H200"} 60 10.000"#,
            ]
        );
        assert!(text.contains(r#"DCGM_FI_PROF_SM_ACTIVE{gpu="0",Hostname="h200-a",modelName="NVIDIA H200"} 0.8 10.000"#), "{text}");
        assert!(text.contains(
            r#"DCGM_FI_DEV_FB_FREE{gpu="0",Hostname="h200-a",modelName="NVIDIA H200"} 3000 10.000"#
        ));
        assert_eq!(text.matches("# TYPE DCGM_FI_DEV_GPU_UTIL gauge").count(), 1);
        assert!(
            !text.contains("DCGM_FI_DEV_POWER_USAGE"),
            "no family without samples"
        );
        assert!(text.ends_with("# EOF\n"));
    }
}
