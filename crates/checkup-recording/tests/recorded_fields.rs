//! Everything the probe records is read: every key of every `training.json` in the corpus
//! lands in the model's `TrainingContext` (serde would drop an unknown key without a word),
//! and each of the model's fields is then either used by a rule or shown in the report's
//! account of the training (`checkup_text::training::rows` binds every field, so a new one
//! does not build until it is placed).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Every key path of `v` with a non-null value: `loaders[].num_workers`; maps whose keys are
/// data (a dtype's name), not fields, end at the map.
fn paths(v: &serde_json::Value, at: &str, out: &mut BTreeSet<String>) {
    const DATA_KEYED: [&str; 1] = ["optimizers[].param_dtypes"];
    match v {
        serde_json::Value::Null => {}
        serde_json::Value::Object(m) if !DATA_KEYED.contains(&at) => {
            for (k, x) in m {
                let p = if at.is_empty() {
                    k.clone()
                } else {
                    format!("{at}.{k}")
                };
                paths(x, &p, out);
            }
        }
        serde_json::Value::Array(a) if a.iter().any(|x| x.is_object()) => {
            for x in a {
                paths(x, &format!("{at}[]"), out);
            }
        }
        _ => {
            out.insert(at.to_owned());
        }
    }
}

fn training_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            training_files(&p, out);
        } else if p.file_name().is_some_and(|n| n == "training.json") {
            out.push(p);
        }
    }
}

