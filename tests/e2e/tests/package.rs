//! What `scripts/package.sh` ships, used as a person would: the `.deb` installed with dpkg,
//! the installed app started under Xvfb with its demo history painted, then removed; the
//! AppImage started the same way; the server tarball's CLI run on a corpus recording; the
//! pip wheel installed offline into a fresh virtual environment, both binaries run. The
//! packages are looked for in `GPU_CHECKUP_DIST`, else `dist/` (scripts/test.sh builds them
//! first).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use checkup_e2e::App;
use checkup_testkit::workspace_root;

const VERSION: &str = env!("CARGO_PKG_VERSION");
/// The package name Tauri's bundler gives the app (its main binary's name).
const DEB_PACKAGE: &str = "gpu-checkup";

fn dist() -> PathBuf {
    let dir = std::env::var_os("GPU_CHECKUP_DIST")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("dist"));
    assert!(
        dir.join("SHA256SUMS").is_file(),
        "no packages in {}: build them with scripts/package.sh",
        dir.display()
    );
    dir
}

fn run(cmd: &mut Command) -> Output {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("{cmd:?} could not start: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?} failed ({}):\n{}{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The started app shows its demo history and connects to "This computer" through the agent
/// it ships (none from the build tree is on its path).
async fn shows_the_demos_and_starts_its_own_agent(app: &App) {
    app.wait_for_count(
        "ul.checkups li",
        checkup_e2e::demo_count(),
        Duration::from_secs(180),
    )
    .await;
    app.click("#connect-local").await;
    let status = app
        .wait_for_text("#host-status", Duration::from_secs(60), |t| {
            t.contains("agent ")
        })
        .await;
    assert!(status.contains(&format!("agent {VERSION}")), "{status}");
}

/// Removes the installed package when the test ends, passed or not.
struct Installed;

impl Drop for Installed {
    fn drop(&mut self) {
        let _ = Command::new("dpkg").args(["-r", DEB_PACKAGE]).output();
    }
}

#[test]
fn the_checksums_match_the_packages() {
    let out = run(Command::new("sha256sum")
        .args(["--check", "--strict", "SHA256SUMS"])
        .current_dir(dist()));
    let checked = stdout(&out);
    for file in [
        format!("gpu-checkup_{VERSION}_amd64.deb"),
        format!("GPU_Checkup-{VERSION}-x86_64.AppImage"),
        format!("checkup-{VERSION}-x86_64-linux.tar.gz"),
        format!("gpu_checkup-{VERSION}-py3-none-manylinux_2_31_x86_64.whl"),
    ] {
        assert!(checked.contains(&format!("{file}: OK")), "{checked}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_deb_installs_shows_the_demo_history_starts_its_agent_and_removes_cleanly() {
    let deb = dist().join(format!("gpu-checkup_{VERSION}_amd64.deb"));
    // What the package says it is and needs, as apt shows it before installing.
    let info = stdout(&run(Command::new("dpkg-deb").arg("--info").arg(&deb)));
    assert!(info.contains(&format!("Package: {DEB_PACKAGE}")), "{info}");
    assert!(info.contains("libwebkit2gtk-4.1-0"), "{info}");
    let installed = Installed;
    run(Command::new("dpkg").arg("--install").arg(&deb));
    let files = stdout(&run(Command::new("dpkg").args(["-L", DEB_PACKAGE])));
    for path in [
        "/usr/bin/gpu-checkup",
        "/usr/bin/checkup",
        "/usr/bin/checkup-agent",
        "/usr/share/applications/GPU Checkup.desktop",
        "/usr/lib/GPU Checkup/demos/labels.json",
    ] {
        assert!(
            files.lines().any(|l| l == path),
            "{path} not installed:\n{files}"
        );
    }
    // The installed CLI works from PATH.
    let version = stdout(&run(Command::new("/usr/bin/checkup").arg("--version")));
    assert!(version.contains(VERSION), "{version}");

    // The installed app, with nothing from the build tree: it finds its demos in its own
    // resources and its agent beside it.
    let app = App::launch_binary("package-deb", Path::new("/usr/bin/gpu-checkup"), &[]).await;
    shows_the_demos_and_starts_its_own_agent(&app).await;
    app.screenshot("installed-deb").await;
    app.quit().await;

    drop(installed);
    assert!(
        !Path::new("/usr/bin/gpu-checkup").exists(),
        "still installed"
    );
    let status = Command::new("dpkg")
        .args(["-s", DEB_PACKAGE])
        .output()
        .unwrap();
    assert!(!status.status.success(), "dpkg still lists {DEB_PACKAGE}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_appimage_shows_the_demo_history_and_starts_its_agent() {
    let appimage = dist().join(format!("GPU_Checkup-{VERSION}-x86_64.AppImage"));
    // CI has no FUSE: the runtime unpacks itself to a temporary folder instead, as users
    // without FUSE run it; a folder of the test's own, so that nothing is left behind.
    let unpacked = tempfile::tempdir().unwrap();
    let app = App::launch_binary(
        "package-appimage",
        &appimage,
        &[
            ("APPIMAGE_EXTRACT_AND_RUN", "1".into()),
            ("TMPDIR", unpacked.path().into()),
        ],
    )
    .await;
    shows_the_demos_and_starts_its_own_agent(&app).await;
    app.screenshot("appimage").await;
    app.quit().await;
    let left: Vec<_> = std::fs::read_dir(unpacked.path()).unwrap().collect();
    assert!(
        !left.is_empty(),
        "the AppImage did not unpack where TMPDIR said"
    );
}

#[test]
fn the_server_tarball_runs_its_cli_on_a_recording() {
    let unpacked = tempfile::tempdir().unwrap();
    let tarball = dist().join(format!("checkup-{VERSION}-x86_64-linux.tar.gz"));
    run(Command::new("tar")
        .arg("-xzf")
        .arg(&tarball)
        .arg("-C")
        .arg(unpacked.path()));
    let dir = unpacked
        .path()
        .join(format!("checkup-{VERSION}-x86_64-linux"));
    let agent = stdout(&run(
        Command::new(dir.join("checkup-agent")).arg("--version")
    ));
    assert!(agent.contains(VERSION), "{agent}");
    let analysis = stdout(&run(Command::new(dir.join("checkup"))
        .arg("analyze")
        .arg(workspace_root().join("tests/corpus/dataloader_starved"))));
    assert!(analysis.contains("input pipeline"), "{analysis}");
}

#[test]
fn the_wheel_installs_offline_into_a_fresh_virtual_environment_and_both_binaries_run() {
    let wheel = dist().join(format!(
        "gpu_checkup-{VERSION}-py3-none-manylinux_2_31_x86_64.whl"
    ));
    let venv = tempfile::tempdir().unwrap();
    run(Command::new("python3")
        .arg("-m")
        .arg("venv")
        .arg(venv.path()));
    let bin = venv.path().join("bin");
    // As on a GPU host without network: nothing fetched, nothing else installed.
    run(Command::new(bin.join("pip"))
        .args(["install", "--no-index", "--no-deps", "--quiet"])
        .arg(&wheel));
    let agent = stdout(&run(
        Command::new(bin.join("checkup-agent")).arg("--version")
    ));
    assert!(agent.contains(VERSION), "{agent}");
    // The environment check runs on a host without a GPU too, and says so.
    let check = Command::new(bin.join("checkup-agent"))
        .args(["check", "--json"])
        .output()
        .unwrap();
    let facts: serde_json::Value = serde_json::from_slice(&check.stdout).unwrap_or_else(|e| {
        panic!(
            "check --json: {e}: {}",
            String::from_utf8_lossy(&check.stderr)
        )
    });
    assert!(facts["facts"].is_object(), "{facts}");
    let analysis = stdout(&run(Command::new(bin.join("checkup"))
        .arg("analyze")
        .arg(workspace_root().join("tests/corpus/dataloader_starved"))));
    assert!(analysis.contains("input pipeline"), "{analysis}");
    let version = stdout(&run(Command::new(bin.join("python"))
        .args(["-c", "import gpu_checkup; print(gpu_checkup.__version__)"])));
    assert_eq!(version.trim(), VERSION);
}
