//! The agent as a user runs it on a machine without a GPU (CI): it says there is no driver,
//! still samples the host, runs commands with the probe injected, fails soft without torch,
//! and keeps the training command's output and exit code.

use std::path::Path;
use std::process::Command;

fn agent(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_checkup-agent"))
        .args(args)
        .output()
        .unwrap()
}

fn nvidia_driver_present() -> bool {
    Path::new("/proc/driver/nvidia/version").exists()
}

#[test]
fn the_probe_bookkeeping_passes_its_python_tests() {
    let probe = Path::new(env!("CARGO_MANIFEST_DIR")).join("probe");
    let out = Command::new("python3")
        .args(["-m", "unittest", "-v", "test_checkup_probe"])
        .current_dir(&probe)
        .output()
        .expect("python3");
    let log = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{log}");
    // Every test class ran (step window, appended files, sync sites, flat bookkeeping).
    let ran: usize = log
        .split("Ran ")
        .nth(1)
        .and_then(|r| r.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    assert!(ran >= 24, "{ran} tests ran:\n{log}");
}

#[test]
fn check_without_a_driver_says_so_and_still_checks_the_host() {
    if nvidia_driver_present() {
        return;
    }
    let out = agent(&["check", "--json"]);
    assert!(out.status.success());
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let checks = report["checks"].as_array().unwrap();
    let driver = checks.iter().find(|c| c["id"] == "nvidia_driver").unwrap();
    assert_eq!(driver["status"], "fail");
    // What the system said, kept verbatim.
    assert_eq!(driver["value"]["seen"], "system", "{driver}");
    assert!(
        driver["value"]["message"]
            .as_str()
            .unwrap()
            .starts_with("no NVIDIA driver"),
        "{driver}"
    );
    let shm = checks.iter().find(|c| c["id"] == "dev_shm").unwrap();
    assert!(shm["value"]["gib"].as_f64().unwrap() > 0.0, "{shm}");
    assert!(checks.iter().any(|c| c["id"] == "disk_free"));
}

#[test]
fn run_keeps_the_commands_output_and_exit_code_and_records_the_host() {
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("run");
    let script =
        "import sys, time\nprint('epoch 1 loss 0.5', flush=True)\ntime.sleep(2.2)\nsys.exit(3)\n";
    let out = agent(&[
        "run",
        "-o",
        out_dir.to_str().unwrap(),
        "--hz",
        "20",
        "--",
        "python3",
        "-c",
        script,
    ]);
    assert_eq!(
        out.status.code(),
        Some(3),
        "the training command's exit code"
    );
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("epoch 1 loss 0.5"),
        "training output stays visible"
    );
    let meta: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out_dir.join("meta.json")).unwrap()).unwrap();
    assert_eq!(meta["command"][0], "python3");
    assert_eq!(meta["profile_steps"], serde_json::json!([10, 17]));
    let host = std::fs::read_to_string(out_dir.join("samples_host.csv")).unwrap();
    assert!(
        host.starts_with("ts,cpu_total_pct,proc_tree_cpu_pct,proc_tree_rss_mib,"),
        "{host}"
    );
    assert!(host.lines().count() >= 2, "{host}");
    if !nvidia_driver_present() {
        let notes = meta["sampler_notes"].as_array().unwrap();
        assert!(
            notes
                .iter()
                .any(|n| n.as_str().unwrap().starts_with("no NVIDIA driver")),
            "{meta}"
        );
    }
    // The engine reads what the agent wrote.
    let rec = checkup_engine::ingest::load(std::slice::from_ref(&out_dir)).unwrap();
    assert!(!rec.samples.host.is_empty());
    assert!(
        !out_dir.join(".checkup-probe").exists(),
        "the injected probe is removed afterwards"
    );
}

#[test]
fn without_torch_the_probe_steps_aside_and_reports_why() {
    let no_torch = checkup_testkit::unimportable_torch();
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("run");
    let out = Command::new(env!("CARGO_BIN_EXE_checkup-agent"))
        .args(["run", "-o", out_dir.to_str().unwrap(), "--"])
        .args(["python3", "-c", "print('trained')"])
        .env("PYTHONPATH", no_torch.path())
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("trained"));
    let status: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out_dir.join("probe_status.json")).unwrap())
            .unwrap();
    assert_eq!(status["ok"], false);
    assert!(
        status["error"]
            .as_str()
            .unwrap()
            .contains("torch could not be imported"),
        "{status}"
    );
    // Said in words, not only in the JSON.
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("the profiling probe did not attach (torch could not be imported"),
        "{stderr}"
    );
}

