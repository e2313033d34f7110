//! The reader against a real Prometheus server (Debian's package) holding real H200
//! recordings, written as DCGM-exporter's metrics and backfilled with promtool: two hosts,
//! one with a GPU, one with two.

use std::path::{Path, PathBuf};

use checkup_model::SampleSet;
use checkup_prometheus::openmetrics::{self, Labelling};
use checkup_prometheus::{read, Client, PrometheusError, Selection};
use checkup_recording::samples::{read_gpm_csv, read_nvml_csv};
use checkup_testkit::{workspace_root, TestPrometheus};

fn corpus(run: &str) -> PathBuf {
    workspace_root().join("tests/corpus").join(run)
}

fn recorded(run: &str) -> SampleSet {
    let dir = corpus(run);
    SampleSet {
        nvml: read_nvml_csv(&dir.join("samples_nvml.csv")).unwrap(),
        gpm: read_gpm_csv(&dir.join("samples_gpm.csv")).unwrap(),
        host: Vec::new(),
    }
}

fn backfill_file(dir: &Path, run: &str, host: &str) -> PathBuf {
    let path = dir.join(format!("{run}.om"));
    let mut f = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    let labelling = Labelling {
        hostname: host.into(),
        model: Some("NVIDIA H200".into()),
        driver: Some("580.95.05".into()),
    };
    openmetrics::write(&recorded(run), &labelling, &mut f).unwrap();
    drop(f);
    path
}

/// The range of a recording, a second either side.
fn range(s: &SampleSet) -> (f64, f64) {
    let first = s.nvml.iter().map(|x| x.ts).fold(f64::INFINITY, f64::min);
    let last = s
        .nvml
        .iter()
        .map(|x| x.ts)
        .fold(f64::NEG_INFINITY, f64::max);
    (first - 1.0, last + 1.0)
}

struct Servers {
    prometheus: TestPrometheus,
    _files: tempfile::TempDir,
}

fn two_hosts() -> Servers {
    let files = tempfile::tempdir().unwrap();
    let a = backfill_file(files.path(), "checkpoint_stall", "h200-a");
    let b = backfill_file(files.path(), "ddp_comm_bound", "h200-b");
    Servers {
        prometheus: TestPrometheus::start(&[&a, &b]),
        _files: files,
    }
}

fn close(a: Option<f64>, b: Option<f64>) -> bool {
    match (a, b) {
        (Some(x), Some(y)) => (x - y).abs() <= 1e-6 * x.abs().max(1.0),
        (None, None) => true,
        _ => false,
    }
}

#[test]
fn a_hosts_gpu_metrics_read_back_as_the_samples_that_were_recorded() {
    let servers = two_hosts();
    let client = Client::new(&servers.prometheus.url).unwrap();
    let want = recorded("checkpoint_stall");
    let (start, end) = range(&want);
    let got = read(
        &client,
        &Selection {
            host: Some("h200-a".into()),
            gpus: vec![],
            start,
            end,
        },
    )
    .unwrap();
    assert_eq!(got.host, "h200-a");
    assert_eq!(got.gpus, [0]);
    assert_eq!(got.samples.nvml.len(), want.nvml.len());
    assert_eq!(got.samples.gpm.len(), want.gpm.len());
    for (g, w) in got.samples.nvml.iter().zip(&want.nvml) {
        assert!((g.ts - w.ts).abs() < 1e-3, "{} vs {}", g.ts, w.ts);
        assert!(close(g.util_gpu, w.util_gpu), "{g:?} vs {w:?}");
        assert!(close(g.power_w, w.power_w), "{g:?} vs {w:?}");
        assert!(close(g.sm_clock_mhz, w.sm_clock_mhz), "{g:?} vs {w:?}");
        assert!(close(g.mem_total_mib, w.mem_total_mib), "{g:?} vs {w:?}");
        assert_eq!(g.clock_event_reasons, w.clock_event_reasons);
    }
    for (g, w) in got.samples.gpm.iter().zip(&want.gpm) {
        assert!(close(g.sm_util, w.sm_util), "{g:?} vs {w:?}");
        assert!(
            close(g.any_tensor_util, w.any_tensor_util),
            "{g:?} vs {w:?}"
        );
        assert!(close(g.dram_bw_util, w.dram_bw_util), "{g:?} vs {w:?}");
    }
    assert_eq!(got.facts.gpu_name.as_deref(), Some("NVIDIA H200"));
    assert_eq!(got.facts.driver_version.as_deref(), Some("580.95.05"));
    assert_eq!(got.facts.gpu_count, Some(1));
    let interval = got.interval_s.unwrap();
    assert!((0.05..=0.2).contains(&interval), "{interval}");
}

