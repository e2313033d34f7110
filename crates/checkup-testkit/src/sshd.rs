//! A throwaway `sshd` on a loopback port with its own host key, and an ssh_config whose
//! aliases reach it: `gpu-host` (a key it accepts), `node-1` to `node-3` (the same, as a
//! fleet's hosts), `wrong-key` (a key it refuses) and `unknown-host` (no known_hosts
//! entry). The "remote" home is this machine's, so callers keep the agent in
//! [`TestSshd::remote_dir`].

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

pub struct TestSshd {
    dir: tempfile::TempDir,
    pub port: u16,
    child: Child,
}

fn keygen(path: &Path) {
    let ok = Command::new("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-N", "", "-f"])
        .arg(path)
        .status()
        .expect("ssh-keygen (openssh-client) installed");
    assert!(ok.success(), "ssh-keygen failed for {}", path.display());
}

impl TestSshd {
    pub fn start() -> Self {
        Self::start_with_env(&[])
    }

    /// An sshd whose sessions get these environment variables (`SetEnv`), as a login host's
    /// profile would set them (`SLURM_CONF` for a test cluster).
    pub fn start_with_env(env: &[(&str, &Path)]) -> Self {
        let sshd = Path::new("/usr/sbin/sshd");
        assert!(
            sshd.exists(),
            "sshd missing: scripts/setup.sh installs openssh-server"
        );
        let dir = tempfile::tempdir().expect("a temporary folder");
        let d = dir.path();
        keygen(&d.join("host_key"));
        keygen(&d.join("client_key"));
        keygen(&d.join("stranger_key"));
        std::fs::copy(d.join("client_key.pub"), d.join("authorized_keys")).unwrap();
        let port = crate::free_port();
        // Run as root, sshd wants its privilege separation folder.
        let _ = std::fs::create_dir_all("/run/sshd");
        std::fs::write(
            d.join("sshd_config"),
            format!(
                "Port {port}\nListenAddress 127.0.0.1\nHostKey {d}/host_key\nAuthorizedKeysFile {d}/authorized_keys\nPidFile {d}/sshd.pid\n\
                 StrictModes no\nUsePAM no\nPasswordAuthentication no\nKbdInteractiveAuthentication no\nPubkeyAuthentication yes\n\
                 PermitRootLogin prohibit-password\nAllowTcpForwarding yes\n{set_env}",
                d = d.display(),
                set_env = env
                    .iter()
                    .map(|(k, v)| format!("SetEnv {k}={}\n", v.display()))
                    .collect::<String>()
            ),
        )
        .unwrap();
        let child = Command::new(sshd)
            .args(["-D", "-e", "-f"])
            .arg(d.join("sshd_config"))
            .stderr(Stdio::null())
            .spawn()
            .expect("sshd starts");
        let host_pub = std::fs::read_to_string(d.join("host_key.pub")).unwrap();
        std::fs::write(
            d.join("known_hosts"),
            format!("[127.0.0.1]:{port} {host_pub}"),
        )
        .unwrap();
        let user =
            String::from_utf8(Command::new("id").arg("-un").output().unwrap().stdout).unwrap();
        let mut config = String::new();
        for (alias, key, known) in [
            ("gpu-host", "client_key", "known_hosts"),
            // The nodes of a fleet: the same machine under three names.
            ("node-1", "client_key", "known_hosts"),
            ("node-2", "client_key", "known_hosts"),
            ("node-3", "client_key", "known_hosts"),
            ("wrong-key", "stranger_key", "known_hosts"),
            ("unknown-host", "client_key", "no_known_hosts"),
        ] {
            config.push_str(&format!(
                "Host {alias}\n  HostName 127.0.0.1\n  Port {port}\n  User {user}\n  IdentityFile {d}/{key}\n  IdentitiesOnly yes\n  IdentityAgent none\n  UserKnownHostsFile {d}/{known}\n  StrictHostKeyChecking yes\n",
                user = user.trim(),
                d = d.display()
            ));
        }
        std::fs::write(d.join("ssh_config"), config).unwrap();
        assert!(
            crate::wait_for_port(port, Duration::from_secs(5)),
            "sshd did not listen on port {port}"
        );
        Self { dir, port, child }
    }

    /// The client configuration with the aliases (for `ssh -F`).
    pub fn config_file(&self) -> PathBuf {
        self.dir.path().join("ssh_config")
    }

    /// Where the agent goes on the "remote" host, inside this test's folder.
    pub fn remote_dir(&self) -> PathBuf {
        self.dir.path().join("remote")
    }
}

/// The folder of this host's agent state (state file, token, runs, log) inside an agent
/// folder `dir`: `hosts/<host name>`, as the app keeps it.
pub fn host_state_dir(dir: &Path) -> PathBuf {
    let name = Command::new("uname")
        .arg("-n")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .unwrap_or_default();
    dir.join("hosts").join(name)
}

impl Drop for TestSshd {
    fn drop(&mut self) {
        let _ = self.child.kill();
        // The agent the test started on the "remote" host writes its pid into agent.json.
        if let Ok(text) =
            std::fs::read_to_string(host_state_dir(&self.remote_dir()).join("agent.json"))
        {
            if let Some(pid) = json_pid(&text) {
                let _ = Command::new("kill").arg(pid.to_string()).status();
            }
        }
    }
}

/// The `pid` field of the agent's agent.json.
fn json_pid(text: &str) -> Option<u64> {
    serde_json::from_str::<serde_json::Value>(text).ok()?["pid"].as_u64()
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_agent_pid_is_read_from_its_state_file() {
        assert_eq!(
            super::json_pid(r#"{"listening":"127.0.0.1:1","pid": 4242,"agent":"0.1.0"}"#),
            Some(4242)
        );
        assert_eq!(super::json_pid("{}"), None);
    }
}
