//! GPU memory: live tensors that creep up through the run (a step's tensors kept alive by
//! every step), a peak close to the card's capacity (the batch size is set by memory), and
//! an allocator holding far more than the tensors ever needed at once (fragmentation).

use checkup_model::{
    Cause, Comparison, EvidenceKey as K, Finding, Fix, FixReach, Memory, MemoryEvidence, MemoryFix,
    Severity, Source, Unit,
};

use crate::analysis::gpu_sharing::CUDA_CONTEXT_GIB;
use crate::analysis::stats::median;
use crate::analysis::trends::{MemoryTrend, GIB};
use crate::diagnosis::{ev, share_ev, Ctx, Outcome};
use crate::thresholds::confidence;

pub fn rule(cx: &Ctx, _: &[Finding]) -> Outcome {
    let rank = cx.timing.map(|t| t.rank).unwrap_or(0);
    let Some(m) = cx.a.memory.get(&rank).or(cx.a.memory.values().next()) else {
        return Outcome::default();
    };
    Outcome {
        findings: [creep(cx, m), near_limit(cx, m), fragmented(cx, m)]
            .into_iter()
            .flatten()
            .collect(),
        notes: Vec::new(),
    }
}

/// Share of consecutive readings that may fall (a reading taken mid-step, before the
/// step's activations are freed, sits above the next one taken between steps).
const CREEP_MAY_FALL: f64 = 0.2;

/// A card full in less than this many minutes after the recording: the run dies of it.
const FULL_SOON_MIN: f64 = 60.0;

fn creep(cx: &Ctx, m: &MemoryTrend) -> Option<Finding> {
    let capacity = m.capacity_gib?;
    let v = &m.over_time;
    if v.len() < 5 {
        return None;
    }
    let third = v.len() / 3;
    let values = |s: &[(f64, f64)]| s.iter().map(|p| p.1).collect::<Vec<_>>();
    let (from, to) = (
        median(&values(&v[..third])),
        median(&values(&v[v.len() - third..])),
    );
    let rises = v.windows(2).filter(|w| w[1].1 >= w[0].1).count();
    let rise = to - from;
    if rise < cx.th.memory_creep_capacity_share * capacity
        || (rises as f64) < (1.0 - CREEP_MAY_FALL) * (v.len() - 1) as f64
    {
        return None;
    }
    // Least-squares slope over the readings, per minute.
    let n = v.len() as f64;
    let (mt, mv) = (
        v.iter().map(|p| p.0).sum::<f64>() / n,
        v.iter().map(|p| p.1).sum::<f64>() / n,
    );
    let (cov, var) = v.iter().fold((0.0, 0.0), |(c, s), p| {
        (c + (p.0 - mt) * (p.1 - mv), s + (p.0 - mt).powi(2))
    });
    let gib_per_min = if var > 0.0 { cov / var * 60.0 } else { 0.0 };
    let last = v[v.len() - 1].1;
    let full_in_min = (gib_per_min > 0.0).then(|| ((capacity - last) / gib_per_min).max(0.0));
    let source = if m.live_tensors {
        Source::Probe
    } else {
        Source::NvmlSamples
    };
    Some(Finding {
        gains: Default::default(),
        cause: Cause::Memory(Memory::Creep {
            from_gib: from,
            to_gib: to,
            gib_per_min,
            capacity_gib: capacity,
            full_in_min,
        }),
        severity: if full_in_min.is_some_and(|f| f < FULL_SOON_MIN) {
            Severity::Critical
        } else {
            Severity::Major
        },
        confidence: confidence::MEASURED,
        share: 0.0,
        evidence: vec![
            ev(
                K::Memory(MemoryEvidence::AllocatedGrowth),
                rise,
                Unit::Gib,
                Some((
                    Comparison::AtLeast,
                    cx.th.memory_creep_capacity_share * capacity,
                )),
                source.clone(),
            ),
            ev(
                K::Memory(MemoryEvidence::AllocatedGrowthRate),
                gib_per_min,
                Unit::GibPerMin,
                None,
                source,
            ),
        ],
        fixes: vec![Fix::Memory(MemoryFix::KeepValuesNotTensors)],
    })
}

