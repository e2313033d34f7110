//! The caching allocator going to the driver every step: PyTorch keeps freed GPU memory in
//! its cache so that a training step allocates nothing from the driver once warm. When the
//! cache is emptied each step (`torch.cuda.empty_cache()`) or turned off
//! (`PYTORCH_NO_CUDA_MEMORY_CACHING`), each step calls `cudaMalloc` again, and `cudaFree`,
//! which waits for the whole GPU: the GPU idles while the host allocates and launches anew.
//! That idle is read from the trace (gaps around the driver's allocation calls), so it is
//! neither a launch bottleneck nor a read-back.

use checkup_model::{Cause, Comparison, EvidenceKey as K, Finding, Fix, HostSync, Source, Unit};
use checkup_model::{HostSyncEvidence, HostSyncFix, SharedEvidence};

use crate::diagnosis::{ev, share_ev, Ctx, Outcome};
use crate::thresholds::confidence;

pub fn rule(cx: &Ctx, _: &[Finding]) -> Outcome {
    finding(cx).into()
}

/// Whether the allocator's calls to the driver take the launch gaps of the window: at
/// least one per step, and their idle reportable. The launch rule steps aside then, as it
/// does for a sync that drains the queue.
pub fn allocator_drains_queue(cx: &Ctx) -> bool {
    cx.rank.is_some_and(|r| {
        r.host_waits.alloc_calls_per_step >= 1.0
            && cx
                .share_of_window(r.host_waits.alloc_us)
                .is_some_and(|s| s >= cx.th.reportable_share)
    })
}

/// Whether the run's environment turns the caching allocator off
/// (`PYTORCH_NO_CUDA_MEMORY_CACHING`).
pub fn caching_off(cx: &Ctx) -> bool {
    cx.facts
        .env
        .get("PYTORCH_NO_CUDA_MEMORY_CACHING")
        .and_then(|v| v.as_deref())
        .is_some_and(checkup_environment::is_truthy)
}

