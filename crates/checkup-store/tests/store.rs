//! The store on a real SQLite file: diagnoses of real recordings round-trip, the wizard
//! resumes where it was left, notes and the baseline persist across reopening.

use std::path::{Path, PathBuf};

use checkup_model::WizardStep;
use checkup_store::{NewCheckup, Store, StoreError};

fn corpus(run: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/corpus")
        .join(run)
}

fn diagnose(run: &str) -> checkup_model::Diagnosis {
    checkup_engine::analyze_paths(&[corpus(run)], &Default::default()).unwrap()
}

#[tokio::test]
async fn a_checkup_survives_closing_and_reopening_the_database() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("data/checkups.db");
    let store = Store::open(&path).await.unwrap();
    assert_eq!(store.journal_mode().await.unwrap(), "wal");
    let d = diagnose("h2d_pageable");
    let id = store
        .create(&NewCheckup {
            title: "ResNet-18, pageable batches".into(),
            host: "recording".into(),
            source: Some("tests/corpus/h2d_pageable".into()),
            is_demo: true,
            rerun_of: None,
        })
        .await
        .unwrap();
    assert_eq!(
        store.diagnosis(id).await.unwrap(),
        None,
        "no diagnosis before analysis"
    );
    store.save_diagnosis(id, &d).await.unwrap();
    store
        .set_wizard_step(id, WizardStep::Diagnosis)
        .await
        .unwrap();
    store
        .add_note(
            id,
            "h2d_copy/pageable",
            "ana",
            "pin_memory fixed it in PR 412",
        )
        .await
        .unwrap();
    store.set_baseline(id).await.unwrap();
    store.close().await;

    let store = Store::open(&path).await.unwrap();
    let list = store.list().await.unwrap();
    assert_eq!(list.len(), 1);
    let row = &list[0];
    assert_eq!(row.primary.as_deref(), Some("h2d_copy/pageable"));
    assert_eq!(
        row.wizard_step,
        WizardStep::Diagnosis,
        "resumes where it was left"
    );
    assert!(row.is_demo && row.is_baseline);
    let back = store.diagnosis(id).await.unwrap().unwrap();
    // Compared as JSON values: what is stored is the diagnosis' JSON.
    let (back, d) = (
        serde_json::to_value(&back).unwrap(),
        serde_json::to_value(&d).unwrap(),
    );
    let mut diffs = Vec::new();
    differences(&back, &d, "", &mut diffs);
    assert!(
        diffs.is_empty(),
        "the diagnosis, chart data included, round-trips: {:?}",
        &diffs[..diffs.len().min(5)]
    );
    assert!(
        back["charts"]["gpus"][0]["util_pct"]
            .as_array()
            .unwrap()
            .len()
            > 100
    );
    let notes = store.notes(id).await.unwrap();
    assert_eq!(notes.len(), 1);
    assert_eq!(notes[0].body, "pin_memory fixed it in PR 412");
    assert_eq!(store.baseline().await.unwrap(), Some(id));
}

#[tokio::test]
async fn history_lists_newest_first_and_deleting_removes_notes() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("c.db")).await.unwrap();
    let a = store
        .create(&NewCheckup {
            title: "before".into(),
            host: "this computer".into(),
            ..Default::default()
        })
        .await
        .unwrap();
    let b = store
        .create(&NewCheckup {
            title: "after".into(),
            host: "gpu-box".into(),
            ..Default::default()
        })
        .await
        .unwrap();
    store
        .add_note(a, "data_loading", "", "raised num_workers")
        .await
        .unwrap();
    let titles: Vec<String> = store
        .list()
        .await
        .unwrap()
        .into_iter()
        .map(|c| c.title)
        .collect();
    assert_eq!(titles, vec!["after", "before"]);
    store.delete(a).await.unwrap();
    assert_eq!(store.list().await.unwrap().len(), 1);
    assert!(
        store.notes(a).await.unwrap().is_empty(),
        "notes go with their checkup"
    );
    assert_eq!(store.list().await.unwrap()[0].id, b);
}

#[tokio::test]
async fn bad_requests_are_named_errors() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("c.db")).await.unwrap();
    assert!(matches!(
        store.set_wizard_step(7, WizardStep::Report).await,
        Err(StoreError::NoSuchCheckup(7))
    ));
    let id = store
        .create(&NewCheckup {
            title: "x".into(),
            host: "h".into(),
            ..Default::default()
        })
        .await
        .unwrap();
    // A step name is a type now: "lunch" does not build. A checkup starts at the first step.
    assert_eq!(
        store.summary(id).await.unwrap().wizard_step,
        WizardStep::Environment
    );
    assert!(matches!(
        store.add_note(99, "f", "", "b").await,
        Err(StoreError::NoSuchCheckup(99))
    ));
}

