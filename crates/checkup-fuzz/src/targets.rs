//! What is fuzzed: every reader the engine, the report and the agent point at input, each
//! with the seed files it reads and how it is called. A reader may refuse an input (that is
//! its job); it may not panic, hang or allocate without bound, which the harness watches.

use std::io::Write;
use std::path::{Path, PathBuf};

/// One reader under test.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    KinetoJson,
    KinetoGzip,
    StepsCsv,
    MetaJson,
    NvmlCsv,
    GpmCsv,
    HostCsv,
    TrainingJson,
    EventsCsv,
    SmiQueryLog,
    SmiDmon,
    SmiXml,
    Topology,
    CollectEnv,
    BaselineCard,
    RunRequest,
    SamplingRequest,
    /// A rank's `trace_summary.json` made on its host, read in place of its trace and
    /// diagnosed: its figures reach the rules without the trace reader's checks.
    TraceSummary,
    /// A whole recorded run with one of its files replaced, read and diagnosed: the
    /// arithmetic behind the findings meets the hostile values.
    RunFolder,
}

impl Target {
    pub const ALL: [Target; 19] = [
        Target::KinetoJson,
        Target::KinetoGzip,
        Target::StepsCsv,
        Target::MetaJson,
        Target::NvmlCsv,
        Target::GpmCsv,
        Target::HostCsv,
        Target::TrainingJson,
        Target::EventsCsv,
        Target::SmiQueryLog,
        Target::SmiDmon,
        Target::SmiXml,
        Target::Topology,
        Target::CollectEnv,
        Target::BaselineCard,
        Target::RunRequest,
        Target::SamplingRequest,
        Target::TraceSummary,
        Target::RunFolder,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Target::KinetoJson => "kineto_json",
            Target::KinetoGzip => "kineto_gzip",
            Target::StepsCsv => "steps_csv",
            Target::MetaJson => "meta_json",
            Target::NvmlCsv => "nvml_csv",
            Target::GpmCsv => "gpm_csv",
            Target::HostCsv => "host_csv",
            Target::TrainingJson => "training_json",
            Target::EventsCsv => "events_csv",
            Target::SmiQueryLog => "smi_query_log",
            Target::SmiDmon => "smi_dmon",
            Target::SmiXml => "smi_xml",
            Target::Topology => "topology",
            Target::CollectEnv => "collect_env",
            Target::BaselineCard => "baseline_card",
            Target::RunRequest => "run_request",
            Target::SamplingRequest => "sampling_request",
            Target::TraceSummary => "trace_summary",
            Target::RunFolder => "run_folder",
        }
    }

    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.name() == name)
    }

    /// Whether a file found under the seed folders is a seed of this target (by name).
    pub fn seeds_from(self, path: &Path) -> bool {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let parent = path
            .parent()
            .and_then(|p| p.file_name())
            .and_then(|n| n.to_str())
            .unwrap_or("");
        match self {
            // Plain traces are few and large: the gzipped ones are inflated as seeds.
            Target::KinetoJson | Target::KinetoGzip => {
                name.ends_with(".json.gz") || name.ends_with("trace.json")
            }
            Target::StepsCsv => name == "steps.csv",
            Target::MetaJson => name == "meta.json",
            Target::NvmlCsv => name == "samples_nvml.csv",
            Target::GpmCsv => name == "samples_gpm.csv",
            Target::HostCsv => name == "samples_host.csv",
            Target::TrainingJson => name == "training.json",
            Target::EventsCsv => name == "events.csv",
            Target::SmiQueryLog => name == "gpu_health.csv" || name.starts_with("nvidia-smi-query"),
            Target::SmiDmon => name == "dmon.txt",
            Target::SmiXml => name.ends_with(".xml") && parent == "static",
            Target::Topology => name == "topo.txt",
            Target::CollectEnv => name == "collect_env.txt" || name == "host.txt",
            Target::BaselineCard => name.ends_with(".card") || name == "baseline.txt",
            Target::RunRequest | Target::SamplingRequest => false,
            // Summaries are made from the recordings' smaller rank traces (see `seed_data`).
            Target::TraceSummary => {
                name == "trace.json.gz"
                    && checkup_recording::layout::rank_of_dir(parent).is_some()
                    && path
                        .metadata()
                        .is_ok_and(|m| m.len() <= MAX_RUN_TRACE_BYTES)
            }
            Target::RunFolder => RUN_FILES.contains(&name) && run_folder_of(path).is_some(),
        }
    }

    /// The seed a file found by [`Target::seeds_from`] gives: its bytes (`raw`, gzip
    /// inflated), or for [`Target::TraceSummary`] the summary the agent would write of it.
    pub fn seed_data(self, path: &Path, raw: Vec<u8>) -> Option<Vec<u8>> {
        if self != Target::TraceSummary {
            return Some(raw);
        }
        let dir = tempfile::tempdir().ok()?;
        let rank = dir.path().join(path.parent()?.file_name()?);
        std::fs::create_dir_all(&rank).ok()?;
        std::fs::copy(path, rank.join("trace.json.gz")).ok()?;
        let done = checkup_engine::ingest::summarize_run(dir.path()).ok()?;
        std::fs::read(&done.first()?.summary).ok()
    }

    /// Seeds made here, for targets whose inputs no recording holds.
    pub fn built_in_seeds(self) -> Vec<Vec<u8>> {
        let text = |v: &[&str]| v.iter().map(|s| s.as_bytes().to_vec()).collect();
        match self {
            Target::RunRequest => text(&[
                r#"{"command": ["python", "train.py"], "cwd": "/tmp", "skip_steps": 10, "profile_steps": 8, "hz": 10}"#,
                r#"{"command": ["torchrun", "--nproc_per_node", "2", "train.py"]}"#,
            ]),
            Target::SamplingRequest => text(&[
                r#"{"hz": 10, "slow_hz": 1, "pid": 1234, "max_s": 3600}"#,
                r#"{"gpu": 0}"#,
            ]),
            Target::BaselineCard => {
                text(&["gpu = NVIDIA H200\ndriver = 580.159.04\ncuda = 13.0\nmean_step_ms = 48.1\nutil_mean_pct = 93.5\nutil_shape = steady\npower_mean_w = 612\npower_limit_w = 700\npower_shape = dips every 12.5 s\ndata_loading_share = 0.04\nmean_kernel_gap_us = 7.5\ncomm_share = -\nhost_cpu_pct = 12\nprimary = compute_bound\n"])
            }
            Target::SmiDmon => text(&["# gpu    pwr  gtemp  mtemp     sm    mem    enc    dec   mclk   pclk\n# Idx      W      C      C      %      %      %      %    MHz    MHz\n    0    612     61     55     98     40      0      0   3201   1980\n"]),
            _ => Vec::new(),
        }
    }
}

