//! A recording whose folder and kernel names carry HTML, Markdown, SVG, shell and a
//! direction override becomes no markup on any page of the app, and the folder name shows
//! as text, the override by its code point; the app killed
//! with SIGKILL mid-checkup starts again at the step it was at, the review note written
//! just before still there.

use std::io::{Read, Write};
use std::time::{Duration, Instant};

use checkup_e2e::App;
use checkup_model::WizardStep;

/// A folder name as someone else's machine may hand it over (no `/`: it is one name).
const HOSTILE_FOLDER: &str =
    "run <img src=x onerror=\"document.body.dataset.pwned='folder'\"> [x](javascript:alert(1)) $(touch pwned) \u{202E}gnp.exe";
/// A kernel name the same way, in the trace.
const HOSTILE_KERNEL: &str =
    "<svg onload=\"document.body.dataset.pwned='kernel'\"> **gemm** #eval(\"1\") `id` $(rm -rf ~)";
/// The kernel of `launch_bound` that takes the most GPU time, renamed to the one above.
const TOP_KERNEL: &str = "sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize32x32x8_stage3_warpsize1x2x1_ffma_aligna4_alignc4_execute_kernel__5x_cublas";

/// `tests/corpus/launch_bound` copied into a folder named [`HOSTILE_FOLDER`], its top
/// kernel renamed [`HOSTILE_KERNEL`].
fn hostile_recording(root: &std::path::Path) -> std::path::PathBuf {
    let from = checkup_testkit::workspace_root().join("tests/corpus/launch_bound");
    let to = root.join(HOSTILE_FOLDER);
    std::fs::create_dir_all(&to).unwrap();
    for entry in std::fs::read_dir(&from).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, to.join(path.file_name().unwrap())).unwrap();
    }
    let mut json = String::new();
    flate2::read::GzDecoder::new(std::fs::File::open(from.join("trace.json.gz")).unwrap())
        .read_to_string(&mut json)
        .unwrap();
    assert!(json.contains(TOP_KERNEL), "the corpus trace changed");
    let quoted = serde_json::to_string(HOSTILE_KERNEL).unwrap();
    let json = json.replace(TOP_KERNEL, &quoted[1..quoted.len() - 1]);
    let mut gz = flate2::write::GzEncoder::new(
        std::fs::File::create(to.join("trace.json.gz")).unwrap(),
        flate2::Compression::fast(),
    );
    gz.write_all(json.as_bytes()).unwrap();
    gz.finish().unwrap();
    to
}

/// Fails when any markup from the names became live in the page.
async fn nothing_ran(app: &App, page: &str) {
    let planted = app
        .count("img[src='x'], [onerror], [onload], a[href^='javascript']")
        .await;
    assert_eq!(planted, 0, "{page}: markup from a name became elements");
    // An attribute of <body> the planted handlers would set.
    assert_eq!(
        app.count("body[data-pwned]").await,
        0,
        "{page}: a planted handler ran"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn markup_in_names_stays_text_and_a_killed_app_resumes_at_its_step_with_its_notes() {
    let recordings = tempfile::tempdir().unwrap();
    let run = hostile_recording(recordings.path());
    let app = App::launch("resilience", &[]).await;
    app.wait_for_count(
        "ul.checkups li",
        checkup_e2e::demo_count(),
        Duration::from_secs(120),
    )
    .await;
    app.click("details.recording summary").await;
    app.type_into("#recording-path", &run.display().to_string())
        .await;
    app.click("#open-recording").await;
    app.wait_for_text("#verdict", Duration::from_secs(60), |t| {
        t.contains("kernel_launch")
    })
    .await;
    // Shown as the characters it is: the direction override by its code point, so it
    // cannot reverse what follows it on the page.
    let shown = checkup_text::shown(HOSTILE_FOLDER);
    assert!(shown.ends_with("<U+202E>gnp.exe"), "{shown}");
    assert_eq!(app.text("#checkup-title").await, shown);
    for step in WizardStep::ALL {
        let key = step.key();
        app.click(&format!("#step-{key}")).await;
        app.settled().await;
        nothing_ran(&app, key).await;
        app.screenshot(&format!("hostile-{key}")).await;
    }
    // The report names the recording, as the characters it is (its sources line).
    app.wait_for_text("#report-preview", Duration::from_secs(30), |t| {
        t.contains(&shown) && !t.contains('\u{202E}')
    })
    .await;
    // Nothing reached a shell.
    assert!(!std::path::Path::new("pwned").exists());

    // Mid-checkup: a review note on the leading finding, the wizard at the diagnosis.
    app.click("#step-diagnosis").await;
    app.settled().await;
    let note = app
        .add_note("kernel_launch", "Ana", "<b>batch</b> the small ops")
        .await;
    assert_eq!(note, "Ana: <b>batch</b> the small ops");
    // The step is stored as it changes, not at exit.
    let (store, opened) = app.stored(HOSTILE_FOLDER).await;
    let stored_at = Instant::now();
    let mut step = opened.wizard_step;
    while step != WizardStep::Diagnosis && stored_at.elapsed() < Duration::from_secs(10) {
        tokio::time::sleep(Duration::from_millis(200)).await;
        step = app.stored(HOSTILE_FOLDER).await.1.wizard_step;
    }
    assert_eq!(step, WizardStep::Diagnosis);
    drop(store);

    let data = app.kill();
    let app = App::relaunch("resilience", data).await;
    app.click_titled("ul.checkups li", &shown).await;
    app.settled().await;
    app.element("#step-diagnosis.active").await;
    app.element("#verdict").await;
    let note = app
        .wait_for_text(
            ".finding[data-finding='kernel_launch'] .note",
            Duration::from_secs(15),
            |t| !t.is_empty(),
        )
        .await;
    assert_eq!(note, "Ana: <b>batch</b> the small ops");
    nothing_ran(&app, "after the restart").await;
    app.screenshot("after-kill").await;
    // In Chinese the names are the same characters, still text.
    app.click("#lang-zh").await;
    app.settled().await;
    app.wait_for_text("#step-diagnosis", Duration::from_secs(20), |t| {
        t.contains("诊断")
    })
    .await;
    assert_eq!(app.text("#checkup-title").await, shown);
    nothing_ran(&app, "in Chinese").await;
    app.screenshot("after-kill-zh").await;
    let (store, opened) = app.stored(HOSTILE_FOLDER).await;
    assert_eq!(store.notes(opened.id).await.unwrap().len(), 1);
    // The demo checkups are not imported twice.
    assert_eq!(
        store.list().await.unwrap().len(),
        checkup_e2e::demo_count() + 1
    );
    app.quit().await;
}
