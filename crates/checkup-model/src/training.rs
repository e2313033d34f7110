//! What the training is, as the probe saw it from inside (`training.json` of a run folder,
//! one per rank), and the markers of periodic work over every step (`events.csv`). Every
//! field is optional: older run folders have neither file, and a probe that could not see
//! something says so in `not_recorded`.

use serde::{Deserialize, Serialize};

/// `training.json`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct TrainingContext {
    pub format: u32,
    pub torch: Option<String>,
    pub cuda_runtime: Option<String>,
    /// Every DataLoader the loop iterated, in the order first iterated.
    pub loaders: Vec<LoaderInfo>,
    pub optimizers: Vec<OptimizerInfo>,
    pub compile: CompileInfo,
    pub cuda_graphs: CudaGraphInfo,
    /// What one look at the forward pass showed (not taken on compiled models).
    pub model: Option<ModelInfo>,
    pub settings: NumericSettings,
    pub steps: StepCounts,
    pub markers: MarkerCounts,
    pub memory: Option<CudaMemory>,
    /// Synchronising calls in the watch window, by line of training code.
    pub syncs: Option<SyncSummary>,
    /// What the probe could not record, by reason.
    pub not_recorded: Vec<NotRecorded>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct LoaderInfo {
    pub batch_size: Option<u64>,
    pub drop_last: Option<bool>,
    pub num_workers: Option<u32>,
    pub pin_memory: Option<bool>,
    pub persistent_workers: Option<bool>,
    pub prefetch_factor: Option<u32>,
    pub sampler: Option<String>,
    pub batch_sampler: Option<String>,
    pub dataset: Option<String>,
    pub dataset_len: Option<u64>,
    pub batches_per_epoch: Option<u64>,
    pub epochs_started: u64,
    pub batches_fetched: u64,
    /// The step at which each of the first epochs began.
    pub first_epoch_steps: Vec<u64>,
}

/// What an optimizer's step really runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OptimizerImplementation {
    Fused,
    Foreach,
    ForLoop,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct OptimizerInfo {
    pub class: Option<String>,
    pub implementation: Option<OptimizerImplementation>,
    pub fused: Option<bool>,
    pub foreach: Option<bool>,
    pub param_groups: Option<u32>,
    pub param_count: Option<u64>,
    /// Parameters by dtype name (`float32`, `bfloat16`), counted in elements.
    pub param_dtypes: std::collections::BTreeMap<String, u64>,
    pub steps: u64,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct CompileInfo {
    /// Each `torch.compile` call (mode `None` is the default).
    pub calls: Vec<CompileCall>,
    /// Graphs dynamo compiled.
    pub graphs: Option<u64>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct CompileCall {
    pub mode: Option<String>,
    pub backend: Option<String>,
    pub fullgraph: Option<bool>,
    pub dynamic: Option<bool>,
    pub step: Option<u64>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct CudaGraphInfo {
    pub captures: u64,
    pub replays: u64,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ModelInfo {
    pub class: Option<String>,
    /// `DistributedDataParallel`, `FullyShardedDataParallel`.
    pub wrapper: Option<String>,
    pub ddp: Option<DdpSettings>,
    pub param_count: Option<u64>,
    /// The autocast dtype at the top-level forward (`bfloat16`), None without autocast.
    pub autocast: Option<String>,
    /// Counted over `watched_steps` steps.
    pub conv_layers_called: u64,
    pub conv_4d_inputs: u64,
    pub channels_last_inputs: u64,
    pub watched_steps: Option<u64>,
    pub module_calls_per_step: Option<f64>,
    pub forwards_per_step: Option<f64>,
    pub module_classes: Vec<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct DdpSettings {
    pub bucket_cap_mb: Option<f64>,
    pub find_unused_parameters: Option<bool>,
    pub gradient_as_bucket_view: Option<bool>,
    pub static_graph: Option<bool>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct NumericSettings {
    pub tf32_matmul: Option<bool>,
    pub tf32_cudnn: Option<bool>,
    pub float32_matmul_precision: Option<String>,
    pub cudnn_benchmark: Option<bool>,
    pub cudnn_deterministic: Option<bool>,
    pub deterministic_algorithms: Option<bool>,
    pub alloc_conf: Option<String>,
    pub cuda_launch_blocking: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct StepCounts {
    pub optimizer_steps: u64,
    pub backward_calls: u64,
    /// Backward passes per optimizer step (gradient accumulation when above 1).
    pub backward_per_step: Option<f64>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct MarkerCounts {
    pub checkpoints: u64,
    pub eval_passes: u64,
    pub long_gc: u64,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct CudaMemory {
    pub peak_allocated_bytes: Option<u64>,
    pub peak_reserved_bytes: Option<u64>,
    pub reserved_bytes: Option<u64>,
    pub inactive_split_bytes: Option<u64>,
    pub alloc_retries: Option<u64>,
    pub ooms: Option<u64>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SyncSummary {
    /// First and last watched step.
    pub steps: Option<[u64; 2]>,
    pub total: u64,
    pub per_step: Option<f64>,
    /// The lines that synchronised most, busiest first.
    pub sites: Vec<SyncSite>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SyncSite {
    pub file: String,
    pub line: u32,
    pub function: String,
    /// The line's source text.
    pub code: String,
    pub count: u64,
}

impl SyncSite {
    /// `train.py:88`: the file's name (not its folders) and line.
    pub fn location(&self) -> String {
        let name = self.file.rsplit(['/', '\\']).next().unwrap_or(&self.file);
        format!("{name}:{}", self.line)
    }
}

/// Why something was not recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NotRecorded {
    /// Global module hooks can make dynamo recompile: the forward was not looked at.
    ModelHooksSkippedCompiled,
    SyncsNotWatchedNoCuda,
    /// Python warnings are errors in this run: watching syncs would raise.
    SyncsNotWatchedWarningsAreErrors,
    /// The training set its own sync debug mode.
    SyncsNotWatchedDebugModeSet,
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
    pub step: u64,
    /// Epoch seconds.
    pub t: f64,
    /// Bytes in live tensors now.
    pub allocated_bytes: u64,
    /// Bytes the allocator holds from the driver now (live tensors and its cache).
    pub reserved_bytes: u64,
    pub peak_allocated_bytes: u64,
    pub peak_reserved_bytes: u64,
    /// Free pieces of split blocks: cached memory too fragmented for larger requests.
    pub inactive_split_bytes: u64,
    /// Times the allocator freed its cache and tried again after a failed `cudaMalloc`.
    pub alloc_retries: u64,
    pub ooms: u64,
}

/// One marker of `events.csv`: something periodic that happened during a step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunMarker {
    pub step: u64,
    /// Epoch seconds.
    pub t: f64,
    pub kind: MarkerKind,
    pub detail: String,
    pub duration_ms: Option<f64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MarkerKind {
    /// A DataLoader iterator was created (`forked` in the detail: its workers started).
    EpochStart,
    Checkpoint,
    /// From `model.eval()` back to `model.train()`.
    Eval,
    /// A full garbage collection long enough to matter.
    Gc,
}

impl MarkerKind {
    pub fn parse(s: &str) -> Option<MarkerKind> {
        Some(match s {
            "epoch_start" => MarkerKind::EpochStart,
            "checkpoint" => MarkerKind::Checkpoint,
            "eval" => MarkerKind::Eval,
            "gc" => MarkerKind::Gc,
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
