//! What the probe saw of the training, as rows of a two-column table: what it is, what it
//! was. Rows are left out where nothing was recorded; the last row says what could not be.

use checkup_model::{Language, NotRecorded, OptimizerImplementation, TrainingContext};

use crate::{fixed, Language::*};

/// One row: the setting's name and its value in words.
pub type Row = (String, String);

fn yes_no(b: bool, l: Language) -> &'static str {
    match (b, l) {
        (true, En) => "on",
        (false, En) => "off",
        (true, Zh) => "开",
        (false, Zh) => "关",
    }
}

/// A parameter or element count: 11.2 M, 350 M, 1.2 B.
fn count(n: u64) -> String {
    let n = n as f64;
    if n >= 1e9 {
        format!("{} B", fixed(n / 1e9, 1))
    } else if n >= 1e6 {
        format!("{} M", fixed(n / 1e6, 1))
    } else if n >= 1e3 {
        format!("{} k", fixed(n / 1e3, 1))
    } else {
        format!("{n:.0}")
    }
}

fn gib(bytes: u64) -> String {
    format!("{} GiB", fixed(bytes as f64 / (1u64 << 30) as f64, 1))
}

/// The training's settings as the probe recorded them, a labelled row each.
pub fn rows(t: &TrainingContext, l: Language) -> Vec<Row> {
    let mut out: Vec<Row> = Vec::new();
    let label = |en: &str, zh: &str| match l {
        En => en.to_owned(),
        Zh => zh.to_owned(),
    };
    for (i, d) in t.loaders.iter().enumerate() {
        let mut parts = Vec::new();
        if let Some(b) = d.batch_size {
            parts.push(match l {
                En => format!("batch {b}"),
                Zh => format!("批次 {b}"),
            });
        }
        if let Some(w) = d.num_workers {
            parts.push(match l {
                En => format!("num_workers={w}"),
                Zh => format!("num_workers={w}"),
            });
        }
        if let Some(p) = d.persistent_workers {
            parts.push(format!(
                "persistent_workers={}",
                if p { "True" } else { "False" }
            ));
        }
        if let Some(p) = d.pin_memory {
            parts.push(format!("pin_memory={}", if p { "True" } else { "False" }));
        }
        if let Some(p) = d.prefetch_factor {
            parts.push(format!("prefetch_factor={p}"));
        }
        if let Some(n) = d.batches_per_epoch {
            parts.push(match l {
                En => format!("{n} batches per epoch"),
                Zh => format!("每个 epoch {n} 个批次"),
            });
        }
        parts.push(match l {
            En => format!("{} epochs started", d.epochs_started),
            Zh => format!("开始了 {} 个 epoch", d.epochs_started),
        });
        if let Some(ds) = &d.dataset {
            parts.push(match (d.dataset_len, l) {
                (Some(n), En) => format!("dataset {ds} ({} samples)", count(n)),
                (Some(n), Zh) => format!("数据集 {ds}（{} 个样本）", count(n)),
                (None, En) => format!("dataset {ds}"),
                (None, Zh) => format!("数据集 {ds}"),
            });
        }
        // A custom batch sampler says more than the sampler it wraps; the default one, less.
        let custom_batches = d.batch_sampler.as_ref().filter(|b| *b != "BatchSampler");
        if let Some(sampler) = custom_batches.or(d.sampler.as_ref()) {
            parts.push(sampler.clone());
        }
        if d.drop_last == Some(true) {
            parts.push("drop_last=True".to_owned());
        }
        let name = match (l, t.loaders.len()) {
            (En, 1) => "DataLoader".to_owned(),
            (Zh, 1) => "DataLoader".to_owned(),
            (_, _) => format!("DataLoader {}", i + 1),
        };
        out.push((name, parts.join(" · ")));
    }
    for o in &t.optimizers {
        let how = match (o.implementation, l) {
            (Some(OptimizerImplementation::Fused), _) => "fused",
            (Some(OptimizerImplementation::Foreach), _) => "foreach",
            (Some(OptimizerImplementation::ForLoop), En) => "one kernel set per parameter",
            (Some(OptimizerImplementation::ForLoop), Zh) => "逐参数",
            (None, En) => "implementation not known",
            (None, Zh) => "实现未知",
        };
        let dtypes: Vec<String> = o
            .param_dtypes
            .iter()
            .map(|(dtype, n)| format!("{dtype} {}", count(*n)))
            .collect();
        let params = o.param_count.map(|n| {
            let groups = o.param_groups.filter(|g| *g > 1);
            let mut p = match l {
                En => format!(" · {} parameters", count(n)),
                Zh => format!(" · {} 个参数", count(n)),
            };
            if dtypes.len() > 1 || dtypes.iter().any(|d| !d.starts_with("float32")) {
                p.push_str(&format!(" ({})", dtypes.join(", ")));
            }
            if let Some(g) = groups {
                p.push_str(&match l {
                    En => format!(" in {g} groups"),
                    Zh => format!("，{g} 个参数组"),
                });
            }
            p
        });
        out.push((
            label("Optimizer", "优化器"),
            format!(
                "{} ({how}){}",
                o.class.as_deref().unwrap_or("?"),
                params.unwrap_or_default()
            ),
        ));
    }
    let compiled = if t.compiled() {
        let calls = &t.compile.calls;
        let mode = calls
            .iter()
            .find_map(|c| c.mode.clone())
            .unwrap_or_else(|| "default".into());
        let mut how = match l {
            En => format!("torch.compile, mode {mode}"),
            Zh => format!("torch.compile，mode {mode}"),
        };
        if let Some(b) = calls.iter().find_map(|c| c.backend.clone()) {
            how.push_str(&format!(", backend {b}"));
        }
        if calls.iter().any(|c| c.fullgraph == Some(true)) {
            how.push_str(", fullgraph=True");
        }
        if calls.iter().any(|c| c.dynamic == Some(true)) {
            how.push_str(", dynamic=True");
        }
        if t.compile.asked_static() {
            how.push_str(", `dynamic=False`");
        }
        if let Some(g) = t.compile.graphs.filter(|g| *g > 0) {
            how.push_str(&match (l, g) {
                (En, 1) => " · 1 graph".to_owned(),
                (En, _) => format!(" · {g} graphs"),
                (Zh, _) => format!(" · {g} 个图"),
            });
        }
        if let (Some(n), Some(ms)) = (t.compile.compilations, t.compile.compile_ms) {
            how.push_str(&match l {
                En => format!(" · {n} compilations, {} s", fixed(ms / 1e3, 1)),
                Zh => format!(" · 编译 {n} 次，共 {} 秒", fixed(ms / 1e3, 1)),
            });
        }
        if let Some(n) = t.compile.recompilations.filter(|n| *n > 0) {
            how.push_str(&match l {
                En => format!(" · {n} recompilations"),
                Zh => format!(" · 重新编译 {n} 次"),
            });
        }
        if let Some(limit) = &t.compile.recompile_limit {
            let function = limit.function.as_deref().unwrap_or("?");
            how.push_str(&match (l, limit.step) {
                (En, Some(s)) => format!(" · {function} hit the recompile limit ({}) at step {s} and ran uncompiled after", limit.value),
                (En, None) => format!(" · {function} hit the recompile limit ({}) and ran uncompiled after", limit.value),
                (Zh, Some(s)) => format!(" · {function} 在第 {s} 步达到重新编译上限（{}），此后未编译运行", limit.value),
                (Zh, None) => format!(" · {function} 达到重新编译上限（{}），此后未编译运行", limit.value),
            });
        }
        how
    } else {
        label("not compiled", "未编译")
    };
    let g = &t.cuda_graphs;
    let graphs = (g.replays > 0 || g.captures > 0).then(|| match l {
        En => format!(
            " · {} CUDA graph captures, {} replays",
            g.captures, g.replays
        ),
        Zh => format!(
            " · CUDA Graph 捕获 {} 次、重放 {} 次",
            g.captures, g.replays
        ),
    });
    out.push((
        label("Compilation", "编译"),
        compiled + &graphs.unwrap_or_default(),
    ));
    if let Some(m) = &t.model {
        let mut parts = vec![m.class.clone().unwrap_or_else(|| "?".into())];
        if let Some(w) = &m.wrapper {
            let mut ddp = String::new();
            if let Some(d) = &m.ddp {
                if let Some(b) = d.bucket_cap_mb {
                    ddp.push_str(&format!(" bucket_cap_mb={}", fixed(b, 0)));
                }
                let flag = |name: &str, v: Option<bool>| {
                    v.map(|b| format!(" {name}={}", if b { "True" } else { "False" }))
                        .unwrap_or_default()
                };
                ddp.push_str(&flag("find_unused_parameters", d.find_unused_parameters));
                ddp.push_str(&flag("gradient_as_bucket_view", d.gradient_as_bucket_view));
                ddp.push_str(&flag("static_graph", d.static_graph));
            }
            parts.push(format!("{w}{ddp}"));
        }
        if let Some(f) = m.forwards_per_step.filter(|f| *f > 1.05) {
            parts.push(match l {
                En => format!("{} forward passes per step", fixed(f, 1)),
                Zh => format!("每步 {} 次前向", fixed(f, 1)),
            });
        }
        parts.push(match (&m.autocast, l) {
            (Some(d), En) => format!("autocast {d}"),
            (Some(d), Zh) => format!("autocast {d}"),
            (None, En) => "no autocast".into(),
            (None, Zh) => "未使用 autocast".into(),
        });
        if m.conv_4d_inputs > 0 {
            parts.push(match l {
                En => format!(
                    "channels_last: {} of {} convolution inputs",
                    m.channels_last_inputs, m.conv_4d_inputs
                ),
                Zh => format!(
                    "channels_last：{} / {} 个卷积输入",
                    m.channels_last_inputs, m.conv_4d_inputs
                ),
            });
        } else if m.conv_layers_called > 0 {
            // 1-D or 3-D convolutions: a memory format choice applies to none of them.
            parts.push(label("convolutions, none 2-D", "有卷积，但没有二维卷积"));
        } else {
            parts.push(label("no convolutions", "无卷积"));
        }
        out.push((label("Model", "模型"), parts.join(" · ")));
    }
    // Every setting the probe records, bound by name: one it adds does not build until it
    // is shown here (the rules that cost some of them read the same fields).
    let checkup_model::NumericSettings {
        tf32_matmul,
        tf32_cudnn,
        float32_matmul_precision,
        cudnn_benchmark,
        cudnn_deterministic,
        deterministic_algorithms,
        fill_uninitialized_memory,
        alloc_conf,
        cuda_launch_blocking,
        anomaly_detection,
        anomaly_check_nan,
        sync_debug_mode,
        profiler_enabled,
        gc_frozen_objects,
    } = &t.settings;
    let mut numeric = Vec::new();
    if let Some(b) = tf32_matmul {
        numeric.push(format!("TF32 matmul {}", yes_no(*b, l)));
    }
    if let Some(b) = tf32_cudnn {
        numeric.push(format!("TF32 cuDNN {}", yes_no(*b, l)));
    }
    if let Some(p) = float32_matmul_precision {
        numeric.push(format!("float32_matmul_precision={p}"));
    }
    if let Some(b) = cudnn_benchmark {
        numeric.push(format!("cudnn.benchmark {}", yes_no(*b, l)));
    }
    if let Some(b) = cudnn_deterministic {
        numeric.push(format!("cudnn.deterministic {}", yes_no(*b, l)));
    }
    if let Some(b) = deterministic_algorithms {
        numeric.push(match l {
            En => format!("deterministic algorithms {}", yes_no(*b, l)),
            Zh => format!("确定性算法 {}", yes_no(*b, l)),
        });
    }
    // Shown when deterministic algorithms are on: it is what they cost in fill kernels.
    if let (Some(true), Some(b)) = (deterministic_algorithms, fill_uninitialized_memory) {
        numeric.push(format!("fill_uninitialized_memory {}", yes_no(*b, l)));
    }
    if let Some(v) = cuda_launch_blocking {
        numeric.push(format!("CUDA_LAUNCH_BLOCKING={v}"));
    }
    if let Some(v) = alloc_conf {
        numeric.push(format!("PYTORCH_CUDA_ALLOC_CONF={v}"));
    }
    // Debugging settings: shown when on (off is every run's default and says nothing).
    if *anomaly_detection == Some(true) {
        numeric.push(match (l, anomaly_check_nan) {
            (En, Some(true)) => "anomaly detection on, with NaN checks".into(),
            (En, _) => "anomaly detection on".into(),
            (Zh, Some(true)) => "异常检测开启（含 NaN 检查）".into(),
            (Zh, _) => "异常检测开启".into(),
        });
    }
    if let Some(mode) = sync_debug_mode.filter(|m| *m > 0) {
        numeric.push(format!("sync_debug_mode={mode}"));
    }
    if *profiler_enabled == Some(true) {
        numeric.push(match l {
            En => "a profiler of the training's own recording".into(),
            Zh => "训练自身的分析器在记录".into(),
        });
    }
    if let Some(n) = gc_frozen_objects.filter(|n| *n > 0) {
        numeric.push(match l {
            En => format!("gc.freeze: {n} objects frozen"),
            Zh => format!("gc.freeze：冻结了 {n} 个对象"),
        });
    }
    if !numeric.is_empty() {
        out.push((label("Settings", "设置"), numeric.join(" · ")));
    }
    if let Some(b) = t.steps.backward_per_step.filter(|b| *b > 1.05) {
        out.push((
            label("Gradient accumulation", "梯度累积"),
            match l {
                En => format!("{} backward passes per optimizer step", fixed(b, 1)),
                Zh => format!("每次优化器步骤 {} 次反向传播", fixed(b, 1)),
            },
        ));
    }
    if let Some(sy) = &t.syncs {
        if let Some(n) = sy.per_step {
            let top = sy.sites.first().map(|site| {
                let kinds = sync_kinds(site, l);
                match l {
                    En => format!(
                        "; busiest: {} {}{kinds}",
                        site.location(),
                        crate::code(&site.code)
                    ),
                    Zh => format!(
                        "；最多：{} {}{kinds}",
                        site.location(),
                        crate::code(&site.code)
                    ),
                }
            });
            // The watch covers a few steps: say which, so a periodic sync outside them is not
            // read as "none".
            let watched = sy.steps.map(|[a, b]| match l {
                En => format!(" in steps {a}–{b}"),
                Zh => format!("（第 {a}–{b} 步）"),
            });
            out.push((
                label("Host syncs", "主机同步"),
                match l {
                    En => format!(
                        "{} per step{}{}",
                        fixed(n, 0),
                        watched.unwrap_or_default(),
                        top.unwrap_or_default()
                    ),
                    Zh => format!(
                        "每步 {} 次{}{}",
                        fixed(n, 0),
                        watched.unwrap_or_default(),
                        top.unwrap_or_default()
                    ),
                },
            ));
        }
    }
    let m = &t.markers;
    let epochs: u64 = t.loaders.iter().map(|l| l.epochs_started).sum();
    out.push((
        label("Periodic work", "周期性工作"),
        match l {
            En => format!(
                "{epochs} epoch starts · {} checkpoints · {} evaluation passes · {} long garbage collections",
                m.checkpoints, m.eval_passes, m.long_gc
            ),
            Zh => format!(
                "{epochs} 次 epoch 开始 · {} 次检查点 · {} 次评估 · {} 次长时间垃圾回收",
                m.checkpoints, m.eval_passes, m.long_gc
            ),
        },
    ));
    // Full collections the training asks for itself, by the line that asks most.
    if let Some(gc) = t.gc_collect.as_ref().filter(|g| g.total > 0) {
        let top = gc.sites.first().map(|site| match l {
            En => format!("; most at {} {}", site.location(), crate::code(&site.code)),
            Zh => format!("；最多在 {} {}", site.location(), crate::code(&site.code)),
        });
        out.push((
            label("gc.collect() calls", "gc.collect() 调用"),
            match l {
                En => format!("{} over the run{}", gc.total, top.unwrap_or_default()),
                Zh => format!("整个运行共 {} 次{}", gc.total, top.unwrap_or_default()),
            },
        ));
    }
    if let Some(mem) = &t.memory {
        let mut parts = Vec::new();
        if let Some(b) = mem.peak_allocated_bytes {
            parts.push(match l {
                En => format!("peak allocated {}", gib(b)),
                Zh => format!("峰值分配 {}", gib(b)),
            });
        }
        if let Some(b) = mem.peak_reserved_bytes {
            parts.push(match l {
                En => format!("peak reserved {}", gib(b)),
                Zh => format!("峰值保留 {}", gib(b)),
            });
        }
        if let Some(b) = mem.inactive_split_bytes.filter(|b| *b >= 1 << 30) {
            parts.push(match l {
                En => format!("{} in split, inactive blocks", gib(b)),
                Zh => format!("{} 在已拆分的空闲块中", gib(b)),
            });
        }
        if let Some(r) = mem.alloc_retries.filter(|r| *r > 0) {
            parts.push(match l {
                En => format!("{r} allocation retries"),
                Zh => format!("{r} 次分配重试"),
            });
        }
        if let Some(o) = mem.ooms.filter(|o| *o > 0) {
            parts.push(match l {
                En => format!("{o} out-of-memory errors"),
                Zh => format!("{o} 次显存不足"),
            });
        }
        if !parts.is_empty() {
            out.push((label("CUDA memory", "CUDA 显存"), parts.join(" · ")));
        }
    }
    if !t.not_recorded.is_empty() {
        let reasons: Vec<&str> = t.not_recorded.iter().map(|r| not_recorded(*r, l)).collect();
        out.push((label("Not recorded", "未记录"), reasons.join("; ")));
    }
    out
}