/// The files of a run folder the run-folder target replaces (its own and `static/`'s).
const RUN_FILES: &[&str] = &[
    "steps.csv",
    "meta.json",
    "samples_nvml.csv",
    "samples_host.csv",
    "samples_gpm.csv",
    "training.json",
    "events.csv",
    "dmon.txt",
    "gpu_health.csv",
    "facts.json",
    "topo.txt",
    "nvidia-smi-q.xml",
    "collect_env.txt",
    "host.txt",
];

/// The run folder a file belongs to: the nearest folder above it holding `meta.json`.
fn run_folder_of(file: &Path) -> Option<&Path> {
    file.ancestors()
        .skip(1)
        .take(3)
        .find(|d| d.join("meta.json").is_file())
}

/// Where a target writes its input when the reader takes a path.
pub struct Scratch {
    dir: tempfile::TempDir,
    /// Run folders copied once, by their original path: (original, copy).
    runs: Vec<(PathBuf, PathBuf)>,
}

impl Scratch {
    pub fn new() -> std::io::Result<Self> {
        Ok(Self {
            dir: tempfile::Builder::new().prefix("checkup-fuzz").tempdir()?,
            runs: Vec::new(),
        })
    }

    fn write(&self, name: &str, data: &[u8]) -> PathBuf {
        let path = self.dir.path().join(name);
        let _ = std::fs::write(&path, data);
        path
    }

    /// A copy of the run folder holding `seed`, made on first use.
    fn run_copy(&mut self, original: &Path) -> std::io::Result<PathBuf> {
        if let Some((_, copy)) = self.runs.iter().find(|(o, _)| o == original) {
            return Ok(copy.clone());
        }
        let copy = self.dir.path().join(format!("run{}", self.runs.len()));
        copy_tree(original, &copy)?;
        self.runs.push((original.to_path_buf(), copy.clone()));
        Ok(copy)
    }
}

/// Copies a run's original file back over its mutated copy when dropped.
struct Restore<'a> {
    original: &'a Path,
    copy: &'a Path,
}

impl Drop for Restore<'_> {
    fn drop(&mut self) {
        let _ = std::fs::copy(self.original, self.copy);
    }
}

const MAX_RUN_TRACE_BYTES: u64 = 256 << 10;

fn copy_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for e in std::fs::read_dir(from)? {
        let e = e?;
        let t = e.file_type()?;
        if t.is_dir() {
            copy_tree(&e.path(), &to.join(e.file_name()))?;
        } else if t.is_file() {
            // Large traces would make each run take a second; the trace reader has targets
            // of its own, and the rest of the run is read and diagnosed without them.
            let name = e.file_name().to_string_lossy().into_owned();
            if name.contains("trace.json") && e.metadata()?.len() > MAX_RUN_TRACE_BYTES {
                continue;
            }
            std::fs::copy(e.path(), to.join(e.file_name()))?;
        }
    }
    Ok(())
}

