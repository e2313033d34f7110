//! The GPU's idle time that no lost-time finding accounts for. Without it a run recorded as
//! samples only (live sampling, an attached job) with the GPU 95 % idle would read
//! "compute-bound": the verdict for a busy GPU.

use checkup_model::{
    Cause, Comparison, EvidenceKey as K, Family, Finding, GpuIdle, HostWhileGpuIdle, IdleSuspect,
    Recorded, Source, Unit,
};
use checkup_model::{GpuIdleEvidence, SharedEvidence};

use crate::diagnosis::{ev, fixes, share_ev, Ctx, Outcome};
use crate::thresholds::confidence;

pub fn rule(cx: &Ctx, found: &[Finding]) -> Outcome {
    finding(cx, found).into()
}

fn finding(cx: &Ctx, found: &[Finding]) -> Option<Finding> {
    let th = cx.th;
    let (busy, method) = cx.gpu_busy()?;
    // Throttling slows busy time; it explains none of the idle time.
    let explained: f64 = found
        .iter()
        .filter(|f| f.family().is_lost_time() && f.family() != Family::Throttling)
        .map(|f| f.share)
        .sum();
    let idle = (1.0 - busy).max(0.0);
    let share = idle - explained;
    if busy >= th.gpu_busy_high || share < th.significant_share {
        return None;
    }
    let recorded = match (cx.timing.is_some(), cx.rank.is_some()) {
        (false, false) => Recorded::SamplesOnly,
        (true, false) if training_profiler(cx) => Recorded::StepsTrainingProfiler,
        (true, false) => Recorded::StepsNoTrace,
        (false, true) => Recorded::TraceNoSteps,
        (true, true) => Recorded::StepsAndTrace,
    };
    let mut evidence = vec![
        share_ev(
            K::GpuIdle(GpuIdleEvidence::GpuBusyShare),
            busy,
            Some(th.gpu_busy_high),
            Source::Busy { method },
        ),
        share_ev(
            K::GpuIdle(GpuIdleEvidence::UnexplainedIdle),
            share,
            Some(th.significant_share),
            Source::ThisDiagnosis,
        ),
    ];
    let host = cx.a.host.as_ref();
    if let Some(c) = host.and_then(|h| h.cpu_total_mean) {
        evidence.push(ev(
            K::Shared(SharedEvidence::HostCpu),
            c,
            Unit::Percent,
            None,
            Source::HostSamples,
        ));
    }
    let tree = host.and_then(|h| h.proc_tree_cpu_mean);
    if let Some(t) = tree {
        evidence.push(ev(
            K::Shared(SharedEvidence::TrainingTreeCpu),
            t,
            Unit::Percent,
            None,
            Source::HostSamples,
        ));
    }
    let while_idle = host.and_then(|h| h.while_gpu_idle.as_ref());
    let suspect = while_idle.and_then(|w| suspect(w, cx));
    if let Some(w) = while_idle.filter(|_| suspect.is_some()) {
        evidence.push(ev(
            K::GpuIdle(GpuIdleEvidence::GpuIdleSeconds),
            w.seconds,
            Unit::Seconds,
            None,
            Source::HostSamples,
        ));
        if let Some(b) = w.busy_children_mean {
            evidence.push(ev(
                K::GpuIdle(GpuIdleEvidence::BusyWorkersWhileIdle),
                b,
                Unit::Workers,
                Some((Comparison::AtLeast, th.busy_workers_while_idle)),
                Source::HostSamples,
            ));
        }
        if let Some(c) = w.workers_cpu_mean {
            evidence.push(ev(
                K::GpuIdle(GpuIdleEvidence::WorkersCpuWhileIdle),
                c,
                Unit::Percent,
                Some((Comparison::AtLeast, th.workers_cpu_while_idle_pct)),
                Source::HostSamples,
            ));
        }
        if let Some(m) = w.main_cpu_mean {
            evidence.push(ev(
                K::GpuIdle(GpuIdleEvidence::MainCpuWhileIdle),
                m,
                Unit::Percent,
                None,
                Source::HostSamples,
            ));
        }
    }
    Some(Finding {
        gains: Default::default(),
        // With per-process samples the suspect is read from them; the tree's total stands in
        // only for recordings made before those columns.
        fixes: fixes::gpu_idle(
            suspect,
            tree.filter(|_| while_idle.is_none_or(|w| w.busy_children_mean.is_none())),
            cx.rank.is_some(),
            training_profiler(cx),
            th,
        ),
        cause: Cause::GpuIdle(GpuIdle::Unexplained {
            busy_share: busy,
            recorded,
            suspect,
        }),
        severity: cx.severity(share),
        confidence: confidence::CAUSE_UNKNOWN,
        share,
        evidence,
    })
}

