//! The workspace's own binaries, built by cargo when a test asks for one, so tests never run a
//! stale build.

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::OnceLock;

/// The workspace root (this crate lives in `crates/checkup-testkit`).
pub fn workspace_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("the workspace root exists")
}

/// Cargo's target folder: `CARGO_TARGET_DIR` when set, else `target/` in the workspace.
pub fn target_dir() -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => {
            let dir = PathBuf::from(dir);
            if dir.is_absolute() {
                dir
            } else {
                workspace_root().join(dir)
            }
        }
        None => workspace_root().join("target"),
    }
}

/// Builds `bin` of `package` (debug profile) and returns its path. Panics with cargo's
/// verdict when the build fails: a test cannot go on without it.
///
/// The build is the workspace's binaries and tests but the desktop app's and the UI's (`cargo
/// build --workspace --exclude checkup-app --exclude checkup-frontend --bins --tests`), what
/// `scripts/run-tests.py` builds before the tests run: cargo chooses a dependency's features
/// by the packages it builds, so `-p checkup-agent` alone compiled the workspace's crates
/// again with other features, inside the test's time (18 s for the agent on a 2-core machine). After the test command's build
/// this is a check that finds nothing to do. The app is driven as it ships:
/// [`shipped_app`].
pub fn workspace_binary(package: &str, bin: &str) -> PathBuf {
    assert_ne!(
        package, "checkup-app",
        "the debug build leaves the app out: drive checkup_testkit::shipped_app()"
    );
    build(package, bin, false)
}

/// `bin` of `package` alone in the release profile, for benchmarks.
pub fn workspace_release_binary(package: &str, bin: &str) -> PathBuf {
    build(package, bin, true)
}

/// The test command's debug build (`scripts/run-tests.py` is given the same packages).
/// The UI is left out too: it runs as WebAssembly, is built and linted for that target
/// alone, and has no native tests (its native build was Leptos and web-sys compiled for
/// nothing, 75 s of a cold build's CPU).
const DEBUG_BUILD: [&str; 9] = [
    "build",
    "-q",
    "--workspace",
    "--exclude",
    "checkup-app",
    "--exclude",
    "checkup-frontend",
    "--bins",
    "--tests",
];

fn build(package: &str, bin: &str, release: bool) -> PathBuf {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut cmd = Command::new(cargo);
    if release {
        cmd.args(["build", "-q", "--release", "-p", package, "--bin", bin]);
    } else {
        cmd.args(DEBUG_BUILD);
    }
    without_test_variables(&mut cmd);
    let status = cmd
        .current_dir(workspace_root())
        .status()
        .expect("cargo runs");
    assert!(status.success(), "cargo build ({package}, {bin}) failed");
    let profile = if release { "release" } else { "debug" };
    let path = target_dir().join(profile).join(bin);
    assert!(path.is_file(), "cargo built no {}", path.display());
    path
}

/// The desktop app as the packages ship it, `gpu-checkup` with the glibc 2.31 agent and CLI
/// beside it, from the packages' own release build (`scripts/build-portable.sh checkup-agent
/// checkup-cli checkup-app`, with the same packages so that cargo resolves the same features
/// and, after `scripts/package.sh`, finds nothing to do). The end-to-end tests drive this
/// build, not a debug one: the test command compiles the app and its WebKit stack once, and
/// the tests see the app people install. Built once per test process; panics when the build
/// fails. Needs the UI's files (`scripts/build-frontend.sh`), which the app embeds.
pub fn shipped_app() -> PathBuf {
    static APP: OnceLock<PathBuf> = OnceLock::new();
    APP.get_or_init(|| {
        let script = workspace_root().join("scripts/build-portable.sh");
        let mut cmd = Command::new(&script);
        cmd.args(["checkup-agent", "checkup-cli", "checkup-app"]);
        without_test_variables(&mut cmd);
        let out = cmd
            .current_dir(workspace_root())
            .stderr(Stdio::inherit())
            .output()
            .unwrap_or_else(|e| panic!("{} could not start: {e}", script.display()));
        assert!(
            out.status.success(),
            "{} failed (its output is above)",
            script.display()
        );
        // It prints each binary's path, in the order asked.
        let printed = String::from_utf8_lossy(&out.stdout);
        let app = PathBuf::from(printed.lines().nth(2).unwrap_or_default().trim());
        assert!(
            app.is_file(),
            "build-portable.sh named no app binary: {printed:?}"
        );
        app
    })
    .clone()
}

/// Removes what cargo sets for a running test (its package's folder, name and version),
/// which is not the build's: ring's build script watches CARGO_MANIFEST_DIR, so a build
/// started with a test's value ran it again and recompiled everything above ring (rustls,
/// the agent, the app) once per test package.
fn without_test_variables(cmd: &mut Command) {
    for (name, _) in std::env::vars_os() {
        let name = name.to_string_lossy();
        if name.starts_with("CARGO_PKG_")
            || [
                "CARGO_MANIFEST_DIR",
                "CARGO_MANIFEST_PATH",
                "CARGO_PRIMARY_PACKAGE",
                "CARGO_CRATE_NAME",
                "CARGO_BIN_NAME",
                "CARGO_TARGET_TMPDIR",
                "OUT_DIR",
            ]
            .contains(&name.as_ref())
        {
            cmd.env_remove(name.as_ref());
        }
    }
}
