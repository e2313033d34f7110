//! What the training is, as the probe saw it from inside (`training.json` of a run folder,
//! one per rank), and the markers of periodic work over every step (`events.csv`). Every
//! field is optional: older run folders have neither file, and a probe that could not see
//! something says so in `not_recorded`.

use serde::{Deserialize, Serialize};

/// `training.json`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct TrainingContext {
    /// The file's format version.
    pub format: u32,
    /// PyTorch's version.
    pub torch: Option<String>,
    /// The CUDA runtime PyTorch was built with.
    pub cuda_runtime: Option<String>,
    /// Every DataLoader the loop iterated, in the order first iterated.
    pub loaders: Vec<LoaderInfo>,
    /// Every optimizer whose step ran, in the order first stepped.
    pub optimizers: Vec<OptimizerInfo>,
    /// `torch.compile` calls and the graphs made.
    pub compile: CompileInfo,
    /// CUDA graph captures and replays.
    pub cuda_graphs: CudaGraphInfo,
    /// What one look at the forward pass showed (not taken on compiled models).
    pub model: Option<ModelInfo>,
    /// Numeric and allocator settings of the process.
    pub settings: NumericSettings,
    /// Optimizer steps and backward passes counted.
    pub steps: StepCounts,
    /// Checkpoints, evaluation passes and long garbage collections counted.
    pub markers: MarkerCounts,
    /// The CUDA caching allocator at the end of the run.
    pub memory: Option<CudaMemory>,
    /// Synchronising calls in the watch window, by line of training code.
    pub syncs: Option<SyncSummary>,
    /// `torch.cuda.empty_cache()` calls from the watch window to the end of the run, by line
    /// of training code (`total` over the steps in `steps`).
    pub empty_cache: Option<SyncSummary>,
    /// `gc.collect()` calls over the whole run, by line of training code (`total` over the
    /// steps in `steps`): a full collection the loop asks for, not one Python's own
    /// thresholds start.
    pub gc_collect: Option<SyncSummary>,
    /// What the probe could not record, by reason.
    pub not_recorded: Vec<NotRecorded>,
    /// Where the host's CPU went, by thread and line (None: not sampled).
    pub hot_lines: Option<crate::HotLines>,
}

/// One DataLoader as the probe saw it: its arguments and how it was iterated.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct LoaderInfo {
    /// Samples per batch.
    pub batch_size: Option<u64>,
    /// Whether a last short batch is dropped.
    pub drop_last: Option<bool>,
    /// Worker processes (0: batches are made in the training process).
    pub num_workers: Option<u32>,
    /// Whether batches come in pinned memory.
    pub pin_memory: Option<bool>,
    /// Whether workers stay alive between epochs.
    pub persistent_workers: Option<bool>,
    /// Batches each worker prepares ahead.
    pub prefetch_factor: Option<u32>,
    /// The sampler's class.
    pub sampler: Option<String>,
    /// The batch sampler's class.
    pub batch_sampler: Option<String>,
    /// The dataset's class.
    pub dataset: Option<String>,
    /// Samples in the dataset, where it has a length.
    pub dataset_len: Option<u64>,
    /// Batches in an epoch, where known.
    pub batches_per_epoch: Option<u64>,
    /// Iterators created: epochs begun.
    pub epochs_started: u64,
    /// Batches drawn from it.
    pub batches_fetched: u64,
    /// The step at which each of the first epochs began.
    pub first_epoch_steps: Vec<u64>,
}

/// What an optimizer's step really runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OptimizerImplementation {
    /// `fused=True`: one kernel for the whole step.
    Fused,
    /// `foreach=True`: a few kernels over lists of tensors.
    Foreach,
    /// A loop over parameters: kernels per parameter.
    ForLoop,
}

/// One optimizer as the probe saw it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct OptimizerInfo {
    /// Its class (`AdamW`).
    pub class: Option<String>,
    /// What its step runs.
    pub implementation: Option<OptimizerImplementation>,
    /// Its `fused` argument.
    pub fused: Option<bool>,
    /// Its `foreach` argument.
    pub foreach: Option<bool>,
    /// Parameter groups.
    pub param_groups: Option<u32>,
    /// Parameters, counted in elements.
    pub param_count: Option<u64>,
    /// Parameters by dtype name (`float32`, `bfloat16`), counted in elements.
    pub param_dtypes: std::collections::BTreeMap<String, u64>,
    /// Steps taken.
    pub steps: u64,
}