/// Whether a profiler of the training's own was recording when the probe looked.
pub fn training_profiler(cx: &Ctx) -> bool {
    cx.training
        .is_some_and(|t| t.settings.profiler_enabled == Some(true))
}

/// What the training's processes did while the GPU idled, read as a person would: workers
/// each flat out on a core point at the input pipeline; the training process at about one
/// core with idle workers points at the Python loop. Nothing when the idle seconds are too
/// few to say (a GPU idle in under a tenth of the samples has no pattern to read).
fn suspect(w: &HostWhileGpuIdle, cx: &Ctx) -> Option<IdleSuspect> {
    let th = cx.th;
    if w.samples < th.min_idle_host_samples || (w.samples as f64) < 0.1 * w.of_samples as f64 {
        return None;
    }
    let busy = w.busy_children_mean?;
    let workers = w.workers_cpu_mean.unwrap_or(0.0);
    if busy >= th.busy_workers_while_idle || workers >= th.workers_cpu_while_idle_pct {
        return Some(IdleSuspect::InputPipeline {
            workers_cpu_pct: workers,
            busy_workers: busy,
        });
    }
    let (low, high) = th.main_thread_cpu_pct;
    w.main_cpu_mean
        .filter(|m| {
            (low..high).contains(m) && busy < 0.5 && workers < 0.5 * th.workers_cpu_while_idle_pct
        })
        .map(|m| IdleSuspect::PythonLoop { main_cpu_pct: m })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnosis::rules::test_cx::Fixture;
    use crate::diagnosis::test_support::finding as made;
    use checkup_model::{
        DataLoading, Fix, HostStats, HostWhileGpuIdle, IdleSuspect, SampleStats, SharedFix,
    };

    fn sampled(util: f64) -> Fixture {
        Fixture::default()
            .gpu(SampleStats {
                util_gpu_mean: Some(util),
                ..Default::default()
            })
            .host(HostStats {
                proc_tree_cpu_mean: Some(100.0),
                ..Default::default()
            })
    }

    #[test]
    fn an_idle_gpu_recorded_as_samples_only_is_a_finding_with_the_main_thread_hint() {
        let f = finding(&sampled(10.0).cx(), &[]).unwrap();
        assert!(matches!(
            f.cause,
            Cause::GpuIdle(GpuIdle::Unexplained {
                recorded: Recorded::SamplesOnly,
                ..
            })
        ));
        assert!((f.share - 0.9).abs() < 1e-9);
        assert_eq!(
            f.fixes,
            vec![
                Fix::Shared(SharedFix::ProfileSteps),
                Fix::Shared(SharedFix::MainThreadCpu)
            ]
        );
    }

    #[test]
    fn idle_time_other_findings_explain_is_not_counted_again() {
        // 60 % idle, 50 % of it the input pipeline's: 10 % left, under significant; 44 %: 16 %.
        let dl = made(
            Cause::DataLoading(DataLoading::SlowLoader {
                hot_lines: Vec::new(),
                data_wait_ms: None,
                step_ms: None,
                idle_per_epoch_start_ms: None,
                epoch_start_idle_ms_per_step: None,
            }),
            0.5,
        );
        assert!(finding(&sampled(40.0).cx(), &[dl]).is_none());
        let dl = made(
            Cause::DataLoading(DataLoading::SlowLoader {
                hot_lines: Vec::new(),
                data_wait_ms: None,
                step_ms: None,
                idle_per_epoch_start_ms: None,
                epoch_start_idle_ms_per_step: None,
            }),
            0.44,
        );
        assert!(finding(&sampled(40.0).cx(), &[dl]).is_some());
    }

    #[test]
    fn a_gpu_busy_85_percent_is_not_idle() {
        assert!(finding(&sampled(85.0).cx(), &[]).is_none());
    }

    fn sampled_while_idle(samples: u64, busy_children: f64, main_cpu: f64) -> Fixture {
        // Each busy worker at 95 % of a core, the others idle.
        sampled_with_workers(samples, busy_children, 95.0 * busy_children, main_cpu)
    }

    fn sampled_with_workers(
        samples: u64,
        busy_children: f64,
        workers_cpu: f64,
        main_cpu: f64,
    ) -> Fixture {
        Fixture::default()
            .gpu(SampleStats {
                util_gpu_mean: Some(6.0),
                ..Default::default()
            })
            .host(HostStats {
                proc_tree_cpu_mean: Some(workers_cpu + main_cpu),
                while_gpu_idle: Some(HostWhileGpuIdle {
                    samples,
                    seconds: samples as f64,
                    of_samples: 20,
                    busy_children_mean: Some(busy_children),
                    main_cpu_mean: Some(main_cpu),
                    workers_cpu_mean: Some(workers_cpu),
                }),
                ..Default::default()
            })
    }

    fn suspect_of(fx: &Fixture) -> Option<IdleSuspect> {
        match finding(&fx.cx(), &[]).unwrap().cause {
            Cause::GpuIdle(GpuIdle::Unexplained { suspect, .. }) => suspect,
            c => panic!("{c:?}"),
        }
    }

    #[test]
    fn workers_flat_out_while_the_gpu_idles_point_at_the_input_pipeline() {
        let fx = sampled_while_idle(15, 2.0, 30.0);
        assert_eq!(
            suspect_of(&fx),
            Some(IdleSuspect::InputPipeline {
                workers_cpu_pct: 190.0,
                busy_workers: 2.0
            })
        );
        // The loader's settings are not in samples: the profile comes first, nothing is
        // prescribed from values the recording does not hold.
        assert_eq!(
            finding(&fx.cx(), &[]).unwrap().fixes,
            vec![Fix::Shared(SharedFix::ProfileSteps)]
        );
    }

    #[test]
    fn one_busy_worker_on_average_is_enough_and_slightly_less_is_not() {
        assert!(suspect_of(&sampled_while_idle(15, 1.0, 30.0)).is_some());
        assert_eq!(suspect_of(&sampled_while_idle(15, 0.9, 30.0)), None);
    }

    #[test]
    fn workers_re_forked_each_epoch_count_by_their_cpu_together() {
        // Short-lived workers are seldom seen flat out within one sample; together they
        // used a core and a half while the GPU waited.
        let fx = sampled_with_workers(15, 0.3, 150.0, 40.0);
        assert_eq!(
            suspect_of(&fx),
            Some(IdleSuspect::InputPipeline {
                workers_cpu_pct: 150.0,
                busy_workers: 0.3
            })
        );
        assert_eq!(suspect_of(&sampled_with_workers(15, 0.3, 85.0, 40.0)), None);
    }

    #[test]
    fn the_main_process_at_one_core_with_idle_workers_points_at_the_python_loop() {
        let fx = sampled_while_idle(15, 0.0, 99.0);
        assert_eq!(
            suspect_of(&fx),
            Some(IdleSuspect::PythonLoop { main_cpu_pct: 99.0 })
        );
        assert_eq!(
            finding(&fx.cx(), &[]).unwrap().fixes,
            vec![
                Fix::Shared(SharedFix::ProfileSteps),
                Fix::Shared(SharedFix::MainThreadCpu)
            ]
        );
    }

    #[test]
    fn too_few_idle_seconds_say_nothing() {
        assert_eq!(suspect_of(&sampled_while_idle(4, 2.0, 30.0)), None);
    }
}
