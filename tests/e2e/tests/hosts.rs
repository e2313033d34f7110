//! The live half of the app against real agents on loopback: "This computer" starts the
//! bundled agent as the app's child, a new checkup runs the environment check there, live
//! sampling streams samples with progress; then an agent the user started and forwarded
//! themselves is reached by address and token, and a wrong token is told apart; and an agent
//! playing back a recorded H200 run gives the live curves and the diagnosis real GPU data.

use std::process::{Child, Command, Stdio};
use std::time::Duration;

use checkup_e2e::{samples_in, App};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn this_computer_runs_the_environment_check_and_streams_live_samples() {
    let app = App::launch("this-computer", &[]).await;
    app.wait_for_count("ul.checkups li", 1, Duration::from_secs(120))
        .await;

    app.click("#connect-local").await;
    let status = app
        .wait_for_text("#host-status", Duration::from_secs(30), |t| {
            t.contains("agent ")
        })
        .await;
    assert!(status.contains("agent 0.1.0"), "{status}");
    // No NVIDIA driver on a CI machine: said plainly, and the rest still works.
    let gpus = app.text("#host-status").await;
    assert!(gpus.contains(" GPU"), "{gpus}");
    // Without a driver the panel says so in plain words, with what to try; the driver
    // library's own message is folded under "details".
    if app.count("#gpu-problem").await > 0 {
        let problem = app.text("#gpu-problem").await;
        assert!(
            problem.starts_with("No GPU readings: the NVIDIA driver is not installed"),
            "{problem}"
        );
        assert!(!problem.contains("libloading"), "{problem}");
        app.element("#gpu-problem-details").await;
    }
    app.screenshot("1-host").await;

    app.click("#new-checkup").await;
    app.element("table.checks").await;
    let checks = app.count("table.checks tr").await;
    assert!(
        checks > 5,
        "the environment check lists its items ({checks} rows)"
    );
    app.screenshot("2-environment").await;
    let store = checkup_store::Store::open(&app.database()).await.unwrap();
    let live = store
        .list()
        .await
        .unwrap()
        .into_iter()
        .find(|c| !c.is_demo)
        .expect("the new checkup is stored");
    let first = store.environment(live.id).await.unwrap();
    let first = first.expect("its environment check is stored with it");
    // The interpreter torch was checked in is shown, and another can be picked: the check
    // runs again there and replaces the stored one.
    assert_eq!(
        app.value("#interpreter").await,
        first.python.clone().unwrap_or_default()
    );
    app.type_into("#interpreter", "/nonexistent/venv/bin/python")
        .await;
    app.click("#recheck").await;
    let row = app
        .wait_for_text("table.checks", Duration::from_secs(60), |t| {
            t.contains("/nonexistent/venv/bin/python")
        })
        .await;
    assert!(row.contains("cannot run"), "{row}");
    let again = store.environment(live.id).await.unwrap().unwrap();
    assert_eq!(
        again.python.as_deref(),
        Some("/nonexistent/venv/bin/python")
    );

    app.click("#step-sampling").await;
    // No driver here: the process list says so instead of listing nothing.
    let empty = app
        .wait_for_text("#gpu-processes-empty", Duration::from_secs(20), |t| {
            !t.is_empty()
        })
        .await;
    assert!(empty.starts_with("No GPU readings"), "{empty}");
    app.type_into("#sample-seconds", "6").await;
    app.click("#start-sampling").await;
    let early = app
        .wait_for_text("#live-progress", Duration::from_secs(20), |t| {
            samples_in(t) > 0
        })
        .await;
    let later = app
        .wait_for_text("#live-progress", Duration::from_secs(20), |t| {
            samples_in(t) > samples_in(&early)
        })
        .await;
    assert!(
        later.contains("s / 6 s"),
        "progress shows the planned length: {later}"
    );
    app.screenshot("3-sampling-live").await;
    // The phase ends by itself after its seconds and the progress line goes. Without a GPU
    // there is nothing to diagnose, and the app says so instead of failing silently.
    app.wait_for_text("#live-progress", Duration::from_secs(40), str::is_empty)
        .await;
    let error = app
        .wait_for_text("#error", Duration::from_secs(20), |t| !t.is_empty())
        .await;
    eprintln!("after sampling without a GPU the app says: {error}");
    assert!(error.contains("nothing was recorded on a GPU"), "{error}");
    assert_eq!(
        app.value("#sample-seconds").await,
        "6",
        "the length typed is kept"
    );
    app.screenshot("4-sampling-done").await;
    app.quit().await;
}

