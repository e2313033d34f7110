//! Builds a `Trace` from the kept events: each classified, GPU work and runtime calls
//! matched, steps found.

use std::collections::HashMap;
use std::path::Path;

use super::classify::{copy_kind, cpu_kind, is_nccl_kernel, runtime_kind, COMPILED_REGION};
use super::events::RawEvent;
use super::steps::infer_steps;
use super::types::{CpuSpan, GpuKind, GpuOp, RuntimeCall, StepSpan, Trace};
use crate::error::{EngineError, Result};

pub(super) struct TraceBuilder {
    pub(super) trace: Trace,
    /// Kernel names are looked up once per kernel: a fast hash too.
    pub(super) names: HashMap<String, u32, foldhash::fast::RandomState>,
    /// Operator names are looked up once per operator event: a fast hash, not SipHash.
    pub(super) operator_names: HashMap<String, u32, foldhash::fast::RandomState>,
    pub(super) operators_seen: usize,
    /// Device events the checkup does not time, to say what a trace without GPU work holds.
    pub(super) range_profiler_events: u64,
    pub(super) mtia_events: u64,
}

impl TraceBuilder {
    pub(super) fn new(path: &Path) -> Self {
        Self {
            trace: Trace {
                source: path.to_path_buf(),
                ..Trace::default()
            },
            names: HashMap::default(),
            operator_names: HashMap::default(),
            operators_seen: 0,
            range_profiler_events: 0,
            mtia_events: 0,
        }
    }

    pub(super) fn top_level(&mut self, key: &str, value: &serde_json::Value) {
        match key {
            "distributedInfo" => {
                self.trace.rank = value.get("rank").and_then(|v| v.as_u64()).map(|v| v as u32);
                self.trace.world_size = value
                    .get("world_size")
                    .and_then(|v| v.as_u64())
                    .map(|v| v as u32);
            }
            "deviceProperties" => {
                self.trace.device_name = value
                    .as_array()
                    .and_then(|a| a.first())
                    .and_then(|d| d.get("name"))
                    .and_then(|n| n.as_str())
                    .map(str::to_owned);
            }
            _ => {}
        }
    }

    pub(super) fn intern(&mut self, name: &str) -> u32 {
        if let Some(&id) = self.names.get(name) {
            return id;
        }
        let id = self.trace.kernel_names.len() as u32;
        self.trace.kernel_names.push(name.to_owned());
        self.names.insert(name.to_owned(), id);
        id
    }

    /// A CPU operator, kept as its `External id` and name only. An id far beyond the
    /// operators seen (not Kineto's numbering) is left out rather than given a huge table.
    pub(super) fn operator(&mut self, name: &str, external: u32) {
        let at = external as usize;
        if at > 16 * self.operators_seen + (1 << 20) {
            return;
        }
        self.operators_seen += 1;
        let id = match self.operator_names.get(name) {
            Some(&id) => id,
            None => {
                let id = self.trace.operator_names.len() as u32;
                self.trace.operator_names.push(name.to_owned());
                self.operator_names.insert(name.to_owned(), id);
                id
            }
        };
        let table = &mut self.trace.operators;
        if at >= table.len() {
            table.resize(at + 1, u32::MAX);
        }
        table[at] = id;
    }