/// Whether and how the training was compiled.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct CompileInfo {
    /// Each `torch.compile` call (mode `None` is the default).
    pub calls: Vec<CompileCall>,
    /// Graphs dynamo compiled.
    pub graphs: Option<u64>,
    /// Compilations dynamo made from the first `torch.compile` call on (first compiles,
    /// recompilations, backward graphs), each also a `compile` row of `events.csv`; None
    /// where the probe did not watch them.
    pub compilations: Option<u64>,
    /// Their time, ms.
    pub compile_ms: Option<f64>,
    /// Recompilations: a compiled function called with something its guards did not
    /// expect (another shape, another Python value), compiled again.
    pub recompilations: Option<u64>,
    /// The recompiled functions, with the guards that failed.
    pub recompiles: Vec<Recompiled>,
    /// A function that hit dynamo's recompile limit and, from then on, ran uncompiled.
    pub recompile_limit: Option<RecompileLimit>,
}

/// A compiled function dynamo compiled again, and why.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Recompiled {
    /// The function (`forward`).
    pub function: String,
    /// Its file.
    pub file: String,
    /// The line it starts at.
    pub line: u32,
    /// Recompilations of it.
    pub count: u64,
    /// The steps of its first and last recompilation.
    pub steps: Option<[u64; 2]>,
    /// The first failed guard of each different recompilation, as dynamo words it
    /// (`tensor 'tokens' size mismatch at index 1. expected 96, actual 136`); at most three.
    pub reasons: Vec<String>,
}

/// Dynamo's recompile limit hit by a function: it runs uncompiled from then on.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct RecompileLimit {
    /// The setting (`recompile_limit`, `cache_size_limit` in older PyTorch).
    pub setting: String,
    /// Its value.
    pub value: u64,
    /// The function.
    pub function: Option<String>,
    /// Its file.
    pub file: Option<String>,
    /// The line it starts at.
    pub line: Option<u32>,
    /// The last failed guard.
    pub reason: Option<String>,
    /// The step it was hit at.
    pub step: Option<u64>,
}

/// What a recompilation's failed guard checked, read from dynamo's words.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum GuardFailure {
    /// A tensor's size along one dimension changed (a sequence length, a last batch).
    Size {
        /// The dimension.
        dim: u32,
    },
    /// A Python value the function reads changed (a number, a flag, a string).
    Value,
    /// Anything else (a tensor's dtype, device or strides, another object).
    Other,
}

/// Where dynamo's words for a failed size guard begin: `tensor 'tokens' size mismatch at
/// index 1. expected 64, actual 128`.
const SIZE_MISMATCH: &str = "size mismatch at index ";

/// The number that starts right after the first `key` in `text`.
fn number_after<T: std::str::FromStr>(text: &str, key: &str) -> Option<T> {
    let rest = text.split_once(key)?.1;
    let end = rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len());
    rest[..end].parse().ok()
}

impl GuardFailure {
    /// What `reason`, as dynamo words a failed guard, checked.
    pub fn of(reason: &str) -> GuardFailure {
        if let Some(dim) = number_after(reason, SIZE_MISMATCH) {
            return GuardFailure::Size { dim };
        }
        // `L['scale'] == 0.5`, `L['self'].training == True`: a value compared.
        if reason.contains(" == ") && !reason.contains("tensor ") {
            return GuardFailure::Value;
        }
        GuardFailure::Other
    }
}

/// The sizes a failed size guard compared, as dynamo words it (`tensor 'tokens' size
/// mismatch at index 1. expected 64, actual 128`): `(expected, actual)`.
pub fn guarded_sizes(reason: &str) -> Option<(u64, u64)> {
    let rest = reason.split_once(SIZE_MISMATCH)?.1;
    Some((
        number_after(rest, "expected ")?,
        number_after(rest, "actual ")?,
    ))
}

