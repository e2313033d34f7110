//! The history database when it cannot be opened as it is: the app still starts, says what
//! happened in the chosen language, and loses nothing.

use std::time::Duration;

use checkup_e2e::App;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_damaged_history_is_kept_aside_and_the_app_starts_with_a_new_one_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("checkups.db");
    let damaged = "the history of a disk that filled up half-way ".repeat(300);
    std::fs::write(&db, &damaged).unwrap();
    let app = App::launch(
        "damaged-history",
        &[("GPU_CHECKUP_DB", db.clone().into_os_string())],
    )
    .await;
    let notice = app
        .wait_for_text("#store-notice", Duration::from_secs(60), |t| {
            t.contains("kept unchanged as")
        })
        .await;
    assert!(notice.contains(&db.display().to_string()), "{notice}");
    // The new history works: the demo checkups are imported into it.
    app.wait_for_count(
        "ul.checkups li",
        checkup_e2e::demo_count(),
        Duration::from_secs(120),
    )
    .await;
    app.screenshot("damaged-history-en").await;
    app.click("#lang-zh").await;
    app.settled().await;
    app.wait_for_text("#store-notice", Duration::from_secs(20), |t| {
        t.contains("原文件已原样保留")
    })
    .await;
    app.screenshot("damaged-history-zh").await;
    // Nothing lost: the damaged file, byte for byte, beside the new one.
    let kept: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.display().to_string().contains("checkups.db.damaged-"))
        .collect();
    assert_eq!(kept.len(), 1, "{kept:?}");
    assert_eq!(std::fs::read_to_string(&kept[0]).unwrap(), damaged);
    app.quit().await;
}
