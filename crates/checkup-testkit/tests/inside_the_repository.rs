//! Tests and scripts read only what is in the repository: a clone with nothing beside it
//! must pass its own test command. A path that climbs out of the repository from where its
//! code sits (`../shared`, `CARGO_MANIFEST_DIR` joined with more `..` than the crate is deep)
//! fails here, naming the file and the line.

use std::path::{Path, PathBuf};

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        let name = e.file_name().to_string_lossy().into_owned();
        if p.is_dir() {
            // Build outputs and recordings hold no code.
            if ![
                "target",
                "dist",
                "node_modules",
                "corpus",
                "external",
                ".git",
            ]
            .contains(&name.as_str())
            {
                sources(&p, out);
            }
        } else if [".rs", ".sh", ".py"].iter().any(|x| name.ends_with(x))
            || dir.file_name().is_some_and(|d| d == ".ci")
        {
            out.push(p);
        }
    }
}

#[test]
fn no_test_or_script_reads_a_path_outside_the_repository() {
    let root = checkup_testkit::workspace_root();
    let mut files = Vec::new();
    for top in [
        "crates",
        "src-tauri",
        "frontend",
        "tests",
        "scripts",
        "lab",
        "bench",
        ".ci",
    ] {
        sources(&root.join(top), &mut files);
    }
    assert!(files.len() > 100, "{} files", files.len());
    let this = file!().rsplit('/').next().unwrap_or_default();
    let mut outside = Vec::new();
    for file in files.iter().filter(|f| !f.ends_with(this)) {
        let Ok(text) = std::fs::read_to_string(file) else {
            continue;
        };
        let rel = file.strip_prefix(&root).unwrap_or(file);
        // How far up a path may climb and stay inside: from the crate's folder (where
        // `CARGO_MANIFEST_DIR` points), else from the file's own.
        let folder = rel.parent().unwrap_or(Path::new(""));
        let crate_dir = folder
            .ancestors()
            .find(|a| root.join(a).join("Cargo.toml").is_file() && !a.as_os_str().is_empty())
            .unwrap_or(folder);
        let depth = crate_dir.components().count();
        for (n, line) in text.lines().enumerate() {
            let climbs = line.matches("../").count();
            let leaves = line.contains("../shared")
                || (line.contains("CARGO_MANIFEST_DIR") || line.contains("join(\""))
                    && climbs > depth;
            if leaves {
                outside.push(format!("{}:{}: {}", rel.display(), n + 1, line.trim()));
            }
        }
    }
    assert!(
        outside.is_empty(),
        "paths outside the repository:\n{}",
        outside.join("\n")
    );
}
