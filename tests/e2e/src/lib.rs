//! Drives the real built desktop app the way a person does, through WebDriver: `tauri-driver`
//! in front of Debian's `WebKitWebDriver`, the app on a private Xvfb display, its data in a
//! throwaway folder. Screenshots go to `<target>/app-artifacts/<test>/` for people to look at.

use std::ffi::OsString;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use checkup_testkit::{free_port, shipped_app, target_dir, wait_for_port, Xvfb};
use std::future::Future;
use std::sync::Mutex;

use checkup_model::CheckupSummary;
use fantoccini::elements::Element;
use fantoccini::error::CmdError;
use fantoccini::{Client, ClientBuilder, Locator};

pub use fantoccini;

/// The window size of tauri.conf.json, which screenshots must have.
pub const WIDTH: u32 = 1280;
pub const HEIGHT: u32 = 800;

/// The longest one WebDriver call may take (waits poll in shorter calls).
const CALL_TIMEOUT: Duration = Duration::from_secs(60);

/// One running app under WebDriver, with its own display, driver and data folder.
pub struct App {
    pub client: Client,
    /// The app's data folder (`XDG_DATA_HOME`): database, exports, downloaded runs.
    pub data: tempfile::TempDir,
    artifacts: PathBuf,
    binary: PathBuf,
    launched: Instant,
    error_seen: Mutex<Option<String>>,
    driver: Child,
    xvfb: Xvfb,
}

/// `tauri-driver`: on PATH or where `cargo install` puts it.
fn tauri_driver() -> PathBuf {
    let installed = std::env::var_os("HOME")
        .map(|h| PathBuf::from(h).join(".cargo/bin/tauri-driver"))
        .filter(|p| p.is_file());
    installed.unwrap_or_else(|| "tauri-driver".into())
}

impl App {
    /// Builds the app as it ships, with the agent it bundles beside it ("This computer"
    /// starts that one), starts Xvfb and tauri-driver, and opens a WebDriver session, which
    /// launches the app with `env` added to its environment.
    pub async fn launch(test: &str, env: &[(&str, OsString)]) -> App {
        App::launch_binary(test, &shipped_app(), env).await
    }

    /// [`App::launch`] with a given build of the app (benchmarks use the release build).
    pub async fn launch_binary(test: &str, app: &Path, env: &[(&str, OsString)]) -> App {
        let data = tempfile::tempdir().expect("a data folder");
        App::launch_in(test, app, env, data, true).await
    }

    /// [`App::launch`] on the data folder an earlier app left (see [`App::kill`]).
    pub async fn relaunch(test: &str, data: tempfile::TempDir) -> App {
        // The screenshots of the first start stay beside those of the second.
        App::launch_in(test, &shipped_app(), &[], data, false).await
    }

