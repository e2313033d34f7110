//! What the CLI's test files share.

use std::process::Command;

/// Runs the built `checkup` with `args`: its exit code and its output, which must be UTF-8.
pub fn checkup(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_checkup"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}