/// An agent the user started themselves (`checkup-agent serve`), stopped when dropped.
struct UserAgent {
    child: Child,
    port: String,
    token: String,
    /// Its token and run folders.
    _dir: tempfile::TempDir,
}

impl UserAgent {
    /// `checkup-agent serve` plus `extra`, with `env` added to its environment (and so to
    /// the commands it runs).
    fn start(extra: &[&str], env: &[(&str, &std::path::Path)]) -> Self {
        let agent = checkup_testkit::workspace_binary("checkup-agent", "checkup-agent");
        let dir = tempfile::tempdir().unwrap();
        let token_file = dir.path().join("token");
        let mut child = Command::new(&agent)
            .args(["serve", "--token-file"])
            .arg(&token_file)
            .arg("--runs")
            .arg(dir.path().join("runs"))
            .args(extra)
            .envs(env.iter().copied())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // The first line says where it listens.
        let mut line = String::new();
        std::io::BufRead::read_line(
            &mut std::io::BufReader::new(child.stdout.take().unwrap()),
            &mut line,
        )
        .unwrap();
        let started: serde_json::Value = serde_json::from_str(&line).unwrap();
        let port = started["listening"]
            .as_str()
            .unwrap()
            .rsplit(':')
            .next()
            .unwrap()
            .to_string();
        let token = std::fs::read_to_string(&token_file).unwrap();
        Self {
            child,
            port,
            token: token.trim().to_owned(),
            _dir: dir,
        }
    }

    /// Asks `app` to connect to this agent as one the user forwarded, with `token`.
    async fn connect(&self, app: &App, token: &str) {
        // The form folds away on a second click: open it only when closed.
        if app.count("details.forwarded[open]").await == 0 {
            app.click("details.forwarded summary").await;
        }
        app.type_into("#fwd-addr", &format!("localhost:{}", self.port))
            .await;
        app.type_into("#fwd-token", token).await;
        app.click("#connect-forwarded").await;
    }

    /// [`UserAgent::connect`] with its own token; returns the host status once connected.
    async fn connected(&self, app: &App) -> String {
        self.connect(app, &self.token).await;
        app.wait_for_text("#host-status", Duration::from_secs(15), |t| {
            t.contains("agent ")
        })
        .await
    }
}

impl Drop for UserAgent {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_forwarded_by_the_user_is_reached_by_address_and_token() {
    let agent = UserAgent::start(&[], &[]);
    let app = App::launch("forwarded", &[]).await;
    agent.connect(&app, "not-the-token").await;
    let error = app
        .wait_for_text("#error", Duration::from_secs(15), |t| !t.is_empty())
        .await;
    assert!(error.to_lowercase().contains("token"), "{error}");

