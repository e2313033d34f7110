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

/// Creates or truncates `path` with mode 0600, never through a link: someone who can write
/// to the folder could otherwise point the name at a file of ours (as root, `/etc/shadow`)
/// and have it emptied and overwritten.
pub fn create_file(path: &Path) -> io::Result<File> {
    OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)
        .map_err(|e| match e.raw_os_error() {
            Some(libc::ELOOP) => io::Error::new(
                io::ErrorKind::InvalidInput,
                "it is a symbolic link: the agent writes no file through a link",
            ),
            _ => e,
        })
}

/// Refuses a folder the agent would keep its runs or state in when another user could put
/// links or files there: one owned by someone else, or writable by all. The agent writes
/// recordings and reads them back as its own.
pub fn check_owned(dir: &Path) -> Result<(), String> {
    use std::os::unix::fs::MetadataExt;
    let m = std::fs::symlink_metadata(dir).map_err(|e| e.to_string())?;
    if m.file_type().is_symlink() {
        return Err("it is a symbolic link: give the folder itself".into());
    }
    // SAFETY: geteuid has no preconditions and cannot fail.
    let me = unsafe { libc::geteuid() };
    if m.uid() != me {
        return Err(format!(
            "it belongs to user {}, not to this agent's user ({me}): another user could read and replace what the agent writes there; give a folder of your own",
            m.uid()
        ));
    }
    if m.mode() & 0o002 != 0 {
        return Err(format!(
            "anyone can write to it (mode {:o}): another user could plant links or files there; give a folder only you can write to (chmod o-w)",
            m.mode() & 0o7777
        ));
    }
    Ok(())
}

/// An exclusive lock on `path` held while the file stays open: one agent per runs folder.
/// `Err` names who holds it where that can be read.
pub fn lock(path: &Path) -> Result<File, String> {
    use std::io::{Read, Seek, Write};
    use std::os::unix::io::AsRawFd;
    let mut f = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)
        .map_err(|e| e.to_string())?;
    // SAFETY: flock on a descriptor this function owns.
    if unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
        let mut holder = String::new();
        let _ = f.read_to_string(&mut holder);
        let holder = holder.trim();
        return Err(if holder.is_empty() {
            "another agent uses it".to_owned()
        } else {
            format!("another agent (pid {holder}) uses it")
        });
    }
    let _ = f.set_len(0);
    let _ = f.rewind();
    let _ = write!(f, "{}", std::process::id());
    let _ = f.flush();
    Ok(f)
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
        assert!(check_owned(&dir).is_ok());
    }

    #[test]
    fn no_file_is_written_through_a_link_and_a_folder_anyone_can_write_is_refused() {
        let t = tempfile::tempdir().unwrap();
        let target = t.path().join("precious");
        std::fs::write(&target, "keep me").unwrap();
        let link = t.path().join(".stream.jsonl");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let e = create_file(&link).unwrap_err();
        assert!(e.to_string().contains("symbolic link"), "{e}");
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep me");
        let open = t.path().join("open");
        std::fs::create_dir(&open).unwrap();
        std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o777)).unwrap();
        let e = check_owned(&open).unwrap_err();
        assert!(e.contains("anyone can write to it (mode 777)"), "{e}");
        std::os::unix::fs::symlink(&open, t.path().join("runs-link")).unwrap();
        assert!(check_owned(&t.path().join("runs-link"))
            .unwrap_err()
            .contains("symbolic link"));
    }

    #[test]
    fn a_second_lock_on_the_same_folder_names_the_first_holder() {
        let t = tempfile::tempdir().unwrap();
        let path = t.path().join(".agent.lock");
        let held = lock(&path).unwrap();
        let e = lock(&path).unwrap_err();
        assert_eq!(
            e,
            format!("another agent (pid {}) uses it", std::process::id())
        );
        drop(held);
        assert!(lock(&path).is_ok());
    }
}
