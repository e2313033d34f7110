//! A throwaway Slurm cluster of one node on loopback (Debian's `slurmctld`, `slurmd`,
//! `slurm-client` and `munge`): its own munge key and socket, its own ports, state and logs in a
//! temporary folder, the node named as the test's SSH alias (`NodeName=gpu-host`,
//! `NodeAddr=127.0.0.1`) so the host a job runs on is one the test can reach. Clients find it
//! through `SLURM_CONF` ([`TestSlurm::conf`]).

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A running controller and node; stopped when dropped.
pub struct TestSlurm {
    dir: tempfile::TempDir,
    daemons: Vec<Child>,
}

impl TestSlurm {
    /// Starts munge, the controller and one node called `node`, and waits until the node
    /// takes jobs.
    pub fn start(node: &str) -> Self {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let d = dir.path();
        for sub in ["state", "spool", "log", "munge"] {
            std::fs::create_dir_all(d.join(sub)).unwrap();
        }
        std::fs::set_permissions(
            d.join("munge"),
            std::os::unix::fs::PermissionsExt::from_mode(0o700),
        )
        .unwrap();
        let key: Vec<u8> = (0..1024u32).map(|i| (i * 7919 % 251) as u8).collect();
        std::fs::write(d.join("munge/munge.key"), key).unwrap();
        std::fs::set_permissions(
            d.join("munge/munge.key"),
            std::os::unix::fs::PermissionsExt::from_mode(0o400),
        )
        .unwrap();
        let mut daemons = Vec::new();
        let munge = d.join("munge");
        daemons.push(
            Command::new("munged")
                .arg("-F")
                .arg(format!("--key-file={}", munge.join("munge.key").display()))
                .arg(format!("--socket={}", munge.join("munge.sock").display()))
                .arg(format!("--pid-file={}", munge.join("munged.pid").display()))
                .arg(format!("--log-file={}", munge.join("munged.log").display()))
                .arg(format!("--seed-file={}", munge.join("seed").display()))
                .arg("--force")
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("munged runs (scripts/setup.sh installs munge)"),
        );
        wait_for(|| munge.join("munge.sock").exists(), "munged's socket");
        let (ctld_port, node_port) = (crate::free_port(), crate::free_port());
        let hostname = String::from_utf8(Command::new("hostname").output().unwrap().stdout)
            .unwrap()
            .trim()
            .to_owned();
        std::fs::write(
            d.join("slurm.conf"),
            format!(
                "ClusterName=checkuptest\nSlurmctldHost=localhost\nSlurmctldPort={ctld_port}\nSlurmdPort={node_port}\n\
                 AuthType=auth/munge\nAuthInfo=socket={munge}/munge.sock\nCryptoType=crypto/munge\n\
                 SlurmUser=root\nSlurmdUser=root\nStateSaveLocation={d}/state\nSlurmdSpoolDir={d}/spool/%n\n\
                 SlurmctldPidFile={d}/slurmctld.pid\nSlurmdPidFile={d}/slurmd-%n.pid\n\
                 SlurmctldLogFile={d}/log/slurmctld.log\nSlurmdLogFile={d}/log/slurmd-%n.log\n\
                 ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\nJobAcctGatherType=jobacct_gather/none\n\
                 AccountingStorageType=accounting_storage/none\nSchedulerType=sched/builtin\nSelectType=select/linear\n\
                 ReturnToService=2\nMpiDefault=none\nMinJobAge=300\n\
                 NodeName={node} NodeAddr=127.0.0.1 NodeHostname={hostname} CPUs=1 State=UNKNOWN\n\
                 PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP\n",
                munge = munge.display(),
                d = d.display()
            ),
        )
        .unwrap();
        let conf = d.join("slurm.conf");
        for (program, args) in [
            ("slurmctld", vec!["-D", "-c"]),
            ("slurmd", vec!["-D", "-N", node]),
        ] {
            daemons.push(
                Command::new(program)
                    .args(&args)
                    .env("SLURM_CONF", &conf)
                    .stdout(Stdio::null())
                    .stderr(Stdio::null())
                    .spawn()
                    .unwrap_or_else(|e| {
                        panic!("{program} runs (scripts/setup.sh installs Slurm): {e}")
                    }),
            );
        }
        let cluster = Self { dir, daemons };
        wait_for(
            || cluster.run("sinfo", &["-h", "-o", "%t"]).trim() == "idle",
            "the Slurm node to be idle",
        );
        cluster
    }

    /// The `slurm.conf` clients read (`SLURM_CONF`).
    pub fn conf(&self) -> PathBuf {
        self.dir.path().join("slurm.conf")
    }

    /// A Slurm client command's standard output (`sbatch`, `squeue`, `scontrol`, …).
    pub fn run(&self, program: &str, args: &[&str]) -> String {
        let out = Command::new(program)
            .args(args)
            .env("SLURM_CONF", self.conf())
            .output()
            .unwrap_or_else(|e| panic!("{program}: {e}"));
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Submits `script` as a batch job of one node and waits until it runs; its job id.
    pub fn submit_running(&self, script: &str) -> String {
        let id = self
            .run(
                "sbatch",
                &["--parsable", "-N1", "-o", "/dev/null", "--wrap", script],
            )
            .trim()
            .to_owned();
        assert!(!id.is_empty(), "sbatch gave no job id");
        wait_for(
            || self.run("squeue", &["-h", "-j", &id, "-o", "%T"]).trim() == "RUNNING",
            "the job to run",
        );
        id
    }

    /// The folder holding the cluster's files.
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }
}

fn wait_for(ready: impl Fn() -> bool, what: &str) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while Instant::now() < deadline {
        if ready() {
            return;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    panic!("waited 30 s for {what}");
}

impl Drop for TestSlurm {
    fn drop(&mut self) {
        let user = Command::new("id")
            .arg("-un")
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
            .unwrap_or_default();
        let _ = Command::new("scancel")
            .args(["-u", &user])
            .env("SLURM_CONF", self.conf())
            .status();
        // The node ends a cancelled job's processes (they are not its children): it must still
        // run until the queue is empty.
        let deadline = Instant::now() + Duration::from_secs(15);
        while Instant::now() < deadline && !self.run("squeue", &["-h"]).trim().is_empty() {
            std::thread::sleep(Duration::from_millis(200));
        }
        for d in self.daemons.iter_mut().rev() {
            let _ = d.kill();
            let _ = d.wait();
        }
    }
}
