//! Sources → one [`Recording`]: run folders, Kineto traces, tensorboard_trace_handler folders,
//! NVML/GPM/host sample CSVs, `nvidia-smi` logs and snapshots.

mod job;
pub mod kineto;
pub mod smi_logs;
pub mod static_files;
mod summarize;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use checkup_model::{Note, RunFacts, RunMarker, SampleSet, StepRecord, TrainingContext};

use checkup_recording::{layout, meta, samples, steps, training};

use crate::analysis::trace::analyze_trace;
use crate::error::{EngineError, Result};
use crate::thresholds::Thresholds;
pub use kineto::Trace;
pub use summarize::{summarize_run, Summarised};

/// The most ranks a run may claim (`distributedInfo.world_size`, `meta.json`).
pub const MAX_WORLD_SIZE: u32 = 1 << 16;

/// Everything read from the inputs of one checkup, before any analysis.
#[derive(Debug, Clone, Default)]
pub struct Recording {
    /// The run's facts: GPU, versions, settings, from every input.
    pub facts: RunFacts,
    /// NVML, GPM and host samples.
    pub samples: SampleSet,
    /// `steps.csv` per rank.
    pub steps: BTreeMap<u32, Vec<StepRecord>>,
    /// `training.json` per rank: what the probe saw of the training.
    pub training: BTreeMap<u32, TrainingContext>,
    /// `events.csv` per rank: markers of periodic work.
    pub markers: BTreeMap<u32, Vec<RunMarker>>,
    /// `memory.csv` per rank: the CUDA caching allocator over the run.
    pub memory: BTreeMap<u32, Vec<checkup_model::MemorySample>>,
    /// `samples_gpu_processes.csv`: each GPU's processes and their memory.
    pub gpu_processes: Vec<checkup_model::GpuProcessSample>,
    /// One trace per rank, sorted by rank, measured as it was read.
    pub traces: Vec<RankTrace>,
    /// Steps of `steps.csv` the profiler was active for, inclusive.
    pub profile_steps: Option<(u64, u64)>,
    /// Caveats about the inputs, shown with the diagnosis.
    pub notes: Vec<Note>,
    /// The files read, in order.
    pub sources: Vec<PathBuf>,
}

/// What kind of input a path is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum InputKind {
    RunFolder,
    /// A folder of a job's hosts' run folders.
    JobFolder,
    TraceFolder,
    Trace,
    NvmlCsv,
    GpmCsv,
    HostCsv,
    StepsCsv,
    QueryGpuLog,
    Dmon,
    SmiXml,
}

/// A rank's trace as found in the inputs: the trace itself, or what its host measured of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TraceInput {
    /// The rank its `rankN/` folder says, if it is in one.
    folder_rank: Option<u32>,
    path: PathBuf,
    form: TraceForm,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TraceForm {
    /// A Kineto trace, measured here.
    Kineto,
    /// `trace_summary.json`: measured on the host that recorded it, its trace left there.
    Summary,
}

impl TraceInput {
    fn kineto(folder_rank: Option<u32>, path: PathBuf) -> Self {
        Self {
            folder_rank,
            path,
            form: TraceForm::Kineto,
        }
    }
}

/// One rank's trace as the analysis keeps it: where it came from, what it says of the job, and
/// what was measured from it. The trace itself is dropped once measured, so that memory does
/// not grow with the ranks a run has.
#[derive(Debug, Clone)]
pub struct RankTrace {
    /// The file it was read from.
    pub source: PathBuf,
    /// Its rank: the trace's `distributedInfo`, else its folder's (`rankN/`), else its place.
    pub rank: Option<u32>,
    /// The job's ranks, from `distributedInfo`.
    pub world_size: Option<u32>,
    /// The GPU's name, from `deviceProperties`.
    pub device_name: Option<String>,
    /// The rank's GPU time split, step breakdowns, kernels and host waits.
    pub summary: checkup_model::RankSummary,
    /// The size of the trace left on its host, when what is read here is the summary the
    /// host made of it (`trace_summary.json`).
    pub trace_left_on_host: Option<u64>,
}

/// Reads every path into one recording, its traces measured with the default thresholds.
/// Paths may mix kinds (a trace plus an nvidia-smi log).
pub fn load(paths: &[PathBuf]) -> Result<Recording> {
    load_with(paths, &Thresholds::default())
}