    async fn launch_in(
        test: &str,
        app: &Path,
        env: &[(&str, OsString)],
        data: tempfile::TempDir,
        fresh_artifacts: bool,
    ) -> App {
        let xvfb = Xvfb::start(WIDTH, HEIGHT);
        let port = free_port();
        let native_port = free_port();
        let mut cmd = Command::new(tauri_driver());
        cmd.args(["--port", &port.to_string()])
            .args(["--native-port", &native_port.to_string()])
            .env("DISPLAY", &xvfb.display)
            .env("XDG_DATA_HOME", data.path())
            .env("LANG", "en_US.UTF-8")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            // Its own process group: the driver, WebKitWebDriver and the app end together.
            .process_group(0);
        for (k, v) in env {
            cmd.env(k, v);
        }
        let driver = cmd
            .spawn()
            .expect("tauri-driver runs (scripts/setup.sh installs it and webkit2gtk-driver)");
        assert!(
            wait_for_port(port, Duration::from_secs(20)),
            "tauri-driver did not listen on {port}"
        );
        let mut caps = serde_json::Map::new();
        caps.insert(
            "tauri:options".into(),
            serde_json::json!({ "application": app }),
        );
        let connector = hyper_util::client::legacy::connect::HttpConnector::new();
        let mut last_error = None;
        let mut client = None;
        // WebKitWebDriver behind tauri-driver may take a moment to accept sessions.
        for _ in 0..20 {
            match ClientBuilder::new(connector.clone())
                .capabilities(caps.clone())
                .connect(&format!("http://127.0.0.1:{port}"))
                .await
            {
                Ok(c) => {
                    client = Some(c);
                    break;
                }
                Err(e) => {
                    last_error = Some(e.to_string());
                    tokio::time::sleep(Duration::from_millis(500)).await;
                }
            }
        }
        let client =
            client.unwrap_or_else(|| panic!("no WebDriver session with the app: {last_error:?}"));
        let artifacts = target_dir().join("app-artifacts").join(test);
        if fresh_artifacts {
            let _ = std::fs::remove_dir_all(&artifacts);
        }
        std::fs::create_dir_all(&artifacts).expect("artifacts folder");
        App {
            client,
            data,
            artifacts,
            binary: app.to_path_buf(),
            launched: Instant::now(),
            error_seen: Mutex::new(None),
            driver,
            xvfb,
        }
    }

    /// The app's process and those it started (WebKit's web and network processes, an agent).
    pub fn app_processes(&self) -> Vec<u32> {
        let app = checkup_testkit::descendants(self.driver.id())
            .into_iter()
            .find(|pid| {
                std::fs::read_link(format!("/proc/{pid}/exe")).is_ok_and(|exe| exe == self.binary)
            });
        app.map(checkup_testkit::descendants).unwrap_or_default()
    }

    /// The SQLite file the app keeps its checkups in.
    pub fn database(&self) -> PathBuf {
        self.data.path().join("dev.gpucheckup.app/checkups.db")
    }

    /// The app's store, opened beside it, and the checkup stored under `title`.
    pub async fn stored(&self, title: &str) -> (checkup_store::Store, CheckupSummary) {
        let store = checkup_store::Store::open(&self.database())
            .await
            .expect("the app's SQLite file opens");
        let checkup = store
            .list()
            .await
            .expect("its checkups list")
            .into_iter()
            .find(|c| c.title == title)
            .unwrap_or_else(|| panic!("no checkup titled {title:?} is stored"));
        (store, checkup)
    }

    /// One WebDriver call, logged with the time since launch (what a hung CI run shows last)
    /// and bounded: a call that gets no answer fails the test naming the call.
    async fn call<T>(&self, what: &str, fut: impl Future<Output = Result<T, CmdError>>) -> T {
        match self.try_call(what, fut).await {
            Ok(v) => v,
            Err(e) => panic!(
                "{what}: {e}; the app shows the error {:?}",
                self.last_error()
            ),
        }
    }

    async fn try_call<T>(
        &self,
        what: &str,
        fut: impl Future<Output = Result<T, CmdError>>,
    ) -> Result<T, String> {
        eprintln!(
            "[e2e {:6.1} s] {what}",
            self.launched.elapsed().as_secs_f64()
        );
        match tokio::time::timeout(CALL_TIMEOUT, fut).await {
            Ok(Ok(v)) => Ok(v),
            Ok(Err(e)) => Err(e.to_string()),
            Err(_) => Err(format!("WebDriver gave no answer in {CALL_TIMEOUT:?}")),
        }
    }

    /// The error line last read by a poll (reading it anew could hang a failing test).
    fn last_error(&self) -> Option<String> {
        self.error_seen.lock().ok().and_then(|e| e.clone())
    }