#[tokio::test]
async fn a_file_that_is_not_a_database_is_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("notes.txt");
    std::fs::write(
        &path,
        "these are not the tables you are looking for".repeat(100),
    )
    .unwrap();
    let err = match Store::open(&path).await {
        Err(e) => e.to_string(),
        Ok(_) => panic!("opened a text file as a database"),
    };
    assert!(err.starts_with(&path.display().to_string()), "{err}");
}

/// Paths where two JSON values differ; numbers within 1e-12 relative count as equal
/// (serde_json's fast float parser may return the neighbouring f64).
fn differences(a: &serde_json::Value, b: &serde_json::Value, path: &str, out: &mut Vec<String>) {
    use serde_json::Value;
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            if x.len() != y.len() {
                out.push(format!("{path}: keys differ"));
            }
            for (k, v) in x {
                differences(
                    v,
                    y.get(k).unwrap_or(&Value::Null),
                    &format!("{path}.{k}"),
                    out,
                );
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            if x.len() != y.len() {
                out.push(format!("{path}: lengths {} vs {}", x.len(), y.len()));
            }
            for (i, (v, w)) in x.iter().zip(y).enumerate() {
                differences(v, w, &format!("{path}[{i}]"), out);
            }
        }
        (Value::Number(x), Value::Number(y)) => {
            let (x, y) = (
                x.as_f64().unwrap_or(f64::NAN),
                y.as_f64().unwrap_or(f64::NAN),
            );
            if (x - y).abs() > 1e-12 * x.abs().max(y.abs()) {
                out.push(format!("{path}: {x} vs {y}"));
            }
        }
        _ if a != b => out.push(format!("{path}: {a} vs {b}")),
        _ => {}
    }
}

#[tokio::test]
async fn a_live_hosts_environment_check_is_kept_beside_its_checkup() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("checkups.db")).await.unwrap();
    let id = store
        .create(&NewCheckup {
            title: "gpu-box checkup".into(),
            host: "alice@gpu-box".into(),
            source: None,
            is_demo: false,
            rerun_of: None,
        })
        .await
        .unwrap();
    assert_eq!(store.environment(id).await.unwrap(), None);
    let report = checkup_model::CheckReport {
        checks: diagnose("healthy").environment,
        ..Default::default()
    };
    assert!(!report.checks.is_empty());
    store.save_environment(id, &report).await.unwrap();
    assert_eq!(store.environment(id).await.unwrap(), Some(report));
    let summary = store.summary(id).await.unwrap();
    assert_eq!(
        (summary.title.as_str(), summary.host.as_str()),
        ("gpu-box checkup", "alice@gpu-box")
    );
    assert_eq!(store.list().await.unwrap(), vec![summary]);
    assert!(matches!(
        store.summary(id + 1).await,
        Err(StoreError::NoSuchCheckup(_))
    ));
    assert!(matches!(
        store.save_environment(id + 1, &Default::default()).await,
        Err(StoreError::NoSuchCheckup(_))
    ));
}

/// A database as the previous version left it: the first two migrations, one checkup whose
/// diagnosis holds English texts (format 1).
async fn database_of_the_previous_version(path: &Path) -> i64 {
    database_at_schema(path, &["0001_checkups.sql", "0002_environment.sql"]).await
}

/// A database with only `migrations` applied and one checkup of format 1 in it.
async fn database_at_schema(path: &Path, migrations: &[&str]) -> i64 {
    let old = tempfile::tempdir().unwrap();
    for m in migrations {
        std::fs::copy(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../migrations")
                .join(m),
            old.path().join(m),
        )
        .unwrap();
    }
    let pool = sqlx::sqlite::SqlitePoolOptions::new()
        .connect_with(
            sqlx::sqlite::SqliteConnectOptions::new()
                .filename(path)
                .create_if_missing(true),
        )
        .await
        .unwrap();
    sqlx::migrate::Migrator::new(old.path())
        .await
        .unwrap()
        .run(&pool)
        .await
        .unwrap();
    let old_json = r#"{"primary":"h2d_copy/pageable","verdict":"Host-to-device copies stall the GPU: 50% of step time.","findings":[{"id":"h2d_copy/pageable","title":"Host-to-device copies stall the GPU","severity":"critical","confidence":0.9,"share":0.5,"summary":"Batches are copied from pageable memory.","evidence":[],"fixes":[]}]}"#;
    let id = sqlx::query(
        "INSERT INTO checkups (created_at, title, host, source, diagnosis, primary_id, verdict) VALUES (1, 'old', 'recording', ?, ?, 'h2d_copy/pageable', 'Host-to-device copies stall the GPU')",
    )
    .bind(corpus("h2d_pageable").display().to_string())
    .bind(old_json)
    .execute(&pool)
    .await
    .unwrap()
    .last_insert_rowid();
    pool.close().await;
    id
}