    pub(super) fn push(&mut self, e: RawEvent<'_>) {
        if e.ph.as_deref() != Some("X") {
            return;
        }
        let (Some(cat), Some(name), Some(start)) = (e.cat.as_deref(), e.name.as_deref(), e.ts)
        else {
            return;
        };
        let end = start + e.dur.unwrap_or(0.0).max(0.0);
        let args = e.args.unwrap_or_default();
        let correlation = args.correlation.unwrap_or(-1);
        // Categories are lower case as Kineto writes them; another tool's case is folded
        // without a copy for the common ones.
        let folded;
        let cat = if cat.bytes().any(|b| b.is_ascii_uppercase()) {
            folded = cat.to_ascii_lowercase();
            folded.as_str()
        } else {
            cat
        };
        match cat {
            "kernel" => {
                let kind = if is_nccl_kernel(name) {
                    GpuKind::Communication
                } else {
                    GpuKind::Compute
                };
                let name = self.intern(name);
                self.trace.gpu.push(GpuOp {
                    kind,
                    start,
                    end,
                    correlation,
                    name,
                    bytes: 0,
                });
            }
            "gpu_memcpy" | "memcpy" => self.trace.gpu.push(GpuOp {
                kind: GpuKind::Memcpy(copy_kind(name)),
                start,
                end,
                correlation,
                name: u32::MAX,
                bytes: args.bytes.unwrap_or(0).max(0) as u64,
            }),
            "gpu_memset" | "memset" => self.trace.gpu.push(GpuOp {
                kind: GpuKind::Memset,
                start,
                end,
                correlation,
                name: u32::MAX,
                bytes: args.bytes.unwrap_or(0).max(0) as u64,
            }),
            "cuda_runtime" | "cuda_driver" | "runtime" | "driver" => {
                if name.starts_with("cudaGraphLaunch") || name.starts_with("cuGraphLaunch") {
                    self.trace.graph_launches += 1;
                }
                self.trace.runtime.push(RuntimeCall {
                    kind: runtime_kind(name),
                    start,
                    end,
                    correlation,
                    external: args.external.and_then(|x| u32::try_from(x).ok()),
                })
            }
            "user_annotation" | "cpu_op" | "operator" | "python_function" => {
                if let Some(number) = name.strip_prefix("ProfilerStep#") {
                    if let Ok(number) = number.trim().parse() {
                        self.trace.steps.push(StepSpan { number, start, end });
                    }
                } else if let Some(class) = name.strip_prefix("Optimizer.step#") {
                    self.trace.optimizer_steps.push((start, end));
                    if self.trace.optimizer.is_none() {
                        let class = class.strip_suffix(".step").unwrap_or(class);
                        self.trace.optimizer = Some(class.to_owned());
                    }
                } else if name.starts_with(COMPILED_REGION) {
                    self.trace.compiled_regions += 1;
                } else if let Some(kind) = cpu_kind(name) {
                    self.trace.cpu.push(CpuSpan { kind, start, end });
                }
            }
            "cuda_profiler_range" => self.range_profiler_events += 1,
            c if c.starts_with("mtia") => self.mtia_events += 1,
            _ => {}
        }
    }

    pub(super) fn finish(mut self) -> Result<Trace> {
        let t = &mut self.trace;
        let by_start = |a: &f64, b: &f64| a.total_cmp(b);
        t.steps.sort_by(|a, b| by_start(&a.start, &b.start));
        // Kineto can emit a step twice (CPU and, rarely, a duplicate on another thread).
        t.steps.dedup_by_key(|s| s.number);
        t.cpu.sort_by(|a, b| by_start(&a.start, &b.start));
        t.runtime.sort_by(|a, b| by_start(&a.start, &b.start));
        t.gpu.sort_by(|a, b| by_start(&a.start, &b.start));
        // Only a trace with no GPU work at all has nothing to analyse.
        if t.gpu.is_empty() {
            let why = if self.range_profiler_events > 0 {
                format!(
                    "the trace holds CUPTI range-profiler counters for {} kernels (`cuda_profiler_range`), not their timings (the profiler replays each kernel): record an activity trace, torch.profiler with ProfilerActivity.CUDA and no profiler_metrics, for a checkup",
                    self.range_profiler_events
                )
            } else if self.mtia_events > 0 {
                format!(
                    "the trace's device work runs on MTIA ({} `mtia_*` events), not on an NVIDIA or AMD GPU: the checkup reads GPU traces only",
                    self.mtia_events
                )
            } else {
                "the trace has no GPU activity (kernels, memcpy, memset): profile with activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]".into()
            };
            return Err(EngineError::invalid(&t.source, why));
        }
        if t.steps.is_empty() {
            infer_steps(t);
        }
        Ok(self.trace)
    }
}