    let status = agent.connected(&app).await;
    assert!(
        status.contains(&format!("127.0.0.1:{}", agent.port)),
        "{status}"
    );
    app.screenshot("forwarded-host").await;
    app.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_recorded_h200_run_played_back_by_the_agent_draws_live_gpu_curves_and_is_diagnosed() {
    // The agent plays the memory_bound H200 recording back as if its GPU were sampled now:
    // the app's live path (stream, curves, download, diagnosis) with real GPU data.
    let recording = checkup_testkit::workspace_root().join("tests/corpus/memory_bound");
    let agent = UserAgent::start(&["--replay", recording.to_str().unwrap()], &[]);
    let app = App::launch("replay", &[]).await;
    // The first start imports the demo checkups; on a loaded two-core machine a debug app
    // doing that draws no live chart for tens of seconds, and each browser query takes
    // seconds. The live path is what this test is about: it starts once they are in.
    app.wait_for_count(
        "ul.checkups li",
        checkup_e2e::demo_count(),
        Duration::from_secs(120),
    )
    .await;
    agent.connected(&app).await;
    // Said plainly: these curves are a recording's, not this host's.
    let replaying = app.text("#host-replaying").await;
    assert!(
        replaying.contains("tests/corpus/memory_bound"),
        "{replaying}"
    );
    app.click("#new-checkup").await;
    app.element("table.checks").await;
    // The environment step offers watching the training next, then profiling it.
    let offered = app.text("#next-step").await;
    assert!(
        offered.contains("Next: 2 Live sampling") && offered.contains("Next: 3 Profiling"),
        "{offered}"
    );
    app.element("#next-sampling.primary").await;
    app.click("#next-sampling").await;
    // Margin for the checks below on a loaded two-core machine: when sampling ends the
    // wizard moves on and the live charts go.
    app.type_into("#sample-seconds", "20").await;
    app.click("#start-sampling").await;
    app.wait_for_text("#live-progress", Duration::from_secs(20), |t| {
        samples_in(t) > 20
    })
    .await;
    // Live curves of the GPU, not only of the host: temperature and PCIe/NVLink too.
    // Counted, not held: each SVG is replaced ten times a second, and on a loaded machine
    // every one the driver found was gone before it could be returned.
    for chart in ["utilisation", "power", "sm_clock", "temperature", "links"] {
        app.wait_for_count(
            &format!("#live-progress ~ div figure[data-chart='{chart}'] svg"),
            1,
            Duration::from_secs(30),
        )
        .await;
    }
    // The curves are drawn again ten times a second, in place: counted over two seconds.
    let frame = || async {
        app.attribute("#live-progress", "data-frame")
            .await
            .parse::<u64>()
            .unwrap()
    };
    // The element holding the drawing stays; the SVG in it is replaced with each frame.
    let drawing = "#live-progress ~ div figure[data-chart='utilisation'] .chart-body > div";
    let (f0, svg0, t0) = (
        frame().await,
        app.element(drawing).await.html(true).await.unwrap(),
        std::time::Instant::now(),
    );
    tokio::time::sleep(Duration::from_secs(2)).await;
    let (f1, svg1) = (
        frame().await,
        app.element(drawing).await.html(true).await.unwrap(),
    );
    let per_s = (f1 - f0) as f64 / t0.elapsed().as_secs_f64();
    eprintln!("live frames: {per_s:.1} per second");
    assert!(per_s >= 5.0, "{per_s:.1} frames per second");
    assert_ne!(svg0, svg1, "the curve moved on");
    // Pointing at a live chart reads its values, as on a stored one.
    // Near the axis's start, where the curve already is (the axis runs a minute ahead).
    app.point_at(
        "#live-progress ~ div figure[data-chart='utilisation'] .chart-overlay",
        -380.0,
    )
    .await;
    let tip = app
        .wait_for_text("#chart-tip-utilisation", Duration::from_secs(10), |t| {
            !t.is_empty()
        })
        .await;
    assert!(
        tip.starts_with("t = ") && tip.contains("GPU-Util (NVML): "),
        "{tip}"
    );
    app.screenshot("3-sampling-live").await;
    app.scroll_to("#live-progress ~ div figure[data-chart='temperature']")
        .await;
    app.screenshot("3-sampling-live-temperature-links").await;
    // When sampling ends the wizard moves to what it found by itself, and says why.
    let arrived = app
        .wait_for_text("#arrived", Duration::from_secs(60), |t| !t.is_empty())
        .await;
    assert!(arrived.starts_with("Sampling finished: "), "{arrived}");
    app.element("#step-diagnosis.active").await;
    app.settled().await;
    let verdict = app
        .wait_for_text("#verdict", Duration::from_secs(30), |t| !t.is_empty())
        .await;
    assert!(verdict.contains("Memory-bandwidth bound"), "{verdict}");
    app.screenshot("5-diagnosis").await;
    // Going elsewhere puts the note away; the diagnosis offers the report next.
    app.click("#next-report").await;
    app.element("#step-report.active").await;
    assert_eq!(app.count("#arrived").await, 0);
    app.quit().await;
}

/// Samples the checkup shown for `seconds` and waits until the wizard has moved to its
/// diagnosis.
async fn sample_until_diagnosed(app: &App, seconds: &str) {
    app.type_into("#sample-seconds", seconds).await;
    app.click("#start-sampling").await;
    app.wait_for_text("#arrived", Duration::from_secs(60), |t| !t.is_empty())
        .await;
    app.element("#step-diagnosis.active").await;
    app.settled().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fix_is_checked_by_a_rerun_compared_with_the_checkup_before_it() {
    let app = App::launch("rerun", &[]).await;
    app.wait_for_count("ul.checkups li", 1, Duration::from_secs(120))
        .await;
    // A demo checkup's fix cannot be re-run without a host, and the button says why.
    app.click_titled("ul.checkups li", "dataloader_starved (demo)")
        .await;
    app.settled().await;
    app.click("#step-diagnosis").await;
    app.element("#rerun-1[disabled]").await;
    let why = app.text("#rerun-1 + .meta").await;
    assert!(why.starts_with("Connect to the host"), "{why}");

    // The memory_bound H200 recording played back stands for the training, before and after.
    let recording = checkup_testkit::workspace_root().join("tests/corpus/memory_bound");
    let agent = UserAgent::start(&["--replay", recording.to_str().unwrap()], &[]);
    agent.connected(&app).await;
    app.click("#new-checkup").await;
    app.element("table.checks").await;
    app.click("#next-sampling").await;
    sample_until_diagnosed(&app, "6").await;
    let first_title = app.text("#checkup-title").await;
    // Sampled only, the diagnosis ranks no fix by gain: each fix carries the button too.
    let help = app.text(".fix .rerun .meta").await;
    assert!(help.starts_with("After applying the fix"), "{help}");

    // Re-run: a new checkup of the same training, at the step that measured the first.
    app.click(".fix .rerun-button").await;
    app.wait_for_text("#checkup-title", Duration::from_secs(30), |t| {
        t == format!("{first_title}, after a fix")
    })
    .await;
    app.element("#step-sampling.active").await;
    let notice = app.text("#rerun-of").await;
    assert!(
        notice.starts_with(&format!(
            "This checkup re-runs “{first_title}” to check a fix"
        )),
        "{notice}"
    );
    let (store, rerun) = app.stored(&format!("{first_title}, after a fix")).await;
    let (_, first) = app.stored(&first_title).await;
    assert_eq!(rerun.rerun_of, Some(first.id));
    assert!(store.environment(rerun.id).await.unwrap().is_some());
    app.screenshot("1-rerun-sampling").await;

    // Its diagnosis opens with the comparison to the checkup before the fix.
    sample_until_diagnosed(&app, "6").await;
    let compared = app
        .wait_for_text("#rerun-comparison", Duration::from_secs(30), |t| {
            !t.is_empty()
        })
        .await;
    assert!(
        compared.contains(&format!("before: {first_title}")),
        "{compared}"
    );
    app.screenshot("2-rerun-compared").await;
    app.click("#lang-zh").await;
    app.settled().await;
    let notice = app
        .wait_for_text("#rerun-of", Duration::from_secs(10), |t| t.contains("复查"))
        .await;
    assert!(notice.contains(&first_title), "{notice}");
    app.wait_for_text("#rerun-comparison", Duration::from_secs(30), |t| {
        t.contains(&format!("之前：{first_title}"))
    })
    .await;
    app.screenshot("3-rerun-compared-zh").await;
    app.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_newcomer_follows_a_live_checkup_from_the_host_to_the_report_in_both_languages() {
    // Only what the screens offer is clicked: connect, the new checkup, each step's primary
    // next button, the step's own action. The agent plays back a real H200 agent run.
    let recording = checkup_testkit::workspace_root().join("tests/corpus/agent_dataloader_starved");
    let agent = UserAgent::start(&["--replay", recording.to_str().unwrap()], &[]);
    let app = App::launch("walkthrough", &[]).await;
    app.wait_for_count("ul.checkups li", 1, Duration::from_secs(120))
        .await;
    app.screenshot("en/0-start").await;
    agent.connected(&app).await;
    app.screenshot("en/1-host").await;
    app.click("#new-checkup").await;
    app.element("table.checks").await;
    app.element("#intro-environment").await;
    app.screenshot("en/2-environment").await;
    app.click("#next-step .primary").await;
    app.element("#step-sampling.active").await;
    app.element("#intro-sampling").await;
    app.screenshot("en/3-sampling").await;
    // Long enough to get past the training's start-up, as the step advises.
    app.type_into("#sample-seconds", "40").await;
    app.click("#start-sampling").await;
    app.wait_for_text("#live-progress", Duration::from_secs(40), |t| {
        samples_in(t) > 150
    })
    .await;
    app.element("#live-progress ~ div figure[data-chart='utilisation'] svg")
        .await;
    app.screenshot("en/4-sampling-live").await;
    app.wait_for_text("#arrived", Duration::from_secs(60), |t| !t.is_empty())
        .await;
    app.element("#step-diagnosis.active").await;
    app.settled().await;
    let verdict = app
        .wait_for_text("#verdict", Duration::from_secs(30), |t| !t.is_empty())
        .await;
    // Samples alone cannot say what the GPU waits for, and the diagnosis says how to find out.
    assert!(verdict.contains("gpu_idle"), "{verdict}");
    assert!(
        verdict.contains("profile a few training steps"),
        "{verdict}"
    );
    app.screenshot("en/5-diagnosis").await;
    app.click("#next-step .primary").await;
    app.element("#step-report.active").await;
    app.wait_for_text("#report-preview", Duration::from_secs(60), |t| {
        !t.is_empty()
    })
    .await;
    app.click("#export-pdf").await;
    let written = app
        .wait_for_text("#exported", Duration::from_secs(60), |t| t.contains(".pdf"))
        .await;
    let pdf = std::path::PathBuf::from(written.split_whitespace().last().unwrap());
    assert!(checkup_e2e::is_pdf(&pdf), "{} is a PDF", pdf.display());
    app.screenshot("en/6-report").await;
    // The profiling step, which this walk did not need, says what it would ask for.
    app.click("#step-profiling").await;
    app.element("#intro-profiling").await;
    app.screenshot("en/7-profiling").await;

    // Every step again in Chinese.
    app.click("#lang-zh").await;
    app.settled().await;
    for (n, step) in [
        "environment",
        "sampling",
        "profiling",
        "diagnosis",
        "report",
    ]
    .into_iter()
    .enumerate()
    {
        app.click(&format!("#step-{step}")).await;
        app.settled().await;
        let intro = app.text(&format!("#intro-{step}")).await;
        assert!(
            intro
                .chars()
                .any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c)),
            "{step}: {intro}"
        );
        if step == "report" {
            app.wait_for_text("#report-preview", Duration::from_secs(60), |t| {
                t.contains("诊断") || t.contains("瓶颈")
            })
            .await;
        }
        app.screenshot(&format!("zh/{}-{step}", n + 2)).await;
    }
    app.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_training_is_picked_from_the_processes_the_agent_sees_on_the_gpus() {
    // An agent playing back an H200 run recorded through the probe lists the processes that
    // run had on its GPU (here the training, PID 473), and says they are the recording's.
    let recording =
        checkup_testkit::workspace_root().join("tests/corpus/probe_small_mlp_short_epochs");
    let agent = UserAgent::start(&["--replay", recording.to_str().unwrap()], &[]);
    let app = App::launch("pid-picker", &[]).await;
    agent.connected(&app).await;
    app.click("#new-checkup").await;
    app.element("table.checks").await;
    app.click("#next-sampling").await;
    // What a PID is and where to find one, then the list, asked for when the step opens.
    let help = app.text("#job-help").await;
    assert!(help.contains("PID (process ID)"), "{help}");
    let table = app
        .wait_for_text("#gpu-processes", Duration::from_secs(20), |t| {
            t.contains("473")
        })
        .await;
    assert!(table.contains("0.8 GiB"), "{table}");
    let recorded = app.text("#gpu-processes-recorded").await;
    assert!(
        recorded.contains("probe_small_mlp_short_epochs"),
        "{recorded}"
    );
    app.screenshot("en/2-sampling-pick-pid").await;
    app.click("#use-pid-473").await;
    assert_eq!(app.value("#sample-job").await, "pid 473");
    app.click("#lang-zh").await;
    app.settled().await;
    app.element("#gpu-processes").await;
    let help = app.text("#job-help").await;
    assert!(help.contains("PID（进程号）"), "{help}");
    app.screenshot("zh/2-sampling-pick-pid").await;
    app.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn profiling_a_command_without_torch_runs_it_and_says_why_there_is_no_trace() {
    // A `torch` that cannot be imported, first on the agent's PYTHONPATH.
    let no_torch = checkup_testkit::unimportable_torch();
    let agent = UserAgent::start(&[], &[("PYTHONPATH", no_torch.path())]);
    let app = App::launch("profiling", &[]).await;
    agent.connected(&app).await;
    app.click("#new-checkup").await;
    app.element("table.checks").await;

    app.click("#step-profiling").await;
    app.type_into(
        "#profile-command",
        r#"python3 -c "import time; print('epoch 1'); time.sleep(3)""#,
    )
    .await;
    app.click("#start-profiling").await;
    app.wait_for_text("#profile-progress", Duration::from_secs(20), |t| {
        !t.is_empty()
    })
    .await;
    app.screenshot("3-profiling-running").await;
    // The command runs to its end; the app then says in words why there is no trace.
    let error = app
        .wait_for_text("#error", Duration::from_secs(60), |t| !t.is_empty())
        .await;
    assert!(
        error.contains("the profiling probe did not attach (torch could not be imported"),
        "{error}"
    );
    // The command is still there to fix and run again (once the step is drawn anew with
    // the finished run).
    app.settled().await;
    let command = app.value("#profile-command").await;
    assert!(command.starts_with("python3 -c"), "{command}");
    app.screenshot("3-profiling-no-torch").await;
    app.quit().await;
}