/// [`load`], the traces measured with `th` (the thresholds the diagnosis will use).
pub fn load_with(paths: &[PathBuf], th: &Thresholds) -> Result<Recording> {
    let mut rec = Recording::default();
    let mut trace_paths: Vec<TraceInput> = Vec::new();
    let mut pending_logs: Vec<(InputKind, PathBuf)> = Vec::new();
    let mut run_folders: Vec<PathBuf> = Vec::new();
    for path in paths {
        match classify(path)? {
            InputKind::RunFolder => run_folders.push(path.clone()),
            InputKind::JobFolder => run_folders.extend(job::node_folders_in(path)?),
            InputKind::TraceFolder => {
                let found = trace_files_in(path)?;
                trace_paths.extend(found.into_iter().map(|p| TraceInput::kineto(None, p)));
            }
            InputKind::Trace => trace_paths.push(TraceInput::kineto(None, path.clone())),
            kind => pending_logs.push((kind, path.clone())),
        }
    }
    match run_folders.as_slice() {
        [] => {}
        [one] => load_run_folder(one, &mut rec, &mut trace_paths, &mut pending_logs)?,
        // Several run folders are the hosts of one job.
        hosts => job::load_job(hosts, &mut rec, &mut trace_paths)?,
    }
    for (kind, path) in pending_logs {
        load_log(kind, &path, &mut rec)?;
    }
    rec.traces = read_traces(&trace_paths, th)?;
    note_summarised_ranks(&mut rec);
    check_ranks(paths, &rec)?;
    fill_facts_from_traces(&mut rec);
    if rec.traces.is_empty() && rec.steps.is_empty() && rec.samples.is_empty() {
        let path = paths.first().cloned().unwrap_or_default();
        // A run whose files were created and left empty: stopped at once, or still starting.
        let empty = rec.notes.iter().find_map(|n| match n {
            Note::EmptyFiles { files } => Some(files.clone()),
            _ => None,
        });
        return Err(match empty {
            Some(files) => EngineError::NothingRecordedYet { path, files },
            None => EngineError::NothingToAnalyse { path },
        });
    }
    Ok(rec)
}

fn classify(path: &Path) -> Result<InputKind> {
    let meta = std::fs::metadata(path).map_err(|e| EngineError::io(path, e))?;
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default()
        .to_ascii_lowercase();
    if meta.is_dir() {
        let has = |n: &str| path.join(n).exists();
        let rank_dirs = path.join(layout::rank_dir(0)).is_dir();
        if has(layout::META_JSON)
            || has(layout::STEPS_CSV)
            || has(layout::NVML_CSV)
            || has(layout::GPM_CSV)
            || has(layout::HOST_CSV)
            || has(layout::TRACE)
            || has("trace.json")
            || rank_dirs
        {
            return Ok(InputKind::RunFolder);
        }
        if !trace_files_in(path)?.is_empty() {
            return Ok(InputKind::TraceFolder);
        }
        // A folder of a job's hosts' run folders (`checkup gather`), even of one host.
        if !job::node_folders_in(path)?.is_empty() {
            return Ok(InputKind::JobFolder);
        }
        return Err(EngineError::NothingToAnalyse {
            path: path.to_path_buf(),
        });
    }
    if meta.len() == 0 {
        return Err(EngineError::invalid(path, "file is empty"));
    }
    if name.ends_with(".json") || name.ends_with(".json.gz") {
        return Ok(InputKind::Trace);
    }
    if name.ends_with(".xml") {
        return Ok(InputKind::SmiXml);
    }
    let head = read_head(path)?;
    let first = head
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or_default()
        .trim();
    Ok(
        if first.starts_with("# gpu") || first.starts_with("#gpu") || first.starts_with("# Idx") {
            InputKind::Dmon
        } else if first.starts_with("ts,gpu,util_gpu")
            || first.starts_with("ts,gpu,") && first.contains("power_w")
        {
            InputKind::NvmlCsv
        } else if first.starts_with("ts,gpu,") && first.contains("sm_util") {
            InputKind::GpmCsv
        } else if first.starts_with("ts,cpu_total_pct") {
            InputKind::HostCsv
        } else if first.starts_with("step,t_start") {
            InputKind::StepsCsv
        } else if name.ends_with(".csv") || name.ends_with(".log") || name.ends_with(".txt") {
            InputKind::QueryGpuLog
        } else {
            return Err(EngineError::NothingToAnalyse {
                path: path.to_path_buf(),
            });
        },
    )
}