fn near_limit(cx: &Ctx, m: &MemoryTrend) -> Option<Finding> {
    let (capacity, peak) = (m.capacity_gib?, m.peak_used_gib?);
    let share = peak / capacity;
    if capacity <= 0.0 || share < cx.th.memory_near_limit_share {
        return None;
    }
    // Measured per process where the agent recorded them; else estimated: what the
    // training's allocator held is the training's, the rest of what NVML saw in use is the
    // CUDA context's and other processes'.
    let (others, others_source) = match m.others_gib {
        Some(measured) => (measured, Source::GpuProcessSamples),
        None => (
            m.peak_reserved_gib
                .map_or(0.0, |r| (peak - r - CUDA_CONTEXT_GIB).max(0.0)),
            Source::NvmlSamples,
        ),
    };

    let mut evidence = vec![share_ev(
        K::Memory(MemoryEvidence::PeakMemoryShareOfCapacity),
        share,
        Some(cx.th.memory_near_limit_share),
        Source::NvmlSamples,
    )];
    // Below a GiB the estimate is within what a context takes.
    if others >= 1.0 {
        evidence.push(ev(
            K::Memory(MemoryEvidence::OtherProcessesMemory),
            others,
            Unit::Gib,
            None,
            others_source,
        ));
    }
    Some(Finding {
        gains: Default::default(),
        cause: Cause::Memory(Memory::NearLimit {
            peak_gib: peak,
            capacity_gib: capacity,
            others_gib: others,
        }),
        severity: if m.ooms > 0 {
            Severity::Major
        } else {
            Severity::Minor
        },
        confidence: confidence::MEASURED,
        share: 0.0,
        evidence,
        fixes: shared_gpu_fix(m, others)
            .into_iter()
            .chain(memory_savers(cx, m))
            .collect(),
    })
}

/// Other processes' memory, measured, comes first: it costs the training nothing to get back.
fn shared_gpu_fix(m: &MemoryTrend, others_gib: f64) -> Option<Fix> {
    (m.others_gib.is_some() && others_gib >= 1.0 && !m.other_pids.is_empty()).then(|| {
        Fix::Memory(MemoryFix::FreeSharedGpu {
            pids: m.other_pids.clone(),
            frees_gib: others_gib,
        })
    })
}

/// Ways to free memory in the order of cost, each with what it frees here:
/// activations are the peak in live tensors less the weights, gradients and optimizer
/// states the probe counted.
fn memory_savers(cx: &Ctx, m: &MemoryTrend) -> Vec<Fix> {
    let training = cx.training;
    let opt = training.and_then(|t| t.optimizers.first());
    let params = opt
        .and_then(|o| o.param_count)
        .or(training.and_then(|t| t.model.as_ref()?.param_count));
    // Bytes per parameter of the weights (and so of their gradients).
    let weight_bytes = opt
        .filter(|o| !o.param_dtypes.is_empty())
        .map(|o| {
            let total: u64 = o.param_dtypes.values().sum();
            o.param_dtypes
                .iter()
                .map(|(dtype, n)| dtype_bytes(dtype) * *n as f64)
                .sum::<f64>()
                / total.max(1) as f64
        })
        .unwrap_or(4.0);
    // Optimizer states per parameter, in the weights' dtype: Adam's two, SGD's momentum.
    let states = opt.and_then(|o| o.class.as_deref()).and_then(|c| {
        let c = c.to_ascii_lowercase();
        if c.contains("adam") {
            Some(2.0)
        } else if c.contains("sgd") || c.contains("rmsprop") || c.contains("adagrad") {
            Some(1.0)
        } else {
            None
        }
    });
    let state_gib = params
        .zip(states)
        .map(|(p, s)| p as f64 * s * weight_bytes / GIB);
    let static_gib = params
        .zip(state_gib)
        .map(|(p, s)| 2.0 * p as f64 * weight_bytes / GIB + s);
    let activations = m
        .peak_allocated_gib
        .zip(static_gib)
        .map(|(peak, fixed)| peak - fixed)
        .filter(|a| *a > 0.0);
    let autocast = training
        .and_then(|t| t.model.as_ref()?.autocast.clone())
        .is_some();
    let mut out = Vec::new();
    if !autocast && weight_bytes >= 4.0 {
        out.push(Fix::Memory(MemoryFix::Bf16Memory {
            frees_gib: activations.map(|a| a / 2.0),
        }));
    }
    out.push(Fix::Memory(MemoryFix::ActivationCheckpointing {
        frees_gib: None,
    }));
    if states.is_some() {
        // 8-bit states: a quarter of fp32's bytes.
        out.push(Fix::Memory(MemoryFix::EightBitOptimizer {
            frees_gib: state_gib.map(|s| s * (1.0 - 1.0 / weight_bytes)),
        }));
    }
    out.push(Fix::Memory(MemoryFix::SmallerMicroBatch {
        frees_gib: activations.map(|a| a / 2.0),
    }));
    out.push(Fix::Memory(MemoryFix::OffloadOptimizer {
        frees_gib: state_gib,
    }));
    out
}

