//! A throwaway Prometheus server on a loopback port (Debian's `prometheus` package) holding
//! the samples of OpenMetrics files, backfilled with `promtool tsdb create-blocks-from
//! openmetrics` as an operator backfills a server. It scrapes nothing and keeps its blocks
//! for a century, so recordings of any age stay queryable.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A running Prometheus server; stopped when dropped.
pub struct TestPrometheus {
    _dir: tempfile::TempDir,
    child: Child,
    /// `http://127.0.0.1:PORT`.
    pub url: String,
}

impl TestPrometheus {
    /// Backfills `openmetrics` files into a new storage folder and starts a server on it.
    pub fn start(openmetrics: &[&Path]) -> Self {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let data = dir.path().join("data");
        std::fs::create_dir_all(&data).unwrap();
        for file in openmetrics {
            let out = Command::new("promtool")
                .args(["tsdb", "create-blocks-from", "openmetrics", "--quiet"])
                .arg(file)
                .arg(&data)
                .output()
                .expect("promtool runs (scripts/setup.sh installs the prometheus package)");
            assert!(
                out.status.success(),
                "promtool could not backfill {}: {}",
                file.display(),
                String::from_utf8_lossy(&out.stderr)
            );
        }
        let config = dir.path().join("prometheus.yml");
        std::fs::write(
            &config,
            "global:\n  scrape_interval: 15s\nscrape_configs: []\n",
        )
        .unwrap();
        let port = crate::free_port();
        let child = Command::new("prometheus")
            .arg(format!("--config.file={}", config.display()))
            .arg(format!("--storage.tsdb.path={}", data.display()))
            .arg("--storage.tsdb.retention.time=100y")
            .arg(format!("--web.listen-address=127.0.0.1:{port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("prometheus runs (scripts/setup.sh installs the prometheus package)");
        let server = Self {
            _dir: dir,
            child,
            url: format!("http://127.0.0.1:{port}"),
        };
        server.wait_ready(port);
        server
    }

    /// Waits for `/-/ready`: the server answers queries only once it has loaded its blocks.
    fn wait_ready(&self, port: u16) {
        let deadline = Instant::now() + Duration::from_secs(60);
        while Instant::now() < deadline {
            if http_status(port, "/-/ready") == Some(200) {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        panic!("prometheus on port {port} was not ready within a minute");
    }
}

/// The status of a plain HTTP GET on loopback, without an HTTP client crate.
fn http_status(port: u16, path: &str) -> Option<u16> {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(2))).ok()?;
    write!(s, "GET {path} HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n").ok()?;
    let mut head = [0u8; 16];
    s.read_exact(&mut head).ok()?;
    std::str::from_utf8(&head[9..12]).ok()?.parse().ok()
}

impl Drop for TestPrometheus {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