impl CompileInfo {
    /// Whether a compiled function's input grew: every failed guard the probe kept of some
    /// recompiled function a size that came back larger than the one it was compiled for
    /// (a sequence-length curriculum, a history passed in and extended).
    pub fn input_grew(&self) -> bool {
        self.recompiles.iter().any(|r| {
            !r.reasons.is_empty()
                && r.reasons
                    .iter()
                    .all(|reason| guarded_sizes(reason).is_some_and(|(was, now)| now > was))
        })
    }

    /// Whether a `torch.compile` call asked for static shapes (`dynamic=False`).
    pub fn asked_static(&self) -> bool {
        self.calls.iter().any(|c| c.dynamic == Some(false))
    }

    /// The most recompiled function, if any.
    pub fn most_recompiled(&self) -> Option<&Recompiled> {
        self.recompiles.iter().max_by_key(|r| r.count)
    }
}

/// One `torch.compile` call's arguments.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct CompileCall {
    /// `mode` (None: the default).
    pub mode: Option<String>,
    /// `backend`.
    pub backend: Option<String>,
    /// `fullgraph`.
    pub fullgraph: Option<bool>,
    /// `dynamic`.
    pub dynamic: Option<bool>,
    /// The step at which it was called.
    pub step: Option<u64>,
}

/// CUDA graphs captured and replayed.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct CudaGraphInfo {
    /// Captures.
    pub captures: u64,
    /// Replays.
    pub replays: u64,
}

/// What one look at the forward pass showed of the model.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ModelInfo {
    /// The top-level module's class.
    pub class: Option<String>,
    /// `DistributedDataParallel`, `FullyShardedDataParallel`.
    pub wrapper: Option<String>,
    /// DistributedDataParallel's arguments, when it wraps the model.
    pub ddp: Option<DdpSettings>,
    /// Parameters, counted in elements.
    pub param_count: Option<u64>,
    /// The autocast dtype at the top-level forward (`bfloat16`), None without autocast.
    pub autocast: Option<String>,
    /// Counted over `watched_steps` steps.
    pub conv_layers_called: u64,
    /// Convolutions called with 4-d inputs.
    pub conv_4d_inputs: u64,
    /// Of those, inputs in channels_last.
    pub channels_last_inputs: u64,
    /// Steps the forward was watched for.
    pub watched_steps: Option<u64>,
    /// Module calls per step: how many small layers a step runs.
    pub module_calls_per_step: Option<f64>,
    /// Forward passes per step.
    pub forwards_per_step: Option<f64>,
    /// Module classes the model is made of.
    pub module_classes: Vec<String>,
}

/// DistributedDataParallel's arguments.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct DdpSettings {
    /// `bucket_cap_mb`.
    pub bucket_cap_mb: Option<f64>,
    /// `find_unused_parameters`.
    pub find_unused_parameters: Option<bool>,
    /// `gradient_as_bucket_view`.
    pub gradient_as_bucket_view: Option<bool>,
    /// `static_graph`.
    pub static_graph: Option<bool>,
}

/// Numeric and allocator settings as the process had them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct NumericSettings {
    /// `torch.backends.cuda.matmul.allow_tf32`.
    pub tf32_matmul: Option<bool>,
    /// `torch.backends.cudnn.allow_tf32`.
    pub tf32_cudnn: Option<bool>,
    /// `torch.get_float32_matmul_precision()`.
    pub float32_matmul_precision: Option<String>,
    /// `torch.backends.cudnn.benchmark`.
    pub cudnn_benchmark: Option<bool>,
    /// `torch.backends.cudnn.deterministic`.
    pub cudnn_deterministic: Option<bool>,
    /// `torch.are_deterministic_algorithms_enabled()`.
    pub deterministic_algorithms: Option<bool>,
    /// `torch.utils.deterministic.fill_uninitialized_memory`: with deterministic algorithms
    /// on, every tensor `torch.empty` hands out is filled (NaN for floats) by a kernel.
    pub fill_uninitialized_memory: Option<bool>,
    /// `PYTORCH_CUDA_ALLOC_CONF`.
    pub alloc_conf: Option<String>,
    /// `CUDA_LAUNCH_BLOCKING`.
    pub cuda_launch_blocking: Option<String>,
    /// `torch.is_anomaly_enabled()` at any of the probe's reads: autograd's anomaly
    /// detection, a debugging setting.
    pub anomaly_detection: Option<bool>,
    /// Anomaly detection with its NaN check of every backward output.
    pub anomaly_check_nan: Option<bool>,
    /// `torch.cuda.get_sync_debug_mode()` outside the probe's own watch (1 warns, 2 raises
    /// at every synchronising call).
    pub sync_debug_mode: Option<u32>,
    /// A profiler of the training's own was recording when the probe looked (outside the
    /// probe's window).
    pub profiler_enabled: Option<bool>,
    /// `gc.get_freeze_count()`: objects `gc.freeze()` put out of the collector's reach.
    pub gc_frozen_objects: Option<u64>,
}