#[test]
fn an_existing_sitecustomize_still_runs_after_the_probe() {
    let dir = tempfile::tempdir().unwrap();
    let user_site = dir.path().join("user_site");
    std::fs::create_dir_all(&user_site).unwrap();
    std::fs::write(
        user_site.join("sitecustomize.py"),
        "import os\nos.environ['USER_SITE_RAN'] = 'yes'\n",
    )
    .unwrap();
    let out_dir = dir.path().join("run");
    let out = Command::new(env!("CARGO_BIN_EXE_checkup-agent"))
        .args([
            "run",
            "-o",
            out_dir.to_str().unwrap(),
            "--",
            "python3",
            "-c",
            "import os; print('user site:', os.environ.get('USER_SITE_RAN'))",
        ])
        .env("PYTHONPATH", &user_site)
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("user site: yes"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[test]
fn a_missing_command_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let out = agent(&[
        "run",
        "-o",
        dir.path().to_str().unwrap(),
        "--",
        "/no/such/trainer",
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with("checkup-agent: cannot start `/no/such/trainer`:"),
        "{err}"
    );
}

#[test]
fn sample_writes_host_rows_for_the_requested_time() {
    let dir = tempfile::tempdir().unwrap();
    let out = agent(&[
        "sample",
        "-o",
        dir.path().to_str().unwrap(),
        "--seconds",
        "1.2",
        "--hz",
        "10",
        "--slow-hz",
        "5",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value =
        serde_json::from_slice(out.stderr.split(|b| *b == b'\n').next().unwrap()).unwrap();
    let ticks = report["ticks"].as_u64().unwrap();
    assert!((10..=14).contains(&ticks), "{report}");
    let rows =
        checkup_recording::samples::read_host_csv(&dir.path().join("samples_host.csv")).unwrap();
    assert!(rows.len() >= 2);
    assert!(rows[0].per_core_pct.len() as u32 >= 1);
}

#[test]
fn attaching_by_gpu_without_a_driver_says_why() {
    if nvidia_driver_present() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = agent(&[
        "sample",
        "-o",
        dir.path().to_str().unwrap(),
        "--gpu",
        "0",
        "--seconds",
        "0.1",
    ]);
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).starts_with("checkup-agent: no NVIDIA driver"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn summarize_writes_each_ranks_summary_and_refuses_a_run_without_traces() {
    let dir = tempfile::tempdir().unwrap();
    let corpus =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus/two_node_slow_rank");
    let node1 = dir.path().join("node1");
    std::fs::create_dir_all(&node1).unwrap();
    for rank in ["rank2", "rank3"] {
        std::fs::create_dir_all(node1.join(rank)).unwrap();
        std::fs::copy(
            corpus.join("node1").join(rank).join("trace.json.gz"),
            node1.join(rank).join("trace.json.gz"),
        )
        .unwrap();
    }
    let out = agent(&["summarize", node1.to_str().unwrap()]);
    assert!(out.status.success(), "{out:?}");
    let said = String::from_utf8_lossy(&out.stdout);
    assert_eq!(said.lines().count(), 2, "{said}");
    assert!(said.starts_with("rank 2: "), "{said}");
    assert!(said.contains("rank3/trace.json.gz (0.1 MB) -> "), "{said}");
    for rank in ["rank2", "rank3"] {
        let summary = checkup_recording::trace_summary::read_trace_summary(
            &node1.join(rank).join("trace_summary.json"),
        )
        .unwrap();
        assert_eq!(summary.world_size, Some(4));
    }

    let empty = dir.path().join("empty");
    std::fs::create_dir_all(empty.join("rank0")).unwrap();
    let out = agent(&["summarize", empty.to_str().unwrap()]);
    assert!(!out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim_end(),
        format!("checkup-agent: {}: no trace to summarise (rankN/trace.json.gz or *.pt.trace.json.gz): was the run profiled (--profile-steps)?", empty.display())
    );
}
