//! A private X display for GUI tests: Xvfb picks a free display number itself and reports it
//! through `-displayfd`.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub struct Xvfb {
    child: Child,
    _dir: tempfile::TempDir,
    /// `:N`, for `DISPLAY`.
    pub display: String,
}

impl Xvfb {
    /// Starts Xvfb with one screen of `width`x`height` at 24 bits.
    pub fn start(width: u32, height: u32) -> Self {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let number_file = dir.path().join("display");
        // The shell opens fd 3 on the file (std's pipes are close-on-exec).
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(r#"exec Xvfb -displayfd 3 -screen 0 "$1" -nolisten tcp 3>"$2""#)
            .arg("xvfb")
            .arg(format!("{width}x{height}x24"))
            .arg(&number_file)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("sh runs");
        let deadline = Instant::now() + Duration::from_secs(10);
        let number = loop {
            let text = std::fs::read_to_string(&number_file).unwrap_or_default();
            if text.ends_with('\n') {
                break text.trim().to_string();
            }
            if Instant::now() > deadline || child.try_wait().ok().flatten().is_some() {
                let _ = child.kill();
                panic!("Xvfb did not start (scripts/setup.sh installs xvfb)");
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        Self {
            child,
            _dir: dir,
            display: format!(":{number}"),
        }
    }
}

impl Drop for Xvfb {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