/// Optimizer steps and backward passes counted.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct StepCounts {
    /// Optimizer steps.
    pub optimizer_steps: u64,
    /// Backward passes.
    pub backward_calls: u64,
    /// Backward passes per optimizer step (gradient accumulation when above 1).
    pub backward_per_step: Option<f64>,
}

/// Periodic work the probe marked, counted.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct MarkerCounts {
    /// Checkpoints written.
    pub checkpoints: u64,
    /// Evaluation passes.
    pub eval_passes: u64,
    /// Garbage collections long enough to matter.
    pub long_gc: u64,
}

/// The CUDA caching allocator's counters at the end of the run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct CudaMemory {
    /// The most live tensors held at once, bytes.
    pub peak_allocated_bytes: Option<u64>,
    /// The most the allocator reserved at once, bytes.
    pub peak_reserved_bytes: Option<u64>,
    /// What it reserved at the end, bytes.
    pub reserved_bytes: Option<u64>,
    /// Free pieces of split blocks at the end, bytes.
    pub inactive_split_bytes: Option<u64>,
    /// Cache flushes after a failed `cudaMalloc`.
    pub alloc_retries: Option<u64>,
    /// Out-of-memory errors.
    pub ooms: Option<u64>,
}

/// Synchronising calls the probe watched, by line of training code.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SyncSummary {
    /// First and last watched step.
    pub steps: Option<[u64; 2]>,
    /// Synchronising calls in those steps.
    pub total: u64,
    /// Per step.
    pub per_step: Option<f64>,
    /// The lines that synchronised most, busiest first.
    pub sites: Vec<SyncSite>,
}

/// A line of training code that synchronises with the GPU.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SyncSite {
    /// Its file.
    pub file: String,
    /// Its line.
    pub line: u32,
    /// Its function.
    pub function: String,
    /// The line's source text.
    pub code: String,
    /// Synchronising calls it made.
    pub count: u64,
    /// Those calls by kind: a read-back that waits (`.item()`, `.cpu()`), an explicit
    /// `synchronize()`, an `empty_cache()`.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub kinds: std::collections::BTreeMap<SyncKind, u64>,
}

/// What kind of synchronising call a line made, as the probe tells them apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SyncKind {
    /// A read-back that waits for the GPU (`.item()`, `.cpu()`, `.tolist()`, a copy to the
    /// host).
    Implicit,
    /// An explicit `torch.cuda.synchronize()` or a stream's or event's.
    Synchronize,
    /// `torch.cuda.empty_cache()`.
    EmptyCache,
    /// `gc.collect()`: no wait for the GPU, but a stop of the loop, counted by line the
    /// same way.
    GcCollect,
    /// A kind this version does not know (a newer probe's).
    #[serde(other)]
    Other,
}

impl SyncSite {
    /// `train.py:88`: the file's name (not its folders) and line.
    pub fn location(&self) -> String {
        file_line(&self.file, self.line)
    }

    /// Whether the line copies a host tensor to the GPU (`x.cuda()`, `x.to(device)`,
    /// `torch.tensor(v, device="cuda")`): from pageable memory such a copy makes the host
    /// wait, and the fix is to the copy, never to do it less often.
    pub fn copies_to_gpu(&self) -> bool {
        let code = self.code.as_str();
        let made_on_device = ["torch.tensor(", "as_tensor(", "from_numpy("]
            .iter()
            .any(|f| code.contains(f))
            && code.contains("device=");
        made_on_device || !gpu_copy_calls(code).is_empty()
    }

