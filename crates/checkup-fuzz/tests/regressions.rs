//! Every input that once broke a reader, replayed: `regressions/<target>/<name>` (for the
//! run-folder target, `regressions/run_folder/<corpus run>__<file, / as __>~<tag>`, the
//! corpus file it replaces).

use std::path::{Path, PathBuf};

use checkup_fuzz::{execute, Scratch, Target};

#[test]
fn inputs_that_once_broke_a_reader_are_now_read_or_refused() {
    checkup_fuzz::capture_panics();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("regressions");
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus");
    let mut scratch = Scratch::new().unwrap();
    let mut replayed = 0;
    let mut broken = Vec::new();
    for target in Target::ALL {
        let Ok(entries) = std::fs::read_dir(root.join(target.name())) else {
            continue;
        };
        for e in entries.flatten() {
            let input = std::fs::read(e.path()).unwrap();
            let name = e.file_name().to_string_lossy().into_owned();
            let seed: Option<PathBuf> = (target == Target::RunFolder)
                .then(|| name.split('~').next().unwrap_or("").replace("__", "/"))
                .map(|rel| corpus.join(rel));
            replayed += 1;
            if let Err(f) = execute(target, &input, seed.as_deref(), &mut scratch) {
                broken.push(format!(
                    "{}/{name}: {:?} {}",
                    target.name(),
                    f.kind,
                    f.message
                ));
            }
        }
    }
    assert!(broken.is_empty(), "{broken:#?}");
    eprintln!("{replayed} regression inputs replayed");
}
