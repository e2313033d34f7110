//! How long the agent keeps the run folders it made. The app downloads each run when it
//! ends, so the agent's copies are the host's cache of them; left alone they fill the disk of
//! a shared GPU host run after run. Only folders named as the agent names them are touched,
//! and a folder counts as old only when nothing in it was written for the whole period.

use std::path::Path;
use std::time::{Duration, SystemTime};

/// Run folders untouched for longer than this are removed when the agent starts.
pub const DEFAULT_KEEP_DAYS: u64 = 30;

/// What [`prune`] removed.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Pruned {
    /// The run folders removed.
    pub folders: Vec<String>,
    /// The bytes they held.
    pub bytes: u64,
}

/// `run-<ms>` and `sampling-<ms>`: the names [`crate::api`] gives the folders it creates.
pub(crate) fn made_by_the_agent(name: &str) -> bool {
    ["run-", "sampling-"].iter().any(|prefix| {
        name.strip_prefix(prefix)
            .is_some_and(|ms| !ms.is_empty() && ms.bytes().all(|b| b.is_ascii_digit()))
    })
}

/// The newest modification time under `dir` (the folder, its files, `rank0/` and the like)
/// and the bytes of its files; links are not followed.
fn newest_and_size(dir: &Path, depth: u32, newest: &mut SystemTime, bytes: &mut u64) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten().take(100_000) {
        let Ok(m) = e.path().symlink_metadata() else {
            continue;
        };
        if let Ok(t) = m.modified() {
            *newest = (*newest).max(t);
        }
        if m.is_file() {
            *bytes += m.len();
        } else if m.is_dir() && depth < 4 {
            newest_and_size(&e.path(), depth + 1, newest, bytes);
        }
    }
}

/// Removes the agent's run folders in `runs_dir` in which nothing was written for `keep`.
pub fn prune(runs_dir: &Path, keep: Duration, now: SystemTime) -> Pruned {
    let mut out = Pruned::default();
    let Ok(entries) = std::fs::read_dir(runs_dir) else {
        return out;
    };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let Ok(m) = e.path().symlink_metadata() else {
            continue;
        };
        if !m.is_dir() || !made_by_the_agent(&name) {
            continue;
        }
        let mut newest = m.modified().unwrap_or(now);
        let mut bytes = 0;
        newest_and_size(&e.path(), 0, &mut newest, &mut bytes);
        let idle = now.duration_since(newest).unwrap_or_default();
        if idle > keep && std::fs::remove_dir_all(e.path()).is_ok() {
            out.folders.push(name);
            out.bytes += bytes;
        }
    }
    out.folders.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn age(path: &Path, days: u64) {
        let t = SystemTime::now() - Duration::from_secs(days * 86_400);
        std::fs::File::open(path).unwrap().set_modified(t).unwrap();
    }

    #[test]
    fn only_the_agents_own_folders_idle_past_the_period_are_removed() {
        let t = tempfile::tempdir().unwrap();
        let runs = t.path();
        for d in [
            "run-1700000000000",
            "sampling-1700000000001",
            "run-1700000000002/rank0",
            "my-notes",
            "run-x",
        ] {
            std::fs::create_dir_all(runs.join(d)).unwrap();
        }
        std::fs::write(runs.join("run-1700000000000/steps.csv"), "step\n0\n").unwrap();
        std::fs::write(runs.join("run-1700000000002/rank0/trace.json"), "{}").unwrap();
        for p in [
            "run-1700000000000/steps.csv",
            "run-1700000000000",
            "sampling-1700000000001",
            "run-1700000000002",
            "run-1700000000002/rank0",
            "my-notes",
            "run-x",
        ] {
            age(&runs.join(p), 40);
        }
        // Begun long ago, but its trace was written today: still in use.
        let pruned = prune(runs, Duration::from_secs(30 * 86_400), SystemTime::now());
        assert_eq!(
            pruned.folders,
            vec!["run-1700000000000", "sampling-1700000000001"]
        );
        assert_eq!(pruned.bytes, "step\n0\n".len() as u64);
        let mut left: Vec<String> = std::fs::read_dir(runs)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(left, vec!["my-notes", "run-1700000000002", "run-x"]);
    }

    #[test]
    fn a_missing_runs_folder_prunes_nothing() {
        let t = tempfile::tempdir().unwrap();
        assert_eq!(
            prune(&t.path().join("absent"), Duration::ZERO, SystemTime::now()),
            Pruned::default()
        );
    }
}