#[test]
fn one_gpu_of_a_host_with_two_is_read_alone() {
    let servers = two_hosts();
    let client = Client::new(&servers.prometheus.url).unwrap();
    let want = recorded("ddp_comm_bound");
    let (start, end) = range(&want);
    let got = read(
        &client,
        &Selection {
            host: Some("h200-b".into()),
            gpus: vec![1],
            start,
            end,
        },
    )
    .unwrap();
    assert_eq!(got.gpus, [1]);
    assert!(got.samples.nvml.iter().all(|s| s.gpu == 1));
    assert_eq!(
        got.samples.nvml.len(),
        want.nvml.iter().filter(|s| s.gpu == 1).count()
    );
    assert_eq!(got.facts.gpu_count, Some(2), "the host has two");
}

#[test]
fn a_range_of_several_hosts_needs_one_named_and_a_wrong_name_lists_the_right_ones() {
    let servers = two_hosts();
    let client = Client::new(&servers.prometheus.url).unwrap();
    let (a0, a1) = range(&recorded("checkpoint_stall"));
    let (b0, b1) = range(&recorded("ddp_comm_bound"));
    let both = Selection {
        host: None,
        gpus: vec![],
        start: a0.min(b0),
        end: a1.max(b1),
    };
    let e = read(&client, &both).unwrap_err();
    assert!(matches!(e, PrometheusError::SeveralHosts { .. }), "{e}");
    assert_eq!(
        e.to_string(),
        "the range holds GPUs of 2 hosts (h200-a, h200-b): choose one with --host"
    );
    let e = read(
        &client,
        &Selection {
            host: Some("h200-c".into()),
            ..both.clone()
        },
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "no GPU metrics from host h200-c in the range; hosts that have them: h200-a, h200-b"
    );
    let e = read(
        &client,
        &Selection {
            host: Some("h200-a".into()),
            gpus: vec![3],
            ..both
        },
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "host h200-a has no GPU 3 in the range (its GPUs: 0)"
    );
}

#[test]
fn a_range_without_metrics_says_what_was_looked_for_and_when() {
    let servers = two_hosts();
    let client = Client::new(&servers.prometheus.url).unwrap();
    let e = read(
        &client,
        &Selection {
            host: Some("h200-a".into()),
            gpus: vec![],
            start: 1_000_000_000.0,
            end: 1_000_003_600.0,
        },
    )
    .unwrap_err();
    let text = e.to_string();
    assert!(
        text.contains("has no DCGM-exporter metrics (DCGM_FI_DEV_GPU_UTIL) for host h200-a between 2001-09-09T01:46:40Z and 2001-09-09T02:46:40Z"),
        "{text}"
    );
}

#[test]
fn what_is_not_prometheus_or_not_there_is_said_plainly() {
    // Nothing listens on a port just freed.
    let port = checkup_testkit::free_port();
    let client = Client::new(&format!("http://127.0.0.1:{port}")).unwrap();
    let sel = Selection {
        host: None,
        gpus: vec![],
        start: 0.0,
        end: 60.0,
    };
    let e = read(&client, &sel).unwrap_err();
    assert!(
        e.to_string().starts_with(&format!(
            "cannot reach Prometheus at http://127.0.0.1:{port}: "
        )),
        "{e}"
    );
    // A web server that is not Prometheus: answers one request with a page.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let server = std::thread::spawn(move || {
        use std::io::{Read, Write};
        let (mut s, _) = listener.accept().unwrap();
        let mut buf = [0u8; 4096];
        let _ = s.read(&mut buf);
        let body = "<html><body>Grafana login</body></html>";
        let _ = write!(
            s,
            "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        );
    });
    let client = Client::new(&format!("http://127.0.0.1:{port}")).unwrap();
    let e = read(&client, &sel).unwrap_err();
    server.join().unwrap();
    assert_eq!(
        e.to_string(),
        format!("http://127.0.0.1:{port} did not answer as Prometheus's HTTP API does (HTTP 200: <html><body>Grafana login</body></html>): is it the Prometheus server's address, with any path it is served under?")
    );
    let e = read(
        &client,
        &Selection {
            start: 60.0,
            end: 60.0,
            ..sel
        },
    )
    .unwrap_err();
    assert!(
        e.to_string()
            .starts_with("the range from 1970-01-01T00:01:00Z"),
        "{e}"
    );
}
