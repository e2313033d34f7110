//! Real components for tests, shared by the connection tests and the app's end-to-end tests:
//! a throwaway `sshd` on a loopback port ([`TestSshd`]), the workspace's binaries built by
//! cargo so a test runs the current code ([`workspace_binary`]), an Xvfb display
//! ([`Xvfb`]), a Prometheus server holding backfilled samples ([`TestPrometheus`]), free
//! loopback ports, the memory of a process tree, and a Python path on
//! which torch cannot be imported ([`unimportable_torch`]).

mod binaries;
mod files;
mod processes;
mod prometheus;
mod slurm;
mod sshd;
mod xvfb;

pub use binaries::{
    shipped_app, target_dir, workspace_binary, workspace_release_binary, workspace_root,
};
pub use files::{copy_dir, corpus};
pub use processes::{descendants, memory_of, Memory};
pub use prometheus::TestPrometheus;
pub use slurm::TestSlurm;
pub use sshd::{host_state_dir, TestSshd};
pub use xvfb::Xvfb;

/// A TCP port free on 127.0.0.1 right now.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("binding an ephemeral loopback port")
}

/// Waits until something accepts connections on `127.0.0.1:port`.
pub fn wait_for_port(port: u16, timeout: std::time::Duration) -> bool {
    let deadline = std::time::Instant::now() + timeout;
    while std::time::Instant::now() < deadline {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return true;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    false
}

/// Whether process `pid` ended (or is a zombie nobody reaped: in containers without an init).
pub fn wait_until_gone(pid: u32, timeout: std::time::Duration) -> bool {
    let deadline = std::time::Instant::now() + timeout;
    while std::time::Instant::now() < deadline {
        match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
            Err(_) => return true,
            Ok(stat)
                if stat
                    .rsplit(')')
                    .next()
                    .is_some_and(|rest| rest.trim_start().starts_with('Z')) =>
            {
                return true
            }
            Ok(_) => std::thread::sleep(std::time::Duration::from_millis(100)),
        }
    }
    false
}

/// A folder holding a `torch` package whose import fails: first on `PYTHONPATH`, it makes
/// "torch is missing" happen on any machine, with or without a real torch.
pub fn unimportable_torch() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary folder");
    std::fs::create_dir(dir.path().join("torch")).expect("torch/ in it");
    std::fs::write(
        dir.path().join("torch/__init__.py"),
        "raise ImportError('no torch on this machine (test)')\n",
    )
    .expect("torch/__init__.py");
    dir
}