fn read_head(path: &Path) -> Result<String> {
    use std::io::Read;
    let mut f = std::fs::File::open(path).map_err(|e| EngineError::io(path, e))?;
    let mut buf = vec![0u8; 4096];
    let n = f.read(&mut buf).map_err(|e| EngineError::io(path, e))?;
    buf.truncate(n);
    Ok(String::from_utf8_lossy(&buf).into_owned())
}

/// `*.pt.trace.json[.gz]` files of a tensorboard_trace_handler folder, sorted by name.
fn trace_files_in(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| EngineError::io(dir, e))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            let n = p.file_name().and_then(|n| n.to_str()).unwrap_or_default();
            n.ends_with(".pt.trace.json") || n.ends_with(".pt.trace.json.gz")
        })
        .collect();
    out.sort();
    Ok(out)
}

fn first_existing(dir: &Path, names: &[&str]) -> Option<PathBuf> {
    names.iter().map(|n| dir.join(n)).find(|p| p.is_file())
}

fn rank_dirs(dir: &Path) -> Result<Vec<(u32, PathBuf)>> {
    let mut out: Vec<(u32, PathBuf)> = std::fs::read_dir(dir)
        .map_err(|e| EngineError::io(dir, e))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .filter_map(|p| Some((layout::rank_of_dir(p.file_name()?.to_str()?)?, p)))
        .collect();
    out.sort();
    Ok(out)
}

/// A run folder's rank units: the folder itself (a run of one process), then each `rankN/`.
fn rank_units(dir: &Path) -> Result<Vec<(Option<u32>, PathBuf)>> {
    let mut units = vec![(None, dir.to_path_buf())];
    units.extend(rank_dirs(dir)?.into_iter().map(|(r, p)| (Some(r), p)));
    Ok(units)
}

/// A rank unit's traces: its `trace.json[.gz]`, else its `*.pt.trace.json[.gz]` files.
fn traces_in_unit(unit: &Path) -> Result<Vec<PathBuf>> {
    match first_existing(unit, &[layout::TRACE, "trace.json"]) {
        Some(t) => Ok(vec![t]),
        None => trace_files_in(unit),
    }
}

/// The run folder's file `name` under `unit` when it holds something: one a run created but
/// left empty (stopped at once, or still starting) is listed in `empty` and read as absent,
/// where a file given by itself would be refused as empty.
fn recorded(dir: &Path, unit: &Path, names: &[&str], empty: &mut Vec<String>) -> Option<PathBuf> {
    let p = first_existing(unit, names)?;
    let blank = std::fs::read(&p).is_ok_and(|b| b.iter().all(u8::is_ascii_whitespace));
    if blank {
        let shown = p.strip_prefix(dir).unwrap_or(&p).display().to_string();
        empty.push(shown);
        return None;
    }
    Some(p)
}

fn load_run_folder(
    dir: &Path,
    rec: &mut Recording,
    traces: &mut Vec<TraceInput>,
    logs: &mut Vec<(InputKind, PathBuf)>,
) -> Result<()> {
    rec.sources.push(dir.to_path_buf());
    let mut empty = Vec::new();
    let result = load_run_files(dir, rec, traces, logs, &mut empty);
    if !empty.is_empty() {
        rec.notes.push(Note::EmptyFiles { files: empty });
    }
    result
}

