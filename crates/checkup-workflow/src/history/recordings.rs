//! Recordings into the history: analysed off the async threads, stored as checkups that
//! open at their diagnosis; diagnoses an older version stored analysed again from their
//! recordings; the bundled demo recordings imported into an empty history.

use std::path::{Path, PathBuf};

use checkup_model::{Diagnosis, WizardStep};
use checkup_store::{NewCheckup, Store, StoreError};

use crate::{Result, Workflow, WorkflowError};

/// Analyses a recording off the async threads; the heap it freed goes back to the system.
pub async fn analyse(path: PathBuf) -> Result<Diagnosis> {
    let d = tokio::task::spawn_blocking(move || {
        checkup_engine::analyze_paths(&[path], &Default::default())
    })
    .await
    .map_err(|e| WorkflowError::Other(format!("the analysis stopped: {e}")))??;
    give_back_freed_heap();
    Ok(d)
}

/// Hands the heap pages freed since the last call back to the system. glibc keeps them for
/// reuse otherwise, so each large transient (an analysis, a long run's series read back
/// and charted) would leave the app at its high-water mark.
pub fn give_back_freed_heap() {
    #[cfg(target_os = "linux")]
    // SAFETY: malloc_trim only releases free heap pages; it takes no pointers.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Stores an analysed recording as a checkup that opens at its diagnosis.
pub async fn store_recording(
    store: &Store,
    title: String,
    path: &Path,
    diagnosis: &Diagnosis,
    is_demo: bool,
) -> Result<i64> {
    let checkup = NewCheckup {
        title,
        host: checkup_model::RECORDING_HOST.into(),
        source: Some(path.display().to_string()),
        is_demo,
        rerun_of: None,
    };
    store_diagnosed(store, &checkup, diagnosis).await
}

/// Stores a diagnosis as a new checkup that opens at it.
pub async fn store_diagnosed(
    store: &Store,
    checkup: &NewCheckup,
    diagnosis: &Diagnosis,
) -> Result<i64> {
    let id = store.create(checkup).await?;
    store.save_diagnosis(id, diagnosis).await?;
    store.set_wizard_step(id, WizardStep::Diagnosis).await?;
    Ok(id)
}

/// The checkup's diagnosis, analysed again from its recording when an older version stored
/// it (English texts, before typed facts). The old JSON stays in the database until then, so
/// a checkup whose recording is gone loses nothing and says why it cannot be shown.
pub async fn diagnosis(store: &Store, id: i64) -> Result<Option<Diagnosis>> {
    match store.diagnosis(id).await {
        Err(StoreError::Stale { .. }) => {
            let source = store.summary(id).await?.source.unwrap_or_default();
            renew(store, id, &source).await.map(Some)
        }
        other => Ok(other?),
    }
}

async fn renew(store: &Store, id: i64, source: &str) -> Result<Diagnosis> {
    let path = PathBuf::from(source);
    if source.is_empty() || !path.exists() {
        return Err(WorkflowError::StaleWithoutRecording {
            id,
            recording: source.to_owned(),
        });
    }
    let d = analyse(path).await?;
    store.save_diagnosis(id, &d).await?;
    Ok(d)
}

/// Renews every stale checkup whose recording is still there; answers how many.
async fn renew_stale(store: &Store) -> usize {
    let stale = match store.stale().await {
        Ok(s) => s,
        Err(e) => {
            eprintln!("the stored checkups could not be listed: {e}");
            return 0;
        }
    };
    let mut renewed = 0;
    for (id, source) in stale {
        match renew(store, id, source.as_deref().unwrap_or_default()).await {
            Ok(_) => renewed += 1,
            // Kept as it is: opening it says why.
            Err(e) => eprintln!("checkup {id}: {e}"),
        }
    }
    renewed
}

/// Where bundled demo recordings are: `GPU_CHECKUP_DEMOS`, else the first of `candidates`
/// (the app's resource folder, the folder beside its binary) holding their `labels.json`.
pub fn demo_dir(candidates: impl IntoIterator<Item = PathBuf>) -> PathBuf {
    if let Some(dir) = std::env::var_os("GPU_CHECKUP_DEMOS") {
        return dir.into();
    }
    candidates
        .into_iter()
        .find(|d| d.join("labels.json").is_file())
        .unwrap_or_else(|| PathBuf::from("demos"))
}

/// Imports the demo recordings in `dir` (the runs its `labels.json` names) into an empty
/// history; answers how many it stored.
async fn import_demos_once(store: &Store, dir: &Path) -> Result<usize> {
    if !store.list().await?.is_empty() {
        return Ok(0);
    }
    let labels: serde_json::Value = match std::fs::read_to_string(dir.join("labels.json")) {
        Ok(text) => serde_json::from_str(&text).unwrap_or_default(),
        Err(e) => {
            eprintln!(
                "no demo checkups: {}: {e}",
                dir.join("labels.json").display()
            );
            return Ok(0);
        }
    };
    let Some(runs) = labels.as_object() else {
        return Ok(0);
    };
    let mut names: Vec<&String> = runs.keys().collect();
    names.sort();
    let mut stored = 0;
    for name in names {
        let path = dir.join(name);
        // A recording that no longer analyses is left out of the demos, not the app's start.
        let d = match analyse(path.clone()).await {
            Ok(d) => d,
            Err(e) => {
                eprintln!("demo checkup {name} left out: {e}");
                continue;
            }
        };
        store_recording(store, format!("{name} (demo)"), &path, &d, true).await?;
        stored += 1;
    }
    Ok(stored)
}

impl Workflow {
    /// Readies the history on start: the demo recordings in `demos` imported into an empty
    /// one, checkups an older version stored analysed again; says when checkups changed.
    pub async fn prepare_history(&self, demos: &Path) {
        let store = self.store();
        let imported = import_demos_once(store, demos).await.unwrap_or_else(|e| {
            eprintln!("the demo checkups could not be imported: {e}");
            0
        });
        let renewed = renew_stale(store).await;
        if imported + renewed > 0 {
            self.events().checkups_changed();
        }
    }
}
