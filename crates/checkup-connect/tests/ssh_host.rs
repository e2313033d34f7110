//! An SSH host as the app meets one: a real `sshd` on a loopback port with throwaway keys,
//! reached with the system `ssh` through an ssh_config alias. The agent is uploaded, started,
//! forwarded and streamed through it; a dropped connection resumes without losing samples.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use checkup_connect::{ConnectError, SshAgent, SshTarget};
use common::{agent_binary, host_at_10_hz, take};

/// A throwaway sshd and a client config with alias `gpu-host` that reaches it.
struct TestSshd {
    dir: tempfile::TempDir,
    port: u16,
    child: Child,
}

fn keygen(path: &Path) {
    let ok = Command::new("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-N", "", "-f"])
        .arg(path)
        .status()
        .expect("ssh-keygen (openssh-client) installed");
    assert!(ok.success());
}

impl TestSshd {
    fn start() -> Self {
        let sshd = Path::new("/usr/sbin/sshd");
        assert!(
            sshd.exists(),
            "sshd missing: scripts/setup.sh installs openssh-server"
        );
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        keygen(&d.join("host_key"));
        keygen(&d.join("client_key"));
        keygen(&d.join("stranger_key"));
        std::fs::copy(d.join("client_key.pub"), d.join("authorized_keys")).unwrap();
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        // Run as root, sshd wants its privilege separation folder.
        let _ = std::fs::create_dir_all("/run/sshd");
        std::fs::write(
            d.join("sshd_config"),
            format!(
                "Port {port}\nListenAddress 127.0.0.1\nHostKey {d}/host_key\nAuthorizedKeysFile {d}/authorized_keys\nPidFile {d}/sshd.pid\n\
                 StrictModes no\nUsePAM no\nPasswordAuthentication no\nKbdInteractiveAuthentication no\nPubkeyAuthentication yes\n\
                 PermitRootLogin prohibit-password\nAllowTcpForwarding yes\n",
                d = d.display()
            ),
        )
        .unwrap();
        let child = Command::new(sshd)
            .args(["-D", "-e", "-f"])
            .arg(d.join("sshd_config"))
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let host_pub = std::fs::read_to_string(d.join("host_key.pub")).unwrap();
        std::fs::write(
            d.join("known_hosts"),
            format!("[127.0.0.1]:{port} {host_pub}"),
        )
        .unwrap();
        let user =
            String::from_utf8(Command::new("id").arg("-un").output().unwrap().stdout).unwrap();
        for (alias, key, known) in [
            ("gpu-host", "client_key", "known_hosts"),
            ("wrong-key", "stranger_key", "known_hosts"),
            ("unknown-host", "client_key", "no_known_hosts"),
        ] {
            let cfg = format!(
                "Host {alias}\n  HostName 127.0.0.1\n  Port {port}\n  User {user}\n  IdentityFile {d}/{key}\n  IdentitiesOnly yes\n  IdentityAgent none\n  UserKnownHostsFile {d}/{known}\n  StrictHostKeyChecking yes\n",
                user = user.trim(),
                d = d.display()
            );
            let mut all = std::fs::read_to_string(d.join("ssh_config")).unwrap_or_default();
            all.push_str(&cfg);
            std::fs::write(d.join("ssh_config"), all).unwrap();
        }
        // Ready when the port accepts connections.
        for _ in 0..100 {
            if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        Self { dir, port, child }
    }

    fn target(&self, alias: &str) -> SshTarget {
        let mut t: SshTarget = alias.parse().unwrap();
        t.config_file = Some(self.dir.path().join("ssh_config"));
        // The "remote" home is this machine's: keep the agent in the test's folder.
        t.remote_dir = self.remote_dir().display().to_string();
        t
    }

    fn remote_dir(&self) -> PathBuf {
        self.dir.path().join("remote")
    }
}

impl Drop for TestSshd {
    fn drop(&mut self) {
        let _ = self.child.kill();
        // The agent the test started on the "remote" host.
        if let Ok(text) = std::fs::read_to_string(self.remote_dir().join("agent.json")) {
            if let Ok(info) = serde_json::from_str::<checkup_model::ServeInfo>(&text) {
                let _ = Command::new("kill").arg(info.pid.to_string()).status();
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_ssh_host_gets_the_agent_uploaded_forwarded_and_streams_through_a_dropped_connection() {
    let sshd = TestSshd::start();
    let bin = agent_binary();
    let mut host = SshAgent::connect(sshd.target("gpu-host"), &bin)
        .await
        .expect("connects through sshd");
    assert!(
        host.log.iter().any(|l| l.starts_with("uploaded the agent")),
        "{:?}",
        host.log
    );
    assert!(
        host.log.iter().any(|l| l.starts_with("started the agent")),
        "{:?}",
        host.log
    );
    assert_eq!(
        std::fs::read(sshd.remote_dir().join("checkup-agent")).unwrap(),
        std::fs::read(&bin).unwrap(),
        "the uploaded agent is the bundled one"
    );
    let token_mode = std::os::unix::fs::PermissionsExt::mode(
        &std::fs::metadata(sshd.remote_dir().join("token"))
            .unwrap()
            .permissions(),
    );
    assert_eq!(token_mode & 0o777, 0o600);

    // The client talks to the agent through the forwarded local port, not the agent's own.
    assert_ne!(host.client.addr(), host.info.listening);
    let health = host.client.health().await.unwrap();
    assert_eq!(health.agent, env!("CARGO_PKG_VERSION"));

    host.client.start_sampling(&host_at_10_hz()).await.unwrap();
    let mut sub = host.client.samples(0).await.unwrap();
    let before = take(&mut sub, 4, Duration::from_secs(15)).await;
    let last = sub.last_seq();
    drop(sub);

    // The connection drops (the master ssh dies); the agent keeps sampling on the host.
    let killed = Command::new("pkill")
        .args(["-f", &format!("ssh .*-M -N .*{}", "gpu-host")])
        .status()
        .unwrap();
    assert!(
        killed.success(),
        "the master connection was found and killed"
    );
    tokio::time::sleep(Duration::from_millis(800)).await;
    assert!(
        host.client.health().await.is_err(),
        "the old forward is gone with the connection"
    );
    host.reconnect()
        .await
        .expect("reconnects and finds the same agent");
    let mut sub = host.client.samples(last).await.unwrap();
    let after = take(&mut sub, 6, Duration::from_secs(15)).await;
    let seqs: Vec<u64> = before.iter().chain(&after).map(|e| e.seq).collect();
    assert_eq!(
        seqs,
        (1..=10).collect::<Vec<_>>(),
        "every sample arrives once, in order"
    );
    host.client.stop_sampling().await.unwrap();
    drop(sub);

    // A second connection finds the same build running: no upload, no restart.
    let again = SshAgent::connect(sshd.target("gpu-host"), &bin)
        .await
        .unwrap();
    assert!(
        again
            .log
            .iter()
            .any(|l| l.starts_with("found the agent running")),
        "{:?}",
        again.log
    );
    assert!(
        !again.log.iter().any(|l| l.starts_with("uploaded")),
        "{:?}",
        again.log
    );
    let pid = again.info.pid;
    drop(host);
    again.disconnect().await;
    assert!(
        wait_until_gone(pid, Duration::from_secs(5)),
        "disconnect stops the remote agent"
    );
}

/// Whether process `pid` ended (or is a zombie nobody reaped: in containers without an init).
fn wait_until_gone(pid: u32, timeout: Duration) -> bool {
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
            Ok(_) => std::thread::sleep(Duration::from_millis(100)),
        }
    }
    false
}

#[tokio::test]
async fn ssh_failures_are_explained_in_plain_words() {
    let sshd = TestSshd::start();
    let bin = agent_binary();
    let e = SshAgent::connect(sshd.target("wrong-key"), &bin)
        .await
        .err()
        .unwrap();
    assert!(matches!(e, ConnectError::AuthRefused { .. }), "{e}");
    assert!(e.to_string().contains("ssh-copy-id"), "{e}");

    let e = SshAgent::connect(sshd.target("unknown-host"), &bin)
        .await
        .err()
        .unwrap();
    assert!(matches!(e, ConnectError::HostKey { .. }), "{e}");

    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut t = sshd.target("gpu-host");
    t.port = Some(closed);
    let e = SshAgent::connect(t, &bin).await.err().unwrap();
    assert!(matches!(e, ConnectError::Unreachable { .. }), "{e}");
    let _ = sshd.port;
}
