//! The `checkup` binary as scripts and CI use it.

mod common;

use common::checkup;

use std::path::{Path, PathBuf};

fn corpus(run: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/corpus")
        .join(run)
}

#[test]
fn analyze_json_has_the_stable_keys_scripts_rely_on() {
    let (code, out, err) = checkup(&[
        "analyze",
        corpus("dataloader_starved").to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["primary"], "data_loading");
    let f = &v["findings"][0];
    for key in ["id", "severity", "confidence", "share", "evidence", "fixes"] {
        assert!(f.get(key).is_some(), "finding lacks `{key}`: {f}");
    }
    assert_eq!(f["id"], "data_loading");
    assert!(f["share"].as_f64().unwrap() > 0.8);
    assert!(f["evidence"][0]["key"].is_string() && f["evidence"][0]["value"].is_number());
}

#[test]
fn analyze_json_carries_the_gains_the_report_promises() {
    let (code, out, err) = checkup(&[
        "analyze",
        corpus("dataloader_starved").to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let f = &v["findings"][0];
    // About 458 ms per step now, 42.8 ms without the wait for data (the report's words).
    let before = f["gain"]["before_ms"].as_f64().unwrap();
    let after = f["gain"]["after_ms"].as_f64().unwrap();
    assert!(
        (before - 458.2).abs() < 0.1 && (after - 42.8).abs() < 0.1,
        "{f}"
    );
    assert_eq!(f["gain"]["basis"], "unprofiled_steps");
    // More workers, 14 for the run's 2, each as fast, make a batch every 65.5 ms at best:
    // still slower than the loop, so that is their gain; pinned memory beside them has no
    // number of its own.
    assert_eq!(f["fixes"][0]["fix"], "more_workers");
    let more = &f["fixes"][0]["gain"];
    assert!(
        (more["after_ms"].as_f64().unwrap() - 458.2 * 2.0 / 14.0).abs() < 0.1,
        "{more}"
    );
    let pace = &more["reach"]["workers_pace"];
    assert_eq!(
        (pace["workers_now"].as_u64(), pace["workers_after"].as_u64()),
        (Some(2), Some(14)),
        "{more}"
    );
    assert_eq!(f["fixes"][1]["fix"], "pin_memory");
    assert!(f["fixes"][1].get("gain").is_none(), "{f}");
    // What to do first: that fix, pointed at by index.
    let plan = &v["plan"][0];
    assert_eq!(
        (plan["finding"].as_u64(), plan["fix"].as_u64()),
        (Some(0), Some(0))
    );
    assert_eq!(plan["gain"], f["fixes"][0]["gain"]);
}

#[test]
fn analyze_text_leads_with_the_primary_finding_and_its_fix() {
    let (code, out, _) = checkup(&["analyze", corpus("h2d_pageable").to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(
        out.starts_with("Primary bottleneck: h2d_copy/pageable\n"),
        "{out}"
    );
    assert!(out.contains("pin_memory=True"), "{out}");
}

#[test]
fn analyze_text_reads_in_chinese_with_the_same_numbers() {
    let run = corpus("dataloader_starved");
    let (code, en, _) = checkup(&["analyze", run.to_str().unwrap()]);
    assert_eq!(code, 0);
    let (code, zh, err) = checkup(&["analyze", run.to_str().unwrap(), "--lang", "zh"]);
    assert_eq!(code, 0, "{err}");
    assert!(zh.starts_with("主要瓶颈：data_loading\n"), "{zh}");
    assert!(zh.contains("输入管线（DataLoader）让 GPU 挨饿"), "{zh}");
    assert!(
        zh.contains("# 原为 2"),
        "the fix quotes the run's 2 workers: {zh}"
    );
    assert!(!zh.contains("The GPU waits"), "{zh}");
    // Every number of the English view is in the Chinese one.
    let numbers = |s: &str| {
        s.split(|c: char| !(c.is_ascii_digit() || c == '.'))
            .filter(|w| w.contains('.'))
            .map(str::to_owned)
            .collect::<std::collections::BTreeSet<_>>()
    };
    assert_eq!(numbers(&en), numbers(&zh));
    let (code, _, err) = checkup(&["analyze", run.to_str().unwrap(), "--lang", "fr"]);
    assert_ne!(code, 0);
    assert!(err.contains("unknown language `fr`: use en or zh"), "{err}");
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
    assert_eq!(
        checkup(&[
            "report",
            run.to_str().unwrap(),
            "--format",
            "md",
            "-o",
            md.to_str().unwrap()
        ])
        .0,
        0
    );
    assert!(
        dir.path().join("charts/utilisation.svg").is_file(),
        "charts beside the Markdown"
    );
    assert_eq!(
        checkup(&[
            "report",
            run.to_str().unwrap(),
            "--format",
            "html",
            "-o",
            html.to_str().unwrap()
        ])
        .0,
        0
    );
    let md = std::fs::read_to_string(md).unwrap();
    assert!(
        md.contains("**Primary bottleneck: `kernel_launch`**"),
        "{md}"
    );
    assert!(md.contains("![GPU utilisation, SM activity, tensor cores and DRAM bandwidth](charts/utilisation.svg)"), "{md}");
    let html = std::fs::read_to_string(html).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert!(html.contains("<table>") && html.contains("kernel_launch"));
    assert!(!html.contains("<script"), "no raw HTML from traces");
}

#[test]
fn report_pdf_needs_an_output_path_and_writes_a_pdf() {
    let run = corpus("memory_bound");
    let (code, _, err) = checkup(&["report", run.to_str().unwrap(), "--format", "pdf"]);
    assert_ne!(code, 0);
    assert_eq!(
        err.trim(),
        "checkup: --format pdf writes files: give the output path with -o"
    );
    let dir = tempfile::tempdir().unwrap();
    let pdf = dir.path().join("r.pdf");
    let (code, _, err) = checkup(&[
        "report",
        run.to_str().unwrap(),
        "-o",
        pdf.to_str().unwrap(),
        "--lang",
        "zh",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(std::fs::read(&pdf).unwrap().starts_with(b"%PDF-"));
}

#[test]
fn a_ci_job_gates_on_compare_regressed_within_threshold_or_another_workload() {
    let dir = tempfile::tempdir().unwrap();
    let card = dir.path().join("gpu-checkup-baseline.txt");
    let (code, _, err) = checkup(&[
        "baseline",
        corpus("healthy").to_str().unwrap(),
        "-o",
        card.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(&card).unwrap();
    assert!(text.starts_with("# GPU Checkup baseline card"), "{text}");
    for line in [
        "gpu = NVIDIA H200",
        "model = resnet50",
        "batch_size = 192",
        "stall_share = 0.0000",
    ] {
        assert!(text.contains(line), "{line} in {text}");
    }
    let card = card.to_str().unwrap();
    let stalled = corpus("checkpoint_stall");
    let stalled = stalled.to_str().unwrap();

    // The same ResNet-50 saving a checkpoint every 25 steps: 23 % slower over the run.
    let (code, out, err) = checkup(&["compare", stalled, card]);
    assert_eq!(code, 3, "beyond the default 10 %: {out}{err}");
    let first = out.lines().next().unwrap();
    assert!(
        first.starts_with("time per step +23%, time lost to stalls 0% → 22% of the run"),
        "{first}"
    );
    assert_eq!(
        checkup(&["compare", stalled, card, "--fail-over", "25"]).0,
        0
    );
    assert_eq!(
        checkup(&["compare", stalled, card, "--fail-over", "20%"]).0,
        3
    );
    let (code, _, err) = checkup(&["compare", stalled, card, "--fail-over=-5"]);
    assert_eq!(code, 2, "clap's usage error");
    assert!(
        err.contains("`-5` is not a percentage of at least 0"),
        "{err}"
    );

    // Another model: no verdict on its step time, and a status of its own.
    let (code, out, _) = checkup(&["compare", corpus("gpt_healthy").to_str().unwrap(), card]);
    assert_eq!(code, 4, "{out}");
    assert!(
        out.starts_with("different workloads (model resnet50 → "),
        "{out}"
    );

    // The run against itself.
    let (code, out, _) = checkup(&["compare", corpus("healthy").to_str().unwrap(), card]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.starts_with("time per step unchanged (within 5%); no figure regressed"),
        "{out}"
    );
}

#[test]
fn report_format_follows_the_file_name_and_a_contradiction_is_refused() {
    let run = corpus("healthy");
    let dir = tempfile::tempdir().unwrap();
    let md = dir.path().join("review.md");
    let json = dir.path().join("review.JSON");
    assert_eq!(
        checkup(&["report", run.to_str().unwrap(), "-o", md.to_str().unwrap()]).0,
        0
    );
    let text = std::fs::read_to_string(&md).unwrap();
    assert!(
        text.contains("**Primary bottleneck: `compute_bound`**"),
        "Markdown, not a PDF: {}",
        &text[..text.len().min(200)]
    );
    assert!(dir.path().join("charts/utilisation.svg").is_file());
    assert_eq!(
        checkup(&[
            "report",
            run.to_str().unwrap(),
            "-o",
            json.to_str().unwrap()
        ])
        .0,
        0
    );
    let parsed: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(parsed["primary"], "compute_bound");

    let pdf_named_md = dir.path().join("other.md");
    let (code, _, err) = checkup(&[
        "report",
        run.to_str().unwrap(),
        "--format",
        "pdf",
        "-o",
        pdf_named_md.to_str().unwrap(),
    ]);
    assert_ne!(code, 0);
    assert_eq!(
        err.trim(),
        format!(
            "checkup: {}: the file name says md but --format says pdf: drop --format or rename the file",
            pdf_named_md.display()
        )
    );
    assert!(!pdf_named_md.exists(), "nothing written");
}

#[test]
fn a_job_of_two_hosts_names_the_diagnosed_rank_with_its_host_and_how_it_was_picked() {
    let slow = corpus("two_node_slow_rank");
    let (code, out, _) = checkup(&["analyze", slow.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(
        out.contains("Diagnosed rank: 3 on vm#1 (the slowest; the others wait for it)"),
        "{out}"
    );
    let rotating = corpus("two_node_rotating");
    let (code, out, _) = checkup(&["analyze", "--lang", "zh", rotating.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(
        out.contains(
            "诊断的 rank：3（vm#1）——在分析的步骤中等待最少的一个；最慢的 rank 每一步都在变"
        ),
        "{out}"
    );
}

#[test]
fn a_trace_file_named_with_markup_and_escapes_is_text_in_every_output() {
    // One file name, as another machine may hand it over (no `/`: it is one name).
    let name = "evil\n\n[click me](javascript:alert(1)) ![x](https:example.invalid) \u{1b}[2J\u{1b}]0;owned\u{7} \u{202E}gnp.exe.trace.json.gz";
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join(name);
    std::fs::copy(corpus("launch_bound").join("trace.json.gz"), &trace).unwrap();
    let trace = trace.to_str().unwrap();
    let (code, text, err) = checkup(&["analyze", trace]);
    assert_eq!(code, 0, "{err}");
    assert!(
        !text.contains('\u{1b}') && !text.contains('\u{7}') && !text.contains('\u{202E}'),
        "a terminal would obey: {text:?}"
    );
    for format in ["md", "html", "pdf"] {
        let out = dir.path().join(format!("r.{format}"));
        let (code, _, err) = checkup(&["report", trace, "-o", out.to_str().unwrap()]);
        assert_eq!(code, 0, "{format}: {err}");
        if format == "html" {
            let html = std::fs::read_to_string(&out).unwrap();
            assert!(
                !html.contains("href=") && !html.contains("<img"),
                "a live link or image"
            );
            assert!(
                html.contains("[click me](javascript:alert(1))"),
                "the name shown as text"
            );
        }
    }
    // An error naming the file shows its escapes too.
    let missing = dir.path().join("gone\u{1b}[2J.json");
    let (code, _, err) = checkup(&["analyze", missing.to_str().unwrap()]);
    assert_ne!(code, 0);
    assert!(
        !err.contains('\u{1b}') && err.contains("<U+001B>"),
        "{err:?}"
    );
}
