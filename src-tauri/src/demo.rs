//! Demo checkups: the real H200 recordings shipped with the app, analysed and stored on the
//! first start so someone without a GPU sees the whole flow.

use std::path::PathBuf;

use checkup_store::Store;

use crate::AppError;

/// Where the bundled recordings are: `GPU_CHECKUP_DEMOS`, else the app's resources
/// (`demos/`, copied from tests/corpus, see tauri.conf.json): in the installed app's resource
/// folder, or beside the binary where the build puts them (Tauri takes a binary outside a
/// folder named `target` for an installed one, so a build with another CARGO_TARGET_DIR
/// finds them only there).
pub fn demo_dir(resources: Option<PathBuf>) -> PathBuf {
    if let Some(dir) = std::env::var_os("GPU_CHECKUP_DEMOS") {
        return dir.into();
    }
    let beside_binary = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(|d| d.join("demos")));
    resources
        .map(|r| r.join("demos"))
        .into_iter()
        .chain(beside_binary)
        .find(|d| d.join("labels.json").is_file())
        .unwrap_or_else(|| PathBuf::from("demos"))
}

/// Imports the demo recordings into an empty history; returns how many it stored.
pub async fn import_demos_once(store: &Store, dir: PathBuf) -> Result<usize, AppError> {
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
        let d = match crate::analyse(path.clone()).await {
            Ok(d) => d,
            Err(e) => {
                eprintln!("demo checkup {name} left out: {e}");
                continue;
            }
        };
        crate::store_recording(store, format!("{name} (demo)"), &path, &d, true).await?;
        stored += 1;
    }
    Ok(stored)
}