    /// Waits for an element to be present. A live chart redraws its SVG ten times a second,
    /// so the element found can be replaced before WebKit hands it over ("stale element"):
    /// that is looked for again, until the same 30 s run out.
    pub async fn element(&self, css: &str) -> Element {
        let deadline = std::time::Instant::now() + Duration::from_secs(30);
        loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            let wait = self
                .client
                .wait()
                .at_most(left)
                .for_element(Locator::Css(css));
            match self.try_call(&format!("wait for {css}"), wait).await {
                Ok(element) => return element,
                Err(e) if e.to_ascii_lowercase().contains("stale element") && !left.is_zero() => {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
                Err(e) => panic!(
                    "wait for {css}: {e}; the app shows the error {:?}",
                    self.last_error()
                ),
            }
        }
    }

    /// Waits until no checkup is being opened (the main area's `aria-busy` is false), so the
    /// next click lands on what stays drawn.
    pub async fn settled(&self) {
        self.element("main[aria-busy='false']").await;
    }

    /// Moves the pointer over `css`, `dx` CSS pixels right of its centre (a person pointing
    /// at a chart).
    pub async fn point_at(&self, css: &str, dx: f64) {
        use fantoccini::actions::{InputSource, MouseActions, PointerAction};
        let element = self.element(css).await;
        let moves = MouseActions::new("pointer".into()).then(PointerAction::MoveToElement {
            element,
            duration: Some(Duration::from_millis(100)),
            x: dx,
            y: 0.0,
        });
        self.call(
            &format!("point at {css}"),
            self.client.perform_actions(moves),
        )
        .await;
    }

    /// Drags across `css` with the left button from `from_dx` to `to_dx` CSS pixels right of
    /// its centre.
    pub async fn drag_across(&self, css: &str, from_dx: f64, to_dx: f64) {
        use fantoccini::actions::{InputSource, MouseActions, PointerAction, MOUSE_BUTTON_LEFT};
        let element = self.element(css).await;
        let drag = MouseActions::new("pointer".into())
            .then(PointerAction::MoveToElement {
                element,
                duration: Some(Duration::from_millis(100)),
                x: from_dx,
                y: 0.0,
            })
            .then(PointerAction::Down {
                button: MOUSE_BUTTON_LEFT,
            })
            .then(PointerAction::MoveBy {
                duration: Some(Duration::from_millis(300)),
                x: to_dx - from_dx,
                y: 0.0,
            })
            .then(PointerAction::Up {
                button: MOUSE_BUTTON_LEFT,
            });
        self.call(
            &format!("drag across {css}"),
            self.client.perform_actions(drag),
        )
        .await;
    }

    pub async fn click(&self, css: &str) {
        let e = self.element(css).await;
        self.call(&format!("click {css}"), e.click()).await;
    }

    /// Replaces the text of an input.
    pub async fn type_into(&self, css: &str, text: &str) {
        let input = self.element(css).await;
        self.call(&format!("clear {css}"), input.clear()).await;
        self.call(&format!("type into {css}"), input.send_keys(text))
            .await;
    }

    pub async fn text(&self, css: &str) -> String {
        let e = self.element(css).await;
        self.call(&format!("text of {css}"), e.text()).await
    }

    /// An attribute of `css` now (empty when it has none).
    pub async fn attribute(&self, css: &str, name: &str) -> String {
        let e = self.element(css).await;
        self.call(&format!("{name} of {css}"), e.attr(name))
            .await
            .unwrap_or_default()
    }

    /// What an input holds now.
    pub async fn value(&self, css: &str) -> String {
        let e = self.element(css).await;
        self.call(&format!("value of {css}"), e.prop("value"))
            .await
            .unwrap_or_default()
    }

    /// Picks the option of a `<select>` with this label.
    pub async fn select(&self, css: &str, label: &str) {
        let e = self.element(css).await;
        self.call(
            &format!("select {label:?} in {css}"),
            e.select_by_label(label),
        )
        .await;
    }

    /// How many elements match now.
    pub async fn count(&self, css: &str) -> usize {
        let all = self.client.find_all(Locator::Css(css));
        self.try_call(&format!("count {css}"), all)
            .await
            .map(|v| v.len())
            .unwrap_or(0)
    }