/// What a sync line's calls were, in brackets: " (3 read-backs, 1 synchronize)".
fn sync_kinds(site: &checkup_model::SyncSite, l: Language) -> String {
    use checkup_model::SyncKind;
    let words: Vec<String> = site
        .kinds
        .iter()
        .map(|(kind, n)| match (kind, l) {
            (SyncKind::Implicit, En) if *n == 1 => "1 read-back".to_owned(),
            (SyncKind::Implicit, En) => format!("{n} read-backs"),
            (SyncKind::Implicit, Zh) => format!("{n} 次读回"),
            (SyncKind::Synchronize, En) => format!("{n} synchronize"),
            (SyncKind::Synchronize, Zh) => format!("{n} 次 synchronize"),
            (SyncKind::EmptyCache, En) => format!("{n} empty_cache"),
            (SyncKind::EmptyCache, Zh) => format!("{n} 次 empty_cache"),
            (SyncKind::GcCollect, En) => format!("{n} gc.collect"),
            (SyncKind::GcCollect, Zh) => format!("{n} 次 gc.collect"),
            (SyncKind::Other, En) => format!("{n} other"),
            (SyncKind::Other, Zh) => format!("{n} 次其他"),
        })
        .collect();
    match (words.is_empty(), l) {
        (true, _) => String::new(),
        (false, En) => format!(" ({})", words.join(", ")),
        (false, Zh) => format!("（{}）", words.join("，")),
    }
}

