//! A person without a GPU: the first start offers the bundled real-GPU recordings as demo
//! checkups; one is opened and walked through every wizard step in English and in Chinese
//! (a screenshot of each), its report previewed and exported as PDF, made the baseline, and
//! compared side by side with another checkup. The checkup resumes at the step left. A
//! recording is opened offline: a wrong path is named, a trace file diagnosed.

use std::time::Duration;

use checkup_e2e::App;
use checkup_model::WizardStep;

/// What shows once a step has rendered its content for a recorded checkup.
fn rendered(step: WizardStep) -> &'static str {
    match step {
        WizardStep::Environment => "table.checks, main p.empty",
        WizardStep::Sampling => "figure.chart[data-chart='utilisation']",
        WizardStep::Profiling => "main figure.chart",
        WizardStep::Diagnosis => "#verdict",
        WizardStep::Report => "#report-preview",
    }
}

/// Switches the UI language and waits until the wizard is drawn anew in it (a click on the
/// old drawing would be lost).
async fn switch_language(app: &App, lang: &str) {
    app.click(&format!("#lang-{lang}")).await;
    app.settled().await;
}

const UTILISATION: &str = "figure.chart[data-chart='utilisation'] .chart-overlay";

/// The seconds the utilisation chart's values read at `dx` pixels right of its centre.
async fn seconds_at(app: &App, dx: f64) -> f64 {
    app.point_at(UTILISATION, dx).await;
    let tip = app
        .wait_for_text("#chart-tip-utilisation", Duration::from_secs(10), |t| {
            t.starts_with("t = ")
        })
        .await;
    tip.strip_prefix("t = ")
        .and_then(|t| t.split_once(" s"))
        .unwrap_or_else(|| panic!("no time in {tip}"))
        .0
        .parse()
        .unwrap()
}