fn load_run_files(
    dir: &Path,
    rec: &mut Recording,
    traces: &mut Vec<TraceInput>,
    logs: &mut Vec<(InputKind, PathBuf)>,
    empty: &mut Vec<String>,
) -> Result<()> {
    if let Some(meta) = recorded(dir, dir, &[layout::META_JSON], empty) {
        let m = meta::read_meta(&meta)?;
        meta::merge_into(&mut rec.facts, m.facts);
        rec.profile_steps = rec.profile_steps.or(m.profile_steps);
    }
    for (rank, unit) in &rank_units(dir)? {
        if let Some(steps) = recorded(dir, unit, &[layout::STEPS_CSV], empty) {
            rec.steps
                .insert(rank.unwrap_or(0), steps::read_steps_csv(&steps)?);
        }
        let r = rank.unwrap_or(0);
        if let Some(p) = recorded(dir, unit, &[layout::TRAINING_JSON], empty) {
            rec.training.insert(r, training::read_training_json(&p)?);
        }
        if let Some(p) = recorded(dir, unit, &[layout::EVENTS_CSV], empty) {
            rec.markers.insert(r, training::read_events_csv(&p)?);
        }
        if let Some(p) = recorded(dir, unit, &[layout::MEMORY_CSV], empty) {
            rec.memory.insert(r, training::read_memory_csv(&p)?);
        }
        // The trace is measured here when it was copied; its host's summary stands in for it
        // when it was left there.
        let found = traces_in_unit(unit)?;
        match recorded(dir, unit, &[layout::TRACE_SUMMARY], empty) {
            Some(summary) if found.is_empty() => traces.push(TraceInput {
                folder_rank: *rank,
                path: summary,
                form: TraceForm::Summary,
            }),
            _ => traces.extend(found.into_iter().map(|p| TraceInput::kineto(*rank, p))),
        }
    }
    if let Some(p) = recorded(dir, dir, &[layout::NVML_CSV], empty) {
        rec.samples.nvml = samples::read_nvml_csv(&p)?;
    } else if let Some(p) = first_existing(dir, &["gpu_health.csv"]) {
        logs.push((InputKind::QueryGpuLog, p));
    } else if let Some(p) = first_existing(dir, &["dmon.txt"]) {
        logs.push((InputKind::Dmon, p));
    }
    if let Some(p) = recorded(dir, dir, &[layout::GPM_CSV], empty) {
        rec.samples.gpm = samples::read_gpm_csv(&p)?;
    }
    if let Some(p) = recorded(dir, dir, &[layout::HOST_CSV], empty) {
        rec.samples.host = samples::read_host_csv(&p)?;
    }
    if let Some(p) = recorded(dir, dir, &[layout::GPU_PROCESSES_CSV], empty) {
        rec.gpu_processes = samples::read_gpu_processes_csv(&p)?;
    }
    let st = dir.join(layout::STATIC_DIR);
    // Written by checkup-agent: the GPUs and driver as NVML saw them.
    if let Some(p) = first_existing(&st, &[layout::FACTS_JSON]) {
        let text = std::fs::read_to_string(&p).map_err(|e| EngineError::io(&p, e))?;
        let facts: RunFacts = serde_json::from_str(&text)
            .map_err(|e| EngineError::invalid(&p, format!("invalid run facts: {e}")))?;
        meta::merge_into(&mut rec.facts, facts);
    }
    if let Some(p) = first_existing(&st, &[layout::SMI_XML]) {
        let snap = static_files::read_smi_xml(&p)?;
        rec.facts.driver_version = rec.facts.driver_version.take().or(snap.driver_version);
        rec.facts.cuda_driver_version = rec.facts.cuda_driver_version.take().or(snap.cuda_version);
        if rec.facts.gpus.is_empty() {
            rec.facts.gpus = snap.gpus;
        }
    }
    if let Some(p) = first_existing(&st, &[layout::TOPOLOGY]) {
        rec.facts.topology = static_files::read_topology(&p)?;
    }
    if let Some(p) = first_existing(&st, &["collect_env.txt"]) {
        let env = static_files::read_collect_env(&p)?;
        rec.facts.torch_version = rec.facts.torch_version.take().or(env.torch_version);
        rec.facts.cuda_runtime_version = rec
            .facts
            .cuda_runtime_version
            .take()
            .or(env.cuda_build_version);
        rec.facts.driver_version = rec.facts.driver_version.take().or(env.driver_version);
    }
    if let Some(p) = first_existing(&st, &["host.txt"]) {
        rec.facts.host_cpus = rec.facts.host_cpus.or(static_files::read_host_cpus(&p)?);
    }
    Ok(())
}

