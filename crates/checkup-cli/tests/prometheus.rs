//! `checkup analyze --prometheus` against a real Prometheus server holding an H200
//! recording as DCGM-exporter's metrics: the diagnosis is the one the same samples get
//! from a run folder, and the report says where the samples came from.

mod common;

use common::checkup;

use std::path::{Path, PathBuf};

use checkup_model::SampleSet;
use checkup_prometheus::openmetrics::{self, Labelling};
use checkup_recording::samples::{read_gpm_csv, read_nvml_csv};
use checkup_testkit::{workspace_root, TestPrometheus};

/// A run folder with the recording's GPU samples alone: what Prometheus holds of it.
fn samples_only(run: &str, dir: &Path) -> (PathBuf, SampleSet) {
    let from = workspace_root().join("tests/corpus").join(run);
    let to = dir.join(run);
    std::fs::create_dir_all(&to).unwrap();
    for f in ["samples_nvml.csv", "samples_gpm.csv"] {
        std::fs::copy(from.join(f), to.join(f)).unwrap();
    }
    let samples = SampleSet {
        nvml: read_nvml_csv(&to.join("samples_nvml.csv")).unwrap(),
        gpm: read_gpm_csv(&to.join("samples_gpm.csv")).unwrap(),
        host: Vec::new(),
    };
    (to, samples)
}

fn json(out: &str) -> serde_json::Value {
    serde_json::from_str(out).unwrap()
}

fn finding_ids(v: &serde_json::Value) -> Vec<String> {
    v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["id"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn a_hosts_metrics_in_prometheus_get_the_diagnosis_of_the_same_samples_on_disk() {
    let dir = tempfile::tempdir().unwrap();
    for run in ["checkpoint_stall", "memory_bound"] {
        let (folder, samples) = samples_only(run, dir.path());
        let om = dir.path().join(format!("{run}.om"));
        let mut f = std::io::BufWriter::new(std::fs::File::create(&om).unwrap());
        let labelling = Labelling {
            hostname: format!("{run}-host"),
            model: Some("NVIDIA H200".into()),
            driver: None,
        };
        openmetrics::write(&samples, &labelling, &mut f).unwrap();
        drop(f);
        let prometheus = TestPrometheus::start(&[&om]);
        let first = samples.nvml.first().unwrap().ts - 1.0;
        let last = samples.nvml.last().unwrap().ts + 1.0;
        let (from, to) = (format!("{first:.3}"), format!("{last:.3}"));
        let host = format!("{run}-host");
        let args = [
            "analyze",
            "--prometheus",
            &prometheus.url,
            "--host",
            &host,
            "--from",
            &from,
            "--to",
            &to,
        ];
        let (code, out, err) = checkup(&[&args[..], &["--json"]].concat());
        assert_eq!(code, 0, "{run}: {err}");
        let from_prometheus = json(&out);
        let (code, out, err) = checkup(&["analyze", folder.to_str().unwrap(), "--json"]);
        assert_eq!(code, 0, "{run}: {err}");
        let from_disk = json(&out);
        assert_eq!(from_prometheus["primary"], from_disk["primary"], "{run}");
        assert_eq!(
            finding_ids(&from_prometheus),
            finding_ids(&from_disk),
            "{run}"
        );
        assert_eq!(from_prometheus["facts"]["gpu_name"], "NVIDIA H200");

        // In words: where the samples came from, and what they cannot tell.
        let (code, text, err) = checkup(&args);
        assert_eq!(code, 0, "{err}");
        assert!(
            text.contains(&format!(
                "GPU samples from DCGM-exporter's metrics in Prometheus at {}, host {host}, one reading every 0.1 s",
                prometheus.url
            )),
            "{text}"
        );
    }
}

#[test]
fn prometheus_options_without_a_server_or_with_bad_times_are_refused_plainly() {
    let (code, _, err) = checkup(&["analyze", "--host", "gpu-07"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--prometheus"), "{err}");
    let (code, _, err) = checkup(&[
        "analyze",
        "--prometheus",
        "http://127.0.0.1:9",
        "--from",
        "yesterday",
    ]);
    assert_eq!(code, 1);
    assert_eq!(
        err.trim(),
        "checkup: --from: `yesterday` is not a time: give Unix seconds, RFC 3339 (2026-12-03T04:00:00Z), now or now-30m"
    );
    let (code, _, err) = checkup(&[
        "analyze",
        "--prometheus",
        "http://127.0.0.1:9",
        "--last",
        "3 weeks",
    ]);
    assert_eq!(code, 1);
    assert!(err.contains("--last: `3 weeks` is not a duration"), "{err}");
    let (code, _, err) = checkup(&["analyze", "--prometheus", "http://127.0.0.1:9", "run1"]);
    assert_eq!(code, 2, "recordings and --prometheus together: {err}");
}
