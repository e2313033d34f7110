//! `checkup gather` against a real `sshd` on loopback (the "remote" home is this machine's):
//! a two-host job's run folders come back with each rank's summary instead of its trace,
//! plus the trace of the rank the diagnosis follows, and read as the same checkup.

mod common;

use std::path::{Path, PathBuf};

use checkup_testkit::{copy_dir, corpus, TestSshd};
use common::checkup;

/// The two-node job on the "hosts", each node's traces summarised as `checkup-agent run`
/// leaves them.
fn job_on_hosts(sshd: &TestSshd) -> PathBuf {
    let job = sshd.remote_dir().join("job");
    for node in ["node0", "node1"] {
        copy_dir(&corpus("two_node_slow_rank").join(node), &job.join(node));
        checkup_engine::ingest::summarize_run(&job.join(node)).unwrap();
    }
    job
}

fn gather(sshd: &TestSshd, sources: &[String], out: &Path, more: &[&str]) -> (i32, String, String) {
    let config = sshd.config_file();
    let mut args = vec!["gather", "--ssh-config", config.to_str().unwrap()];
    args.extend(sources.iter().map(String::as_str));
    args.extend(["-o", out.to_str().unwrap()]);
    args.extend(more);
    checkup(&args)
}

fn json(path: &Path) -> serde_json::Value {
    let (code, out, err) = checkup(&["analyze", "--json", path.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(&out).unwrap()
}

#[test]
fn a_job_comes_back_as_summaries_and_the_followed_ranks_trace() {
    let sshd = TestSshd::start();
    let job = job_on_hosts(&sshd);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("gathered");
    let sources: Vec<String> = ["node0", "node1"]
        .iter()
        .map(|n| format!("gpu-host:{}", job.join(n).display()))
        .collect();
    let (code, said, err) = gather(&sshd, &sources, &out, &[]);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = said.lines().collect();
    assert_eq!(
        lines[0],
        format!(
            "{} -> {}: 16 files, 0.06 MB; the traces of ranks 0–1 (0.23 MB) stay there, their summaries came",
            sources[0],
            out.join("gpu-host").display()
        )
    );
    assert!(
        lines[1].ends_with(
            ": 17 files, 0.17 MB; the trace of rank 2 (0.11 MB) stays there, its summary came"
        ),
        "{said}"
    );
    assert_eq!(
        lines[2],
        "2 hosts: 0.23 MB copied, 0.34 MB of traces left on the hosts."
    );
    assert_eq!(
        lines[3],
        "Copied the trace of rank 3, the rank the diagnosis follows."
    );
    assert_eq!(
        lines[4],
        format!(
            "Next: checkup analyze {0}   (or checkup report {0} -o report.pdf)",
            out.display()
        )
    );
    // Rank 3's trace came whole; the others stayed on their hosts.
    assert_eq!(
        std::fs::read(out.join("gpu-host-2/rank3/trace.json.gz")).unwrap(),
        std::fs::read(job.join("node1/rank3/trace.json.gz")).unwrap()
    );
    for rank in ["gpu-host/rank0", "gpu-host/rank1", "gpu-host-2/rank2"] {
        assert!(!out.join(rank).join("trace.json.gz").exists(), "{rank}");
        assert!(
            out.join(rank).join("trace_summary.json").is_file(),
            "{rank}"
        );
    }

    // The gathered job is the same checkup as the job with every trace.
    let gathered = json(&out);
    let whole = json(&corpus("two_node_slow_rank"));
    assert_eq!(gathered["primary"], "communication/straggler");
    for key in [
        "primary",
        "diagnosed_rank",
        "findings",
        "step_timing",
        "headline",
    ] {
        assert_eq!(gathered[key], whole[key], "{key}");
    }
    let notes = gathered["notes"].to_string();
    assert!(
        notes.contains(
            r#"{"note":"traces_summarised_on_hosts","ranks":[0,1,2],"trace_bytes":344627}"#
        ),
        "{notes}"
    );
}

#[test]
fn every_trace_comes_when_asked_and_nothing_is_overwritten() {
    let sshd = TestSshd::start();
    let job = job_on_hosts(&sshd);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("all");
    let source = vec![format!("gpu-host:{}", job.join("node1").display())];
    let (code, said, err) = gather(&sshd, &source, &out, &["--all-traces"]);
    // One host of two: the job misses ranks 0 and 1, and says so after what it copied.
    assert_eq!(code, 1, "{said}{err}");
    assert!(said.starts_with(&format!("{} -> ", source[0])), "{said}");
    assert!(said.contains(": 18 files, 0.29 MB\n"), "{said}");
    assert!(
        err.contains("the run has 4 ranks but no trace for rank0, rank1"),
        "{err}"
    );
    assert!(out.join("gpu-host/rank2/trace.json.gz").is_file());

    let (code, _, err) = gather(&sshd, &source, &out, &[]);
    assert_eq!(code, 1);
    assert_eq!(
        err.trim_end(),
        format!(
            "checkup: {} is not empty: gather into a new folder (nothing in it is overwritten)",
            out.display()
        )
    );
}

#[test]
fn a_wrong_folder_or_host_is_named_with_what_to_do() {
    let sshd = TestSshd::start();
    let job = job_on_hosts(&sshd);
    let dir = tempfile::tempdir().unwrap();
    let missing = format!("gpu-host:{}", job.join("node9").display());
    let (code, _, err) = gather(
        &sshd,
        std::slice::from_ref(&missing),
        &dir.path().join("a"),
        &[],
    );
    assert_eq!(code, 1);
    assert!(
        err.starts_with(&format!("checkup: {missing}: no such folder on the host (")),
        "{err}"
    );

    let not_a_run = format!("gpu-host:{}", job.display());
    let (_, _, err) = gather(
        &sshd,
        std::slice::from_ref(&not_a_run),
        &dir.path().join("b"),
        &[],
    );
    assert_eq!(
        err.trim_end(),
        format!("checkup: {not_a_run}: not a run folder of checkup-agent (no meta.json): give the folder `checkup-agent run -o` wrote on that host")
    );

    let refused = format!("wrong-key:{}", job.join("node0").display());
    let (_, _, err) = gather(&sshd, &[refused], &dir.path().join("c"), &[]);
    assert!(
        err.starts_with("checkup: wrong-key refused the login: "),
        "{err}"
    );

    let (_, _, err) = gather(&sshd, &["gpu-host".into()], &dir.path().join("d"), &[]);
    assert_eq!(
        err.trim_end(),
        "checkup: `gpu-host` is not a host's run folder: there is no ':'. Write it as scp does, HOST:PATH (e.g. gpu-a:/scratch/run)"
    );
}

#[test]
fn a_slurm_job_is_found_on_its_login_host_and_its_nodes_folders_gathered() {
    // A real controller and node, the node named as the test's SSH alias; the login host's
    // sessions find the cluster through SLURM_CONF, as a cluster's profile sets it.
    let slurm = checkup_testkit::TestSlurm::start("gpu-host");
    let conf = slurm.conf();
    let sshd = TestSshd::start_with_env(&[("SLURM_CONF", conf.as_path())]);
    let run = sshd.remote_dir().join("job/node0");
    copy_dir(&corpus("ddp_resnet50"), &run);
    checkup_engine::ingest::summarize_run(&run).unwrap();
    let job = slurm.submit_running("sleep 120");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("gathered");
    let template = format!("{}/job/node{{node}}", sshd.remote_dir().display());
    let config = sshd.config_file();
    let (code, said, err) = checkup(&[
        "gather",
        "--ssh-config",
        config.to_str().unwrap(),
        "--slurm",
        &job,
        "--login",
        "gpu-host",
        &template,
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{said}{err}");
    let lines: Vec<&str> = said.lines().collect();
    assert_eq!(
        lines[0],
        format!("Slurm job {job} (RUNNING) ran on 1 node: gpu-host")
    );
    assert_eq!(
        lines[1],
        "It is still running: each node's folder is complete, its traces summarised, once the job ends."
    );
    assert!(
        lines[2].starts_with(&format!(
            "gpu-host:{} -> {}: ",
            run.display(),
            out.join("gpu-host").display()
        )),
        "{said}"
    );
    assert_eq!(
        json(&out)["primary"],
        json(&corpus("ddp_resnet50"))["primary"]
    );

    let (code, _, err) = checkup(&[
        "gather",
        "--ssh-config",
        config.to_str().unwrap(),
        "--slurm",
        "999999",
        "--login",
        "gpu-host",
        &template,
        "-o",
        dir.path().join("none").to_str().unwrap(),
    ]);
    assert_eq!(code, 1);
    assert!(
        err.starts_with("checkup: Slurm job 999999 on gpu-host: the controller does not know the job (slurm_load_jobs error: Invalid job id specified) and the accounting has no record of it ("),
        "{err}"
    );
    assert!(
        err.trim_end()
            .ends_with("): give each node's run folder as HOST:PATH"),
        "{err}"
    );

    let (_, _, err) = checkup(&[
        "gather",
        "--ssh-config",
        config.to_str().unwrap(),
        "--slurm",
        "42;reboot",
        "--login",
        "gpu-host",
        &template,
        "-o",
        dir.path().join("bad").to_str().unwrap(),
    ]);
    assert_eq!(
        err.trim_end(),
        "checkup: Slurm job 42;reboot on gpu-host: a Slurm job id is a number (e.g. 4242, or 4242_3 for an array task)"
    );
}