fn load_log(kind: InputKind, path: &Path, rec: &mut Recording) -> Result<()> {
    rec.sources.push(path.to_path_buf());
    match kind {
        InputKind::NvmlCsv => rec.samples.nvml.extend(samples::read_nvml_csv(path)?),
        InputKind::GpmCsv => rec.samples.gpm.extend(samples::read_gpm_csv(path)?),
        InputKind::HostCsv => rec.samples.host.extend(samples::read_host_csv(path)?),
        InputKind::StepsCsv => {
            let next_rank = rec.steps.keys().next_back().map_or(0, |r| r + 1);
            rec.steps.insert(next_rank, steps::read_steps_csv(path)?);
        }
        InputKind::QueryGpuLog => {
            if rec.samples.nvml.is_empty() {
                rec.samples.nvml = smi_logs::read_query_gpu_log(path)?;
                rec.notes.push(Note::SamplesFromQueryLog {
                    path: path.display().to_string(),
                });
            }
        }
        InputKind::Dmon => {
            if rec.samples.nvml.is_empty() {
                let start = rec.facts.started.unwrap_or(0.0);
                rec.samples.nvml = smi_logs::read_dmon(path, start, 1.0)?;
                rec.notes.push(Note::SamplesFromDmon {
                    path: path.display().to_string(),
                });
            }
        }
        InputKind::SmiXml => {
            let snap = static_files::read_smi_xml(path)?;
            rec.facts.driver_version = rec.facts.driver_version.take().or(snap.driver_version);
            rec.facts.cuda_driver_version =
                rec.facts.cuda_driver_version.take().or(snap.cuda_version);
            rec.facts.gpus = snap.gpus;
        }
        InputKind::RunFolder | InputKind::JobFolder | InputKind::TraceFolder | InputKind::Trace => {
            unreachable!("handled by load")
        }
    }
    Ok(())
}

/// A trace's place among the paths and what reading it gave.
type Measured = (usize, Result<RankTrace>);

/// Reads and measures every trace, as many at once as there are cores: each worker holds one
/// trace at a time and keeps only its measurements, so a run of 256 ranks needs the memory
/// of a few traces, not of 256. A summary made on the rank's host is read as it was measured
/// there. They are ordered by rank: the trace's own `distributedInfo.rank` first, then its
/// `rankN/` folder, then its position.
fn read_traces(inputs: &[TraceInput], th: &Thresholds) -> Result<Vec<RankTrace>> {
    let read_one = |i: usize| -> Result<RankTrace> {
        let input = &inputs[i];
        let placed = |rank: Option<u32>| rank.or(input.folder_rank).or(Some(i as u32));
        match input.form {
            TraceForm::Kineto => {
                let mut t = kineto::read_trace(&input.path)?;
                t.rank = placed(t.rank);
                Ok(measure(t, th))
            }
            TraceForm::Summary => read_summary(&input.path, placed, th),
        }
    };
    let mut results: Vec<Measured> = in_parallel(inputs.len(), read_one)?;
    // The first error in the order the paths were given, as a sequential read would report.
    results.sort_by_key(|(i, _)| *i);
    let mut traces = Vec::with_capacity(results.len());
    for (_, result) in results {
        traces.push(result?);
    }
    traces.sort_by_key(|t| t.rank);
    for w in traces.windows(2) {
        if w[0].rank == w[1].rank {
            return Err(EngineError::invalid(
                &w[1].source,
                format!(
                    "rank {} appears twice (also in {}): give one trace per rank",
                    w[1].rank.unwrap_or(0),
                    w[0].source.display()
                ),
            ));
        }
    }
    Ok(traces)
}

/// What the analysis keeps of a trace it has read.
fn measure(mut t: Trace, th: &Thresholds) -> RankTrace {
    let summary = analyze_trace(&t, th).summary;
    RankTrace {
        source: std::mem::take(&mut t.source),
        rank: t.rank,
        world_size: t.world_size,
        device_name: t.device_name.take(),
        summary,
        trace_left_on_host: None,
    }
}

/// A rank's summary made on its host, as a measured trace. It was measured with the default
/// thresholds, so a diagnosis with others refuses it rather than mixing the two.
fn read_summary(
    path: &Path,
    placed: impl Fn(Option<u32>) -> Option<u32>,
    th: &Thresholds,
) -> Result<RankTrace> {
    if *th != Thresholds::default() {
        return Err(EngineError::invalid(
            path,
            "this rank's trace was measured on its host with the default thresholds and this analysis uses others: copy the trace itself beside it",
        ));
    }
    let file = checkup_recording::trace_summary::read_trace_summary(path)?;
    let rank = placed(file.rank);
    let mut summary = file.summary;
    summary.source = path.display().to_string();
    Ok(RankTrace {
        source: path.to_path_buf(),
        rank,
        world_size: file.world_size,
        device_name: file.device_name,
        summary,
        trace_left_on_host: Some(file.trace_bytes),
    })
}

