//! Folders and files only the agent's user can read: recordings hold command lines, paths
//! and code, and a GPU host is often shared with other users.

use std::fs::{DirBuilder, File, OpenOptions};
use std::io;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::Path;

/// Creates `dir` and any missing parents with mode 0700 (an existing folder keeps its mode:
/// the user chose it).
pub fn create_dir(dir: &Path) -> io::Result<()> {
    DirBuilder::new().recursive(true).mode(0o700).create(dir)
}

/// Creates or truncates `path` with mode 0600.
pub fn create_file(path: &Path) -> io::Result<File> {
    OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn new_folders_and_files_are_the_users_alone() {
        let t = tempfile::tempdir().unwrap();
        let dir = t.path().join("runs/run-1");
        create_dir(&dir).unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&dir), 0o700);
        assert_eq!(mode(&t.path().join("runs")), 0o700);
        create_file(&dir.join(".stream.jsonl")).unwrap();
        assert_eq!(mode(&dir.join(".stream.jsonl")), 0o600);
    }
}
