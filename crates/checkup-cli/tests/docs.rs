//! The README and `docs/` stay true: every repository path they name exists, every local
//! link points at a file, and every `checkup` / `checkup-agent` command they show uses a
//! subcommand and options the binaries have.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

/// The README, the changelog and every page of `docs/`, with their text.
fn pages() -> Vec<(PathBuf, String)> {
    let root = root();
    let mut paths = vec![root.join("README.md"), root.join("CHANGELOG.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    docs.sort();
    paths.extend(docs);
    paths
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            (p, text)
        })
        .collect()
}

const TOP: [&str; 12] = [
    "crates/",
    "docs/",
    "lab/",
    "bench/",
    "scripts/",
    "tests/",
    "src-tauri/",
    "frontend/",
    "migrations/",
    ".ci/",
    "icons/",
    "fuzz/",
];

/// Repository paths in inline code: `crates/checkup-model`, `lab/workloads/NAME.py`.
fn code_paths(text: &str) -> Vec<String> {
    text.split('`')
        .skip(1)
        .step_by(2)
        .filter_map(|code| {
            let first = code.split_whitespace().next()?;
            let path = first.trim_end_matches([',', ':', ')', '.']);
            let repo_path = TOP.iter().any(|t| path.starts_with(t));
            // Placeholders (NAME, N, rankN) and globs name no one file.
            let placeholder = path.contains(['*', '<', '{'])
                || path.split('/').any(|part| {
                    part.chars().any(|c| c.is_ascii_uppercase())
                        && part
                            .chars()
                            .all(|c| c.is_ascii_uppercase() || !c.is_alphabetic())
                })
                || path.contains("rankN");
            (repo_path && !placeholder).then(|| path.to_owned())
        })
        .collect()
}

/// Local link targets: `[docs/app.md](docs/app.md)`, `![shot](docs/images/x.png)`.
fn links(text: &str) -> Vec<String> {
    text.split("](")
        .skip(1)
        .filter_map(|rest| rest.split(')').next())
        .filter(|t| !t.starts_with("http") && !t.starts_with('#'))
        .map(|t| t.split('#').next().unwrap().to_owned())
        .collect()
}