    /// Whether the line reads GPU values back to order them on the host
    /// (`np.argsort(loss.cpu().numpy())`, `sorted(t.tolist())`): the training uses that order
    /// in the same step (hard examples, top-k), so reading back less often would change what
    /// it trains on; the fix is to sort on the GPU.
    pub fn sorts_on_host(&self) -> bool {
        let code = self.code.as_str();
        HOST_SORTS.iter().any(|f| code.contains(f))
            && TENSOR_READ_BACKS.iter().any(|r| code.contains(r))
    }

    /// Whether the line reads GPU values back into a list the loop keeps
    /// (`preds.extend(out.argmax(1).tolist())`, `losses.append(loss.item())`): a history
    /// that grows with every step, which whatever scans or sums it later walks again.
    pub fn keeps_history(&self) -> bool {
        let code = self.code.as_str();
        [".append(", ".extend(", "+= ["]
            .iter()
            .any(|f| code.contains(f))
            && (code.contains(".item()") || TENSOR_READ_BACKS.iter().any(|r| code.contains(r)))
    }
}

/// Calls that read a tensor's values back to the host as a whole, as training code writes
/// them (`.item()` reads one number).
pub const TENSOR_READ_BACKS: [&str; 3] = [".cpu()", ".numpy()", ".tolist()"];

/// Calls that sort or select by order on the host, as training code writes them.
pub const HOST_SORTS: [&str; 7] = [
    "np.argsort(",
    "numpy.argsort(",
    "np.sort(",
    "numpy.sort(",
    "np.argpartition(",
    "numpy.argpartition(",
    "sorted(",
];

/// `train.py:88`: a file's name (not its folders) and a line in it, as a line of training
/// code is named to the user.
pub fn file_line(file: &str, line: u32) -> String {
    let name = file.rsplit(['/', '\\']).next().unwrap_or(file);
    format!("{name}:{line}")
}

/// Where the arguments of each call in `code` that copies a tensor to the GPU lie, in order:
/// every `.cuda(…)`, and each `.to(…)` that names CUDA or a device (not a dtype change).
pub fn gpu_copy_calls(code: &str) -> Vec<std::ops::Range<usize>> {
    let mut calls = Vec::new();
    for open in [".cuda(", ".to("] {
        for (at, _) in code.match_indices(open) {
            let start = at + open.len();
            let end = call_end(code, start);
            let args = &code[start..end];
            if open == ".cuda(" || args.contains("cuda") || args.contains("device") {
                calls.push(start..end);
            }
        }
    }
    calls.sort_by_key(|r| r.start);
    calls
}

/// Where the call whose arguments begin at `args_start` in `code` closes: its own `)`, past
/// any brackets its arguments open and any string literal they hold (`key=lambda s:
/// s.count(")")`); the end of `code` when it never closes (a call continued on the next
/// line).
pub fn call_end(code: &str, args_start: usize) -> usize {
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    let mut escaped = false;
    code[args_start..]
        .char_indices()
        .find(|&(_, c)| {
            if let Some(q) = quote {
                match c {
                    _ if escaped => escaped = false,
                    '\\' => escaped = true,
                    _ if c == q => quote = None,
                    _ => {}
                }
                return false;
            }
            match c {
                '"' | '\'' => {
                    quote = Some(c);
                    false
                }
                '(' | '[' | '{' => {
                    depth += 1;
                    false
                }
                ')' if depth == 0 => true,
                ')' | ']' | '}' => {
                    depth = depth.saturating_sub(1);
                    false
                }
                _ => false,
            }
        })
        .map_or(code.len(), |(i, _)| args_start + i)
}

/// Why something was not recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NotRecorded {
    /// Global module hooks can make dynamo recompile: the forward was not looked at.
    ModelHooksSkippedCompiled,
    /// No CUDA in the process: there was nothing to watch.
    SyncsNotWatchedNoCuda,
    /// Python warnings are errors in this run: watching syncs would raise.
    SyncsNotWatchedWarningsAreErrors,
    /// The training set its own sync debug mode.
    SyncsNotWatchedDebugModeSet,
    /// A profiler of the training's own was recording when the probe's window was due: one
    /// profiler runs at a time, so the probe took no trace.
    TraceSkippedTrainingProfiler,
    /// A reason from a newer probe.
    #[serde(other)]
    Other,
}

