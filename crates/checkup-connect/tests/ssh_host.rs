//! An SSH host as the app meets one: a real `sshd` on a loopback port with throwaway keys,
//! reached with the system `ssh` through an ssh_config alias. The agent is uploaded, started,
//! forwarded and streamed through it; a dropped connection resumes without losing samples.

mod common;

use std::process::Command;
use std::time::Duration;

use checkup_connect::{ConnectError, SshAgent, SshTarget};
use checkup_testkit::{host_state_dir, wait_until_gone, TestSshd};
use common::{agent_binary, host_at_10_hz, take};

/// The test host's alias as the app would be given it, with the test's ssh_config and the
/// agent kept in the test's folder (the "remote" home is this machine's).
/// `s` as a literal in a `pkill -f` (extended regular expression) pattern.
fn regex_escape(s: &str) -> String {
    s.chars()
        .flat_map(|c| {
            let special = ".[]{}()\\*+?^$|".contains(c);
            special
                .then_some('\\')
                .into_iter()
                .chain(std::iter::once(c))
        })
        .collect()
}

fn target(sshd: &TestSshd, alias: &str) -> SshTarget {
    let mut t: SshTarget = alias.parse().unwrap();
    t.config_file = Some(sshd.config_file());
    t.remote_dir = sshd.remote_dir().display().to_string();
    t
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_ssh_host_gets_the_agent_uploaded_forwarded_and_streams_through_a_dropped_connection() {
    let sshd = TestSshd::start();
    let bin = agent_binary();
    let mut host = SshAgent::connect(target(&sshd, "gpu-host"), &bin)
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
        &std::fs::metadata(host_state_dir(&sshd.remote_dir()).join("token"))
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
    // Only this test's master, by its own sshd's config file: the other tests run beside it
    // against "gpu-host" too, and a pattern on the alias alone killed their masters as well
    // (one CI run in a few failed with "no message from ssh").
    let killed = Command::new("pkill")
        .args([
            "-f",
            &format!(
                "ssh .*-F {} -M -N .*gpu-host",
                regex_escape(&sshd.config_file().display().to_string())
            ),
        ])
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
    let again = SshAgent::connect(target(&sshd, "gpu-host"), &bin)
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

/// A GPU host where `pip install gpu-checkup` put `checkup-agent` on the PATH (a wheel's
/// scripts are its binaries, byte for byte): its sessions see that folder first.
fn host_with_pip_install(installed: &std::path::Path) -> (TestSshd, tempfile::TempDir) {
    let venv = tempfile::tempdir().unwrap();
    let bin = venv.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::copy(installed, bin.join("checkup-agent")).unwrap();
    let path = format!("{}:/usr/local/bin:/usr/bin:/bin", bin.display());
    let sshd = TestSshd::start_with_env(&[("PATH", std::path::Path::new(&path))]);
    (sshd, venv)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn this_app_s_build_installed_by_pip_on_the_host_is_copied_there_not_uploaded() {
    let bin = agent_binary();
    let (sshd, venv) = host_with_pip_install(&bin);
    let host = SshAgent::connect(target(&sshd, "gpu-host"), &bin)
        .await
        .expect("connects through sshd");
    let installed = venv.path().join("bin/checkup-agent");
    assert_eq!(
        host.log[0],
        format!(
            "copied the agent installed at {} (this app's build) to {}: nothing uploaded",
            installed.display(),
            sshd.remote_dir().display()
        )
    );
    assert!(!host.log.iter().any(|l| l.starts_with("uploaded")));
    assert_eq!(
        std::fs::read(sshd.remote_dir().join("checkup-agent")).unwrap(),
        std::fs::read(&bin).unwrap()
    );
    assert_eq!(
        host.client.health().await.unwrap().agent,
        env!("CARGO_PKG_VERSION")
    );
    host.disconnect().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_build_installed_by_pip_is_left_alone_and_this_app_s_uploaded() {
    let bin = agent_binary();
    // Any other file stands for another release's agent.
    let (sshd, venv) = host_with_pip_install(std::path::Path::new("/bin/true"));
    let host = SshAgent::connect(target(&sshd, "gpu-host"), &bin)
        .await
        .expect("connects through sshd");
    let installed = venv.path().join("bin/checkup-agent");
    assert_eq!(
        host.log[0],
        format!(
            "{} is another build of the agent than this app's ({v}: pip install gpu-checkup=={v} matches it); left as it is",
            installed.display(),
            v = env!("CARGO_PKG_VERSION")
        )
    );
    assert!(
        host.log[1].starts_with("uploaded the agent to "),
        "{:?}",
        host.log
    );
    assert_eq!(
        std::fs::read(&installed).unwrap(),
        std::fs::read("/bin/true").unwrap(),
        "the user's install is untouched"
    );
    host.disconnect().await;
}

#[tokio::test]
async fn ssh_failures_are_explained_in_plain_words() {
    let sshd = TestSshd::start();
    let bin = agent_binary();
    let e = SshAgent::connect(target(&sshd, "wrong-key"), &bin)
        .await
        .err()
        .unwrap();
    assert!(matches!(e, ConnectError::AuthRefused { .. }), "{e}");
    assert!(e.to_string().contains("ssh-copy-id"), "{e}");

    let e = SshAgent::connect(target(&sshd, "unknown-host"), &bin)
        .await
        .err()
        .unwrap();
    assert!(matches!(e, ConnectError::HostKey { .. }), "{e}");

    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut t = target(&sshd, "gpu-host");
    t.port = Some(closed);
    let e = SshAgent::connect(t, &bin).await.err().unwrap();
    assert!(matches!(e, ConnectError::Unreachable { .. }), "{e}");
}

/// Kills the process it holds when the test ends, passed or failed.
struct Bystander(std::process::Child);

impl Drop for Bystander {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_state_file_left_by_a_dead_agent_names_a_process_that_is_neither_trusted_nor_killed() {
    let sshd = TestSshd::start();
    let dir = sshd.remote_dir();
    std::fs::create_dir_all(&dir).unwrap();
    // An older build on the host, and its state file from before a reboot: the pid in it now
    // belongs to an unrelated process of the same user.
    std::fs::write(dir.join("checkup-agent"), b"an older build").unwrap();
    let mut bystander = Bystander(Command::new("sleep").arg("3600").spawn().unwrap());
    let pid = bystander.0.id();
    std::fs::create_dir_all(host_state_dir(&dir)).unwrap();
    std::fs::write(
        host_state_dir(&dir).join("agent.json"),
        format!(
            r#"{{"listening":"127.0.0.1:9","token_file":"/nonexistent/token","runs":"/nonexistent","pid":{pid},"agent":"0.0.1"}}"#
        ),
    )
    .unwrap();

    let host = SshAgent::connect(target(&sshd, "gpu-host"), &agent_binary())
        .await
        .expect("connects and starts a fresh agent");
    assert!(
        host.log.iter().any(|l| l.starts_with("started the agent")),
        "{:?}",
        host.log
    );
    assert!(
        !host.log.iter().any(|l| l.starts_with("stopped agent")),
        "nothing was stopped as another build: {:?}",
        host.log
    );
    assert_ne!(host.info.pid, pid);
    assert!(
        bystander.0.try_wait().unwrap().is_none(),
        "the unrelated process still runs"
    );
    let agent = host.info.pid;
    host.disconnect().await;
    assert!(wait_until_gone(agent, Duration::from_secs(5)));
    assert!(bystander.0.try_wait().unwrap().is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_apps_connecting_at_once_share_one_agent() {
    // Two apps (or a fleet's two entries for one host) reach a host with no agent at the
    // same moment: both upload and start one; one agent holds the runs folder, the other is
    // refused, and both apps end connected to the one that runs.
    let sshd = TestSshd::start();
    let bin = agent_binary();
    let (a, b) = tokio::join!(
        SshAgent::connect(target(&sshd, "gpu-host"), &bin),
        SshAgent::connect(target(&sshd, "gpu-host"), &bin)
    );
    let (a, b) = (
        a.expect("the first connects"),
        b.expect("the second connects"),
    );
    assert_eq!(a.info.pid, b.info.pid, "{:?} {:?}", a.log, b.log);
    assert_eq!(
        a.client.health().await.unwrap().agent,
        env!("CARGO_PKG_VERSION")
    );
    assert_eq!(
        b.client.health().await.unwrap().agent,
        env!("CARGO_PKG_VERSION")
    );
    assert_eq!(
        std::fs::read(sshd.remote_dir().join("checkup-agent")).unwrap(),
        std::fs::read(&bin).unwrap(),
        "the agent on the host is whole"
    );
    let pid = a.info.pid;
    drop(b);
    a.disconnect().await;
    assert!(wait_until_gone(pid, Duration::from_secs(5)));
}
