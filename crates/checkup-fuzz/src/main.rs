//! `checkup-fuzz`: mutation fuzzing of the readers (see the crate's docs).
//!
//! checkup-fuzz [--seconds S] [--target NAME]... [--seeds DIR]... [--findings DIR] [--seed N]
//!
//! Prints one line per target (executions, share accepted, findings) and exits 1 when any
//! reader panicked, ran past 5 s (30 s for a whole run folder), allocated over 1 GiB at once
//! or held over 4 GiB, or hung
//! for a minute; the input that did it is written to the findings folder first.

use std::alloc::{GlobalAlloc, Layout, System};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use checkup_fuzz::{collect_seeds, fuzz, Target};
use clap::Parser;

/// One allocation this large is unbounded growth on inputs of at most 4 MiB.
const MAX_ONE_ALLOCATION: usize = 1 << 30;
const MAX_LIVE: usize = 4 << 30;
/// An execution running this long is a hang; the watch stops the process.
const HANG: Duration = Duration::from_secs(60);

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is passed on to the system allocator unchanged; only counters change.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let live = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
        PEAK.fetch_max(live, Ordering::Relaxed);
        if layout.size() > MAX_ONE_ALLOCATION || live > MAX_LIVE {
            over_limit(layout.size(), live);
        }
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let grown = new_size.saturating_sub(layout.size());
        let live = if new_size >= layout.size() {
            LIVE.fetch_add(grown, Ordering::Relaxed) + grown
        } else {
            LIVE.fetch_sub(layout.size() - new_size, Ordering::Relaxed) - (layout.size() - new_size)
        };
        PEAK.fetch_max(live, Ordering::Relaxed);
        if new_size > MAX_ONE_ALLOCATION || live > MAX_LIVE {
            over_limit(new_size, live);
        }
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The input being run, and where a crash that cannot be caught writes it.
struct Current {
    target: &'static str,
    input: Vec<u8>,
    findings: PathBuf,
}

static CURRENT: Mutex<Option<Current>> = Mutex::new(None);
/// When the running execution began (ms since the start; 0: none running).
static STARTED_MS: AtomicU64 = AtomicU64::new(0);

fn save_current(why: &str) {
    // try_lock: the allocator may be called while the lock is held.
    if let Ok(guard) = CURRENT.try_lock() {
        if let Some(c) = guard.as_ref() {
            let dir = c.findings.join(c.target);
            let _ = std::fs::create_dir_all(&dir);
            let path = dir.join(format!("{why}-{:016x}", hash(&c.input)));
            let _ = std::fs::write(&path, &c.input);
            eprintln!(
                "checkup-fuzz: {}: {why}; input kept as {}",
                c.target,
                path.display()
            );
        }
    }
}

fn over_limit(size: usize, live: usize) -> ! {
    eprintln!("checkup-fuzz: allocation of {size} bytes with {live} bytes live");
    save_current("alloc");
    std::process::abort();
}

/// `run__static__topo.txt` for `.../tests/corpus/run/static/topo.txt`.
fn corpus_name(seed: &std::path::Path) -> Option<String> {
    let text = seed.to_str()?;
    let rel = text.split_once("tests/corpus/")?.1;
    Some(rel.replace('/', "__"))
}

/// FNV-1a: names a finding's file by its content.
fn hash(data: &[u8]) -> u64 {
    data.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x1000_0000_01b3)
    })
}