/// Runs `target` on `data`. `seed` is the file the input was grown from (the run folder's
/// file for [`Target::RunFolder`]). Answers whether the reader accepted the input; a
/// refusal is an ordinary outcome.
pub fn run(target: Target, data: &[u8], seed: Option<&Path>, scratch: &mut Scratch) -> bool {
    use checkup_engine::ingest::{kineto, smi_logs, static_files};
    use checkup_recording as rec;
    match target {
        Target::KinetoJson => kineto::parse_trace(data, Path::new("fuzz.json")).is_ok(),
        Target::KinetoGzip => {
            let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            let _ = gz.write_all(data);
            let mut bytes = gz.finish().unwrap_or_default();
            // Now and then a damaged stream rather than damaged JSON.
            if data.len().is_multiple_of(5) && bytes.len() > 20 {
                let i = 10 + data.len() % (bytes.len() - 10);
                bytes[i] ^= 0x5a;
            }
            kineto::read_trace(&scratch.write("trace.json.gz", &bytes)).is_ok()
        }
        Target::StepsCsv => rec::steps::read_steps_csv(&scratch.write("steps.csv", data)).is_ok(),
        Target::MetaJson => rec::meta::read_meta(&scratch.write("meta.json", data)).is_ok(),
        Target::NvmlCsv => {
            rec::samples::read_nvml_csv(&scratch.write("samples_nvml.csv", data)).is_ok()
        }
        Target::GpmCsv => {
            rec::samples::read_gpm_csv(&scratch.write("samples_gpm.csv", data)).is_ok()
        }
        Target::HostCsv => {
            rec::samples::read_host_csv(&scratch.write("samples_host.csv", data)).is_ok()
        }
        Target::TrainingJson => {
            rec::training::read_training_json(&scratch.write("training.json", data)).is_ok()
        }
        Target::EventsCsv => {
            rec::training::read_events_csv(&scratch.write("events.csv", data)).is_ok()
        }
        Target::SmiQueryLog => {
            smi_logs::read_query_gpu_log(&scratch.write("gpu_health.csv", data)).is_ok()
        }
        Target::SmiDmon => {
            // The start and interval come from the user's command line: hostile ones too.
            let (start, interval) = match data.len() % 4 {
                0 => (0.0, 1.0),
                1 => (1.8e9, 0.1),
                2 => (f64::MAX, 1e-300),
                _ => (-1.0, 0.0),
            };
            smi_logs::read_dmon(&scratch.write("dmon.txt", data), start, interval).is_ok()
        }
        Target::SmiXml => {
            static_files::read_smi_xml(&scratch.write("nvidia-smi-q.xml", data)).is_ok()
        }
        Target::Topology => {
            static_files::read_topology(&scratch.write("topology.txt", data)).is_ok()
        }
        Target::CollectEnv => {
            let p = scratch.write("collect_env.txt", data);
            let a = static_files::read_collect_env(&p).is_ok();
            let b = static_files::read_host_cpus(&p).is_ok();
            a || b
        }
        Target::BaselineCard => {
            checkup_report::BaselineCard::parse(&String::from_utf8_lossy(data)).is_ok()
        }
        Target::RunRequest => serde_json::from_slice::<checkup_model::RunRequest>(data)
            .ok()
            .is_some_and(|r| {
                checkup_agent::run::check_settings(r.skip_steps, r.profile_steps, r.hz).is_ok()
            }),
        Target::SamplingRequest => serde_json::from_slice::<checkup_model::SamplingRequest>(data)
            .ok()
            .is_some_and(|r| checkup_agent::api::check_sampling(&r).is_ok()),
        Target::TraceSummary => {
            let run = scratch.dir.path().join("summarised");
            let rank = run.join("rank0");
            let _ = std::fs::create_dir_all(&rank);
            let _ = std::fs::write(rank.join("trace_summary.json"), data);
            checkup_engine::analyze_paths(&[run], &Default::default()).is_ok()
        }
        Target::RunFolder => {
            let Some(seed) = seed else {
                return false;
            };
            let Some(dir) = run_folder_of(seed) else {
                return false;
            };
            let (Ok(rel), Ok(copy)) = (seed.strip_prefix(dir), scratch.run_copy(dir)) else {
                return false;
            };
            let file = copy.join(rel);
            let _ = std::fs::write(&file, data);
            // The original goes back for the next input, also when this one panics.
            let _restore = Restore {
                original: seed,
                copy: &file,
            };
            checkup_engine::analyze_paths(std::slice::from_ref(&copy), &Default::default()).is_ok()
        }
    }
}
