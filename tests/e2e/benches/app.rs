//! The desktop app's startup time and memory, on the release build under Xvfb.
//!
//! - Cold start: from spawning the process to the history list painted (the UI reports its
//!   first full screen two animation frames after the list is set; `GPU_CHECKUP_STARTUP_PROBE`
//!   makes the shell print it). A new process each time, with the checkups already stored
//!   (the usual start), and the very first start (a new database; the demo recordings are
//!   analysed in the background and fill the list when done).
//! - Memory: proportional set size of the app and the WebKit processes it starts, idle with
//!   the demo history, and with a 30-minute recording open and every wizard step visited:
//!   after a first start (demo import, a demo checkup walked first), and on a usual start,
//!   then after walking the steps again and again.
//!   The recording is the `healthy` H200 run's samples and steps repeated over 30 minutes
//!   (18,000 NVML samples at 10 Hz, GPM and host samples, the trace as recorded).
//!
//! Run: `cargo bench -p checkup-e2e --bench app`

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use checkup_e2e::App;
use checkup_model::WizardStep;
use checkup_testkit::{
    descendants, memory_of, workspace_release_binary, workspace_root, Memory, Xvfb,
};

const STARTS: usize = 7;
const MINUTES: f64 = 30.0;
/// Walks through the wizard's steps after the first, in the usual-start session.
const WALKS_AGAIN: usize = 5;

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let app = workspace_release_binary("checkup-app", "gpu-checkup");
    let xvfb = Xvfb::start(checkup_e2e::WIDTH, checkup_e2e::HEIGHT);
    let data = tempfile::tempdir().unwrap();

    let first = time_to_first_paint(&app, data.path(), &xvfb.display);
    let mut starts: Vec<f64> = (0..STARTS)
        .map(|_| time_to_first_paint(&app, data.path(), &xvfb.display).as_secs_f64() * 1e3)
        .collect();
    starts.sort_by(f64::total_cmp);
    drop(xvfb);
    println!(
        "cold start to the history list painted (release build, {STARTS} starts, checkups stored):"
    );
    println!(
        "  median {:.0} ms, fastest {:.0} ms, slowest {:.0} ms",
        starts[STARTS / 2],
        starts[0],
        starts[STARTS - 1]
    );
    println!(
        "  first start ever (a new database; the demo recordings are analysed in the background): {:.0} ms",
        first.as_secs_f64() * 1e3
    );

    let recordings = tempfile::tempdir().unwrap();
    let long_run = recordings.path().join("healthy_30min");
    let rows = stretch_recording(
        &workspace_root().join("tests/corpus/healthy"),
        &long_run,
        MINUTES * 60.0,
    );
    // Both sessions keep their checkups in one database: the second is a usual start.
    let db = recordings.path().join("checkups.db");
    let env = [("GPU_CHECKUP_DB", db.clone().into_os_string())];

    // A first start: the demo recordings are imported, one is walked through, then the long
    // recording is opened and walked through.
    let app_session = App::launch_binary("bench", &app, &env).await;
    // Idle means every demo recording imported (the import runs after the window shows).
    wait_for_demos(&app_session).await;
    let idle = Snapshot::of(&app_session);
    app_session
        .click_titled("ul.checkups li", "healthy (demo)")
        .await;
    app_session.settled().await;
    walk_every_step(&app_session).await;
    let demo = Snapshot::of(&app_session);
    let opened_in = open_recording(&app_session, &long_run).await;
    walk_every_step(&app_session).await;
    let open = Snapshot::of(&app_session);
    // WebKit's allocator and JavaScriptCore's collector give memory back over time.
    tokio::time::sleep(Duration::from_secs(20)).await;
    let settled = Snapshot::of(&app_session);
    app_session.quit().await;

    // A usual start (checkups stored), the long recording opened straight away.
    let app_session = App::launch_binary("bench-usual-start", &app, &env).await;
    wait_for_demos(&app_session).await;
    let usual_idle = Snapshot::of(&app_session);
    open_recording(&app_session, &long_run).await;
    walk_every_step(&app_session).await;
    let usual_open = Snapshot::of(&app_session);
    // "Stays under": what going back and forth through the steps adds.
    for _ in 0..WALKS_AGAIN {
        walk_every_step(&app_session).await;
    }
    let walked_again = Snapshot::of(&app_session);
    app_session.quit().await;

    println!(
        "memory of the app and its WebKit processes ({} processes):",
        open.total.processes
    );
    idle.print("demo history, idle");
    demo.print("a demo checkup (25 s run) open, every step visited");
    open.print(&format!(
        "a {MINUTES:.0}-minute recording open ({rows} NVML samples), every step visited"
    ));
    settled.print("the same 20 s later");
    usual_idle.print("a usual start (checkups stored), history idle");
    usual_open.print(&format!(
        "the same, the {MINUTES:.0}-minute recording opened, every step visited"
    ));
    walked_again.print(&format!(
        "the same after walking the steps {WALKS_AGAIN} times more"
    ));
    println!(
        "  opening it (read, analyse, store, draw): {:.1} s",
        opened_in.as_secs_f64()
    );
}

/// The memory of the app and the processes it started, at one moment.
struct Snapshot {
    total: Memory,
    /// Each process's name and PSS (anonymous part in brackets), MiB.
    each: String,
}