#[tokio::test]
async fn a_diagnosis_stored_by_the_previous_version_is_analysed_again_from_its_recording() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("checkups.db");
    let id = database_of_the_previous_version(&path).await;
    let store = Store::open(&path).await.unwrap();
    // The row and its notes are all there; its English diagnosis is not read as facts.
    let row = store.summary(id).await.unwrap();
    assert_eq!(row.title, "old");
    assert_eq!(row.primary.as_deref(), Some("h2d_copy/pageable"));
    assert!(row.lead.is_none(), "no typed lead yet");
    assert!(matches!(
        store.diagnosis(id).await,
        Err(StoreError::Stale { format: 1, .. })
    ));
    let stale = store.stale().await.unwrap();
    assert_eq!(
        stale,
        vec![(id, Some(corpus("h2d_pageable").display().to_string()))]
    );
    // Analysing the recording again replaces it.
    let source = PathBuf::from(stale[0].1.clone().unwrap());
    let d = checkup_engine::analyze_paths(&[source], &Default::default()).unwrap();
    store.save_diagnosis(id, &d).await.unwrap();
    assert_eq!(
        store.diagnosis(id).await.unwrap().unwrap().primary,
        "h2d_copy/pageable"
    );
    assert!(store.stale().await.unwrap().is_empty());
    let lead = store.summary(id).await.unwrap().lead.unwrap();
    assert_eq!(lead.id(), "h2d_copy/pageable");
}

#[tokio::test]
async fn a_database_path_with_url_characters_is_the_file_it_names() {
    // `?` and `%` used to be read as a URL's query and escapes.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("runs?mode=ro %41 #1/checkups.db");
    let store = Store::open(&path).await.unwrap();
    store.close().await;
    assert!(path.is_file(), "{}", path.display());
    Store::open(&path).await.unwrap();
}

#[tokio::test]
async fn a_damaged_database_is_kept_aside_and_a_new_history_starts() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("checkups.db");
    let garbage = "half a database, half a shopping list ".repeat(200);
    std::fs::write(&path, &garbage).unwrap();
    let (store, notice) = Store::open_or_recover(&path).await.unwrap();
    let Some(checkup_model::StoreNotice::StartedAfresh {
        kept_as,
        path: p,
        detail,
    }) = notice
    else {
        panic!("{notice:?}");
    };
    assert_eq!(p, path.display().to_string());
    // SQLite's own words, not the layers around them.
    assert_eq!(detail, "file is not a database");
    // Nothing lost: the old file is there, byte for byte, under its new name.
    assert_eq!(std::fs::read_to_string(&kept_as).unwrap(), garbage);
    assert!(
        kept_as.starts_with(&format!("{}.damaged-", path.display())),
        "{kept_as}"
    );
    let id = store
        .create(&NewCheckup {
            title: "after".into(),
            host: "recording".into(),
            ..Default::default()
        })
        .await
        .unwrap();
    assert_eq!(store.summary(id).await.unwrap().title, "after");
}

#[tokio::test]
async fn a_database_a_newer_version_wrote_is_shown_read_only_and_left_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("checkups.db");
    {
        let store = Store::open(&path).await.unwrap();
        store
            .create(&NewCheckup {
                title: "from before".into(),
                host: "recording".into(),
                ..Default::default()
            })
            .await
            .unwrap();
        // Closed, not dropped: a dropped pool closes its connections in the background, and
        // the last one's WAL checkpoint could then rewrite the file after `before` is read.
        store.close().await;
    }
    // A migration this build does not know, as a newer version would have applied.
    let pool = sqlx::sqlite::SqlitePoolOptions::new()
        .connect_with(sqlx::sqlite::SqliteConnectOptions::new().filename(&path))
        .await
        .unwrap();
    sqlx::query("INSERT INTO _sqlx_migrations (version, description, installed_on, success, checksum, execution_time) VALUES (9999, 'from the future', CURRENT_TIMESTAMP, 1, x'00', 0)")
        .execute(&pool)
        .await
        .unwrap();
    pool.close().await;
    let before = std::fs::read(&path).unwrap();
    let (store, notice) = Store::open_or_recover(&path).await.unwrap();
    assert!(
        matches!(
            notice,
            Some(checkup_model::StoreNotice::ReadOnly {
                newer_version: true,
                ..
            })
        ),
        "{notice:?}"
    );
    let list = store.list().await.unwrap();
    assert_eq!(list.len(), 1);
    assert_eq!(list[0].title, "from before");
    // Read-only: a write is refused and the file stays as it was.
    assert!(store.create(&NewCheckup::default()).await.is_err());
    store.close().await;
    assert_eq!(std::fs::read(&path).unwrap(), before);
}

