//! The `checkup` binary as scripts and CI use it.

use std::path::{Path, PathBuf};
use std::process::Command;

fn corpus(run: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus").join(run)
}

fn checkup(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_checkup")).args(args).output().unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap())
}

#[test]
fn analyze_json_has_the_stable_keys_scripts_rely_on() {
    let (code, out, err) = checkup(&["analyze", corpus("dataloader_starved").to_str().unwrap(), "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["primary"], "data_loading");
    let f = &v["findings"][0];
    for key in ["id", "severity", "confidence", "share", "evidence", "fixes"] {
        assert!(f.get(key).is_some(), "finding lacks `{key}`: {f}");
    }
    assert_eq!(f["id"], "data_loading");
    assert!(f["share"].as_f64().unwrap() > 0.8);
    assert!(f["evidence"][0]["metric"].is_string() && f["evidence"][0]["value"].is_number());
}

#[test]
fn analyze_text_leads_with_the_primary_finding_and_its_fix() {
    let (code, out, _) = checkup(&["analyze", corpus("h2d_pageable").to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(out.starts_with("PRIMARY: h2d_copy/pageable\n"), "{out}");
    assert!(out.contains("pin_memory=True"), "{out}");
}

#[test]
fn partner_run_adds_scaling_efficiency() {
    let (code, out, err) = checkup(&[
        "analyze",
        corpus("ddp_comm_bound").to_str().unwrap(),
        "--partner",
        corpus("wide_mlp_1gpu").to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["primary"], "communication");
    let eff = v["scaling"]["efficiency"].as_f64().unwrap();
    assert!((0.68..0.72).contains(&eff), "{eff}");
}

#[test]
fn errors_go_to_stderr_with_a_nonzero_exit() {
    let (code, out, err) = checkup(&["analyze", "/no/such/run"]);
    assert_ne!(code, 0);
    assert!(out.is_empty());
    assert!(err.starts_with("checkup: /no/such/run: "), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
}

#[test]
fn report_writes_markdown_and_escaped_html() {
    let dir = tempfile::tempdir().unwrap();
    let md = dir.path().join("r.md");
    let html = dir.path().join("r.html");
    let run = corpus("launch_bound");
    assert_eq!(checkup(&["report", run.to_str().unwrap(), "--format", "md", "-o", md.to_str().unwrap()]).0, 0);
    assert_eq!(checkup(&["report", run.to_str().unwrap(), "--format", "html", "-o", html.to_str().unwrap()]).0, 0);
    let md = std::fs::read_to_string(md).unwrap();
    assert!(md.contains("**Primary bottleneck: `kernel_launch`**"), "{md}");
    let html = std::fs::read_to_string(html).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert!(html.contains("<table>") && html.contains("kernel_launch"));
    assert!(!html.contains("<script"), "no raw HTML from traces");
}
