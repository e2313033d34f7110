//! The project's recordings, and copies of them for tests that alter one.

use std::path::{Path, PathBuf};

/// A recording of `tests/corpus` (or its `labels.json`).
pub fn corpus(run: &str) -> PathBuf {
    crate::workspace_root().join("tests/corpus").join(run)
}

/// Copies the folder `from` and everything in it to `to`.
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(e.file_name());
        if e.path().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), target).unwrap();
        }
    }
}