#[tokio::test]
async fn a_database_another_program_holds_locked_is_left_alone_for_a_temporary_one() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("checkups.db");
    Store::open(&path).await.unwrap().close().await;
    // Another program takes the database for itself (exclusive locking mode, a write).
    let mut other = sqlx::ConnectOptions::connect(
        &sqlx::sqlite::SqliteConnectOptions::new()
            .filename(&path)
            .locking_mode(sqlx::sqlite::SqliteLockingMode::Exclusive),
    )
    .await
    .unwrap();
    sqlx::query("BEGIN EXCLUSIVE")
        .execute(&mut other)
        .await
        .unwrap();
    let (store, notice) = Store::open_or_recover(&path).await.unwrap();
    let Some(checkup_model::StoreNotice::Temporary { temporary, .. }) = notice else {
        panic!("{notice:?}");
    };
    assert_ne!(temporary, path.display().to_string());
    store.create(&NewCheckup::default()).await.unwrap();
    let _ = std::fs::remove_file(&temporary);
    drop(other);
}

#[tokio::test]
async fn every_earlier_schema_is_brought_up_to_date_with_its_checkups_notes_and_baseline() {
    let all: Vec<String> = {
        let mut v: Vec<String> =
            std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../migrations"))
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .filter(|n| n.ends_with(".sql"))
                .collect();
        v.sort();
        v
    };
    assert!(all.len() >= 3, "{all:?}");
    // From the first schema alone, then each later one short of the newest.
    for upto in 1..all.len() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("checkups.db");
        let names: Vec<&str> = all[..upto].iter().map(String::as_str).collect();
        let id = database_at_schema(&path, &names).await;
        let pool = sqlx::sqlite::SqlitePoolOptions::new()
            .connect_with(sqlx::sqlite::SqliteConnectOptions::new().filename(&path))
            .await
            .unwrap();
        sqlx::query("INSERT INTO finding_notes (checkup_id, finding_id, author, body, created_at) VALUES (?, 'h2d_copy/pageable', 'ana', 'seen in review', 2)")
            .bind(id)
            .execute(&pool)
            .await
            .unwrap();
        sqlx::query("INSERT INTO baseline (only, checkup_id) VALUES (1, ?)")
            .bind(id)
            .execute(&pool)
            .await
            .unwrap();
        pool.close().await;
        let store = Store::open(&path)
            .await
            .unwrap_or_else(|e| panic!("from {names:?}: {e}"));
        let row = store.summary(id).await.unwrap();
        assert_eq!(row.title, "old", "from {names:?}");
        assert!(row.is_baseline, "from {names:?}");
        let notes = store.notes(id).await.unwrap();
        assert_eq!(notes.len(), 1, "from {names:?}");
        assert_eq!(notes[0].body, "seen in review");
    }
}

#[tokio::test]
async fn a_rerun_remembers_the_checkup_it_checks_a_fix_against_until_that_one_is_deleted() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.db");
    let store = Store::open(&path).await.unwrap();
    let before = store
        .create(&NewCheckup {
            title: "gpu-box checkup".into(),
            host: "gpu-box".into(),
            ..Default::default()
        })
        .await
        .unwrap();
    let after = store
        .create(&NewCheckup {
            title: "gpu-box checkup, after a fix".into(),
            host: "gpu-box".into(),
            rerun_of: Some(before),
            ..Default::default()
        })
        .await
        .unwrap();
    assert_eq!(store.summary(after).await.unwrap().rerun_of, Some(before));
    assert_eq!(store.summary(before).await.unwrap().rerun_of, None);
    // Kept in the file: a new session reads it back.
    store.close().await;
    let store = Store::open(&path).await.unwrap();
    assert_eq!(store.summary(after).await.unwrap().rerun_of, Some(before));
    // The earlier checkup deleted, the re-run stays, standing alone.
    store.delete(before).await.unwrap();
    let rerun = store.summary(after).await.unwrap();
    assert_eq!(
        (rerun.title.as_str(), rerun.rerun_of),
        ("gpu-box checkup, after a fix", None)
    );
}