/// Bytes per element of a torch dtype's name (4 when unknown).
fn dtype_bytes(dtype: &str) -> f64 {
    match dtype {
        "float16" | "bfloat16" | "half" => 2.0,
        "float64" | "double" => 8.0,
        "int8" | "uint8" | "float8_e4m3fn" | "float8_e5m2" => 1.0,
        _ => 4.0,
    }
}

fn fragmented(cx: &Ctx, m: &MemoryTrend) -> Option<Finding> {
    let (reserved, allocated, capacity) =
        (m.peak_reserved_gib?, m.peak_allocated_gib?, m.capacity_gib?);
    let unused = reserved - allocated;
    let th = cx.th;
    let wasteful = reserved > 0.0
        && unused >= th.fragmented_unused_share * reserved
        && unused >= th.fragmented_capacity_share * capacity;
    if !wasteful && m.alloc_retries == 0 {
        return None;
    }
    let already = cx
        .training
        .and_then(|t| t.settings.alloc_conf.as_deref())
        .is_some_and(|c| c.replace(' ', "").contains("expandable_segments:True"));
    let mut evidence = vec![share_ev(
        K::Memory(MemoryEvidence::ReservedUnusedShare),
        unused / reserved.max(f64::MIN_POSITIVE),
        Some(th.fragmented_unused_share),
        Source::Probe,
    )];
    if m.alloc_retries > 0 {
        evidence.push(ev(
            K::Memory(MemoryEvidence::AllocRetries),
            m.alloc_retries as f64,
            Unit::Calls,
            None,
            Source::Probe,
        ));
    }
    Some(Finding {
        gains: Default::default(),
        cause: Cause::Memory(Memory::Fragmented {
            reserved_gib: reserved,
            peak_allocated_gib: allocated,
            retries: m.alloc_retries,
        }),
        severity: if m.alloc_retries > 0 {
            Severity::Major
        } else {
            Severity::Minor
        },
        confidence: confidence::MEASURED,
        share: 0.0,
        evidence,
        fixes: if already {
            Vec::new()
        } else {
            vec![Fix::Memory(MemoryFix::ExpandableSegments)]
        },
    })
}

