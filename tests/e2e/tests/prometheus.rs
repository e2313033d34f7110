//! A host's GPU metrics in Prometheus from the app, as a team that runs DCGM-exporter has
//! them: a real Prometheus server holding the `memory_bound` H200 recording as
//! DCGM-exporter's metrics, read for one host over the recording's range and diagnosed as
//! that recording is; a host the server does not have is named with the ones it has, in
//! either language, and an address where something else answers is said to be one.

use std::time::Duration;

use checkup_e2e::App;
use checkup_model::SampleSet;
use checkup_prometheus::openmetrics::{self, Labelling};
use checkup_recording::samples::{read_gpm_csv, read_nvml_csv};
use checkup_testkit::{corpus, TestPrometheus};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hosts_gpu_metrics_in_prometheus_are_read_and_diagnosed_in_both_languages() {
    let run = corpus("memory_bound");
    let samples = SampleSet {
        nvml: read_nvml_csv(&run.join("samples_nvml.csv")).unwrap(),
        gpm: read_gpm_csv(&run.join("samples_gpm.csv")).unwrap(),
        host: Vec::new(),
    };
    let dir = tempfile::tempdir().unwrap();
    let om = dir.path().join("memory_bound.om");
    let mut f = std::io::BufWriter::new(std::fs::File::create(&om).unwrap());
    let labelling = Labelling {
        hostname: "gpu-box-7".into(),
        model: Some("NVIDIA H200".into()),
        driver: None,
    };
    openmetrics::write(&samples, &labelling, &mut f).unwrap();
    drop(f);
    let prometheus = TestPrometheus::start(&[&om]);
    let from = format!("{:.3}", samples.nvml.first().unwrap().ts - 1.0);
    let to = format!("{:.3}", samples.nvml.last().unwrap().ts + 1.0);

    let app = App::launch("prometheus", &[]).await;
    app.click("#prometheus summary").await;
    // An address where something else answers: said so, with what it answered folded away.
    let elsewhere = format!("{}/not-prometheus", prometheus.url);
    app.type_into("#prom-url", &elsewhere).await;
    app.type_into("#prom-host", "gpu-box-7").await;
    app.click("#open-prometheus").await;
    let error = app
        .wait_for_text("#error", Duration::from_secs(30), |t| !t.is_empty())
        .await;
    assert_eq!(
        error,
        format!(
            "{elsewhere} did not answer as Prometheus's HTTP API does: is it the Prometheus \
             server's address (port 9090 by default), with any path it is served under? Its \
             answer is below."
        )
    );
    app.click("#error-details summary").await;
    let answer = app.text("#error-details pre").await;
    assert!(answer.starts_with("HTTP 404"), "{answer}");
    app.type_into("#prom-url", &prometheus.url).await;
    app.type_into("#prom-host", "gpu-box-9").await;
    app.type_into("#prom-from", &from).await;
    app.type_into("#prom-to", &to).await;
    app.click("#open-prometheus").await;
    let error = app
        .wait_for_text("#error", Duration::from_secs(30), |t| !t.is_empty())
        .await;
    assert_eq!(
        error,
        "Prometheus has no GPU metrics from gpu-box-9 in the range; hosts that have them: gpu-box-7."
    );
    // In the user's language, the hosts kept as they are.
    app.click("#lang-zh").await;
    let zh = app
        .wait_for_text("#error", Duration::from_secs(10), |t| {
            t.starts_with("Prometheus 在")
        })
        .await;
    assert_eq!(
        zh,
        "Prometheus 在该时间范围内没有 gpu-box-9 的 GPU 指标；有指标的主机：gpu-box-7。"
    );
    app.click("#lang-en").await;

    app.type_into("#prom-host", "gpu-box-7").await;
    app.click("#open-prometheus").await;
    let verdict = app
        .wait_for_text("#verdict", Duration::from_secs(60), |t| !t.is_empty())
        .await;
    assert!(verdict.to_lowercase().contains("memory"), "{verdict}");
    let title = app.text("#checkup-title").await;
    assert!(title.starts_with("gpu-box-7 from Prometheus, "), "{title}");
    // Where the samples came from is said with the diagnosis.
    let page = app.text("main").await;
    assert!(
        page.contains(&format!(
            "GPU samples from DCGM-exporter's metrics in Prometheus at {}, host gpu-box-7",
            prometheus.url
        )),
        "{page}"
    );
    app.screenshot("1-diagnosed").await;
    app.click("#lang-zh").await;
    app.wait_for_text("#verdict", Duration::from_secs(20), |t| {
        t.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c))
    })
    .await;
    app.screenshot("2-diagnosed-zh").await;
    let (store, summary) = app.stored(&title).await;
    assert_eq!(summary.host, "gpu-box-7");
    assert!(store.diagnosis(summary.id).await.unwrap().is_some());
    app.quit().await;
}