/// Why a setting of the training was not recorded.
pub fn not_recorded(r: NotRecorded, l: Language) -> &'static str {
    match (r, l) {
        (NotRecorded::ModelHooksSkippedCompiled, En) => {
            "the model's forward (compiled: hooks could make it recompile)"
        }
        (NotRecorded::ModelHooksSkippedCompiled, Zh) => {
            "模型的前向过程（已编译：钩子可能导致重新编译）"
        }
        (NotRecorded::SyncsNotWatchedNoCuda, En) => "host syncs (CUDA was not in use)",
        (NotRecorded::SyncsNotWatchedNoCuda, Zh) => "主机同步（未使用 CUDA）",
        (NotRecorded::SyncsNotWatchedWarningsAreErrors, En) => {
            "host syncs (the run turns warnings into errors)"
        }
        (NotRecorded::SyncsNotWatchedWarningsAreErrors, Zh) => "主机同步（该运行把警告当作错误）",
        (NotRecorded::SyncsNotWatchedDebugModeSet, En) => {
            "host syncs (the run sets its own sync debug mode)"
        }
        (NotRecorded::SyncsNotWatchedDebugModeSet, Zh) => {
            "主机同步（该运行自己设置了同步调试模式）"
        }
        (NotRecorded::TraceSkippedTrainingProfiler, En) => {
            "the profiler trace (the training's own profiler was recording, and one runs at a time)"
        }
        (NotRecorded::TraceSkippedTrainingProfiler, Zh) => {
            "性能分析跟踪（训练自己的性能分析器正在记录，同一时间只能运行一个）"
        }
        (NotRecorded::Other, En) => "something this version cannot name",
        (NotRecorded::Other, Zh) => "本版本无法识别的项目",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use checkup_model::{LoaderInfo, OptimizerInfo};

    #[test]
    fn host_syncs_say_which_steps_were_watched() {
        // periodic_histograms: no sync in the watched steps, 161 every 12 steps elsewhere.
        let t = TrainingContext {
            syncs: Some(checkup_model::SyncSummary {
                steps: Some([2, 9]),
                total: 0,
                per_step: Some(0.0),
                sites: Vec::new(),
            }),
            ..Default::default()
        };
        let en = rows(&t, En);
        let row = en.iter().find(|r| r.0 == "Host syncs").unwrap();
        assert_eq!(row.1, "0 per step in steps 2–9");
        let zh = rows(&t, Zh);
        let row = zh.iter().find(|r| r.0 == "主机同步").unwrap();
        assert_eq!(row.1, "每步 0 次（第 2–9 步）");
    }

    #[test]
    fn a_loader_and_optimizer_read_as_their_settings() {
        let t = TrainingContext {
            loaders: vec![LoaderInfo {
                batch_size: Some(64),
                num_workers: Some(2),
                persistent_workers: Some(false),
                pin_memory: Some(false),
                batches_per_epoch: Some(30),
                epochs_started: 6,
                ..Default::default()
            }],
            optimizers: vec![OptimizerInfo {
                class: Some("SGD".into()),
                implementation: Some(OptimizerImplementation::Foreach),
                param_count: Some(11_227_812),
                ..Default::default()
            }],
            ..Default::default()
        };
        let rows = rows(&t, En);
        assert_eq!(
            rows[0].1,
            "batch 64 · num_workers=2 · persistent_workers=False · pin_memory=False · 30 batches per epoch · 6 epochs started"
        );
        assert_eq!(rows[1].1, "SGD (foreach) · 11.2 M parameters");
        assert!(rows
            .iter()
            .any(|(k, v)| k == "Compilation" && v == "not compiled"));
        let zh = super::rows(&t, Zh);
        assert_eq!(zh.len(), rows.len());
        assert!(zh[0].1.contains("每个 epoch 30 个批次"));
    }

    #[test]
    fn a_model_of_one_dimensional_convolutions_is_not_called_convolution_free() {
        // probe_tcn_pageable: 33 Conv1d layers called per step, none with 4-d inputs.
        let model = |conv_layers_called, conv_4d_inputs| TrainingContext {
            model: Some(checkup_model::ModelInfo {
                class: Some("Tcn".into()),
                conv_layers_called,
                conv_4d_inputs,
                ..Default::default()
            }),
            ..Default::default()
        };
        let line = |t: &TrainingContext, l| {
            rows(t, l)
                .into_iter()
                .find(|r| r.0 == "Model" || r.0 == "模型")
                .unwrap()
                .1
        };
        assert!(line(&model(33, 0), En).ends_with("convolutions, none 2-D"));
        assert!(line(&model(33, 0), Zh).ends_with("有卷积，但没有二维卷积"));
        assert!(line(&model(0, 0), En).ends_with("no convolutions"));
        assert!(line(&model(20, 20), En).ends_with("channels_last: 0 of 20 convolution inputs"));
    }

    #[test]
    fn every_reason_is_worded_in_both_languages() {
        for r in [
            NotRecorded::ModelHooksSkippedCompiled,
            NotRecorded::SyncsNotWatchedNoCuda,
            NotRecorded::SyncsNotWatchedWarningsAreErrors,
            NotRecorded::SyncsNotWatchedDebugModeSet,
            NotRecorded::TraceSkippedTrainingProfiler,
            NotRecorded::Other,
        ] {
            assert!(!not_recorded(r, En).is_empty() && !not_recorded(r, Zh).is_empty());
            assert_ne!(not_recorded(r, En), not_recorded(r, Zh));
        }
    }
}
