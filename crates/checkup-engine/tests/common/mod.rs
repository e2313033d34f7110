//! What the engine's test files share: the corpus and copies of its recordings to alter.

use std::path::{Path, PathBuf};

/// A recording of `tests/corpus` (or its `labels.json`).
pub fn corpus(run: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/corpus")
        .join(run)
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
