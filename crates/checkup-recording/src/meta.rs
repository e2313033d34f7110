//! `meta.json`: the run's own account of what it ran.

use std::path::Path;

use checkup_model::{DataLoaderSettings, NodeFacts, RunFacts};
use serde_json::Value;

use crate::error::{RecordingError, Result};

/// What `meta.json` says of a run.
pub struct Meta {
    /// The facts it records (versions, model, batch, loader settings, environment).
    pub facts: RunFacts,
    /// The steps the profiler was active for, inclusive.
    pub profile_steps: Option<(u64, u64)>,
    /// This folder's host as one node of a job that ran on several (`node`, written by
    /// the agent when the ranks said so); None for a run of one host.
    pub node: Option<NodeFacts>,
}

/// Reads `meta.json`; fields it does not know are kept in `facts.extra` or ignored.
pub fn read_meta(path: &Path) -> Result<Meta> {
    let text = std::fs::read_to_string(path).map_err(|e| RecordingError::io(path, e))?;
    if text.trim().is_empty() {
        return Err(RecordingError::invalid(path, "file is empty"));
    }
    let v: Value = serde_json::from_str(&text)
        .map_err(|e| RecordingError::invalid(path, format!("invalid JSON: {e}")))?;
    if !v.is_object() {
        return Err(RecordingError::invalid(
            path,
            "expected a JSON object of run facts",
        ));
    }
    let s = |v: &Value, k: &str| {
        v.get(k).and_then(|x| match x {
            Value::String(s) => Some(s.clone()),
            Value::Number(n) => Some(n.to_string()),
            _ => None,
        })
    };
    let f = |v: &Value, k: &str| v.get(k).and_then(Value::as_f64);
    let info = v.get("info").cloned().unwrap_or(Value::Null);
    let dataloader = info.get("dataloader").map(|d| DataLoaderSettings {
        num_workers: d
            .get("num_workers")
            .and_then(Value::as_u64)
            .map(|n| n as u32),
        pin_memory: d.get("pin_memory").and_then(Value::as_bool),
        persistent_workers: d.get("persistent_workers").and_then(Value::as_bool),
        prefetch_factor: d
            .get("prefetch_factor")
            .and_then(Value::as_u64)
            .map(|n| n as u32),
    });
    let mut extra = std::collections::BTreeMap::new();
    if let Some(obj) = info.as_object() {
        for (k, val) in obj {
            if matches!(
                k.as_str(),
                "model"
                    | "batch_size"
                    | "batch_size_per_gpu"
                    | "precision"
                    | "dataloader"
                    | "expected"
            ) {
                continue;
            }
            let text = match val {
                Value::String(s) => s.clone(),
                Value::Null => continue,
                other => other.to_string(),
            };
            extra.insert(k.clone(), text);
        }
    }
    let env = v
        .get("env")
        .and_then(Value::as_object)
        .map(|o| {
            o.iter()
                .map(|(k, val)| (k.clone(), val.as_str().map(str::to_owned)))
                .collect()
        })
        .unwrap_or_default();
    let profile_steps = v
        .get("profile_steps")
        .and_then(Value::as_array)
        .and_then(|a| Some((a.first()?.as_u64()?, a.get(1)?.as_u64()?)));
    let node = v.get("node").filter(|n| n.is_object()).map(|n| NodeFacts {
        hostname: s(n, "hostname"),
        node_rank: n.get("node_rank").and_then(Value::as_u64).map(|r| r as u32),
        ranks: n
            .get("ranks")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_u64)
                    .map(|r| r as u32)
                    .collect()
            })
            .unwrap_or_default(),
        gpus: Vec::new(),
        clock_offset_s: f(n, "clock_offset_s"),
        clock_rtt_s: f(n, "clock_rtt_s"),
        // The node's own static facts say it (static/facts.json).
        driver_version: None,
        source: path
            .parent()
            .map(|d| d.display().to_string())
            .unwrap_or_default(),
    });
    Ok(Meta {
        node,
        facts: RunFacts {
            gpu_name: s(&v, "gpu"),
            gpu_count: v.get("gpus").and_then(Value::as_u64).map(|n| n as u32),
            cuda_runtime_version: s(&v, "cuda"),
            torch_version: s(&v, "torch"),
            nccl_version: s(&v, "nccl"),
            world_size: v
                .get("world_size")
                .and_then(Value::as_u64)
                .map(|n| n as u32),
            model: s(&info, "model"),
            batch_size: info
                .get("batch_size")
                .or(info.get("batch_size_per_gpu"))
                .and_then(Value::as_u64),
            precision: s(&info, "precision"),
            dataloader,
            started: f(&v, "started"),
            ended: f(&v, "ended"),
            steps: v.get("steps").and_then(Value::as_u64),
            samples_per_s: f(&v, "samples_per_s"),
            env,
            extra,
            ..RunFacts::default()
        },
        profile_steps,
    })
}

/// Fills the gaps of `into` from `from`; what `into` already knows wins.
pub fn merge_into(into: &mut RunFacts, from: RunFacts) {
    macro_rules! fill {
        ($($f:ident),*) => { $( if into.$f.is_none() { into.$f = from.$f; } )* };
    }
    fill!(
        gpu_name,
        gpu_count,
        driver_version,
        cuda_driver_version,
        cuda_runtime_version,
        torch_version,
        nccl_version,
        world_size,
        model,
        batch_size,
        precision,
        dataloader,
        host_cpus,
        started,
        ended,
        steps,
        samples_per_s,
        topology
    );
    for (k, v) in from.env {
        into.env.entry(k).or_insert(v);
    }
    for (k, v) in from.extra {
        into.extra.entry(k).or_insert(v);
    }
    if into.gpus.is_empty() {
        into.gpus = from.gpus;
    }
}