#[derive(Parser)]
#[command(about = "Mutation fuzzing of GPU Checkup's readers")]
struct Cli {
    /// Seconds per target.
    #[arg(long, default_value_t = 10.0)]
    seconds: f64,
    /// Only these targets (default: all).
    #[arg(long = "target")]
    targets: Vec<String>,
    /// Folders searched for seed files (default: tests/corpus and tests/external).
    #[arg(long = "seeds")]
    seeds: Vec<PathBuf>,
    /// Where inputs that broke a reader are written.
    #[arg(long, default_value = "target/fuzz-findings")]
    findings: PathBuf,
    /// The random seed (default: from the clock; printed, to reproduce a run).
    #[arg(long)]
    seed: Option<u64>,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let targets: Vec<Target> = if cli.targets.is_empty() {
        Target::ALL.to_vec()
    } else {
        let mut out = Vec::new();
        for name in &cli.targets {
            match Target::from_name(name) {
                Some(t) => out.push(t),
                None => {
                    let known: Vec<&str> = Target::ALL.iter().map(|t| t.name()).collect();
                    eprintln!(
                        "checkup-fuzz: no target `{name}` (known: {})",
                        known.join(", ")
                    );
                    return ExitCode::from(2);
                }
            }
        }
        out
    };
    if !(cli.seconds.is_finite() && cli.seconds > 0.0) {
        eprintln!("checkup-fuzz: --seconds must be a positive number");
        return ExitCode::from(2);
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let seed_dirs = if cli.seeds.is_empty() {
        vec![root.join("tests/corpus"), root.join("tests/external")]
    } else {
        cli.seeds.clone()
    };
    let rng_seed = cli.seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(1, |d| d.as_nanos() as u64)
    });
    println!(
        "checkup-fuzz: seed {rng_seed}, {} s per target",
        cli.seconds
    );
    checkup_fuzz::capture_panics();
    let start = Instant::now();
    std::thread::spawn(move || loop {
        std::thread::sleep(Duration::from_secs(1));
        let began = STARTED_MS.load(Ordering::Relaxed);
        if began > 0 && start.elapsed().as_millis() as u64 - began > HANG.as_millis() as u64 {
            save_current("hang");
            std::process::abort();
        }
    });
    let mut failed = false;
    for (n, target) in targets.into_iter().enumerate() {
        let seeds = collect_seeds(target, &seed_dirs);
        let t0 = Instant::now();
        let stats = fuzz(
            target,
            &seeds,
            Duration::from_secs_f64(cli.seconds),
            rng_seed.wrapping_add(n as u64),
            |input| {
                if let Ok(mut c) = CURRENT.lock() {
                    *c = Some(Current {
                        target: target.name(),
                        input: input.to_vec(),
                        findings: cli.findings.clone(),
                    });
                }
                STARTED_MS.store(start.elapsed().as_millis().max(1) as u64, Ordering::Relaxed);
            },
        );
        STARTED_MS.store(0, Ordering::Relaxed);
        let stats = match stats {
            Ok(s) => s,
            Err(e) => {
                eprintln!("checkup-fuzz: {}: no scratch folder: {e}", target.name());
                return ExitCode::FAILURE;
            }
        };
        let secs = t0.elapsed().as_secs_f64();
        println!(
            "{:<17} {:>4} seeds {:>9} runs {:>8.0}/s {:>5.1} % accepted  peak {:>6.0} MiB  {} findings",
            target.name(),
            seeds.len(),
            stats.execs,
            stats.execs as f64 / secs.max(1e-9),
            100.0 * stats.accepted as f64 / stats.execs.max(1) as f64,
            PEAK.swap(LIVE.load(Ordering::Relaxed), Ordering::Relaxed) as f64 / (1 << 20) as f64,
            stats.findings.len()
        );
        if seeds.is_empty() {
            println!("  (no seeds found: nothing was run)");
        }
        for f in &stats.findings {
            failed = true;
            let dir = cli.findings.join(target.name());
            let _ = std::fs::create_dir_all(&dir);
            let tag = format!("{:?}-{:016x}", f.kind, hash(&f.input)).to_lowercase();
            // A run-folder input names the corpus file it replaces, as the regression test
            // reads it back: `<run>__<path with / as __>~<tag>`.
            let name = match (target, f.seed.as_deref().and_then(corpus_name)) {
                (Target::RunFolder, Some(n)) => format!("{n}~{tag}"),
                _ => tag,
            };
            let path = dir.join(name);
            let _ = std::fs::write(&path, &f.input);
            println!(
                "  {:?}: {} (input {}, grown from {})",
                f.kind,
                f.message,
                path.display(),
                f.seed
                    .as_ref()
                    .map_or("a built-in seed".into(), |s| s.display().to_string())
            );
        }
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