impl TrainingContext {
    /// The loader the loop drew most batches from.
    pub fn main_loader(&self) -> Option<&LoaderInfo> {
        self.loaders.iter().max_by_key(|l| l.batches_fetched)
    }

    /// The optimizer whose steps end the training's steps (the first one stepped).
    pub fn main_optimizer(&self) -> Option<&OptimizerInfo> {
        self.optimizers.first()
    }

    /// Whether the model or step is compiled (torch.compile called, or dynamo made graphs).
    pub fn compiled(&self) -> bool {
        !self.compile.calls.is_empty() || self.compile.graphs.is_some_and(|g| g > 0)
    }

    /// Whether convolutions run with 4-d inputs, and how many of those are channels_last;
    /// None when the forward was not looked at.
    pub fn convolutions(&self) -> Option<(u64, u64)> {
        self.model
            .as_ref()
            .map(|m| (m.conv_4d_inputs, m.channels_last_inputs))
    }
}

/// torch.optim classes with a fused CUDA implementation (`fused=True`, torch 2.4 on).
pub fn optimizer_supports_fused(class: &str) -> bool {
    matches!(class, "Adam" | "AdamW" | "SGD" | "Adagrad")
}

/// One row of `memory.csv`: the training process's CUDA caching allocator at a step, read
/// about twice a second. Peaks are since the process started (the probe never resets them).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct MemorySample {
    /// The step.
    pub step: u64,
    /// Epoch seconds.
    pub t: f64,
    /// Bytes in live tensors now.
    pub allocated_bytes: u64,
    /// Bytes the allocator holds from the driver now (live tensors and its cache).
    pub reserved_bytes: u64,
    /// The most live tensors held since the start, bytes.
    pub peak_allocated_bytes: u64,
    /// The most reserved since the start, bytes.
    pub peak_reserved_bytes: u64,
    /// Free pieces of split blocks: cached memory too fragmented for larger requests.
    pub inactive_split_bytes: u64,
    /// Times the allocator freed its cache and tried again after a failed `cudaMalloc`.
    pub alloc_retries: u64,
    /// Out-of-memory errors so far.
    pub ooms: u64,
}

/// One marker of `events.csv`: something periodic that happened during a step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunMarker {
    /// The step.
    pub step: u64,
    /// Epoch seconds.
    pub t: f64,
    /// What happened.
    pub kind: MarkerKind,
    /// What the probe wrote about it (a path, `forked`).
    pub detail: String,
    /// How long it took, when the probe timed it.
    pub duration_ms: Option<f64>,
}

impl RunMarker {
    /// A `key=value` word of the detail (`bytes=1885000000`, `thread=checkpoint`).
    pub fn detail_value(&self, key: &str) -> Option<&str> {
        self.detail
            .split_whitespace()
            .find_map(|w| w.strip_prefix(key).and_then(|rest| rest.strip_prefix('=')))
    }

    /// A write the training does not wait for while it runs: a checkpoint written from
    /// a thread other than the main one, or by `async_save`.
    pub fn is_background_write(&self) -> bool {
        self.kind == MarkerKind::Checkpoint
            && (self.detail_value("thread").is_some()
                || self
                    .detail
                    .split_whitespace()
                    .next()
                    .is_some_and(|writer| writer.ends_with("async_save")))
    }

    /// The bytes a checkpoint wrote, when the probe could size its target.
    pub fn bytes(&self) -> Option<u64> {
        self.detail_value("bytes")?.parse().ok()
    }

    /// Whether a run writes its checkpoints in the background: most of the checkpoints
    /// among `markers` are background writes.
    pub fn checkpoints_in_background(markers: &[RunMarker]) -> bool {
        let writes = markers.iter().filter(|m| m.kind == MarkerKind::Checkpoint);
        2 * writes.clone().filter(|m| m.is_background_write()).count() > writes.count()
    }
}