    /// The text of `css` now; empty when absent.
    async fn text_now(&self, css: &str) -> String {
        let found = self.client.find(Locator::Css(css));
        match self.try_call(&format!("find {css}"), found).await {
            Ok(e) => self
                .try_call(&format!("text of {css}"), e.text())
                .await
                .unwrap_or_default(),
            Err(_) => String::new(),
        }
    }

    /// Polls until `check` says yes about the text of `css` (absent counts as empty) and
    /// returns that text; on timeout panics with what was there and the error the app shows.
    pub async fn wait_for_text(
        &self,
        css: &str,
        timeout: Duration,
        check: impl Fn(&str) -> bool,
    ) -> String {
        let deadline = Instant::now() + timeout;
        loop {
            let text = self.text_now(css).await;
            if check(&text) {
                return text;
            }
            let error = self.text_now("#error").await;
            if let Ok(mut seen) = self.error_seen.lock() {
                *seen = Some(error.clone()).filter(|e| !e.is_empty());
            }
            if Instant::now() > deadline {
                self.screenshot("timeout").await;
                panic!(
                    "{css:?} reads {text:?} after {timeout:?}; the app shows the error {error:?} (screen: timeout.png)"
                );
            }
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
    }

    /// Polls until at least `n` elements match.
    pub async fn wait_for_count(&self, css: &str, n: usize, timeout: Duration) -> usize {
        let deadline = Instant::now() + timeout;
        loop {
            let found = self.count(css).await;
            if found >= n {
                return found;
            }
            if Instant::now() > deadline {
                self.screenshot("timeout").await;
                panic!(
                    "{found} of {n} {css:?} after {timeout:?}; error shown: {:?} (screen: timeout.png)",
                    self.last_error()
                );
            }
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
    }

    /// Clicks the first element matching `css` whose text begins with `title` (a history
    /// entry by its name: "healthy (demo)" is not "gpt_healthy (demo)").
    pub async fn click_titled(&self, css: &str, title: &str) {
        self.click_first(css, &format!("titled {title:?}"), |text| {
            text.trim_start().starts_with(title)
        })
        .await
    }

    async fn click_first(&self, css: &str, what: &str, wanted: impl Fn(&str) -> bool) {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let all = self.client.find_all(Locator::Css(css));
            let mut seen = Vec::new();
            for e in self
                .try_call(&format!("find {css}"), all)
                .await
                .unwrap_or_default()
            {
                let text = self.try_call("text", e.text()).await.unwrap_or_default();
                if wanted(&text) {
                    self.call(&format!("click {css} {what}"), e.click()).await;
                    return;
                }
                seen.push(text);
            }
            assert!(
                Instant::now() < deadline,
                "no {css:?} {what}; there are {seen:?}"
            );
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
    }

    /// Saves a screenshot of the display (the app's window fills it) as `<name>.png` and
    /// checks it has the window's size. Taken from X rather than through WebDriver: WebKit's
    /// snapshot waits for a repaint, and an idle page may not paint again.
    /// Scrolls `css` to the top of the main area, just below the sticky step tabs, so a
    /// screenshot shows it.
    pub async fn scroll_to(&self, css: &str) {
        let element = self.element(css).await;
        self.call(
            &format!("scroll to {css}"),
            self.client.execute(
                "const e = arguments[0]; e.scrollIntoView({block: 'start'}); \
                 const main = e.closest('main'); if (main) { main.scrollTop -= 64; }",
                vec![serde_json::to_value(&element).expect("an element serialises")],
            ),
        )
        .await;
    }

    pub async fn screenshot(&self, name: &str) -> PathBuf {
        let path = self.artifacts.join(format!("{name}.png"));
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).expect("artifacts folder");
        }
        eprintln!(
            "[e2e {:6.1} s] screenshot {name}",
            self.launched.elapsed().as_secs_f64()
        );
        let status = Command::new("import")
            .args(["-display", &self.xvfb.display, "-window", "root"])
            .arg(&path)
            .status()
            .expect("ImageMagick's import runs (scripts/setup.sh installs imagemagick)");
        assert!(status.success(), "import failed for {}", path.display());
        let png = std::fs::read(&path).expect("screenshot written");
        let (w, h) = png_size(&png).expect("the screenshot is a PNG");
        assert_eq!(
            (w, h),
            (WIDTH, HEIGHT),
            "{} has the window's size",
            path.display()
        );
        path
    }