#[test]
fn every_path_and_link_in_the_docs_exists() {
    let root = root();
    let mut missing = Vec::new();
    for (page, text) in pages() {
        let name = page.strip_prefix(&root).unwrap().display().to_string();
        for p in code_paths(&text) {
            // Build outputs are made by the build, not kept in the repository.
            if p.starts_with("target/") || p.starts_with("frontend/dist") {
                continue;
            }
            if !root.join(&p).exists() {
                missing.push(format!("{name}: `{p}`"));
            }
        }
        for l in links(&text) {
            if !page.parent().unwrap().join(&l).exists() {
                missing.push(format!("{name}: link {l}"));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "named but missing:\n{}",
        missing.join("\n")
    );
}

/// The words of every `BIN …` line in the pages' code blocks, a comment after `#` left out,
/// with the page each is on.
fn shown_commands(bin: &str) -> Vec<(String, Vec<String>)> {
    let mut out = Vec::new();
    for (page, text) in pages() {
        let mut fenced = false;
        for line in text.lines() {
            if line.starts_with("```") {
                fenced = !fenced;
                continue;
            }
            let Some(rest) = fenced
                .then(|| line.trim().strip_prefix(&format!("{bin} ")))
                .flatten()
            else {
                continue;
            };
            let words = rest
                .split('#')
                .next()
                .unwrap()
                .split_whitespace()
                .map(str::to_owned)
                .collect();
            out.push((page.display().to_string(), words));
        }
    }
    out
}

/// `BIN SUB --opt …` lines of the pages' code blocks, as (subcommand, options).
fn commands(bin: &str) -> Vec<(String, String, Vec<String>)> {
    shown_commands(bin)
        .into_iter()
        .filter_map(|(page, words)| {
            let (sub, rest) = words.split_first()?;
            let options = rest
                .iter()
                .take_while(|w| *w != "--")
                .filter(|w| w.starts_with("--"))
                .map(|w| w.split('=').next().unwrap().to_owned())
                .collect();
            Some((page, sub.clone(), options))
        })
        .collect()
}

fn help(binary: &Path, sub: &str) -> String {
    let out = Command::new(binary).args([sub, "--help"]).output().unwrap();
    assert!(
        out.status.success(),
        "`{} {sub} --help` failed: {}",
        binary.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn check_commands(bin: &str, binary: &Path) -> usize {
    let shown = commands(bin);
    let mut wrong = Vec::new();
    for (page, sub, options) in &shown {
        let text = help(binary, sub);
        for o in options {
            if !text.contains(o.as_str()) {
                wrong.push(format!("{page}: `{bin} {sub}` has no {o}"));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    shown.len()
}

#[test]
fn every_checkup_command_the_docs_show_has_its_subcommand_and_options() {
    let n = check_commands("checkup", Path::new(env!("CARGO_BIN_EXE_checkup")));
    assert!(n >= 10, "{n} commands found");
}

#[test]
fn every_agent_command_the_docs_show_has_its_subcommand_and_options() {
    let agent = checkup_testkit::workspace_binary("checkup-agent", "checkup-agent");
    let n = check_commands("checkup-agent", &agent);
    assert!(n >= 5, "{n} commands found");
}

/// What each placeholder of the docs' commands stands for when the test runs them: a corpus
/// recording of that kind, or a file of the kind named.
const PLACEHOLDERS: [(&str, &str); 10] = [
    ("RUN", "tests/corpus/checkpoint_stall"),
    ("JOB_RUN", "tests/corpus/two_node_slow_rank"),
    ("NODE0_RUN", "tests/corpus/two_node_slow_rank/node0"),
    ("NODE1_RUN", "tests/corpus/two_node_slow_rank/node1"),
    ("RUN_FOLDER", "tests/corpus/checkpoint_stall"),
    ("HEALTHY_RUN", "tests/corpus/healthy"),
    ("DDP_RUN", "tests/corpus/ddp_comm_bound"),
    ("ONE_GPU_RUN", "tests/corpus/wide_mlp_1gpu"),
    ("trace.json.gz", "tests/corpus/healthy/trace.json.gz"),
    ("nvidia-smi.csv", "tests/corpus/healthy/gpu_health.csv"),
];

/// The exit codes a command may end with when it did its job: `compare` says 3 for a
/// regression beyond `--fail-over` and 4 for different workloads (docs/cli.md).
fn succeeded(sub: &str, code: Option<i32>) -> bool {
    code == Some(0) || (sub == "compare" && matches!(code, Some(3 | 4)))
}

#[test]
fn every_checkup_command_the_docs_show_runs_on_real_recordings() {
    let root = root();
    let work = tempfile::tempdir().unwrap();
    let mut lines: Vec<(String, Vec<String>)> = shown_commands("checkup")
        .into_iter()
        .map(|(page, words)| {
            let words = words
                .into_iter()
                .map(|w| match PLACEHOLDERS.iter().find(|(p, _)| *p == w) {
                    Some((_, path)) => root.join(path).display().to_string(),
                    None => w,
                })
                .collect();
            (page, words)
        })
        .collect();
    // Baselines first: the compare and report commands read the card they write.
    lines.sort_by_key(|(_, words)| words[0] != "baseline");
    let mut ran = 0;
    let mut failed = Vec::new();
    for (page, words) in &lines {
        // A placeholder left (ALL CAPS) names nothing to run it on, and the servers the
        // docs name (a team's Prometheus) are not here: tests/prometheus.rs runs those
        // commands against a real one.
        if words.iter().any(|w| {
            w.len() > 1 && w.chars().all(|c| c.is_ascii_uppercase() || c == '_')
                || w.starts_with("http://")
                || w.starts_with("https://")
        }) {
            continue;
        }
        let out = Command::new(env!("CARGO_BIN_EXE_checkup"))
            .args(words)
            .current_dir(work.path())
            .output()
            .unwrap();
        ran += 1;
        if !succeeded(&words[0], out.status.code()) {
            failed.push(format!(
                "{page}: `checkup {}` exited {:?}: {}",
                words.join(" "),
                out.status.code(),
                String::from_utf8_lossy(&out.stderr)
            ));
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
    assert!(ran >= 10, "only {ran} commands ran");
    assert!(work.path().join("report.pdf").is_file());
}

#[test]
fn every_script_the_docs_show_is_there_to_run() {
    let root = root();
    let mut missing = Vec::new();
    for (page, text) in pages() {
        for word in text.split(|c: char| c.is_whitespace() || c == '`') {
            if let Some(script) = word.strip_prefix("./scripts/") {
                let path = root.join("scripts").join(script);
                let executable = std::fs::metadata(&path).is_ok_and(|m| {
                    std::os::unix::fs::PermissionsExt::mode(&m.permissions()) & 0o111 != 0
                });
                if !executable {
                    missing.push(format!("{}: {word}", page.display()));
                }
            }
        }
    }
    assert!(
        missing.is_empty(),
        "not there or not executable:\n{}",
        missing.join("\n")
    );
}

#[test]
fn the_readme_is_a_front_door_under_8_kb() {
    let size = std::fs::metadata(root().join("README.md")).unwrap().len();
    assert!(size < 8 * 1024, "README.md is {size} bytes");
}