/// Dragging across the chart draws it again for the seconds dragged over; *Whole run* goes
/// back.
async fn zoom_in_on_the_utilisation_chart(app: &App) {
    let (a, b) = (seconds_at(app, -150.0).await, seconds_at(app, 150.0).await);
    assert!(a < b, "{a} {b}");
    app.drag_across(UTILISATION, -150.0, 150.0).await;
    app.element("#zoom-reset-utilisation").await;
    app.screenshot("en/2-sampling-zoomed").await;
    // The chart's middle now reads a time inside the span dragged over, and its edges too.
    let (left, middle, right) = (
        seconds_at(app, -300.0).await,
        seconds_at(app, 0.0).await,
        seconds_at(app, 300.0).await,
    );
    for t in [left, middle, right] {
        assert!(a - 0.2 <= t && t <= b + 0.2, "{t} outside {a}..{b}");
    }
    assert!(left < middle && middle < right);
    app.click("#zoom-reset-utilisation").await;
    assert_eq!(app.count("#zoom-reset-utilisation").await, 0);
    assert!((seconds_at(app, -150.0).await - a).abs() < 0.2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_demo_checkup_walks_the_wizard_in_both_languages_to_a_pdf_a_baseline_and_a_comparison() {
    let app = App::launch("wizard", &[]).await;
    let demos = checkup_e2e::demo_count();
    let listed = app
        .wait_for_count("ul.checkups li", demos, Duration::from_secs(120))
        .await;
    assert_eq!(listed, demos, "every bundled recording is a demo checkup");
    app.screenshot("en/0-history").await;

    app.click_titled("ul.checkups li", "dataloader_starved (demo)")
        .await;
    app.settled().await;
    let verdict = app
        .wait_for_text("#verdict", Duration::from_secs(30), |t| !t.is_empty())
        .await;
    assert!(
        verdict.contains("data_loading"),
        "the starved-input recording is diagnosed as data loading: {verdict}"
    );

    // A note on the leading finding, for the team's review: shown under it and kept.
    app.click("#step-diagnosis").await;
    app.settled().await;
    let first = ".finding[data-finding='data_loading']";
    let note = app
        .add_note(
            "data_loading",
            "Mei",
            "try num_workers=8 on the 16-core host",
        )
        .await;
    assert_eq!(note, "Mei: try num_workers=8 on the 16-core host");
    // The leading finding says what the step would take without its cause.
    let gain = app.text(&format!("{first} .gain")).await;
    assert!(
        gain.contains(" ms per step (") && gain.contains('×'),
        "{gain}"
    );
    let (store, starved) = app.stored("dataloader_starved (demo)").await;
    let notes = store.notes(starved.id).await.unwrap();
    assert_eq!(notes.len(), 1);
    assert_eq!(notes[0].finding_id, "data_loading");

    for lang in ["en", "zh"] {
        switch_language(&app, lang).await;
        for (i, step) in WizardStep::ALL.into_iter().enumerate() {
            let key = step.key();
            app.click(&format!("#step-{key}")).await;
            app.element(rendered(step)).await;
            let button = app.text(&format!("#step-{key}")).await;
            let is_chinese = button
                .chars()
                .any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c));
            assert_eq!(is_chinese, lang == "zh", "step button {button:?} in {lang}");
            if step == WizardStep::Sampling {
                // Pointing at a curve reads the time and every series' value there.
                app.point_at(
                    "figure.chart[data-chart='utilisation'] .chart-overlay",
                    120.0,
                )
                .await;
                let tip = app
                    .wait_for_text("#chart-tip-utilisation", Duration::from_secs(10), |t| {
                        !t.is_empty()
                    })
                    .await;
                let (time, util) = match lang {
                    "en" => ("t = ", "GPU-Util (NVML): "),
                    _ => ("时间 ", "GPU 利用率（NVML）："),
                };
                assert!(tip.starts_with(time), "{tip}");
                // Each series on its own line: its label, its value and the axis's unit.
                let value: f64 = tip
                    .split_once(util)
                    .and_then(|(_, rest)| rest.split_once(" %"))
                    .unwrap_or_else(|| panic!("no {util} value: {tip}"))
                    .0
                    .parse()
                    .unwrap();
                assert!((0.0..=100.0).contains(&value), "{tip}");
                if lang == "en" {
                    zoom_in_on_the_utilisation_chart(&app).await;
                }
            }
            app.screenshot(&format!("{lang}/{}-{key}", i + 1)).await;
        }
    }
    // The preview is the report itself, in the chosen language.
    let preview = app.text("#report-preview").await;
    assert!(preview.contains("data_loading"), "{preview}");
    assert!(
        preview.contains("诊断") || preview.contains("结论"),
        "{preview}"
    );

    // Export: the PDF lands in the app's export folder.
    switch_language(&app, "en").await;
    app.click("#export-pdf").await;
    let written = app
        .wait_for_text("#exported", Duration::from_secs(60), |t| t.contains(".pdf"))
        .await;
    let pdf = std::path::PathBuf::from(written.split_whitespace().last().unwrap());
    assert!(pdf.starts_with(app.data.path()), "{}", pdf.display());
    assert!(checkup_e2e::is_pdf(&pdf), "{} is a PDF", pdf.display());

    // Baseline, then compare with the healthy run: differences are called out.
    app.click("#set-baseline").await;
    app.wait_for_text("ul.checkups li.selected", Duration::from_secs(10), |t| {
        t.contains("baseline")
    })
    .await;
    app.select("#compare-with", "healthy (demo)").await;
    app.click("#compare").await;
    let comparison = app
        .wait_for_text("#comparison", Duration::from_secs(30), |t| !t.is_empty())
        .await;
    assert!(comparison.contains("healthy (demo)"), "{comparison}");
    assert!(
        comparison.contains("dataloader_starved (demo)"),
        "{comparison}"
    );
    assert!(
        app.count("#comparison tr.changed").await > 0,
        "changes are called out"
    );
    // The two demo runs feed ResNet-50 batches of 192 and 128: said before any step time.
    assert!(
        comparison.contains("different workloads (batch size 192 → 128)"),
        "{comparison}"
    );
    app.scroll_to("#comparison").await;
    app.screenshot("en/6-compare").await;
    // In Chinese too (the step is drawn anew: pick again).
    switch_language(&app, "zh").await;
    app.select("#compare-with", "healthy (demo)").await;
    app.click("#compare").await;
    let comparison = app
        .wait_for_text("#comparison", Duration::from_secs(30), |t| {
            t.contains("之前")
        })
        .await;
    assert!(comparison.contains("之后"), "{comparison}");
    assert!(
        comparison.contains("不同的工作负载（批大小 192 → 128）"),
        "{comparison}"
    );
    app.scroll_to("#comparison").await;
    app.screenshot("zh/6-compare").await;

    // Left at the report step: that is where it resumes.
    let (_, opened) = app.stored("dataloader_starved (demo)").await;
    assert_eq!(opened.wizard_step, WizardStep::Report);
    assert!(opened.is_baseline);

    // A recording opened offline: a bad path is named, a Kineto trace file is diagnosed.
    switch_language(&app, "en").await;
    app.click("details.recording summary").await;
    app.type_into("#recording-path", "/nonexistent/run").await;
    app.click("#open-recording").await;
    let error = app
        .wait_for_text("#error", Duration::from_secs(10), |t| !t.is_empty())
        .await;
    assert!(error.contains("/nonexistent/run does not exist"), "{error}");
    let trace = checkup_testkit::workspace_root().join("tests/corpus/launch_bound/trace.json.gz");
    app.type_into("#recording-path", &trace.display().to_string())
        .await;
    app.click("#open-recording").await;
    let verdict = app
        .wait_for_text("#verdict", Duration::from_secs(30), |t| {
            t.contains("kernel_launch")
        })
        .await;
    assert!(verdict.contains("kernel_launch"), "{verdict}");
    assert_eq!(
        app.text("#checkup-title").await,
        "launch_bound/trace.json.gz"
    );
    app.screenshot("en/7-opened-trace").await;
    app.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_job_of_two_nodes_shows_its_slow_rank_with_its_node_and_a_rank_by_step_heatmap() {
    let app = App::launch("two_nodes", &[]).await;
    app.wait_for_count(
        "ul.checkups li",
        checkup_e2e::demo_count(),
        Duration::from_secs(120),
    )
    .await;
    app.click_titled("ul.checkups li", "two_node_slow_rank (demo)")
        .await;
    app.settled().await;
    let verdict = app
        .wait_for_text("#verdict", Duration::from_secs(30), |t| !t.is_empty())
        .await;
    assert!(verdict.contains("communication/straggler"), "{verdict}");
    for lang in ["en", "zh"] {
        switch_language(&app, lang).await;
        app.click("#step-profiling").await;
        app.settled().await;
        app.scroll_to("figure.chart[data-chart='rank_steps']").await;
        app.screenshot(&format!("{lang}/two-nodes-rank-steps"))
            .await;
    }
    app.quit().await;
}