/// Where a recorded field is read.
enum Read {
    /// By the engine: a rule, the analysis or the fixes (a file under `crates/`).
    Engine(&'static str),
    /// Shown in the account of the training every report and the app print
    /// (`checkup-text/src/training.rs`).
    Shown,
    /// Neither, and why.
    Because(&'static str),
}

/// Every field of `training.json`, where it is read. `ident` is how the code names it where
/// that differs from the key.
const FIELDS: &[(&str, Read)] = &[
    ("format", Read::Because("the file's version: the reader checks it")),
    ("torch", Read::Engine("checkup-report/src/baseline.rs")),
    ("cuda_runtime", Read::Because("the environment check reports CUDA from the host; this is the process's own, kept for reference")),
    ("loaders[].batch_size", Read::Shown),
    ("loaders[].drop_last", Read::Shown),
    ("loaders[].num_workers", Read::Engine("checkup-engine/src/diagnosis/rules/data_loading.rs")),
    ("loaders[].pin_memory", Read::Engine("checkup-engine/src/diagnosis/fixes.rs")),
    ("loaders[].persistent_workers", Read::Engine("checkup-engine/src/diagnosis/fixes.rs")),
    ("loaders[].prefetch_factor", Read::Engine("checkup-engine/src/diagnosis/fixes.rs")),
    ("loaders[].sampler", Read::Shown),
    ("loaders[].batch_sampler", Read::Shown),
    ("loaders[].dataset", Read::Shown),
    ("loaders[].dataset_len", Read::Shown),
    ("loaders[].batches_per_epoch", Read::Engine("checkup-engine/src/diagnosis/rules/stalls.rs")),
    ("loaders[].epochs_started", Read::Shown),
    ("loaders[].batches_fetched", Read::Engine("checkup-engine/src/diagnosis/fixes.rs")),
    ("loaders[].first_epoch_steps", Read::Because("each epoch's first step: events.csv's epoch_start markers carry the same, with what the workers did")),
    ("optimizers[].class", Read::Engine("checkup-engine/src/diagnosis/fixes.rs")),
    ("optimizers[].implementation", Read::Engine("checkup-engine/src/diagnosis/fixes.rs")),
    ("optimizers[].fused", Read::Because("the flag as passed; `implementation` says how the step really ran")),
    ("optimizers[].foreach", Read::Because("the flag as passed; `implementation` says how the step really ran")),
    ("optimizers[].param_groups", Read::Shown),
    ("optimizers[].param_count", Read::Engine("checkup-engine/src/diagnosis/rules/memory.rs")),
    ("optimizers[].param_dtypes", Read::Engine("checkup-engine/src/diagnosis/rules/memory.rs")),
    ("optimizers[].steps", Read::Because("the optimizer's own step count: steps.optimizer_steps counts the same for the run")),
    ("compile.calls[].mode", Read::Engine("checkup-engine/src/diagnosis/fixes.rs")),
    ("compile.calls[].backend", Read::Shown),
    ("compile.calls[].fullgraph", Read::Shown),
    ("compile.calls[].dynamic", Read::Shown),
    ("compile.calls[].step", Read::Because("the step torch.compile was called at: the warm-up its compilation costs is measured from the step times")),
    ("compile.graphs", Read::Shown),
    ("compile.compilations", Read::Shown),
    ("compile.compile_ms", Read::Shown),
    ("compile.recompilations", Read::Engine("checkup-engine/src/diagnosis/rules/compilation.rs")),
    ("compile.recompiles[].function", Read::Engine("checkup-engine/src/diagnosis/rules/compilation.rs")),
    ("compile.recompiles[].file", Read::Engine("checkup-engine/src/diagnosis/rules/compilation.rs")),
    ("compile.recompiles[].line", Read::Engine("checkup-engine/src/diagnosis/rules/compilation.rs")),
    ("compile.recompiles[].count", Read::Engine("checkup-model/src/training.rs")),
    ("compile.recompiles[].steps", Read::Because("its first and last recompilation's steps: the compile rows of events.csv carry each one's step and time, which the finding reads")),
    ("compile.recompiles[].reasons", Read::Engine("checkup-engine/src/diagnosis/rules/compilation.rs")),
    ("compile.recompile_limit.setting", Read::Because("the limit's name, which PyTorch renamed (cache_size_limit, then recompile_limit): its value is what is quoted")),
    ("compile.recompile_limit.value", Read::Engine("checkup-engine/src/diagnosis/rules/compilation.rs")),
    ("compile.recompile_limit.function", Read::Engine("checkup-engine/src/diagnosis/rules/compilation.rs")),
    ("compile.recompile_limit.file", Read::Engine("checkup-engine/src/diagnosis/rules/compilation.rs")),
    ("compile.recompile_limit.line", Read::Engine("checkup-engine/src/diagnosis/rules/compilation.rs")),
    ("compile.recompile_limit.reason", Read::Engine("checkup-engine/src/diagnosis/rules/compilation.rs")),
    ("compile.recompile_limit.step", Read::Engine("checkup-engine/src/diagnosis/rules/compilation.rs")),
    ("cuda_graphs.captures", Read::Shown),
    ("cuda_graphs.replays", Read::Engine("checkup-engine/src/diagnosis/fixes.rs")),
    ("model.class", Read::Engine("checkup-engine/src/diagnosis/fixes.rs")),
    ("model.wrapper", Read::Shown),
    ("model.ddp.bucket_cap_mb", Read::Shown),
    ("model.ddp.find_unused_parameters", Read::Shown),
    ("model.ddp.gradient_as_bucket_view", Read::Shown),
    ("model.ddp.static_graph", Read::Shown),
    ("model.param_count", Read::Engine("checkup-engine/src/diagnosis/rules/memory.rs")),
    ("model.autocast", Read::Engine("checkup-engine/src/diagnosis/rules/memory.rs")),
    ("model.conv_layers_called", Read::Because("convolution modules called in the watch: conv_4d_inputs counts their inputs, which channels_last is judged by")),
    ("model.conv_4d_inputs", Read::Shown),
    ("model.channels_last_inputs", Read::Shown),
    ("model.watched_steps", Read::Because("the steps the model's counts were taken over, which the counts are per step of already")),
    ("model.module_calls_per_step", Read::Because("module calls per step: the kernel count of the trace measures what launches cost")),
    ("model.forwards_per_step", Read::Shown),
    ("model.module_classes", Read::Because("the layer types, kept for a reader of the JSON; the rules read the kernels they ran")),
    ("settings.tf32_matmul", Read::Engine("checkup-engine/src/diagnosis/settings.rs")),
    ("settings.tf32_cudnn", Read::Shown),
    ("settings.float32_matmul_precision", Read::Engine("checkup-engine/src/diagnosis/settings.rs")),
    ("settings.cudnn_benchmark", Read::Engine("checkup-engine/src/diagnosis/settings.rs")),
    ("settings.cudnn_deterministic", Read::Because("cuDNN's own switch to deterministic kernels: what they cost against the ones they replace is not in one run (shown)")),
    ("settings.deterministic_algorithms", Read::Engine("checkup-engine/src/diagnosis/rules/busy.rs")),
    ("settings.fill_uninitialized_memory", Read::Engine("checkup-engine/src/diagnosis/rules/busy.rs")),
    ("settings.alloc_conf", Read::Engine("checkup-engine/src/diagnosis/rules/memory.rs")),
    ("settings.cuda_launch_blocking", Read::Engine("checkup-engine/src/diagnosis/rules/launches.rs")),
    ("steps.optimizer_steps", Read::Because("the run's optimizer steps: steps.csv times each of them")),
    ("steps.backward_calls", Read::Because("backward passes: backward_per_step, their ratio to optimizer steps, is what is read")),
    ("steps.backward_per_step", Read::Shown),
    ("markers.checkpoints", Read::Engine("checkup-engine/src/diagnosis/fixes.rs")),
    ("markers.eval_passes", Read::Shown),
    ("markers.long_gc", Read::Shown),
    ("memory.peak_allocated_bytes", Read::Engine("checkup-engine/src/analysis/trends.rs")),
    ("memory.peak_reserved_bytes", Read::Engine("checkup-engine/src/analysis/trends.rs")),
    ("memory.reserved_bytes", Read::Because("the reserve at the end: memory.csv's rows give it over the run, which the memory rules read")),
    ("memory.inactive_split_bytes", Read::Shown),
    ("memory.alloc_retries", Read::Engine("checkup-engine/src/diagnosis/rules/memory.rs")),
    ("memory.ooms", Read::Engine("checkup-engine/src/diagnosis/rules/memory.rs")),
    ("syncs.steps", Read::Shown),
    ("syncs.total", Read::Because("the calls counted in the watch: per_step is what is read")),
    ("syncs.per_step", Read::Engine("checkup-engine/src/diagnosis/rules/sync.rs")),
    ("syncs.sites[].file", Read::Engine("checkup-model/src/training.rs")),
    ("syncs.sites[].line", Read::Engine("checkup-model/src/training.rs")),
    ("syncs.sites[].function", Read::Engine("checkup-text/src/causes/host_sync.rs")),
    ("syncs.sites[].code", Read::Engine("checkup-engine/src/diagnosis/fixes.rs")),
    ("syncs.sites[].count", Read::Engine("checkup-engine/src/diagnosis/rules/sync.rs")),
    ("syncs.sites[].kinds", Read::Shown),
    ("empty_cache.steps", Read::Because("the watch's steps, as for syncs")),
    ("empty_cache.total", Read::Because("the calls counted: per_step is what is read")),
    ("empty_cache.per_step", Read::Engine("checkup-engine/src/diagnosis/rules/allocator.rs")),
    ("empty_cache.sites[].file", Read::Engine("checkup-model/src/training.rs")),
    ("empty_cache.sites[].line", Read::Engine("checkup-model/src/training.rs")),
    ("empty_cache.sites[].function", Read::Engine("checkup-text/src/causes/host_sync.rs")),
    ("empty_cache.sites[].code", Read::Engine("checkup-text/src/causes/host_sync.rs")),
    ("empty_cache.sites[].count", Read::Because("the calls at the line in the watch: per_step, all lines together, is what is read")),
    ("empty_cache.sites[].kinds", Read::Shown),
    ("gc_collect.steps", Read::Because("the steps the calls were counted over: each line's count is what is read")),
    ("gc_collect.total", Read::Shown),
    ("gc_collect.per_step", Read::Because("all lines together per step: a line called again and again is what is read, by its count")),
    ("gc_collect.sites[].file", Read::Engine("checkup-model/src/training.rs")),
    ("gc_collect.sites[].line", Read::Engine("checkup-model/src/training.rs")),
    ("gc_collect.sites[].function", Read::Engine("checkup-text/src/causes/periodic_stall.rs")),
    ("gc_collect.sites[].code", Read::Engine("checkup-text/src/causes/periodic_stall.rs")),
    ("gc_collect.sites[].count", Read::Engine("checkup-engine/src/diagnosis/fixes.rs")),
    ("gc_collect.sites[].kinds", Read::Shown),
    ("not_recorded", Read::Shown),
    ("settings.anomaly_detection", Read::Engine("checkup-engine/src/diagnosis/rules/launches.rs")),
    ("settings.anomaly_check_nan", Read::Engine("checkup-engine/src/diagnosis/rules/launches.rs")),
    ("settings.sync_debug_mode", Read::Shown),
    ("settings.profiler_enabled", Read::Shown),
    ("settings.gc_frozen_objects", Read::Engine("checkup-engine/src/diagnosis/fixes.rs")),
    ("hot_lines.interval_ms", Read::Because("how often the stacks were read: the shares are of CPU, whatever the rate")),
    ("hot_lines.seconds", Read::Engine("checkup-engine/src/diagnosis/host_lines.rs")),
    ("hot_lines.wakeups", Read::Because("the samplers' wake-ups, for the cost of sampling in docs/performance.md")),
    ("hot_lines.sampler_cpu_s", Read::Because("the samplers' own CPU, for the cost of sampling in docs/performance.md")),
    ("hot_lines.threads[].role", Read::Engine("checkup-engine/src/diagnosis/host_lines.rs")),
    ("hot_lines.threads[].name", Read::Engine("checkup-engine/src/diagnosis/host_lines.rs")),
    ("hot_lines.threads[].processes", Read::Engine("checkup-engine/src/diagnosis/host_lines.rs")),
    ("hot_lines.threads[].cpu_s", Read::Engine("checkup-engine/src/diagnosis/host_lines.rs")),
    ("hot_lines.threads[].samples", Read::Engine("checkup-engine/src/diagnosis/host_lines.rs")),
    ("hot_lines.threads[].lines[].file", Read::Engine("checkup-model/src/hot_lines.rs")),
    ("hot_lines.threads[].lines[].line", Read::Engine("checkup-model/src/hot_lines.rs")),
    ("hot_lines.threads[].lines[].function", Read::Engine("checkup-text/src/causes/shared.rs")),
    ("hot_lines.threads[].lines[].inside", Read::Engine("checkup-text/src/causes/shared.rs")),
    ("hot_lines.threads[].lines[].code", Read::Engine("checkup-text/src/causes/shared.rs")),
    ("hot_lines.threads[].lines[].cpu_s", Read::Engine("checkup-engine/src/diagnosis/host_lines.rs")),
    ("hot_lines.threads[].lines[].samples", Read::Because("wake-ups that found the thread at the line: its CPU is what is read")),
];

/// The field's name as code names it: the key's last part.
fn ident(path: &str) -> &str {
    path.rsplit('.')
        .next()
        .unwrap_or(path)
        .trim_end_matches("[]")
}

#[test]
fn every_recorded_field_is_read_by_a_rule_shown_or_left_with_a_reason() {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let shown = std::fs::read_to_string(crates.join("checkup-text/src/training.rs")).unwrap();
    let corpus = crates.join("../tests/corpus");
    let mut files = Vec::new();
    training_files(&corpus, &mut files);
    let mut recorded = BTreeSet::new();
    for file in &files {
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
        paths(&v, "", &mut recorded);
    }
    // Maps keyed by data end at the map: `syncs.sites[].kinds.implicit` is `…kinds`.
    let field_of = |p: &str| -> String {
        FIELDS
            .iter()
            .map(|(f, _)| *f)
            .filter(|f| p == *f || p.starts_with(&format!("{f}.")))
            .max_by_key(|f| f.len())
            .map_or_else(|| p.to_owned(), str::to_owned)
    };
    let unlisted: BTreeSet<String> = recorded
        .iter()
        .map(|p| field_of(p))
        // An empty list is its records' fields, none of them present.
        .filter(|f| {
            !FIELDS
                .iter()
                .any(|(g, _)| g == f || g.starts_with(&format!("{f}[].")))
        })
        .collect();
    assert!(unlisted.is_empty(), "recorded, not placed: {unlisted:?}");
    for (field, read) in FIELDS {
        let name = ident(field);
        // Read as `.name`, or bound by name where a struct is taken apart.
        let reads = |text: &str| {
            text.contains(&format!(".{name}"))
                || text.contains(&format!("{name},"))
                || text.contains(&format!("{name}:"))
        };
        match read {
            Read::Engine(file) => {
                let text = std::fs::read_to_string(crates.join(file)).unwrap();
                assert!(reads(&text), "{field}: {file} does not read `{name}`");
            }
            Read::Shown => assert!(
                reads(&shown),
                "{field}: the account of the training does not show `{name}`"
            ),
            Read::Because(why) => assert!(why.len() > 20, "{field}: say why"),
        }
    }
}

#[test]
fn every_key_the_probe_records_is_read_into_the_model() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus");
    let mut files = Vec::new();
    training_files(&corpus, &mut files);
    assert!(files.len() >= 20, "{} training.json files", files.len());
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let written: serde_json::Value = serde_json::from_str(&text).unwrap();
        let read = checkup_recording::training::read_training_json(&file).unwrap();
        let kept = serde_json::to_value(&read).unwrap();
        let (mut w, mut k) = (BTreeSet::new(), BTreeSet::new());
        paths(&written, "", &mut w);
        paths(&kept, "", &mut k);
        let dropped: Vec<&String> = w.difference(&k).collect();
        assert!(
            dropped.is_empty(),
            "{}: the model drops {dropped:?}",
            file.display()
        );
    }
}