fn finding(cx: &Ctx) -> Option<Finding> {
    let r = cx.rank?;
    let w = &r.host_waits;
    if !allocator_drains_queue(cx) {
        return None;
    }
    // With the queue drained every step, the launch gaps that follow are the allocator's
    // too: the launch rule steps aside for them, as it does for a draining sync.
    let trace_share = cx.share_of_window(w.alloc_us + w.launch_us)?;
    let src = cx.rank_source();
    let mut share = trace_share;
    let mut sure = confidence::MEASURED;
    let mut evidence = vec![
        share_ev(
            K::HostSync(HostSyncEvidence::AllocIdleShare),
            trace_share,
            Some(cx.th.reportable_share),
            src.clone(),
        ),
        ev(
            K::HostSync(HostSyncEvidence::AllocCallsPerStep),
            w.alloc_calls_per_step,
            Unit::Calls,
            Some((Comparison::AtLeast, 1.0)),
            src.clone(),
        ),
        ev(
            K::HostSync(HostSyncEvidence::AllocHostTimePerStep),
            w.alloc_host_us_per_step / 1e3,
            Unit::Ms,
            None,
            src.clone(),
        ),
    ];
    // The profiler slows the host side: at unprofiled speed the idle is at most what the
    // GPU does not compute of the normal steps.
    if let Some((busy, method)) = cx.gpu_busy() {
        evidence.push(ev(
            K::Shared(SharedEvidence::UnprofiledBusyShare),
            busy * 100.0,
            Unit::Percent,
            None,
            Source::Busy { method },
        ));
        share = cx.idle_share_at_unprofiled_speed(share, busy);
        sure = confidence::CORROBORATED;
    }
    // Without the driver's calls the step still takes the longer of the GPU's work and the
    // host's other work, known at unprofiled speed only as a bound: the fix ranges to it.
    if let Some(host_ms) = super::sync::unprofiled_host_work_ms(cx) {
        evidence.push(ev(
            K::HostSync(HostSyncEvidence::HostWorkBesideAllocator),
            (host_ms - w.alloc_host_us_per_step / 1e3).max(0.0),
            Unit::Ms,
            None,
            Source::ThisDiagnosis,
        ));
    }
    let empties = cx.training.and_then(|t| t.empty_cache.as_ref());
    let calls_per_step = empties.and_then(|e| e.per_step).filter(|n| *n > 0.0);
    if let Some(n) = calls_per_step {
        evidence.push(ev(
            K::HostSync(HostSyncEvidence::EmptyCacheCallsPerStep),
            n,
            Unit::Calls,
            None,
            Source::Probe,
        ));
    }
    let caching_off = caching_off(cx);
    let fix = Fix::HostSync(HostSyncFix::KeepAllocatorCache {
        site: calls_per_step
            .and(empties)
            .and_then(|e| e.sites.first().cloned()),
        calls_per_step,
        caching_off,
    });
    Some(Finding {
        gains: Default::default(),
        cause: Cause::HostSync(HostSync::Allocator {
            calls_per_step: w.alloc_calls_per_step,
        }),
        severity: cx.severity(share),
        confidence: sure,
        share,
        evidence,
        fixes: vec![fix],
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnosis::rules::test_cx::{rank_with_waits, Fixture};

    #[test]
    fn the_driver_allocating_every_step_is_reported_with_its_idle() {
        // The GPU idles 6 ms of each 10 ms step: 3 ms around the driver's calls, 1 ms while
        // the host launches into the queue they drained, 2 ms for other reasons.
        let mut r = rank_with_waits(10_000.0);
        r.gpu.idle_us = 6_000.0;
        r.host_waits.alloc_calls_per_step = 57.0;
        r.host_waits.alloc_us = 3_000.0;
        r.host_waits.launch_us = 1_000.0;
        let fx = Fixture::with_rank(r);
        let f = finding(&fx.cx()).unwrap();
        assert!((f.share - 0.4).abs() < 1e-9, "{}", f.share);
        assert_eq!(
            f.cause,
            Cause::HostSync(HostSync::Allocator {
                calls_per_step: 57.0
            })
        );
        assert_eq!(
            f.fixes,
            vec![Fix::HostSync(HostSyncFix::KeepAllocatorCache {
                site: None,
                calls_per_step: None,
                caching_off: false
            })]
        );
    }

    #[test]
    fn without_the_drivers_calls_the_step_ranges_down_to_the_hosts_other_work() {
        // Unprofiled steps of 10 ms with the training process at a full core: the host works
        // 10 ms a step at most, 4 ms of it in cudaMalloc / cudaFree, so 6 ms beside them.
        let mut r = rank_with_waits(10_000.0);
        r.gpu.idle_us = 6_000.0;
        r.host_waits.alloc_calls_per_step = 57.0;
        r.host_waits.alloc_us = 3_000.0;
        r.host_waits.alloc_host_us_per_step = 4_000.0;
        let fx = Fixture::with_rank(r)
            .timing(checkup_model::StepTiming {
                mean_step_ms: 10.0,
                steady_steps: 1000,
                total_steps: 1000,
                ..Default::default()
            })
            .host(checkup_model::HostStats {
                proc_tree_cpu_mean: Some(100.0),
                ..Default::default()
            });
        let f = finding(&fx.cx()).unwrap();
        let beside = f.evidence_value(&K::HostSync(HostSyncEvidence::HostWorkBesideAllocator));
        assert_eq!(beside, Some(6.0));
        let Fix::HostSync(fix) = &f.fixes[0] else {
            panic!("{:?}", f.fixes)
        };
        assert_eq!(
            super::super::sync::reach(fix, &f),
            checkup_model::FixReach::SyncsAtUnprofiledSpeed
        );
    }

    #[test]
    fn an_allocation_now_and_then_is_not_reported() {
        // A new shape once in the window: under one call per step.
        let mut r = rank_with_waits(10_000.0);
        r.host_waits.alloc_calls_per_step = 0.5;
        r.host_waits.alloc_us = 4_000.0;
        assert!(finding(&Fixture::with_rank(r).cx()).is_none());
        // Every step, but hardly idling the GPU: under the reportable 5 %.
        let mut r = rank_with_waits(10_000.0);
        r.host_waits.alloc_calls_per_step = 2.0;
        r.host_waits.alloc_us = 400.0;
        assert!(finding(&Fixture::with_rank(r).cx()).is_none());
    }
}