impl Snapshot {
    fn of(app: &App) -> Self {
        let pids = app.app_processes();
        let each = pids
            .iter()
            .map(|&pid| {
                let name = std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default();
                let m = memory_of(&[pid]);
                format!("{} {:.0} ({:.0})", name.trim(), m.pss_mib, m.pss_anon_mib)
            })
            .collect::<Vec<_>>()
            .join(", ");
        Self {
            total: memory_of(&pids),
            each,
        }
    }

    /// Prints the total under `label`, then each process.
    fn print(&self, label: &str) {
        println!("  {label}: {}", self.total_text());
        println!("    {}", self.each);
    }

    fn total_text(&self) -> String {
        let m = &self.total;
        format!(
            "PSS {:.0} MiB, of it anonymous {:.0} MiB (RSS {:.0} MiB)",
            m.pss_mib, m.pss_anon_mib, m.rss_mib
        )
    }
}

/// Waits until every demo checkup is listed and the page has settled.
async fn wait_for_demos(app: &App) {
    app.wait_for_count(
        "ul.checkups li",
        checkup_e2e::demo_count(),
        Duration::from_secs(120),
    )
    .await;
    app.settled().await;
    tokio::time::sleep(Duration::from_secs(2)).await;
}

/// Opens the run folder at `path` as a recording; returns how long until its verdict showed.
async fn open_recording(app: &App, path: &Path) -> Duration {
    app.click("details.recording summary").await;
    app.type_into("#recording-path", &path.display().to_string())
        .await;
    let opening = Instant::now();
    app.click("#open-recording").await;
    app.element("#verdict").await;
    opening.elapsed()
}

/// Shows every wizard step of the open checkup, then lets the page settle.
async fn walk_every_step(app: &App) {
    for step in WizardStep::ALL {
        app.click(&format!("#step-{}", step.key())).await;
        app.settled().await;
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    tokio::time::sleep(Duration::from_secs(2)).await;
}

/// Starts the app and times it until it prints that the history list is painted.
fn time_to_first_paint(app: &Path, data: &Path, display: &str) -> Duration {
    let started = Instant::now();
    let mut child = Command::new(app)
        .env("DISPLAY", display)
        .env("XDG_DATA_HOME", data)
        .env("GPU_CHECKUP_STARTUP_PROBE", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the app starts");
    let stdout = child.stdout.take().unwrap();
    let painted = BufReader::new(stdout)
        .lines()
        .map_while(Result::ok)
        .any(|l| l == "first paint");
    let elapsed = started.elapsed();
    assert!(painted, "the app ended without painting");
    let pids = descendants(child.id());
    let _ = Command::new("kill").arg(child.id().to_string()).status();
    let _ = child.wait();
    // Its WebKit processes end with it; the next start must not share them.
    for pid in pids {
        checkup_testkit::wait_until_gone(pid, Duration::from_secs(10));
    }
    elapsed
}

/// Writes a run folder of `seconds` by repeating `src`'s samples and steps (timestamps
/// shifted by the recording's span each time; the first, compiling step only once). Returns
/// how many NVML samples it holds.
fn stretch_recording(src: &Path, dst: &Path, seconds: f64) -> usize {
    std::fs::create_dir_all(dst).unwrap();
    for name in ["meta.json", "trace.json.gz"] {
        std::fs::copy(src.join(name), dst.join(name)).unwrap();
    }
    let nvml = std::fs::read_to_string(src.join("samples_nvml.csv")).unwrap();
    let span = span_of(&nvml, 0);
    let repeats = (seconds / span).ceil() as usize;
    let mut nvml_rows = 0;
    for (name, ts_col, step_col) in [
        ("samples_nvml.csv", 0, None),
        ("samples_gpm.csv", 0, None),
        ("samples_host.csv", 0, None),
        ("steps.csv", 1, Some(0)),
    ] {
        let text = std::fs::read_to_string(src.join(name)).unwrap();
        let mut lines = text.lines();
        let mut out = String::from(lines.next().unwrap());
        out.push('\n');
        let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
        let steps = rows.len();
        for k in 0..repeats {
            for (i, row) in rows.iter().enumerate() {
                if step_col.is_some() && k > 0 && i == 0 {
                    continue;
                }
                let mut row: Vec<String> = row.iter().map(|c| c.to_string()).collect();
                let ts: f64 = row[ts_col].parse().unwrap();
                row[ts_col] = format!("{:.6}", ts + k as f64 * span);
                if let Some(c) = step_col {
                    let step: usize = row[c].parse().unwrap();
                    row[c] = (step + k * steps).to_string();
                }
                out.push_str(&row.join(","));
                out.push('\n');
                if name == "samples_nvml.csv" {
                    nvml_rows += 1;
                }
            }
        }
        std::fs::write(dst.join(name), out).unwrap();
    }
    nvml_rows
}

/// Seconds between the first and last timestamp in column `col` of a CSV.
fn span_of(csv: &str, col: usize) -> f64 {
    let ts: Vec<f64> = csv
        .lines()
        .skip(1)
        .filter_map(|l| l.split(',').nth(col)?.parse().ok())
        .collect();
    ts.last().unwrap() - ts.first().unwrap() + 0.1
}
