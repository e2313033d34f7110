//! Mutation fuzzing of GPU Checkup's readers on the stable toolchain (cargo-fuzz needs a
//! nightly compiler, which the machines this project builds on cannot fetch). Seeds come from
//! the real recordings; each input is one to four mutations of a seed ([`mutate`]); a
//! reader may refuse any input but may not panic, run for seconds or allocate without bound.
//! The binary (`checkup-fuzz`) adds the allocation and hang watch; inputs that broke a reader
//! are kept under `regressions/` and replayed by this crate's tests.

pub mod mutate;
pub mod targets;

use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

pub use targets::{Scratch, Target};

/// Seeds larger than this are left out: each execution re-reads the whole input.
pub const MAX_SEED_BYTES: usize = 2 << 20;
/// An execution slower than this is a finding: a debug build reads one file of a corpus run
/// in well under a second. A whole run folder read and diagnosed (several ranks, seconds of
/// samples) takes a few seconds on a loaded 2-core machine, so it gets longer.
pub fn slow(target: Target) -> Duration {
    match target {
        Target::RunFolder => Duration::from_secs(30),
        _ => Duration::from_secs(5),
    }
}

#[derive(Debug, Clone)]
pub struct Seed {
    pub data: Vec<u8>,
    /// The file it came from (None for built-in seeds).
    pub from: Option<PathBuf>,
}

/// Every seed of `target` under `dirs` (searched six levels deep), plus its built-in ones.
pub fn collect_seeds(target: Target, dirs: &[PathBuf]) -> Vec<Seed> {
    let mut files = Vec::new();
    for d in dirs {
        walk(d, 0, &mut files);
    }
    files.sort();
    let mut seeds: Vec<Seed> = target
        .built_in_seeds()
        .into_iter()
        .map(|data| Seed { data, from: None })
        .collect();
    for f in files.into_iter().filter(|f| target.seeds_from(f)) {
        let Some(data) = read_seed(&f).and_then(|raw| target.seed_data(&f, raw)) else {
            continue;
        };
        if !data.is_empty() && data.len() <= MAX_SEED_BYTES {
            seeds.push(Seed {
                data,
                from: Some(f),
            });
        }
    }
    seeds
}

fn walk(dir: &Path, depth: u32, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let Ok(t) = e.file_type() else { continue };
        if t.is_dir() && depth < 6 {
            walk(&e.path(), depth + 1, out);
        } else if t.is_file() {
            out.push(e.path());
        }
    }
}

/// A seed's bytes; gzipped traces inflated (at most [`MAX_SEED_BYTES`] + 1 of them).
fn read_seed(path: &Path) -> Option<Vec<u8>> {
    use std::io::Read;
    let raw = std::fs::File::open(path).ok()?;
    let mut out = Vec::new();
    let limit = MAX_SEED_BYTES as u64 + 1;
    if path.extension().is_some_and(|e| e == "gz") {
        flate2::read::MultiGzDecoder::new(raw)
            .take(limit)
            .read_to_end(&mut out)
            .ok()?;
    } else {
        raw.take(limit).read_to_end(&mut out).ok()?;
    }
    Some(out)
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FindingKind {
    Panic,
    Slow,
}

#[derive(Debug, Clone)]
pub struct Finding {
    pub kind: FindingKind,
    pub message: String,
    pub input: Vec<u8>,
    pub seed: Option<PathBuf>,
}

#[derive(Debug, Default)]
pub struct Stats {
    pub execs: u64,
    pub accepted: u64,
    pub findings: Vec<Finding>,
}

thread_local! {
    static PANIC_MESSAGE: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// Keeps a panic's message and place for the finding instead of printing it.
pub fn capture_panics() {
    std::panic::set_hook(Box::new(|info| {
        let at = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        let what = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic".into());
        PANIC_MESSAGE.with(|m| *m.borrow_mut() = Some(format!("{what}{at}")));
    }));
}

/// Runs one input; a panic or a slow run comes back as a finding.
pub fn execute(
    target: Target,
    input: &[u8],
    seed: Option<&Path>,
    scratch: &mut Scratch,
) -> Result<bool, Finding> {
    let t0 = Instant::now();
    let result = std::panic::catch_unwind(AssertUnwindSafe(|| {
        targets::run(target, input, seed, scratch)
    }));
    let elapsed = t0.elapsed();
    match result {
        Err(_) => Err(Finding {
            kind: FindingKind::Panic,
            message: PANIC_MESSAGE
                .with(|m| m.borrow_mut().take())
                .unwrap_or_else(|| "a panic".into()),
            input: input.to_vec(),
            seed: seed.map(Path::to_path_buf),
        }),
        Ok(_) if elapsed > slow(target) => Err(Finding {
            kind: FindingKind::Slow,
            message: format!("took {:.1} s", elapsed.as_secs_f64()),
            input: input.to_vec(),
            seed: seed.map(Path::to_path_buf),
        }),
        Ok(accepted) => Ok(accepted),
    }
}

/// Mutates seeds and runs them for `duration`; `before_each` sees each input first (the
/// binary keeps it for a crash it cannot catch). Findings with the same message count once.
pub fn fuzz(
    target: Target,
    seeds: &[Seed],
    duration: Duration,
    rng_seed: u64,
    mut before_each: impl FnMut(&[u8]),
) -> std::io::Result<Stats> {
    let mut scratch = Scratch::new()?;
    let mut rng = mutate::Rng::new(rng_seed);
    let mut stats = Stats::default();
    if seeds.is_empty() {
        return Ok(stats);
    }
    let t0 = Instant::now();
    // Every seed as it is first: a seed that breaks a reader is a finding too.
    let mut queue: Vec<Vec<u8>> = Vec::new();
    let mut i = 0usize;
    while t0.elapsed() < duration {
        // The seeds as they are take at most a fifth of the time, then mutations.
        if i < seeds.len() && t0.elapsed() > duration / 5 {
            i = seeds.len();
        }
        let (input, seed) = if i < seeds.len() {
            (seeds[i].data.clone(), &seeds[i])
        } else {
            let s = &seeds[rng.below(seeds.len())];
            let other = &seeds[rng.below(seeds.len())].data;
            // Now and then build on an input that was accepted after mutation.
            let base = if !queue.is_empty() && rng.below(4) == 0 {
                queue[rng.below(queue.len())].clone()
            } else {
                s.data.clone()
            };
            (mutate::mutate(&mut rng, &base, other), s)
        };
        i += 1;
        before_each(&input);
        stats.execs += 1;
        match execute(target, &input, seed.from.as_deref(), &mut scratch) {
            Ok(true) => {
                stats.accepted += 1;
                if i > seeds.len() && queue.len() < 256 && input.len() < 256 << 10 {
                    queue.push(input);
                }
            }
            Ok(false) => {}
            Err(f) => {
                // One per place: the same panic with other numbers in its message is one bug.
                let place = |m: &str| {
                    m.rsplit_once(" at ")
                        .map_or(m.to_owned(), |(_, p)| p.to_owned())
                };
                if !stats
                    .findings
                    .iter()
                    .any(|g| place(&g.message) == place(&f.message))
                {
                    stats.findings.push(f);
                }
            }
        }
    }
    Ok(stats)
}