/// What part of `finding`'s lost time a memory fix removes: memory is not time; each fix
/// supports the run.
pub fn reach(fix: &MemoryFix, _finding: &Finding) -> FixReach {
    match fix {
        MemoryFix::KeepValuesNotTensors
        | MemoryFix::BoundHostHistory
        | MemoryFix::ExpandableSegments
        | MemoryFix::FreeSharedGpu { .. }
        | MemoryFix::Bf16Memory { .. }
        | MemoryFix::ActivationCheckpointing { .. }
        | MemoryFix::EightBitOptimizer { .. }
        | MemoryFix::SmallerMicroBatch { .. }
        | MemoryFix::OffloadOptimizer { .. } => FixReach::Supporting,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnosis::rules::test_cx::Fixture;

    fn trend(over_time: Vec<(f64, f64)>) -> MemoryTrend {
        MemoryTrend {
            capacity_gib: Some(140.0),
            peak_used_gib: Some(20.0),
            peak_allocated_gib: Some(10.0),
            peak_reserved_gib: Some(12.0),
            over_time,
            live_tensors: true,
            ..Default::default()
        }
    }

    #[test]
    fn live_tensors_growing_by_a_twentieth_of_the_card_creep() {
        let fx = Fixture::default();
        let cx = fx.cx();
        // A steady climb over 60 s: the last third's median stands 3/4 of the climb above
        // the first third's, and 5 % of 140 GiB is 7 GiB.
        let climb = |total: f64| {
            (0..13)
                .map(|i| (i as f64 * 5.0, 1.0 + total * i as f64 / 12.0))
                .collect()
        };
        assert!(creep(&cx, &trend(climb(9.3))).is_none());
        let f = creep(&cx, &trend(climb(9.4))).unwrap();
        let Cause::Memory(Memory::Creep {
            gib_per_min,
            full_in_min,
            ..
        }) = f.cause
        else {
            panic!()
        };
        assert!((gib_per_min - 9.4).abs() < 1e-9, "{gib_per_min}");
        // (140 - 10.4) / 9.4 minutes: the run dies of it within the hour.
        assert!((full_in_min.unwrap() - 129.6 / 9.4).abs() < 1e-9);
        assert_eq!(f.severity, Severity::Critical);
        assert_eq!(f.fixes, [Fix::Memory(MemoryFix::KeepValuesNotTensors)]);
    }

    #[test]
    fn memory_that_goes_up_and_down_with_each_step_does_not_creep() {
        let fx = Fixture::default();
        let wobble = (0..13)
            .map(|i| {
                (
                    i as f64,
                    if i % 2 == 0 { 1.0 } else { 30.0 } + i as f64 * 0.7,
                )
            })
            .collect();
        assert!(creep(&fx.cx(), &trend(wobble)).is_none());
    }

    #[test]
    fn a_peak_at_85_percent_of_the_card_is_near_its_limit() {
        let fx = Fixture::default();
        let mut m = trend(Vec::new());
        m.peak_used_gib = Some(0.849 * 140.0);
        assert!(near_limit(&fx.cx(), &m).is_none());
        m.peak_used_gib = Some(0.85 * 140.0);
        m.peak_allocated_gib = Some(110.0);
        m.peak_reserved_gib = Some(115.0);
        let f = near_limit(&fx.cx(), &m).unwrap();
        // Without the probe's optimizer, only what needs no parameter count is estimated.
        assert_eq!(
            f.fixes,
            [
                Fix::Memory(MemoryFix::Bf16Memory { frees_gib: None }),
                Fix::Memory(MemoryFix::ActivationCheckpointing { frees_gib: None }),
                Fix::Memory(MemoryFix::SmallerMicroBatch { frees_gib: None }),
                Fix::Memory(MemoryFix::OffloadOptimizer { frees_gib: None }),
            ]
        );
        let Cause::Memory(Memory::NearLimit { others_gib, .. }) = f.cause else {
            panic!()
        };
        assert!((others_gib - (119.0 - 115.0 - CUDA_CONTEXT_GIB)).abs() < 1e-9);
    }

    #[test]
    fn reserved_memory_a_fifth_unused_and_a_twentieth_of_the_card_is_fragmented() {
        let fx = Fixture::default();
        let mut m = trend(Vec::new());
        m.peak_reserved_gib = Some(35.0);
        m.peak_allocated_gib = Some(28.1);
        assert!(fragmented(&fx.cx(), &m).is_none());
        m.peak_allocated_gib = Some(28.0);
        let f = fragmented(&fx.cx(), &m).unwrap();
        assert_eq!(f.fixes, [Fix::Memory(MemoryFix::ExpandableSegments)]);
        // A small run wastes a large share of little: not worth a finding.
        m.peak_reserved_gib = Some(2.4);
        m.peak_allocated_gib = Some(1.4);
        assert!(fragmented(&fx.cx(), &m).is_none());
    }
}