/// `work(0..n)`, as many at once as there are cores, each result with its index. A worker
/// that panics is an error, not a crash of the caller.
fn in_parallel<T: Send>(n: usize, work: impl Fn(usize) -> T + Sync) -> Result<Vec<(usize, T)>> {
    let workers = std::thread::available_parallelism()
        .map_or(1, |c| c.get())
        .clamp(1, n.max(1));
    let next = std::sync::atomic::AtomicUsize::new(0);
    let done: Vec<std::thread::Result<Vec<(usize, T)>>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                s.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        if i >= n {
                            return mine;
                        }
                        mine.push((i, work(i)));
                    }
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join()).collect()
    });
    let mut results = Vec::with_capacity(n);
    for worker in done {
        results.extend(
            worker.map_err(|_| EngineError::invalid(Path::new("trace"), "trace reader failed"))?,
        );
    }
    Ok(results)
}

/// Says which ranks were read from their hosts' summaries, and how much trace stayed there.
fn note_summarised_ranks(rec: &mut Recording) {
    let left: Vec<(u32, u64)> = rec
        .traces
        .iter()
        .filter_map(|t| Some((t.rank?, t.trace_left_on_host?)))
        .collect();
    if !left.is_empty() {
        rec.notes.push(Note::TracesSummarisedOnHosts {
            ranks: left.iter().map(|(r, _)| *r).collect(),
            trace_bytes: left.iter().map(|(_, b)| *b).sum(),
        });
    }
}

fn check_ranks(paths: &[PathBuf], rec: &Recording) -> Result<()> {
    let world = rec
        .traces
        .iter()
        .filter_map(|t| t.world_size)
        .max()
        .or(rec.facts.world_size);
    let Some(world) = world else { return Ok(()) };
    if rec.traces.is_empty() {
        return Ok(());
    }
    // A world size comes from the input: bound it before it drives a loop or a list.
    if world > MAX_WORLD_SIZE {
        return Err(EngineError::invalid(
            paths.first().map(PathBuf::as_path).unwrap_or(Path::new("")),
            format!("world_size {world} is over {MAX_WORLD_SIZE}: no run has that many ranks"),
        ));
    }
    let present: std::collections::BTreeSet<u32> =
        rec.traces.iter().filter_map(|t| t.rank).collect();
    let missing = (0..world).filter(|r| !present.contains(r));
    // A single trace given on its own is allowed: the user chose to look at one rank.
    let single_file = paths.len() == 1 && paths[0].is_file();
    let count = missing.clone().count();
    if count > 0 && !single_file {
        const LISTED: usize = 8;
        let mut list = missing
            .take(LISTED)
            .map(|r| format!("rank{r}"))
            .collect::<Vec<_>>()
            .join(", ");
        if count > LISTED {
            list.push_str(&format!(" and {} more", count - LISTED));
        }
        return Err(EngineError::MissingRanks {
            path: paths.first().cloned().unwrap_or_default(),
            message: format!("the run has {world} ranks but no trace for {list}: copy every rank's trace (rankN/trace.json.gz or one *.pt.trace.json.gz per rank)"),
        });
    }
    Ok(())
}

fn fill_facts_from_traces(rec: &mut Recording) {
    if let Some(t) = rec.traces.first() {
        if rec.facts.gpu_name.is_none() {
            rec.facts.gpu_name = t.device_name.clone();
        }
        if rec.facts.world_size.is_none() {
            rec.facts.world_size = t.world_size.or(Some(rec.traces.len() as u32));
        }
    }
    if rec.facts.gpu_name.is_none() {
        rec.facts.gpu_name = rec.facts.gpus.first().and_then(|g| g.name.clone());
    }
    if rec.facts.host_cpus.is_none() {
        rec.facts.host_cpus = rec
            .samples
            .host
            .first()
            .map(|h| h.per_core_pct.len() as u32)
            .filter(|&n| n > 0);
    }
}