    /// Writes a review note under the finding `id` at the diagnosis step, as a person does,
    /// and returns the note as it is then shown under it.
    pub async fn add_note(&self, id: &str, author: &str, body: &str) -> String {
        let finding = format!(".finding[data-finding='{id}']");
        self.type_into(&format!("{finding} input.author"), author)
            .await;
        self.type_into(&format!("{finding} input.note-body"), body)
            .await;
        self.click(&format!("{finding} button.add-note")).await;
        self.wait_for_text(&format!("{finding} .note"), Duration::from_secs(15), |t| {
            !t.is_empty()
        })
        .await
    }

    /// `kill -9` of the app and everything it started, the way a crash or a power cut ends
    /// it: nothing is told to save. Returns the data folder it leaves, for [`App::relaunch`].
    pub fn kill(mut self) -> tempfile::TempDir {
        let processes = self.app_processes();
        assert!(!processes.is_empty(), "the app is running");
        for pid in processes {
            let _ = Command::new("kill")
                .args(["-KILL", &pid.to_string()])
                .status();
        }
        let gone = Instant::now();
        while !self.app_processes().is_empty() {
            assert!(
                gone.elapsed() < Duration::from_secs(10),
                "the app outlived SIGKILL"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        let empty = tempfile::tempdir().expect("a folder");
        std::mem::replace(&mut self.data, empty)
    }

    /// Ends the session, which closes the app; whatever is left of the driver, WebKitWebDriver
    /// and the app is stopped when dropped.
    pub async fn quit(self) {
        let _ = tokio::time::timeout(Duration::from_secs(5), self.client.clone().close()).await;
    }
}

impl Drop for App {
    fn drop(&mut self) {
        // The whole group: tauri-driver, WebKitWebDriver, the app (and the agent it started).
        let _ = Command::new("kill")
            .args(["-TERM", "--", &format!("-{}", self.driver.id())])
            .status();
        let _ = self.driver.wait();
    }
}

/// Width and height from a PNG's IHDR chunk.
pub fn png_size(png: &[u8]) -> Option<(u32, u32)> {
    if png.len() < 24 || &png[..8] != b"\x89PNG\r\n\x1a\n" || &png[12..16] != b"IHDR" {
        return None;
    }
    let w = u32::from_be_bytes(png[16..20].try_into().ok()?);
    let h = u32::from_be_bytes(png[20..24].try_into().ok()?);
    Some((w, h))
}

/// How many demo checkups the app imports on its first start: one per labelled corpus run
/// (the corpus is the app's bundled demo data).
pub fn demo_count() -> usize {
    let labels: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(
            checkup_testkit::workspace_root().join("tests/corpus/labels.json"),
        )
        .expect("tests/corpus/labels.json"),
    )
    .expect("labels.json is JSON");
    labels.as_object().map_or(0, |o| o.len())
}

/// The number before "samples" in a live progress line (0 when there is none).
pub fn samples_in(progress: &str) -> u64 {
    let words: Vec<&str> = progress.split_whitespace().collect();
    words
        .windows(2)
        .find(|w| w[1].starts_with("samples") || w[1].starts_with("个样本"))
        .and_then(|w| w[0].parse().ok())
        .unwrap_or(0)
}

/// Whether a file starts as a PDF does.
pub fn is_pdf(path: &Path) -> bool {
    std::fs::read(path).is_ok_and(|b| b.starts_with(b"%PDF-"))
}