/// What periodic work a marker is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MarkerKind {
    /// A DataLoader iterator was created (`forked` in the detail: its workers started).
    EpochStart,
    /// A checkpoint written (`torch.save` and the like).
    Checkpoint,
    /// From `model.eval()` back to `model.train()`.
    Eval,
    /// A full garbage collection long enough to matter.
    Gc,
    /// Dynamo compiling: a function's first compilation, a recompilation, a backward graph.
    Compile,
}

impl MarkerKind {
    /// The kind written in `events.csv`; None for an unknown one.
    pub fn parse(s: &str) -> Option<MarkerKind> {
        Some(match s {
            "epoch_start" => MarkerKind::EpochStart,
            "checkpoint" => MarkerKind::Checkpoint,
            "eval" => MarkerKind::Eval,
            "gc" => MarkerKind::Gc,
            "compile" => MarkerKind::Compile,
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_input_grew_when_every_size_guard_came_back_larger() {
        let recompiled = |reasons: &[&str]| CompileInfo {
            recompiles: vec![Recompiled {
                reasons: reasons.iter().map(|r| r.to_string()).collect(),
                ..Default::default()
            }],
            ..Default::default()
        };
        let longer = "tensor 'tokens' size mismatch at index 1. expected 64, actual 128";
        assert_eq!(guarded_sizes(longer), Some((64, 128)));
        assert!(recompiled(&[longer]).input_grew());
        // Lengths that come and go (batches padded to their own length) did not grow.
        let shorter = "tensor 'tokens' size mismatch at index 1. expected 136, actual 96";
        assert!(!recompiled(&[longer, shorter]).input_grew());
        assert!(!recompiled(&["L['scale'] == 0.5"]).input_grew());
        assert!(!recompiled(&[]).input_grew());
    }

    #[test]
    fn a_call_closes_at_its_own_parenthesis_past_brackets_and_strings() {
        fn end<'a>(code: &'a str, open: &str) -> &'a str {
            let start = code.find(open).unwrap() + open.len();
            &code[start..call_end(code, start)]
        }
        assert_eq!(
            end("idx = np.argsort(loss[mask].cpu().numpy())[:k]", "argsort("),
            "loss[mask].cpu().numpy()"
        );
        assert_eq!(
            end(
                "names = sorted(seen, key=lambda s: s.count(\")\")) + rest",
                "sorted("
            ),
            "seen, key=lambda s: s.count(\")\")"
        );
        assert_eq!(
            end(r"x.to('cuda:0', note='\')') + y", ".to("),
            r"'cuda:0', note='\')'"
        );
        // A call continued on the next line never closes on this one.
        assert_eq!(end("x = torch.tensor(", "tensor("), "");
        assert_eq!(
            end("x = batch.to(device, non_blocking=[", ".to("),
            "device, non_blocking=["
        );
    }

    #[test]
    fn a_probe_file_reads_with_unknown_fields_and_reasons() {
        let ctx: TrainingContext = serde_json::from_str(
            r#"{"format": 1, "later_field": 3, "loaders": [{"num_workers": 2, "batches_fetched": 9},
                {"num_workers": 0, "batches_fetched": 40}],
                "optimizers": [{"class": "AdamW", "implementation": "fused", "fused": true}],
                "compile": {"calls": [{"mode": null}], "graphs": 1},
                "not_recorded": ["model_hooks_skipped_compiled", "a_reason_from_a_newer_probe"]}"#,
        )
        .unwrap();
        assert_eq!(ctx.main_loader().unwrap().num_workers, Some(0));
        assert_eq!(
            ctx.main_optimizer().unwrap().implementation,
            Some(OptimizerImplementation::Fused)
        );
        assert!(ctx.compiled());
        assert_eq!(
            ctx.not_recorded,
            vec![NotRecorded::ModelHooksSkippedCompiled, NotRecorded::Other]
        );
    }

    #[test]
    fn a_sync_site_is_named_by_file_and_line() {
        let s = SyncSite {
            file: "/work/lab/train.py".into(),
            line: 88,
            ..Default::default()
        };
        assert_eq!(s.location(), "train.py:88");
    }
}
