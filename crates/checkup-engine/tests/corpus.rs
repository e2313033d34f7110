//! The engine on every real H200 recording of the corpus: each run's primary finding must
//! match `labels.json`, with the evidence numbers the portrait is known by.

use checkup_model::{
    Communication, GpuIdle, KernelLaunch, LostShareOf, Memory, PeriodicStall, Recorded, Slowdown,
};
use checkup_model::{
    CommunicationEvidence, CommunicationFix, ComputeBoundEvidence, ComputeBoundFix,
    DataLoadingEvidence, DataLoadingFix, EnvironmentFix, GpuIdleEvidence, H2dCopyEvidence,
    H2dCopyFix, HostSyncEvidence, HostSyncFix, KernelLaunchEvidence, KernelLaunchFix,
    MemoryBandwidthEvidence, MemoryEvidence, MemoryFix, PeriodicStallEvidence, PeriodicStallFix,
    SharedEvidence, SharedFix, SlowdownFix, ThrottlingEvidence,
};
use checkup_testkit::{copy_dir, corpus};

use checkup_engine::{analyze_paths, Options};
use checkup_model::{
    Cause, CheckId, CheckStatus, CheckValue, Diagnosis, EvidenceKey as K, Finding, Fix, Language,
    Severity, Source, WindowMethod,
};
use checkup_model::{Harmless, NotCosted, SettingVerdict, SpeedSetting};
use checkup_text::FixText;

fn diagnose(run: &str) -> Diagnosis {
    analyze_paths(&[corpus(run)], &Options::default()).unwrap_or_else(|e| panic!("{run}: {e}"))
}

fn evidence(d: &Diagnosis, finding: &str, key: K) -> f64 {
    let f = d.finding(finding).unwrap_or_else(|| {
        panic!(
            "no finding {finding}; have {:?}",
            d.findings.iter().map(Finding::id).collect::<Vec<_>>()
        )
    });
    f.evidence_value(&key).unwrap_or_else(|| {
        panic!(
            "{finding} has no evidence {key:?}: {:?}",
            f.evidence.iter().map(|e| &e.key).collect::<Vec<_>>()
        )
    })
}

/// What a reader sees of a fix, in English.
/// A periodic stall's period and the work it coincides with.
fn stall_cause(f: &Finding) -> (f64, Option<checkup_model::PeriodicWork>) {
    match &f.cause {
        checkup_model::Cause::PeriodicStall(PeriodicStall::Stalls {
            period_steps, work, ..
        }) => (*period_steps, work.clone()),
        c => panic!("not a periodic stall: {c:?}"),
    }
}

fn fix_words(f: &Fix) -> FixText {
    checkup_text::fixes::text(f, Language::En)
}

/// `labels.json`: every labelled corpus run and what it is known by.
fn labels() -> serde_json::Map<String, serde_json::Value> {
    serde_json::from_str(&std::fs::read_to_string(corpus("labels.json")).unwrap()).unwrap()
}

/// Every labelled corpus run.
fn corpus_runs() -> Vec<String> {
    labels().keys().cloned().collect()
}

/// The time ledger's parts add up to the run's time, none negative or there twice, largest
/// first, each finding it names one of the diagnosis's.
fn assert_ledger_adds_up(run: &str, d: &Diagnosis) {
    let l = d
        .ledger
        .as_ref()
        .unwrap_or_else(|| panic!("{run}: no ledger"));
    assert!(l.total_s > 0.0, "{run}");
    assert!(
        (l.accounted_s() - l.total_s).abs() <= 1e-9 * l.total_s,
        "{run}: {} s of {} s",
        l.accounted_s(),
        l.total_s
    );
    let shares: f64 = l.parts.iter().map(|p| p.share).sum();
    assert!((shares - 1.0).abs() < 1e-9, "{run}: shares add to {shares}");
    for (i, p) in l.parts.iter().enumerate() {
        assert!(p.seconds > 0.0 && p.share <= 1.0, "{run}: {p:?}");
        assert!(
            !l.parts[..i].iter().any(|q| q.kind == p.kind),
            "{run}: {:?} twice",
            p.kind
        );
        assert!(
            p.finding.is_none_or(|f| f < d.findings.len()),
            "{run}: {p:?}"
        );
    }
    assert!(
        l.parts.windows(2).all(|w| w[0].seconds >= w[1].seconds),
        "{run}: largest first"
    );
    // The headline's time lost per finding is the ledger's, so its rows never add up past
    // the whole the way findings' own shares of a step can.
    let lost = d.headline().lost;
    let together: f64 = lost.iter().map(|r| r.share).sum();
    assert!(together <= 1.0 + 1e-9, "{run}: lost rows add to {together}");
    assert!(
        lost.iter().all(|r| r.of == LostShareOf::Ledger(l.basis)),
        "{run}: {lost:?}"
    );
}

#[test]
fn every_labelled_run_gets_its_primary_finding_and_a_ledger_that_adds_up() {
    let mut wrong = Vec::new();
    for (run, label) in labels() {
        let want = label["primary"].as_str().unwrap();
        let d = diagnose(&run);
        assert_ledger_adds_up(&run, &d);
        let got = d.findings[0].family().id();
        assert_eq!(d.primary, d.findings[0].id());
        // A known miss stays one until the engine gets it right: then its note goes.
        if label.get("known_miss").is_some() {
            assert_ne!(got, want, "{run}: right now; drop its known_miss");
            continue;
        }
        if got != want {
            wrong.push(format!(
                "{run}: want {want}, got {} ({})",
                d.primary,
                checkup_text::findings::verdict(&d, Language::En)
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn healthy_resnet_is_compute_bound_after_13_s_of_autotune() {
    let d = diagnose("healthy");
    assert_eq!(d.primary, "compute_bound");
    // Step 0 is the 13 s cuDNN autotune: excluded, steady steps ~42 ms.
    assert_eq!(d.window.first_step, Some(1));
    let t = &d.step_timing[0];
    assert!((40.0..48.0).contains(&t.mean_step_ms), "{}", t.mean_step_ms);
    assert!(
        evidence(
            &d,
            "compute_bound",
            K::ComputeBound(ComputeBoundEvidence::StepBusyShare)
        ) >= 90.0
    );
    assert!(d
        .findings
        .iter()
        .all(|f| f.share < 0.15 || f.family() == checkup_model::Family::ComputeBound));
}

#[test]
fn dataloader_starved_run_waits_for_data_most_of_each_step_with_idle_cores() {
    let d = diagnose("dataloader_starved");
    assert_eq!(d.primary, "data_loading", "host CPU is ~12%: not saturated");
    let idle_share = evidence(
        &d,
        "data_loading",
        K::DataLoading(DataLoadingEvidence::DataLoaderIdleShare),
    );
    assert!((85.0..=100.0).contains(&idle_share), "{idle_share}");
    assert!(
        evidence(
            &d,
            "data_loading",
            K::DataLoading(DataLoadingEvidence::DataWaitShare)
        ) > 70.0
    );
    assert_eq!(
        evidence(
            &d,
            "data_loading",
            K::DataLoading(DataLoadingEvidence::NumWorkers)
        ),
        2.0
    );
    assert_eq!(
        d.findings[0].fixes[0],
        Fix::DataLoading(DataLoadingFix::MoreWorkers {
            suggested: 14,
            current: Some(2),
            host_cpus: Some(16),
        }),
        "16 cores, two for the training process"
    );
    let fix = fix_words(&d.findings[0].fixes[0]);
    assert!(
        fix.snippet
            .as_deref()
            .unwrap()
            .contains("num_workers=14,          # was 2"),
        "{fix:?}"
    );
}

#[test]
fn launch_bound_mlp_runs_a_thousand_tiny_kernels_per_step() {
    let d = diagnose("launch_bound");
    assert_eq!(d.primary, "kernel_launch");
    let per_step = evidence(
        &d,
        "kernel_launch",
        K::KernelLaunch(KernelLaunchEvidence::KernelsPerStep),
    );
    assert!((950.0..1050.0).contains(&per_step), "{per_step}");
    assert!(
        evidence(
            &d,
            "kernel_launch",
            K::KernelLaunch(KernelLaunchEvidence::MedianKernel)
        ) < 2.0
    );
    // Cross-checked at unprofiled speed: the GPU is busy well under 15% of a 21 ms step.
    assert!(
        evidence(
            &d,
            "kernel_launch",
            K::Shared(SharedEvidence::UnprofiledBusyShare)
        ) < 15.0
    );
    assert!(d.findings[0].share > 0.6);
}

#[test]
fn memory_bound_blocks_saturate_dram_not_tensor_cores() {
    let d = diagnose("memory_bound");
    assert_eq!(d.primary, "memory_bandwidth");
    let dram = evidence(
        &d,
        "memory_bandwidth",
        K::MemoryBandwidth(MemoryBandwidthEvidence::DramBandwidth),
    );
    assert!((74.0..82.0).contains(&dram), "{dram}");
    assert!(
        evidence(
            &d,
            "memory_bandwidth",
            K::ComputeBound(ComputeBoundEvidence::TensorActive)
        ) < 2.0
    );
}

#[test]
fn pageable_copies_take_half_the_gpu_time() {
    let d = diagnose("h2d_pageable");
    assert_eq!(d.primary, "h2d_copy/pageable");
    let share = d.findings[0].share;
    assert!((0.40..0.60).contains(&share), "{share}");
    // 512×3×224×224 float32 = 308 MB per step, at a pageable ~8 GB/s.
    let mb = evidence(
        &d,
        "h2d_copy",
        K::H2dCopy(H2dCopyEvidence::PageableBytesPerStep),
    );
    assert!((300.0..320.0).contains(&mb), "{mb}");
    assert!(
        evidence(
            &d,
            "h2d_copy",
            K::H2dCopy(H2dCopyEvidence::PageableBandwidth)
        ) < 12.0
    );
}

#[test]
fn ddp_comm_bound_exposes_a_third_of_the_step_and_scales_at_70_percent() {
    let d = analyze_paths(
        &[corpus("ddp_comm_bound")],
        &Options {
            partner: Some(vec![corpus("wide_mlp_1gpu")]),
            ..Options::default()
        },
    )
    .unwrap();
    assert_eq!(d.primary, "communication");
    let exposed = evidence(
        &d,
        "communication",
        K::Communication(CommunicationEvidence::ExposedCommShare),
    );
    assert!((25.0..45.0).contains(&exposed), "{exposed}");
    let s = d.scaling.as_ref().unwrap();
    assert_eq!(s.gpus, 2);
    assert!((0.68..0.72).contains(&s.efficiency), "{}", s.efficiency);
    assert!((1.38..1.42).contains(&s.speedup), "{}", s.speedup);
    assert!(
        d.findings.iter().all(|f| f.id() != "periodic_stall"),
        "a host sync every 10 steps while the host runs ahead is back-pressure, not a stall"
    );
}

#[test]
fn ddp_resnet_is_compute_bound_and_the_waiting_rank_is_not_blamed_on_communication() {
    let d = diagnose("ddp_resnet50");
    assert_eq!(d.primary, "compute_bound");
    assert_eq!(d.ranks.len(), 2);
    // Rank 0 spins in NCCL waiting for rank 1, which idles more: diagnose rank 1.
    assert_eq!(d.diagnosed_rank, Some(1));
    let waiting = d
        .finding("communication/straggler")
        .expect("rank 0 waits for rank 1");
    let title = checkup_text::findings::title(&waiting.cause, Language::En);
    assert_eq!(title, "Rank 0 waits for rank 1");
}

#[test]
fn nvlink_topology_and_versions_are_read_from_the_static_snapshot() {
    let d = diagnose("ddp_comm_bound");
    assert_eq!(d.facts.driver_version.as_deref(), Some("580.159.04"));
    assert_eq!(d.facts.cuda_driver_version.as_deref(), Some("13.0"));
    assert_eq!(d.facts.nccl_version.as_deref(), Some("2.28.9"));
    assert!(d.facts.topology.as_ref().unwrap().has_nvlink());
    let p2p = d
        .environment
        .iter()
        .find(|c| c.id == CheckId::NcclP2p)
        .unwrap();
    assert_eq!(p2p.status, checkup_model::CheckStatus::Pass);
    assert!(d.environment.iter().any(|c| c.id == CheckId::PcieLink
        && c.value
            == CheckValue::PcieLink {
                gen: 5,
                width: 16,
                gen_max: 5,
                width_max: 16
            }));
}

#[test]
fn a_bare_trace_without_any_other_file_is_still_diagnosed() {
    let d = analyze_paths(&[corpus("h2d_pageable/trace.json.gz")], &Options::default()).unwrap();
    assert_eq!(d.primary, "h2d_copy/pageable");
    let d = analyze_paths(&[corpus("launch_bound/trace.json.gz")], &Options::default()).unwrap();
    assert_eq!(d.primary, "kernel_launch");
}

#[test]
fn nvidia_smi_logs_people_already_have_are_read() {
    let d = analyze_paths(&[corpus("healthy/gpu_health.csv")], &Options::default()).unwrap();
    let s = &d.samples[0];
    // 25 one-second rows; those of the start-up before the GPU's first work are
    // left out of the statistics.
    assert!((10..25).contains(&s.nvml_samples), "{}", s.nvml_samples);
    assert!(
        matches!(
            d.window.method,
            WindowMethod::NoStepTimings {
                start_up_s: Some(_),
                ..
            }
        ),
        "{:?}",
        d.window.method
    );
    assert!(s.util_gpu_mean.unwrap() > 85.0);
    let d = analyze_paths(&[corpus("ddp_resnet50/dmon.txt")], &Options::default()).unwrap();
    assert_eq!(d.samples.len(), 2, "dmon rows of two GPUs");
}

#[test]
fn checkpoint_every_25_steps_is_a_periodic_stall_with_its_period() {
    let d = diagnose("checkpoint_stall");
    assert_eq!(d.primary, "periodic_stall");
    assert_eq!(
        evidence(
            &d,
            "periodic_stall",
            K::PeriodicStall(PeriodicStallEvidence::StallPeriod)
        ),
        25.0
    );
    let stall = evidence(
        &d,
        "periodic_stall",
        K::PeriodicStall(PeriodicStallEvidence::StallExcess),
    );
    assert!((200.0..400.0).contains(&stall), "{stall}");
    assert!(matches!(
        d.findings[0].fixes[0],
        Fix::PeriodicStall(PeriodicStallFix::AsyncCheckpoint { .. })
    ));
}

#[test]
fn a_checkpoint_every_60_steps_is_reported_but_the_gpu_stays_the_limit() {
    let d = diagnose("checkpoint_rare");
    assert_eq!(d.primary, "compute_bound");
    assert_eq!(
        evidence(
            &d,
            "periodic_stall",
            K::PeriodicStall(PeriodicStallEvidence::StallPeriod)
        ),
        60.0
    );
    assert_eq!(
        evidence(
            &d,
            "periodic_stall",
            K::PeriodicStall(PeriodicStallEvidence::StallCount)
        ),
        8.0
    );
    let lost = evidence(
        &d,
        "periodic_stall",
        K::PeriodicStall(PeriodicStallEvidence::StallLostShare),
    );
    assert!((7.0..12.0).contains(&lost), "{lost}");
    // The GPU idles once its queue drains, at the end of the stalled step, and GPU-Util
    // reports it a sample period late: every stall is still seen idle.
    assert_eq!(
        evidence(
            &d,
            "periodic_stall",
            K::PeriodicStall(PeriodicStallEvidence::StallsSeenIdle)
        ),
        100.0
    );
}

#[test]
fn a_transformer_with_its_tokens_on_the_gpu_is_compute_bound() {
    let d = diagnose("gpt_healthy");
    assert_eq!(d.primary, "compute_bound");
    assert!(
        evidence(
            &d,
            "compute_bound",
            K::ComputeBound(ComputeBoundEvidence::StepBusyShare)
        ) > 95.0
    );
    assert!(
        evidence(
            &d,
            "compute_bound",
            K::ComputeBound(ComputeBoundEvidence::TensorActive)
        ) > 20.0
    );
    assert!(d
        .findings
        .iter()
        .all(|f| f.share < 0.05 || f.family() == checkup_model::Family::ComputeBound));
}

#[test]
fn a_trace_without_the_probe_says_what_the_code_already_does() {
    // gpt_healthy was recorded without the probe; its optimizer is AdamW(fused=True), whose
    // kernels (`FusedAdamMathFunctor`) its trace shows: no fix asks to fuse it again.
    let d = diagnose("gpt_healthy");
    let code = d.ranks[0].code;
    assert!(code.fused_optimizer_kernels > 0, "{code:?}");
    assert!(!code.compiled());
    let fixes: Vec<&Fix> = d.findings.iter().flat_map(|f| &f.fixes).collect();
    assert!(
        !fixes.iter().any(|f| matches!(
            f,
            Fix::ComputeBound(ComputeBoundFix::FusedOptimizer { .. })
                | Fix::KernelLaunch(KernelLaunchFix::ForeachOptimizer { .. })
        )),
        "{fixes:?}"
    );
    // The compiled GPT's trace alone (no training.json): its Triton kernels and compiled
    // regions say it is compiled, its fused AdamW kernels that the optimizer is fused.
    let trace = corpus("probe_compiled_gpt").join("trace.json.gz");
    let d = analyze_paths(&[trace], &Options::default()).unwrap();
    let code = d.ranks[0].code;
    assert!(code.compiled() && code.triton_kernels > 1000, "{code:?}");
    assert!(code.fused_optimizer_kernels > 0, "{code:?}");
    let fixes: Vec<&Fix> = d.findings.iter().flat_map(|f| &f.fixes).collect();
    assert!(
        !fixes.iter().any(|f| matches!(
            f,
            Fix::ComputeBound(ComputeBoundFix::Compile | ComputeBoundFix::FusedOptimizer { .. })
                | Fix::KernelLaunch(
                    KernelLaunchFix::CompileFuseKernels | KernelLaunchFix::ForeachOptimizer { .. }
                )
                | Fix::MemoryBandwidth(_)
        )),
        "{fixes:?}"
    );
}

#[test]
fn launch_blocking_left_on_is_costed_first_and_its_twin_measures_the_gain() {
    // CUDA_LAUNCH_BLOCKING=1 left in the shell: the finding is the setting, not "compile".
    let d = diagnose("probe_convnet1d_launch_blocking");
    assert_eq!(d.primary, "kernel_launch/synchronous_launches");
    assert_eq!(
        d.findings[0].fixes,
        vec![Fix::KernelLaunch(KernelLaunchFix::UnsetLaunchBlocking)]
    );
    let first = &d.plan[0];
    assert_eq!((first.finding, first.fix), (0, 0));
    let predicted = first.gain.expected.after_ms;
    // The same script recorded right after without the setting.
    let twin = diagnose("probe_convnet1d");
    assert_eq!(twin.primary, "compute_bound");
    let measured = twin.diagnosed_timing().unwrap().mean_step_ms;
    let error = (predicted / measured - 1.0).abs();
    assert!(
        error < 0.05,
        "predicted {predicted:.1} ms, measured {measured:.1} ms"
    );
}

#[test]
fn pageable_batch_copies_are_fixed_at_the_copy_and_the_twin_measures_the_gain() {
    // The probe names the two `.cuda()` lines as synchronising; the finding is the copy,
    // and no fix tells the loop to copy less often.
    let d = diagnose("probe_tabular_pageable_batches");
    assert_eq!(d.primary, "h2d_copy/pageable");
    let fixes: Vec<&Fix> = d.findings.iter().flat_map(|f| &f.fixes).collect();
    assert_eq!(fixes[0], &Fix::H2dCopy(H2dCopyFix::PinnedCopy));
    assert!(
        !fixes
            .iter()
            .any(|f| matches!(f, Fix::HostSync(HostSyncFix::FewerReadbacks { .. }))),
        "{fixes:?}"
    );
    let predicted = d.plan[0].gain.expected.after_ms;
    let twin = diagnose("probe_tabular_pinned_batches");
    let measured = twin.diagnosed_timing().unwrap().mean_step_ms;
    // Pinned copies are also faster than pageable ones, which the recording cannot say: the
    // prediction errs high (5.1 ms against 4.6 ms), within the 20 % a gain may miss by.
    let error = predicted / measured - 1.0;
    assert!(
        (0.0..0.2).contains(&error),
        "predicted {predicted:.1} ms, measured {measured:.1} ms"
    );
}

#[test]
fn one_dataloader_worker_starves_the_gpu_even_without_a_trace() {
    let d = diagnose("dataloader_one_worker");
    assert!(d.ranks.is_empty(), "the profiler never started in 23 steps");
    assert_eq!(d.primary, "data_loading");
    assert!(
        evidence(
            &d,
            "data_loading",
            K::DataLoading(DataLoadingEvidence::DataWaitShare)
        ) > 90.0
    );
}

#[test]
fn bf16_norm_and_activation_blocks_are_still_memory_bound() {
    let d = diagnose("memory_bound_bf16");
    assert_eq!(d.primary, "memory_bandwidth");
    assert!(
        evidence(
            &d,
            "memory_bandwidth",
            K::MemoryBandwidth(MemoryBandwidthEvidence::DramBandwidth)
        ) >= 70.0
    );
    assert!(
        evidence(
            &d,
            "memory_bandwidth",
            K::ComputeBound(ComputeBoundEvidence::TensorActive)
        ) < 5.0
    );
}

#[test]
fn per_step_item_and_numpy_metrics_are_host_sync_not_launch_overhead() {
    let d = diagnose("host_sync");
    assert_eq!(d.primary, "host_sync");
    assert!(
        evidence(
            &d,
            "host_sync",
            K::HostSync(HostSyncEvidence::SyncCallsPerStep)
        ) >= 2.0
    );
    // The host needs less time per step than the GPU: without the sync it would run ahead.
    assert!(
        evidence(
            &d,
            "host_sync",
            K::HostSync(HostSyncEvidence::HostLaunchTime)
        ) < evidence(
            &d,
            "host_sync",
            K::HostSync(HostSyncEvidence::GpuBusyPerStep)
        )
    );
    assert!(d.finding("kernel_launch").is_none());
}

#[test]
fn workers_on_every_core_starve_the_training_loop_an_input_pipeline_not_tiny_kernels() {
    let d = diagnose("dataloader_cpu_saturated");
    assert_eq!(d.primary, "data_loading/cpu_saturated");
    assert!(
        evidence(
            &d,
            "data_loading",
            K::DataLoading(DataLoadingEvidence::StarvedLaunchIdleShare)
        ) > 40.0
    );
    assert!(evidence(&d, "data_loading", K::Shared(SharedEvidence::HostCpu)) >= 85.0);
    assert!(
        evidence(
            &d,
            "data_loading",
            K::Shared(SharedEvidence::TrainingTreeCpu)
        ) > 1200.0
    );
    assert!(
        d.finding("kernel_launch").is_none(),
        "the launches wait for CPU, not for tiny kernels"
    );
    assert_eq!(
        d.findings[0].fixes[..2],
        [
            Fix::DataLoading(DataLoadingFix::CheaperSamples),
            Fix::DataLoading(DataLoadingFix::LeaveCoresToLoop {
                workers: 16,
                cores: 16,
                suggested: 14,
                ranks: 1,
            })
        ]
    );
    assert!(fix_words(&d.findings[0].fixes[1])
        .snippet
        .unwrap()
        .contains("num_workers=14,          # was 16"));
    let workers = d
        .environment
        .iter()
        .find(|c| c.id == CheckId::DataloaderWorkersVsCpus)
        .unwrap();
    assert_eq!(workers.status, CheckStatus::Warn, "{:?}", workers.value);
}

#[test]
fn the_same_pipeline_in_steady_state_is_read_from_the_unprofiled_steps() {
    // The profiled steps ran from a full prefetch queue; the 330 others waited for data.
    let d = diagnose("dataloader_cpu_saturated_long");
    assert_eq!(d.primary, "data_loading/cpu_saturated");
    assert!(
        evidence(
            &d,
            "data_loading",
            K::DataLoading(DataLoadingEvidence::DataLoaderIdleShare)
        ) < 2.0
    );
    assert!(
        evidence(
            &d,
            "data_loading",
            K::DataLoading(DataLoadingEvidence::DataWaitShare)
        ) > 70.0
    );
    assert!(
        evidence(
            &d,
            "data_loading",
            K::DataLoading(DataLoadingEvidence::UnprofiledDataIdleShare)
        ) > 50.0
    );
    assert!(d.findings[0].share > 0.8);
    assert!(d.finding("gpu_idle").is_none(), "nothing left unexplained");
}

#[test]
fn other_jobs_saturating_the_host_delay_the_launches_of_an_otherwise_compute_bound_run() {
    let alone = diagnose("resnet18_healthy");
    assert_eq!(alone.primary, "compute_bound");
    let shared = diagnose("resnet18_shared_host");
    assert_eq!(shared.primary, "kernel_launch/cpu_contention");
    // The same kernels in both: what differs is CPU time, not kernel sizes.
    let kernels = |d: &Diagnosis| {
        let k = &d.diagnosed_rank_summary().unwrap().kernels;
        (k.per_step.round(), (k.median_us * 10.0).round() / 10.0)
    };
    assert_eq!(kernels(&alone).0, kernels(&shared).0);
    assert!((kernels(&alone).1 - kernels(&shared).1).abs() <= 1.0);
    assert!(evidence(&shared, "kernel_launch", K::Shared(SharedEvidence::HostCpu)) > 95.0);
    assert!(
        evidence(
            &shared,
            "kernel_launch",
            K::Shared(SharedEvidence::TrainingProcessCpu)
        ) < 100.0
    );
    assert_eq!(
        shared.findings[0].fixes[0],
        Fix::Shared(SharedFix::FindCpuHogs)
    );
    assert!(shared.finding("data_loading").is_none());
}

#[test]
fn a_starved_loader_beside_other_jobs_is_told_the_host_has_no_core_to_spare() {
    let d = diagnose("dataloader_shared_host");
    assert_eq!(d.primary, "data_loading/cpu_contention");
    assert!(evidence(&d, "data_loading", K::Shared(SharedEvidence::HostCpu)) > 95.0);
    assert!(
        evidence(
            &d,
            "data_loading",
            K::Shared(SharedEvidence::TrainingTreeCpu)
        ) < 250.0
    );
    assert!(
        evidence(
            &d,
            "data_loading",
            K::DataLoading(DataLoadingEvidence::DataWaitShare)
        ) > 80.0
    );
    assert!(
        checkup_text::findings::summary(&d.findings[0], Language::En)
            .contains("no idle core to add more")
    );
    assert_eq!(d.findings[0].fixes[0], Fix::Shared(SharedFix::FindCpuHogs));
}

#[test]
fn a_vision_transformer_with_its_batches_on_the_gpu_is_compute_bound() {
    let d = diagnose("vit_healthy");
    assert_eq!(d.primary, "compute_bound");
    assert!(
        evidence(
            &d,
            "compute_bound",
            K::ComputeBound(ComputeBoundEvidence::StepBusyShare)
        ) > 95.0
    );
    assert!(evidence(&d, "compute_bound", K::Shared(SharedEvidence::SmActive)) > 80.0);
}

#[test]
fn an_lstm_cell_stepped_in_python_is_launch_bound_with_idle_cores() {
    let d = diagnose("launch_bound_lstm_loop");
    assert_eq!(d.primary, "kernel_launch");
    assert!(
        evidence(
            &d,
            "kernel_launch",
            K::KernelLaunch(KernelLaunchEvidence::KernelsPerStep)
        ) > 900.0
    );
    assert!(
        evidence(
            &d,
            "kernel_launch",
            K::KernelLaunch(KernelLaunchEvidence::MedianKernel)
        ) < 5.0
    );
    assert!(d.host.as_ref().unwrap().cpu_total_mean.unwrap() < 20.0);
}

/// A copy of a corpus run with one file rewritten, for what-if checks on real data.
fn altered_copy(run: &str, file: &str, edit: impl Fn(String) -> String) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&corpus(run), dir.path());
    let p = dir.path().join(file);
    let text = std::fs::read_to_string(&p).unwrap();
    std::fs::write(&p, edit(text)).unwrap();
    dir
}

#[test]
fn nccl_p2p_disabled_over_nvlink_is_named_as_the_cause() {
    let dir = altered_copy("ddp_comm_bound", "meta.json", |t| {
        t.replace("\"NCCL_P2P_DISABLE\": null", "\"NCCL_P2P_DISABLE\": \"1\"")
    });
    let d = analyze_paths(&[dir.path().to_path_buf()], &Options::default()).unwrap();
    assert_eq!(d.primary, "communication/p2p_disabled");
    let check = d
        .environment
        .iter()
        .find(|c| c.id == CheckId::NcclP2p)
        .unwrap();
    assert_eq!(check.status, checkup_model::CheckStatus::Fail);
    assert_eq!(
        d.findings[0].fixes[0],
        Fix::Communication(CommunicationFix::EnableP2p)
    );
    assert!(fix_words(&d.findings[0].fixes[0])
        .snippet
        .unwrap()
        .contains("unset NCCL_P2P_DISABLE"));
}

#[test]
fn a_power_capped_gpu_running_at_reduced_clocks_is_throttling() {
    // The healthy run's samples with the SW power cap bit set and the SM clock held at
    // 1500 of 1980 MHz whenever the GPU was busy.
    let dir = altered_copy("healthy", "samples_nvml.csv", |t| {
        t.lines()
            .enumerate()
            .map(|(i, line)| {
                let mut cells: Vec<String> = line.split(',').map(str::to_owned).collect();
                if i > 0 && cells[2].parse::<f64>().unwrap_or(0.0) > 0.0 {
                    cells[9] = "1500".into();
                    cells[14] = "4".into();
                }
                cells.join(",")
            })
            .collect::<Vec<_>>()
            .join("\n")
    });
    let d = analyze_paths(&[dir.path().to_path_buf()], &Options::default()).unwrap();
    let f = d.finding("throttling").expect("throttling found");
    assert_eq!(f.id(), "throttling/power");
    assert!(
        (evidence(
            &d,
            "throttling",
            K::Throttling(ThrottlingEvidence::SmClockRatio)
        ) - 1500.0 / 1980.0 * 100.0)
            .abs()
            < 1.0
    );
    assert!(
        evidence(
            &d,
            "throttling",
            K::Throttling(ThrottlingEvidence::ThrottledSamples)
        ) > 95.0
    );
    assert!((0.15..0.30).contains(&f.share), "{}", f.share);
}

/// A corpus run's GPU and host samples alone: what live sampling or attaching to a running
/// job records (no step timings, no trace).
fn samples_only(run: &str) -> Diagnosis {
    let dir = tempfile::tempdir().unwrap();
    for name in ["samples_nvml.csv", "samples_gpm.csv", "samples_host.csv"] {
        std::fs::copy(corpus(run).join(name), dir.path().join(name)).unwrap();
    }
    analyze_paths(&[dir.path().to_path_buf()], &Options::default()).unwrap()
}

#[test]
fn samples_alone_of_a_starved_loader_say_the_gpu_waits_not_that_it_is_the_limit() {
    for run in ["dataloader_starved", "launch_bound"] {
        let d = samples_only(run);
        assert_eq!(d.primary, "gpu_idle", "{run}: {:?}", d.findings[0]);
        let busy = evidence(&d, "gpu_idle", K::GpuIdle(GpuIdleEvidence::GpuBusyShare));
        assert!(busy < 15.0, "{run}: {busy}");
        // The way forward is a profile, shown as a command.
        assert_eq!(d.findings[0].fixes[0], Fix::Shared(SharedFix::ProfileSteps));
        assert!(fix_words(&d.findings[0].fixes[0])
            .snippet
            .unwrap()
            .contains("checkup-agent run --profile-steps"));
    }
    // The launch-bound loop keeps one core busy: its main thread is the suspect.
    let d = samples_only("launch_bound");
    let tree = evidence(&d, "gpu_idle", K::Shared(SharedEvidence::TrainingTreeCpu));
    assert!((80.0..150.0).contains(&tree), "{tree}");
    assert!(d.findings[0]
        .fixes
        .contains(&Fix::Shared(SharedFix::MainThreadCpu)));
}

#[test]
fn samples_alone_of_a_busy_gpu_leave_out_the_start_up_and_stay_compute_bound() {
    let d = samples_only("healthy");
    assert_eq!(d.primary, "compute_bound", "{:?}", d.findings[0]);
    // The first ~13 s are process start and cuDNN autotuning with the GPU idle.
    assert!(d.window.start_s.is_some(), "{:?}", d.window.method);
    assert!(
        matches!(
            d.window.method,
            WindowMethod::NoStepTimings {
                start_up_s: Some(_),
                ..
            }
        ),
        "{:?}",
        d.window.method
    );
    assert!(
        evidence(
            &d,
            "compute_bound",
            K::ComputeBound(ComputeBoundEvidence::StepBusyShare)
        ) > 85.0
    );
    assert!(d.finding("gpu_idle").is_none());
    assert_eq!(samples_only("memory_bound").primary, "memory_bandwidth");
}

#[test]
fn a_starved_loader_on_a_host_other_jobs_saturate_is_told_to_free_the_cpu() {
    // The two-worker JPEG run's samples with every core of the host busy while the training's
    // processes keep their ~2 cores: the rest is someone else's load.
    let dir = altered_copy("dataloader_starved", "samples_host.csv", |t| {
        t.lines()
            .enumerate()
            .map(|(i, line)| {
                let mut cells: Vec<String> = line.split(',').map(str::to_owned).collect();
                if i > 0 {
                    cells[1] = "99.5".into();
                    for core in cells.iter_mut().skip(7) {
                        *core = "100".into();
                    }
                }
                cells.join(",")
            })
            .collect::<Vec<_>>()
            .join("\n")
    });
    let d = analyze_paths(&[dir.path().to_path_buf()], &Options::default()).unwrap();
    assert_eq!(d.primary, "data_loading/cpu_contention");
    assert!(
        checkup_text::findings::summary(&d.findings[0], Language::En)
            .contains("processes outside the training")
    );
    assert_eq!(d.findings[0].fixes[0], Fix::Shared(SharedFix::FindCpuHogs));
    // Only whose CPU it is changed: the share is the original run's.
    let original = diagnose("dataloader_starved");
    assert!((d.findings[0].share - original.findings[0].share).abs() < 1e-9);
}

// Runs recorded through the agent with the probe's account of the training (training.json,
// events.csv): the fixes fit what the run already does.

#[test]
fn a_two_worker_loader_is_told_its_real_worker_count_and_to_keep_workers() {
    let d = diagnose("probe_loader_short_epoch");
    assert_eq!(d.primary, "data_loading");
    assert_eq!(
        evidence(
            &d,
            "data_loading",
            K::DataLoading(DataLoadingEvidence::NumWorkers)
        ),
        2.0
    );
    let fixes = &d.findings[0].fixes;
    assert_eq!(
        fixes[0],
        Fix::DataLoading(DataLoadingFix::MoreWorkers {
            suggested: 14,
            current: Some(2),
            host_cpus: Some(16),
        })
    );
    assert!(fix_words(&fixes[0])
        .snippet
        .unwrap()
        .contains("num_workers=14,          # was 2"));
    assert!(
        fixes.contains(&Fix::DataLoading(DataLoadingFix::PersistentWorkers))
            && fixes.contains(&Fix::DataLoading(DataLoadingFix::PinMemory))
    );
}

#[test]
fn each_epochs_first_batch_after_the_loader_fix_is_gpu_idle_not_launch_overhead() {
    // 14 persistent workers: most steps take ~10 ms, but each epoch's first batch waits
    // 130-330 ms with the GPU idle. Over the run the waits (8 ms a step) are less than the
    // GPU work (7 ms a step plus gaps), which hid them; step by step they are 37 % idle.
    let d = diagnose("probe_loader_fixed_epoch_starts");
    assert_eq!(d.primary, "data_loading", "{:?}", d.findings[0]);
    let idle = evidence(
        &d,
        "data_loading",
        K::DataLoading(DataLoadingEvidence::UnprofiledDataIdleShare),
    );
    assert!((35.0..40.0).contains(&idle), "{idle}");
    assert!(
        evidence(
            &d,
            "data_loading",
            K::DataLoading(DataLoadingEvidence::MedianDataWait)
        ) < 0.1
    );
    assert_eq!(
        evidence(
            &d,
            "data_loading",
            K::DataLoading(DataLoadingEvidence::NumWorkers)
        ),
        14.0
    );
    // The launch claim no longer counts the time the steps waited for data.
    let launch = d.finding("kernel_launch").unwrap().share;
    assert!(launch < d.findings[0].share, "{launch}");
    // The idle time falls at the six epoch starts: about 234 ms each, and the fix is to
    // keep the loader running across them, with the run's own 14 workers.
    let per_start = evidence(
        &d,
        "data_loading",
        K::DataLoading(DataLoadingEvidence::IdlePerEpochStart),
    );
    assert!((200.0..260.0).contains(&per_start), "{per_start}");
    assert_eq!(
        d.findings[0].fixes[0],
        Fix::DataLoading(DataLoadingFix::LoaderAcrossEpochs { workers: Some(14) })
    );
    // It has its workers, pinned and persistent: none of that is asked again.
    let wrong =
        asks_for_what_the_run_does(&d, &["more_workers", "persistent_workers", "pin_memory"]);
    assert!(wrong.is_empty(), "{wrong:?}");
}

#[test]
fn short_steps_timed_on_the_gpu_in_spans_still_show_the_data_idle_and_the_epoch_starts() {
    // 2-4 ms steps, timed on the GPU in spans of ~20 ms (1800 steps, 273 spans), each
    // epoch's first two steps alone.
    let steps = checkup_recording::steps::read_steps_csv(
        &corpus("probe_small_mlp_short_epochs").join("steps.csv"),
    )
    .unwrap();
    let spans = steps.iter().filter(|s| s.gpu_ms.is_some()).count();
    assert_eq!((steps.len(), spans), (1800, 273));
    assert!(steps.iter().any(|s| s.gpu_steps >= 7));
    assert!(steps
        .iter()
        .filter(|s| s.step % 150 == 0 && s.step > 0)
        .all(|s| s.gpu_steps == 1 && s.gpu_ms.is_some()));

    let d = diagnose("probe_small_mlp_short_epochs");
    assert_eq!(d.primary, "kernel_launch");
    // The GPU idles for data about 30 % of the time, read from the spans.
    let idle = evidence(
        &d,
        "data_loading",
        K::DataLoading(DataLoadingEvidence::UnprofiledDataIdleShare),
    );
    assert!((25.0..35.0).contains(&idle), "{idle}");
    assert_eq!(
        evidence(
            &d,
            "data_loading",
            K::DataLoading(DataLoadingEvidence::NumWorkers)
        ),
        4.0
    );
    assert_eq!(
        d.finding("data_loading").unwrap().fixes[0],
        Fix::DataLoading(DataLoadingFix::MoreWorkers {
            suggested: 14,
            current: Some(4),
            host_cpus: Some(16),
        })
    );
    // The stall at every 150th step is the workers' restart, and the fix keeps them.
    let stall = d.finding("periodic_stall").unwrap();
    let (period, work) = stall_cause(stall);
    assert_eq!(period, 150.0);
    assert!(
        matches!(
            work,
            Some(checkup_model::PeriodicWork::EpochStart { workers: 4, .. })
        ),
        "{work:?}"
    );
    assert_eq!(
        stall.fixes[0],
        Fix::DataLoading(DataLoadingFix::PersistentWorkers)
    );
}

/// A fix's id, as the JSON names it (`fused_optimizer`).
fn fix_id(f: &Fix) -> String {
    serde_json::to_value(f).unwrap()["fix"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// Fixes (by id) that ask a run for what it already does.
fn asks_for_what_the_run_does(d: &Diagnosis, already: &[&str]) -> Vec<String> {
    d.findings
        .iter()
        .flat_map(|f| f.fixes.iter().map(move |x| (f, x)))
        .filter(|(_, x)| already.contains(&fix_id(x).as_str()))
        .map(|(f, x)| format!("{}: {x:?}", f.id()))
        .collect()
}

#[test]
fn a_compiled_gpt_with_fused_adamw_is_not_told_to_compile_fuse_or_use_channels_last() {
    let d = diagnose("probe_compiled_gpt");
    assert_eq!(d.primary, "compute_bound");
    let wrong = asks_for_what_the_run_does(
        &d,
        &[
            "compile",
            "compile_fuse_kernels",
            "fused_optimizer",
            "foreach_optimizer",
            "channels_last",
        ],
    );
    assert!(wrong.is_empty(), "{wrong:?}");
}

#[test]
fn healthy_runs_are_not_told_what_they_already_do() {
    let d = diagnose("probe_healthy_transformer");
    assert_eq!(d.primary, "compute_bound");
    let wrong = asks_for_what_the_run_does(&d, &["fused_optimizer", "channels_last"]);
    assert!(
        wrong.is_empty(),
        "no convolutions, AdamW(fused=True): {wrong:?}"
    );
    let d = diagnose("probe_healthy_loader");
    assert_eq!(d.primary, "compute_bound");
    assert!(d.finding("data_loading").is_none_or(|f| f.share < 0.05));
    let wrong =
        asks_for_what_the_run_does(&d, &["channels_last", "pin_memory", "persistent_workers"]);
    assert!(
        wrong.is_empty(),
        "channels_last inputs, pinned persistent workers: {wrong:?}"
    );
}

#[test]
fn the_line_that_reads_every_gradient_norm_back_is_named_with_its_count() {
    let d = diagnose("probe_grad_norm_items");
    let sync = d.finding("host_sync").expect("a host_sync finding");
    assert_eq!(
        evidence(
            &d,
            "host_sync",
            K::HostSync(HostSyncEvidence::ProbeSyncsPerStep)
        ),
        192.0
    );
    assert_eq!(
        evidence(
            &d,
            "host_sync",
            K::HostSync(HostSyncEvidence::TopSyncSiteShare)
        ),
        100.0
    );
    let Fix::HostSync(HostSyncFix::FewerReadbacks {
        site: Some(site),
        site_per_step: Some(n),
    }) = &sync.fixes[0]
    else {
        panic!("{:?}", sync.fixes[0]);
    };
    assert_eq!(
        (site.location().as_str(), *n),
        ("grad_norm_items.py:20", 192.0)
    );
    let words = fix_words(&sync.fixes[0]);
    assert!(words.title.contains("grad_norm_items.py:20"), "{words:?}");
    assert!(words.detail.contains("p.grad.norm().item()"), "{words:?}");
    // The forward and backward launch hundreds of tiny kernels on their own: launches stay
    // the larger cost.
    assert_eq!(d.primary, "kernel_launch");
}

#[test]
fn empty_cache_every_step_is_the_allocator_going_to_the_driver_not_launch_overhead() {
    let d = diagnose("probe_empty_cache_every_step");
    assert_eq!(d.primary, "host_sync/allocator");
    // The launch gaps follow from the drained queue: not told to compile the model.
    assert!(d.finding("kernel_launch").is_none(), "{:?}", d.findings);
    let f = &d.findings[0];
    // 41.0 ms per step; the same loop keeping its cache ran 18.6 and 26.3 ms.
    assert!((0.45..0.65).contains(&f.share), "{}", f.share);
    assert!(
        evidence(
            &d,
            "host_sync/allocator",
            K::HostSync(HostSyncEvidence::AllocCallsPerStep)
        ) >= 50.0
    );
    assert_eq!(
        evidence(
            &d,
            "host_sync/allocator",
            K::HostSync(HostSyncEvidence::EmptyCacheCallsPerStep)
        ),
        1.01
    );
    let Fix::HostSync(HostSyncFix::KeepAllocatorCache {
        site: Some(site),
        calls_per_step: Some(n),
        caching_off: false,
    }) = &f.fixes[0]
    else {
        panic!("{:?}", f.fixes);
    };
    assert_eq!(
        (site.location().as_str(), *n),
        ("empty_cache_every_step.py:29", 1.01)
    );
    let words = fix_words(&f.fixes[0]);
    assert!(
        words.title.contains("empty_cache_every_step.py:29"),
        "{words:?}"
    );
}

#[test]
fn a_run_with_the_caching_allocator_turned_off_is_told_to_turn_it_back_on() {
    let d = diagnose("probe_no_memory_caching");
    assert_eq!(d.primary, "host_sync/allocator");
    let f = &d.findings[0];
    // 238.6 ms per step; 56.2 ms with the allocator's cache.
    assert!((0.65..0.85).contains(&f.share), "{}", f.share);
    assert_eq!(
        f.fixes,
        vec![Fix::HostSync(HostSyncFix::KeepAllocatorCache {
            site: None,
            calls_per_step: None,
            caching_off: true
        })]
    );
    // The variable is listed among the settings that change speed, costed by that finding.
    assert!(d.settings.contains(&checkup_model::SettingCost {
        setting: SpeedSetting::AllocatorCachingOff,
        verdict: SettingVerdict::InFinding { finding: 0 },
    }));
}

#[test]
fn an_fp32_transformer_is_compute_bound_and_told_to_allow_tf32_then_use_bf16() {
    let d = diagnose("probe_fp32_transformer");
    assert_eq!(d.primary, "compute_bound");
    assert!(matches!(
        d.findings[0].fixes[0],
        Fix::ComputeBound(ComputeBoundFix::AllowTf32 {
            tf32_speedup: Some(_),
            ..
        })
    ));
    assert_eq!(
        d.findings[0].fixes[1],
        Fix::ComputeBound(ComputeBoundFix::TensorCores)
    );
    assert!(
        evidence(
            &d,
            "compute_bound",
            K::ComputeBound(ComputeBoundEvidence::TensorActive)
        ) < 5.0
    );
}

#[test]
fn a_checkpoint_every_40_steps_outranks_the_launch_claim_of_the_profiled_window() {
    let d = diagnose("probe_checkpoint_every_n");
    assert_eq!(d.primary, "periodic_stall");
    let stall = &d.findings[0];
    let (period_steps, work) = stall_cause(stall);
    assert_eq!(period_steps, 40.0);
    assert_eq!(work, Some(checkup_model::PeriodicWork::Checkpoint));
    assert_eq!(
        stall.fixes,
        vec![Fix::PeriodicStall(PeriodicStallFix::AsyncCheckpoint {
            checkpoint_seen: true,
            every_steps: Some(120),
        })]
    );
    // Launch gaps cost their share of the normal steps only.
    let launch = d.finding("kernel_launch").unwrap();
    assert!(
        launch.share < stall.share / 2.0,
        "{} vs {}",
        launch.share,
        stall.share
    );
}

#[test]
fn an_evaluation_that_keeps_the_gpu_busy_is_a_stall_told_a_longer_period() {
    // A GPU-bound ConvNet (3.6 ms steps) with a 165 ms validation pass every 25 steps. Its
    // host runs ahead of the GPU, which read every long step as back-pressure: the verdict was
    // "the GPU waits, cannot say for what" while the passes took a fifth of the run. The probe
    // timed each pass in its step, so those steps are stalls, and the GPU is said to run them.
    let d = diagnose("probe_convnet_eval_every_25");
    assert_eq!(d.primary, "periodic_stall");
    let stall = &d.findings[0];
    let Cause::PeriodicStall(PeriodicStall::Stalls {
        period_steps,
        work: Some(checkup_model::PeriodicWork::Eval),
        gpu_busy: Some(true),
        ..
    }) = stall.cause
    else {
        panic!("{:?}", stall.cause)
    };
    assert_eq!(period_steps, 25.0);
    assert!(matches!(
        stall.fixes[..],
        [Fix::PeriodicStall(PeriodicStallFix::EvaluateLessOften {
            period_steps: 25,
            every_steps: 850,
            ..
        })]
    ));
    assert!(d.findings.iter().all(|f| f.id() != "gpu_idle"));
    let en = checkup_text::findings::summary(stall, Language::En);
    assert!(
        en.contains("the GPU runs that work meanwhile, not training."),
        "{en}"
    );
}

#[test]
fn an_evaluation_every_40_steps_is_named_as_evaluation() {
    let d = diagnose("probe_launch_bound_eval");
    assert_eq!(d.primary, "kernel_launch");
    let stall = d.finding("periodic_stall").unwrap();
    assert!(matches!(
        stall.cause,
        checkup_model::Cause::PeriodicStall(PeriodicStall::Stalls {
            work: Some(checkup_model::PeriodicWork::Eval),
            ..
        })
    ));
    // A 358 ms pass every 40 steps of 583 ms training: every 520 steps (13 × 40), a pass
    // takes under a twentieth of the training between two.
    let [Fix::PeriodicStall(PeriodicStallFix::EvaluateLessOften {
        period_steps,
        every_steps,
        pass_ms,
        pass_share,
    })] = stall.fixes[..]
    else {
        panic!("{:?}", stall.fixes)
    };
    assert_eq!((period_steps, every_steps), (40, 520));
    assert!((pass_ms - 358.0).abs() < 1.0, "{pass_ms}");
    assert_eq!(pass_share, 0.05);
    let gain = stall.gains.fixes[0].unwrap();
    assert_eq!(
        gain.reach,
        checkup_model::FixReach::FewerPasses(1.0 - 40.0 / 520.0)
    );
    assert!(
        (gain.expected.after_ms - 15.2).abs() < 0.1,
        "{}",
        gain.expected.after_ms
    );
    assert!(
        evidence(
            &d,
            "periodic_stall",
            K::PeriodicStall(PeriodicStallEvidence::StallsWithMarker)
        ) >= 5.0
    );
}

#[test]
fn each_lost_time_finding_states_the_step_time_without_its_cause() {
    let d = diagnose("dataloader_starved");
    let f = &d.findings[0];
    let g = f.gains.cause.expect("a gain for the input pipeline");
    let t = d.diagnosed_timing().unwrap();
    let busy = d.diagnosed_rank_summary().unwrap().gpu_busy_per_step_us / 1e3;
    assert_eq!(g.before_ms, t.mean_step_ms);
    // Its share of the step gone, never below the GPU's own busy time.
    let want = (t.mean_step_ms * (1.0 - f.share)).max(busy);
    assert!((g.after_ms - want).abs() < 1e-9, "{g:?}");
    assert!((400.0..520.0).contains(&g.before_ms), "{g:?}");
    assert!((8.0..14.0).contains(&g.speedup()), "{g:?}");
    let words = checkup_text::findings::gain(&g, Language::En);
    assert!(words.contains(" ms per step ("), "{words}");
    // The compute-bound note behind it explains 4 %: it proposes nothing.
    let busy_note = d.finding("compute_bound").unwrap();
    assert!(busy_note.fixes.is_empty(), "{:?}", busy_note.fixes);
    assert!(busy_note.gains.cause.is_none());
}

#[test]
fn a_stall_gain_takes_the_stalls_out_of_the_mean_step() {
    let d = diagnose("probe_checkpoint_every_n");
    let g = d.findings[0].gains.cause.unwrap();
    let t = d.diagnosed_timing().unwrap();
    // Without the checkpoints, the mean step is about the median one.
    assert!(
        (g.after_ms - t.median_step_ms).abs() < 0.1 * t.median_step_ms,
        "{g:?} vs median {}",
        t.median_step_ms
    );
}

#[test]
fn an_sgd_run_is_told_to_fuse_sgd_not_to_switch_to_adamw() {
    let d = diagnose("probe_healthy_loader");
    let fused: Vec<_> = d
        .findings
        .iter()
        .flat_map(|f| &f.fixes)
        .filter(|f| fix_id(f) == "fused_optimizer")
        .collect();
    assert!(!fused.is_empty(), "SGD(momentum) runs its foreach kernels");
    for f in fused {
        let code = fix_words(f).snippet.unwrap();
        assert!(
            code.contains("torch.optim.SGD(") && !code.contains("AdamW"),
            "{code}"
        );
    }
}

#[test]
fn read_backs_in_every_layer_of_a_large_model_are_host_sync_at_their_own_line() {
    let d = diagnose("probe_layer_stats_items");
    assert_eq!(d.primary, "host_sync");
    // One read-back is a copy to the host and a synchronize: counted once, as in the code.
    assert_eq!(
        evidence(
            &d,
            "host_sync",
            K::HostSync(HostSyncEvidence::SyncCallsPerStep)
        ),
        112.0
    );
    assert_eq!(
        evidence(
            &d,
            "host_sync",
            K::HostSync(HostSyncEvidence::ProbeSyncsPerStep)
        ),
        112.0
    );
    let sync = d.finding("host_sync").expect("host_sync");
    // The probe named the line: the fix is that line, rewritten; no generic metrics advice,
    // no "find your syncs" (the probe found them).
    assert_eq!(sync.fixes.len(), 1, "{:?}", sync.fixes);
    let words = fix_words(&sync.fixes[0]);
    assert!(words.title.contains("layer_stats_items.py:15"), "{words:?}");
    let snippet = words.snippet.expect("a snippet");
    assert!(
        snippet.contains("activation_rms[name] = output.float().pow(2).mean().sqrt().detach()"),
        "{snippet}"
    );
    assert!(!snippet.contains("grad"), "{snippet}");
    // Without the syncs a step still takes the GPU's own busy time (96 ms): the 16 % idle
    // they cause would leave less than that, so the GPU's time is the gain's floor.
    let gain = sync.gains.cause.expect("a gain");
    let busy = evidence(
        &d,
        "host_sync",
        K::HostSync(HostSyncEvidence::GpuBusyPerStep),
    );
    assert!(gain.bounded_by_gpu_busy, "{gain:?}");
    // Evidence is rounded to what it prints (96.0 ms).
    assert!(
        gain.gpu_busy_ms.is_some_and(|g| (g - busy).abs() < 0.05),
        "{gain:?}"
    );
    assert_eq!(Some(gain.after_ms), gain.gpu_busy_ms);
    assert!((gain.before_ms / busy - 1.15).abs() < 0.03, "{gain:?}");
}

#[test]
fn a_periodic_read_back_of_every_weight_is_one_stall_not_a_sync_in_every_step() {
    let d = diagnose("probe_periodic_histograms");
    assert_eq!(d.primary, "periodic_stall");
    let stall = &d.findings[0];
    let (period_steps, work) = stall_cause(stall);
    assert_eq!(period_steps, 12.0);
    // ResNet-50 has 161 parameter tensors, each copied to the host once in the stall.
    assert_eq!(
        work,
        Some(checkup_model::PeriodicWork::HostReadback {
            readbacks_per_stall: 161.0
        })
    );
    assert_eq!(
        stall.fixes,
        vec![Fix::PeriodicStall(PeriodicStallFix::SummariseOnGpu {
            readbacks: 161.0
        })],
        "no checkpoint advice: the probe watched and saw none"
    );
    // The other profiled steps do not synchronise: no per-step host_sync finding spreading
    // the stall over the window.
    assert!(d.finding("host_sync").is_none(), "{:?}", d.findings);
}

// Attached with `checkup-agent sample --gpu 0` to a starved loader (no probe): the cause is
// not recorded, and the per-process host samples name the suspect without prescribing.
#[test]
fn samples_of_a_starved_loader_name_the_input_pipeline_as_the_suspect_and_prescribe_nothing() {
    let d = diagnose("samples_only_loader_attached");
    assert_eq!(d.primary, "gpu_idle");
    let f = d.finding("gpu_idle").unwrap();
    match &f.cause {
        checkup_model::Cause::GpuIdle(GpuIdle::Unexplained {
            suspect:
                Some(checkup_model::IdleSuspect::InputPipeline {
                    workers_cpu_pct, ..
                }),
            ..
        }) => assert!(
            (120.0..200.0).contains(workers_cpu_pct),
            "{workers_cpu_pct}"
        ),
        c => panic!("{c:?}"),
    }
    assert!(
        evidence(
            &d,
            "gpu_idle",
            K::GpuIdle(GpuIdleEvidence::WorkersCpuWhileIdle)
        ) >= 90.0
    );
    // The loader's settings are not in samples: profile first, no line to paste.
    assert_eq!(f.fixes, vec![Fix::Shared(SharedFix::ProfileSteps)]);
}

#[test]
fn a_copy_fix_gains_down_to_the_gpus_compute_not_to_its_copies() {
    let d = diagnose("h2d_pageable");
    let f = d.finding("h2d_copy").unwrap();
    let r = d.diagnosed_rank_summary().unwrap();
    let t = d.diagnosed_timing().unwrap();
    // The floor is the GPU's busy time without the exposed copies the fix removes.
    let g = &r.gpu;
    let copies = g.exposed_memory_us / (g.compute_us + g.exposed_comm_us + g.exposed_memory_us);
    let floor = r.gpu_busy_per_step_us / 1e3 * (1.0 - copies);
    let want = (t.mean_step_ms * (1.0 - f.share)).max(floor);
    let gain = f.gains.fixes[0]
        .expect("pinned copies have a gain")
        .expected;
    assert!((gain.after_ms - want).abs() < 1e-9, "{gain:?} vs {want}");
    // Half the step is copies: about twice as fast without them (it read 80 → 75.5 ms when
    // the floor still held the copies).
    assert!((1.8..2.2).contains(&gain.speedup()), "{gain:?}");
}

#[test]
fn what_to_do_first_lists_each_findings_best_fix_once_by_the_time_it_saves() {
    let d = diagnose("probe_loader_short_epoch");
    let plan = d.fixes_by_gain();
    let ids: Vec<_> = plan.iter().map(|r| d.findings[r.finding].id()).collect();
    // One per finding: pinned and overlapped copies remove the same copy time.
    let mut unique = ids.clone();
    unique.dedup();
    assert_eq!(ids, unique, "{ids:?}");
    assert_eq!(ids[0], "data_loading");
    assert!(
        matches!(
            plan[0].fix,
            Fix::DataLoading(DataLoadingFix::MoreWorkers {
                current: Some(2),
                ..
            })
        ),
        "{:?}",
        plan[0].fix
    );
    // The loader's fix removes its finding's time but each epoch's first-batch wait (one
    // in 30 steps waits for the workers to start), and the list runs from most to least.
    let loader = d.finding("data_loading").unwrap();
    let whole = loader.gains.cause.unwrap();
    assert!(
        matches!(plan[0].gain.reach, checkup_model::FixReach::OutsideEpochStarts(p) if p > 0.8 && p < 1.0)
    );
    assert!(
        plan[0].gain.expected.after_ms > whole.after_ms
            && plan[0].gain.expected.after_ms - whole.after_ms < 5.0,
        "{:?} vs {whole:?}",
        plan[0].gain
    );
    let saved: Vec<f64> = plan
        .iter()
        .map(|r| r.gain.expected.before_ms - r.gain.expected.after_ms)
        .collect();
    assert!(saved.windows(2).all(|w| w[0] >= w[1]), "{saved:?}");
    // Pinned memory beside more workers helps but removes no measured time of its own.
    let pin = loader
        .fixes
        .iter()
        .find(|f| **f == Fix::DataLoading(DataLoadingFix::PinMemory));
    assert!(pin.is_none_or(|p| loader
        .fixes_with_gains()
        .any(|(f, g)| f == p && g.is_none())));
}

#[test]
fn a_loop_that_builds_its_batch_in_python_is_told_to_move_that_work_before_compiling() {
    // Each step collates 512 token lists from Python lists into a tensor: half the step the
    // host makes no CUDA call, and the hot lines put 64 % of the training thread there.
    let d = diagnose("probe_gc_frozen_no_collect");
    let launch = d.finding("kernel_launch").unwrap();
    let Cause::KernelLaunch(KernelLaunch::TinyKernels {
        launchless: Some(quiet),
        hot_lines,
        ..
    }) = &launch.cause
    else {
        panic!("{:?}", launch.cause)
    };
    assert!((quiet.ms_per_step - 2.86).abs() < 0.01, "{quiet:?}");
    assert!((quiet.share - 0.50).abs() < 0.01, "{quiet:?}");
    // The evidence row shows it (rounded as evidence values are).
    let row = evidence(
        &d,
        "kernel_launch",
        K::KernelLaunch(KernelLaunchEvidence::LaunchlessHostPerStep),
    );
    assert!((row - quiet.ms_per_step).abs() < 1e-3, "{row}");
    assert!(hot_lines[0]
        .line
        .code
        .starts_with("tokens = torch.tensor([corpus[i] for i in picks])"));
    // Most of the wait launches nothing: moving that work comes first, and compiling leaves
    // it in its floor.
    assert_eq!(
        launch.fixes[0],
        Fix::KernelLaunch(KernelLaunchFix::HostWorkOffStep)
    );
    let gains: Vec<_> = launch.fixes_with_gains().collect();
    let moved = gains[0].1.unwrap();
    assert!(
        matches!(moved.reach, checkup_model::FixReach::HostWorkWithoutLaunches(p) if (p - quiet.share / launch.share).abs() < 1e-9)
    );
    let compiled = gains
        .iter()
        .find(|(f, _)| **f == Fix::KernelLaunch(KernelLaunchFix::CompileFuseKernels))
        .and_then(|(_, g)| *g)
        .unwrap();
    assert!(
        compiled.expected.after_ms > moved.expected.after_ms,
        "{compiled:?} vs {moved:?}"
    );
    assert!(checkup_text::findings::summary(launch, Language::En)
        .contains("2.9 ms of each step (50%) in which the host made no CUDA call"));
    // A compiled model's runtime keeps its own bookkeeping between graph replays: not the
    // training's to move.
    let compiled_run = diagnose("probe_grad_norm_compiled");
    assert!(compiled_run
        .finding("kernel_launch")
        .is_none_or(|f| matches!(
            f.cause,
            Cause::KernelLaunch(KernelLaunch::TinyKernels {
                launchless: None,
                ..
            })
        )));
    // A loop that only launches keeps compile first.
    let plain = diagnose("probe_plain_launch_bound");
    let plain_launch = plain.finding("kernel_launch").unwrap();
    assert_eq!(
        plain_launch.fixes[0],
        Fix::KernelLaunch(KernelLaunchFix::CompileFuseKernels)
    );
}

#[test]
fn more_workers_are_priced_at_the_pace_they_would_make_batches_at_best() {
    // One worker made a batch every 798 ms, the loop's own time 22.5 ms of it. Fourteen,
    // each as fast, make one every 57 ms at best: the step is theirs, not the loop's (a
    // 35× promise no number of workers could keep).
    let d = diagnose("dataloader_one_worker");
    let loader = d.finding("data_loading").unwrap();
    let (fix, gain) = loader
        .fixes_with_gains()
        .find(|(f, _)| matches!(f, Fix::DataLoading(DataLoadingFix::MoreWorkers { .. })))
        .unwrap();
    assert_eq!(
        *fix,
        Fix::DataLoading(DataLoadingFix::MoreWorkers {
            suggested: 14,
            current: Some(1),
            host_cpus: Some(16),
        })
    );
    let gain = gain.unwrap();
    let checkup_model::FixReach::WorkersPace {
        batch_ms_now,
        batch_ms_after,
        ..
    } = gain.reach
    else {
        panic!("{:?}", gain.reach)
    };
    assert!((batch_ms_now - 798.19).abs() < 0.01, "{batch_ms_now}");
    assert!((batch_ms_after - 798.19 / 14.0).abs() < 0.01);
    assert!((gain.expected.after_ms - 57.01).abs() < 0.01, "{gain:?}");
    let whole = loader.gains.cause.unwrap();
    assert!(whole.after_ms < 25.0, "{whole:?}");
}

#[test]
fn the_fix_for_the_line_that_makes_every_sync_gains_all_of_the_sync_time() {
    let d = diagnose("probe_layer_stats_items");
    let sync = d.finding("host_sync").unwrap();
    // 112 of 112 read-backs per step at layer_stats_items.py:15.
    assert_eq!(
        evidence(
            &d,
            "host_sync",
            K::HostSync(HostSyncEvidence::TopSyncSiteShare)
        ),
        100.0
    );
    let gain = sync.gains.fixes[0].unwrap();
    assert_eq!(gain.reach, checkup_model::FixReach::Cause);
    assert_eq!(Some(gain.expected), sync.gains.cause);
    let words = checkup_text::findings::fix_gain(&gain, Language::Zh);
    assert!(words.starts_with("预期收益：每步约 "), "{words}");
}

/// The fixes of `d` that ask for what its probe saw the run do already: compile a compiled
/// model, pin a pinned loader, keep persistent workers, no more workers than it has, fuse a
/// fused optimizer, allow TF32 that is on, channels_last for inputs all in it.
fn asks_for_what_the_probe_saw(d: &Diagnosis) -> Vec<String> {
    use checkup_model::OptimizerImplementation as Impl;
    let Some(t) = d.training.as_ref() else {
        return Vec::new();
    };
    let loader = t.main_loader();
    let optimizer = t.main_optimizer().and_then(|o| o.implementation);
    let model = t.model.as_ref();
    d.findings
        .iter()
        .flat_map(|f| f.fixes.iter().map(move |x| (f, x)))
        .filter(|(_, x)| match x {
            Fix::ComputeBound(ComputeBoundFix::Compile)
            | Fix::KernelLaunch(KernelLaunchFix::CompileFuseKernels) => t.compiled(),
            Fix::KernelLaunch(KernelLaunchFix::ReduceOverhead { current_mode }) => {
                current_mode.as_deref() == Some("reduce-overhead")
            }
            Fix::DataLoading(DataLoadingFix::PinMemory) => {
                loader.and_then(|l| l.pin_memory) == Some(true)
            }
            Fix::DataLoading(DataLoadingFix::PersistentWorkers) => {
                loader.and_then(|l| l.persistent_workers) == Some(true)
            }
            Fix::DataLoading(DataLoadingFix::MoreWorkers { suggested, .. }) => loader
                .and_then(|l| l.num_workers)
                .is_some_and(|n| *suggested <= n),
            Fix::ComputeBound(ComputeBoundFix::FusedOptimizer { .. }) => {
                optimizer == Some(Impl::Fused)
            }
            Fix::KernelLaunch(KernelLaunchFix::ForeachOptimizer { .. }) => {
                matches!(optimizer, Some(Impl::Fused | Impl::Foreach))
            }
            Fix::ComputeBound(ComputeBoundFix::AllowTf32 { .. }) => {
                t.settings.tf32_matmul == Some(true)
            }
            Fix::ComputeBound(ComputeBoundFix::ChannelsLast) => model.is_some_and(|m| {
                m.conv_4d_inputs > 0 && m.channels_last_inputs == m.conv_4d_inputs
            }),
            _ => false,
        })
        .map(|(f, x)| format!("{}: {x:?}", f.id()))
        .collect()
}

#[test]
fn every_fix_is_one_the_run_lacks_and_gains_only_what_was_measured() {
    for run in corpus_runs() {
        let d = diagnose(&run);
        // Users follow advice literally: a fix for what the run already does is the worst.
        let wrong = asks_for_what_the_probe_saw(&d);
        assert!(wrong.is_empty(), "{run}: {wrong:?}");
        for f in &d.findings {
            for (fix, gain) in f.fixes_with_gains() {
                // An idle GPU without a trace: profile first; nothing measured to remove yet.
                if matches!(
                    fix,
                    Fix::Shared(SharedFix::ProfileSteps)
                        | Fix::HostSync(HostSyncFix::FindHiddenSyncs)
                        | Fix::Environment(EnvironmentFix::Environment { .. })
                ) {
                    assert!(gain.is_none(), "{run}: {fix:?}");
                }
                // A gain never promises a step shorter than zero or longer than now.
                if let Some(g) = gain.map(|g| g.expected) {
                    assert!(
                        g.after_ms > 0.0 && g.after_ms <= g.before_ms,
                        "{run}: {fix:?} {g:?}"
                    );
                }
            }
        }
    }
}

/// The operators' share of all kernel time, and calls per profiled step, as the report shows.
fn operators(run: &str) -> Vec<(String, f64, f64)> {
    let d = diagnose(run);
    let k = &d.ranks[0].kernels;
    let steps = k.kernels as f64 / k.per_step;
    k.top_operators
        .iter()
        .map(|o| {
            (
                o.name.clone(),
                o.total_us / k.kernel_time_us,
                o.calls as f64 / steps,
            )
        })
        .collect()
}

#[test]
fn kernels_are_counted_under_the_operator_that_launched_them() {
    // ResNet-50: batch norm forward and backward, then the convolutions' backward, take most
    // GPU time (24 %, 19 % and 13 % of all kernel time over the whole trace, counted by hand
    // from its launch calls' `External id`); 53 batch-norm layers, one call each per step.
    let ops = operators("healthy");
    let names: Vec<&str> = ops.iter().take(3).map(|o| o.0.as_str()).collect();
    assert_eq!(
        names,
        [
            "aten::native_batch_norm",
            "aten::native_batch_norm_backward",
            "aten::convolution_backward"
        ]
    );
    assert!((0.22..0.26).contains(&ops[0].1), "{ops:?}");
    assert_eq!(ops[0].2, 53.0, "{ops:?}");
    // The six transformer blocks: the elementwise multiplies lead (three a block, 20 % of
    // the whole trace's kernel time by hand, more in the steady steps without the start's
    // set-up kernels), then layer norm's backward, once a block.
    let ops = operators("memory_bound");
    assert_eq!(ops[0].0, "aten::mul");
    assert_eq!(ops[1].0, "aten::native_layer_norm_backward");
    assert!((0.20..0.30).contains(&ops[0].1), "{ops:?}");
    assert_eq!((ops[0].2, ops[1].2), (18.0, 6.0), "{ops:?}");
    // Never more time than the kernels had, most first.
    for run in ["healthy", "memory_bound", "launch_bound", "ddp_comm_bound"] {
        let ops = operators(run);
        assert!(!ops.is_empty(), "{run}");
        assert!(
            ops.iter().map(|o| o.1).sum::<f64>() <= 1.0 + 1e-9,
            "{run}: {ops:?}"
        );
        assert!(ops.windows(2).all(|w| w[0].1 >= w[1].1), "{run}: {ops:?}");
    }
}

#[test]
fn a_loop_that_rescans_every_prediction_slows_down_and_its_host_time_is_what_grew() {
    let d = diagnose("probe_metrics_over_all_steps");
    assert_eq!(d.primary, "slowdown");
    let f = d.finding("slowdown").unwrap();
    let Cause::Slowdown(Slowdown::StepsGrow {
        first_ms,
        last_ms,
        grew,
        host_rss_mib,
        ..
    }) = f.cause
    else {
        panic!("{:?}", f.cause)
    };
    // The steps' own medians, first and last tenth (6.1 and 23.2 ms by hand from steps.csv).
    assert!((5.5..7.0).contains(&first_ms), "{first_ms}");
    assert!((20.0..26.0).contains(&last_ms), "{last_ms}");
    assert_eq!(grew, checkup_model::SlowdownPart::HostWork);
    // The lists hold 1.2 million Python ints by the end: ~20 MiB on the process's 1.2 GiB
    // (most of it CUDA's, from before the first step), too little to be said.
    assert_eq!(host_rss_mib, None);
    // The line that fills the list the loop scans again is named with the fix.
    let [Fix::Slowdown(SlowdownFix::ConstantHostWork {
        kept_at: Some(site),
    })] = &f.fixes[..]
    else {
        panic!("{:?}", f.fixes)
    };
    assert_eq!(site.code, "seen_preds.extend(out.argmax(1).tolist())");
    // Its fix removes the time lost: back to the first tenth's pace.
    let gain = f.gains.fixes[0].unwrap();
    assert!(gain.expected.after_ms < gain.expected.before_ms);
}

#[test]
fn losses_kept_with_their_graphs_creep_to_out_of_memory_and_lead() {
    let d = diagnose("probe_losses_kept_with_graph");
    assert_eq!(d.primary, "memory/creep");
    let f = &d.findings[0];
    assert_eq!(f.severity, checkup_model::Severity::Critical);
    let Cause::Memory(Memory::Creep {
        from_gib,
        to_gib,
        capacity_gib,
        full_in_min,
        ..
    }) = f.cause
    else {
        panic!("{:?}", f.cause)
    };
    // memory.csv: live tensors from 6.9 GiB (step 207) to 45.9 GiB (step 1456) on a
    // 140 GiB H200; the thirds' medians lie between.
    assert!(
        from_gib > 5.0 && to_gib > 35.0 && to_gib < 46.0,
        "{from_gib} {to_gib}"
    );
    assert!((139.0..141.0).contains(&capacity_gib), "{capacity_gib}");
    assert!(full_in_min.unwrap() < 1.0);
    assert_eq!(f.fixes, [Fix::Memory(MemoryFix::KeepValuesNotTensors)]);
}

#[test]
fn a_batch_sized_to_the_memory_left_is_near_the_limit_with_savers_in_order_of_cost() {
    let d = diagnose("probe_batch_at_memory_limit");
    assert_eq!(d.primary, "compute_bound");
    let f = d.finding("memory/near_limit").unwrap();
    let Cause::Memory(Memory::NearLimit {
        peak_gib,
        capacity_gib,
        ..
    }) = f.cause
    else {
        panic!()
    };
    assert!(
        peak_gib / capacity_gib > 0.88,
        "{peak_gib} of {capacity_gib}"
    );
    let frees = |fix: &Fix| match fix {
        Fix::Memory(MemoryFix::Bf16Memory { frees_gib })
        | Fix::Memory(MemoryFix::ActivationCheckpointing { frees_gib })
        | Fix::Memory(MemoryFix::EightBitOptimizer { frees_gib })
        | Fix::Memory(MemoryFix::SmallerMicroBatch { frees_gib })
        | Fix::Memory(MemoryFix::OffloadOptimizer { frees_gib }) => *frees_gib,
        other => panic!("{other:?}"),
    };
    // 85 M fp32 parameters with AdamW: 16 bytes each (1.4 GiB) of the 121.1 GiB peak; the
    // rest is activations, which bf16 and half micro-batches halve.
    assert!(matches!(
        f.fixes[0],
        Fix::Memory(MemoryFix::Bf16Memory { .. })
    ));
    assert!(matches!(
        f.fixes[1],
        Fix::Memory(MemoryFix::ActivationCheckpointing { .. })
    ));
    assert!(matches!(
        f.fixes[2],
        Fix::Memory(MemoryFix::EightBitOptimizer { .. })
    ));
    assert!(matches!(
        f.fixes[3],
        Fix::Memory(MemoryFix::SmallerMicroBatch { .. })
    ));
    assert!(matches!(
        f.fixes[4],
        Fix::Memory(MemoryFix::OffloadOptimizer { .. })
    ));
    let bf16 = frees(&f.fixes[0]).unwrap();
    assert!((58.0..61.0).contains(&bf16), "{bf16}");
    let states = frees(&f.fixes[4]).unwrap();
    assert!((0.5..0.8).contains(&states), "{states}");
}

#[test]
fn another_process_on_the_gpu_is_measured_and_freeing_the_gpu_comes_first() {
    // The same workload as probe_batch_at_memory_limit, beside a process holding 40 GiB.
    let d = diagnose("probe_batch_beside_another_process");
    assert_eq!(d.primary, "compute_bound");
    let f = d.finding("memory/near_limit").unwrap();
    let Cause::Memory(Memory::NearLimit { others_gib, .. }) = f.cause else {
        panic!()
    };
    // samples_gpu_processes.csv: PID 615 held 41,570 MiB (40 GiB and its context) while
    // PID 653, the training, grew to its batch.
    assert!((others_gib - 40.6).abs() < 0.05, "{others_gib}");
    let other = f
        .evidence
        .iter()
        .find(|e| e.key == K::Memory(MemoryEvidence::OtherProcessesMemory))
        .unwrap();
    assert_eq!(other.source, Source::GpuProcessSamples);
    let Fix::Memory(MemoryFix::FreeSharedGpu { pids, frees_gib }) = &f.fixes[0] else {
        panic!("{:?}", f.fixes)
    };
    assert_eq!(
        (pids.as_slice(), *frees_gib),
        ([615].as_slice(), others_gib)
    );
    assert!(matches!(
        f.fixes[1],
        Fix::Memory(MemoryFix::Bf16Memory { .. })
    ));
    let processes = &d.charts.gpus[0].processes;
    assert_eq!(
        processes
            .iter()
            .map(|p| (p.pid, p.training))
            .collect::<Vec<_>>(),
        [(615, false), (653, true)]
    );
    // Alone on its GPU, the same workload has no other process to name.
    let alone = diagnose("probe_batch_at_memory_limit");
    let f = alone.finding("memory/near_limit").unwrap();
    assert!(!f
        .fixes
        .iter()
        .any(|x| matches!(x, Fix::Memory(MemoryFix::FreeSharedGpu { .. }))));
    assert!(alone.charts.gpus[0].processes.is_empty());
}

#[test]
fn an_out_of_memory_error_caught_by_the_loop_is_an_environment_check_not_an_environment_finding() {
    let d = diagnose("probe_oom_halving_batch");
    assert_eq!(d.primary, "compute_bound");
    let check = d
        .environment
        .iter()
        .find(|c| c.id == CheckId::OutOfMemory)
        .unwrap();
    assert_eq!(check.status, CheckStatus::Fail);
    let CheckValue::OutOfMemory {
        ooms,
        peak_reserved_gib,
        capacity_gib,
    } = check.value
    else {
        panic!()
    };
    // memory.csv's last row: num_ooms 1; 136,803,516,416 bytes reserved at the peak.
    assert_eq!(ooms, 1);
    assert!((peak_reserved_gib.unwrap() - 127.41).abs() < 0.01);
    assert!((139.0..141.0).contains(&capacity_gib.unwrap()));
    let words = checkup_text::checks::text(check, Language::En);
    assert_eq!(
        words.value,
        "1 out-of-memory error; at most 127.4 of 140 GiB reserved"
    );
    assert!(words
        .fix
        .unwrap()
        .starts_with("Cheapest first: bf16 autocast"));
    assert!(d.finding("environment/out_of_memory").is_none());
    let f = d.finding("memory/near_limit").unwrap();
    assert_eq!(f.severity, Severity::Major, "an OOM happened");
}

#[test]
fn predictions_kept_on_the_host_creep_its_memory_and_nothing_else() {
    let d = diagnose("probe_predictions_kept_on_host");
    assert_eq!(d.primary, "compute_bound");
    let f = d.finding("memory/host_creep").unwrap();
    let Cause::Memory(Memory::HostCreep {
        from_mib,
        to_mib,
        mib_per_min,
    }) = f.cause
    else {
        panic!()
    };
    // samples_host.csv: the tree's RSS from ~0.7 GB before the steps to 15.2 GB; 4096 × 1000
    // fp32 logits (15.6 MiB) a step at ~10.5 steps a second.
    assert!((1500.0..2500.0).contains(&from_mib), "{from_mib}");
    assert!((13_500.0..15_500.0).contains(&to_mib), "{to_mib}");
    assert!((8_500.0..11_000.0).contains(&mib_per_min), "{mib_per_min}");
    assert_eq!(f.severity, Severity::Major);
    assert_eq!(f.fixes, [Fix::Memory(MemoryFix::BoundHostHistory)]);
    // The step time and the GPU's memory stayed flat.
    assert!(d.finding("slowdown").is_none() && d.finding("memory/creep").is_none());
}

#[test]
fn batches_of_changing_length_fragment_the_allocator() {
    let d = diagnose("probe_variable_length_batches");
    let f = d.finding("memory/fragmented").unwrap();
    let Cause::Memory(Memory::Fragmented {
        reserved_gib,
        peak_allocated_gib,
        retries,
    }) = f.cause
    else {
        panic!()
    };
    // memory.csv's peaks: 34.8e9 bytes reserved, 25.8e9 allocated.
    assert!((reserved_gib - 32.45).abs() < 0.05, "{reserved_gib}");
    assert!(
        (peak_allocated_gib - 24.04).abs() < 0.05,
        "{peak_allocated_gib}"
    );
    assert_eq!(retries, 0);
    assert_eq!(f.fixes, [Fix::Memory(MemoryFix::ExpandableSegments)]);
}

#[test]
fn no_other_corpus_run_is_told_it_slows_down_or_has_a_memory_problem() {
    let own = [
        "probe_metrics_over_all_steps",
        "probe_losses_kept_with_graph",
        "probe_batch_at_memory_limit",
        "probe_variable_length_batches",
        "probe_batch_beside_another_process",
        "probe_oom_halving_batch",
        "probe_predictions_kept_on_host",
        "probe_growing_folder_loader",
        "probe_growing_folder_loader_hot",
        "probe_gpu_history_concat",
        // Its allocator kept 16 GiB cached for under 1 GiB of tensors: `torch.cat` asked for
        // a new size every step until the window filled.
        "probe_gpu_history_window",
        // Its steps did slow down: the median 26 ms until step 844, 37 ms in the last tenth,
        // the loop's host time growing (its pageable copies, or the host around them: the
        // recording does not say which); its pinned twin did not.
        "probe_loader_unpinned_mixer",
        // Its steps did slow down: about 35 ms a step until some 40 % into the run, about
        // 48 ms after, in the loop's host time (a level that moved, the process at a full
        // core throughout); its twin moved the work out of the loop.
        "probe_text_batch512_in_loop",
        // Its allocator reserved 8.5 GiB for at most 3.4 GiB of tensors: each new sequence
        // length of the curriculum asked for blocks of new sizes (a minor finding, 0 %); the
        // same in its twins, and in the pairs recorded again on other hosts.
        "probe_curriculum_lm",
        "probe_curriculum_lm_dynamic",
        "probe_curriculum_lm_dynamic_rerun",
        "probe_curriculum_lm_mark_dynamic",
        "probe_curriculum_lm_dynamic_third",
        "probe_curriculum_lm_mark_dynamic_second",
    ];
    for run in corpus_runs().iter().filter(|r| !own.contains(&r.as_str())) {
        let d = diagnose(run);
        let flagged: Vec<String> = d
            .findings
            .iter()
            .map(|f| f.id())
            .filter(|id| id == "slowdown" || id.starts_with("memory/"))
            .collect();
        assert!(flagged.is_empty(), "{run}: {flagged:?}");
    }
}

#[test]
fn a_rank_with_four_times_the_work_on_the_second_node_is_named_and_its_work_is_the_fix() {
    let d = diagnose("two_node_slow_rank");
    assert_eq!(d.ranks.len(), 4);
    assert_eq!(d.diagnosed_rank, Some(3));
    assert_eq!(d.facts.node_of_rank(3).and_then(|n| n.node_rank), Some(1));
    assert_eq!(d.primary, "communication/straggler");
    let straggler = &d.findings[0];
    assert!(matches!(
        straggler.cause,
        Cause::Communication(Communication::Straggler { slow_rank: 3, .. })
    ));
    // Rank 3 computes 9.0 ms per step, the others 1.4 ms: the evidence shows both.
    let compute = |rank| {
        evidence(
            &d,
            "communication/straggler",
            K::Communication(CommunicationEvidence::ComputeRank { rank }),
        )
    };
    assert!((compute(3) - 9.0).abs() < 0.5, "{}", compute(3));
    assert!(compute(1) < 2.0, "{}", compute(1));
    match &straggler.fixes[..] {
        [Fix::Communication(CommunicationFix::EvenRankWork {
            slow_rank: 3,
            ratio,
        })] => assert!(*ratio > 4.0, "{ratio}"),
        other => panic!("{other:?}"),
    }
    // gloo's own staging copies and syncs are its communication, not the loop's read-backs.
    assert!(d.finding("host_sync").is_none(), "{}", d.primary);
    // Only rank 3 is slow: rank 2, on its host, waits as the first host's ranks do.
    assert!(!d
        .notes
        .iter()
        .any(|n| matches!(n, checkup_model::Note::SlowNode { .. })));
    // Two ranks share each GPU here: NCCL cannot run that job, so it is not prescribed.
    assert!(d
        .findings
        .iter()
        .flat_map(|f| &f.fixes)
        .all(|f| !matches!(f, Fix::Communication(CommunicationFix::NcclForGpuTensors))));
}

#[test]
fn a_gloo_all_reduce_through_host_memory_is_communication() {
    let d = diagnose("two_node_gloo");
    assert_eq!(d.primary, "communication");
    let per_step = evidence(
        &d,
        "communication",
        K::Communication(CommunicationEvidence::HostCollectivePerStep),
    );
    assert!((3.0..8.0).contains(&per_step), "{per_step}");
    assert!(d.finding("communication/straggler").is_none());
    // Four ranks share one GPU: which one is last changes with the GPU's time-slicing, not
    // with their work (equal batches), so no step-by-step work imbalance is claimed.
    assert!(d.finding("communication/shifting_straggler").is_none());
}

#[test]
fn a_slowest_rank_that_moves_every_step_is_named_as_turns_and_told_to_even_the_steps() {
    let d = diagnose("two_node_rotating");
    assert_eq!(d.primary, "communication/shifting_straggler");
    match &d.findings[0].cause {
        Cause::Communication(Communication::ShiftingStraggler {
            slowest_ranks,
            steps,
            wait_share,
        }) => {
            let mut ranks = slowest_ranks.clone();
            ranks.sort_unstable();
            assert_eq!(ranks, [0, 1, 2, 3], "every rank took its turn");
            assert_eq!(*steps, 7);
            assert!((0.3..0.45).contains(wait_share), "{wait_share}");
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        d.findings[0].fixes[..],
        [Fix::Communication(CommunicationFix::EvenStepWork)]
    ));
    // The all-reduce's own cost is the slowest rank's, step by step, not every rank's waits.
    let comm = d.finding("communication").expect("the all-reduce itself");
    assert!(comm.share < 0.25, "{}", comm.share);
    assert!(d.finding("communication/straggler").is_none());
}

#[test]
fn a_host_whose_two_ranks_both_get_more_work_is_named_as_the_host() {
    let d = diagnose("two_node_slow_node");
    assert_eq!(d.primary, "communication/straggler");
    assert!(matches!(d.diagnosed_rank, Some(2 | 3)));
    let named = d.notes.iter().find_map(|n| match n {
        checkup_model::Note::SlowNode { node, ranks } => Some((node.clone(), ranks.clone())),
        _ => None,
    });
    assert_eq!(named, Some(("vm#1".to_string(), vec![2, 3])));
    assert!(d.finding("communication/shifting_straggler").is_none());
}

#[test]
fn a_rank_starved_by_its_input_pipeline_is_named_and_its_loader_fixed_at_its_share_of_the_host() {
    let d = diagnose("two_node_starved_rank");
    assert_eq!(d.primary, "data_loading");
    assert_eq!(d.diagnosed_rank, Some(3));
    // Four ranks share the host's 16 cores: two workers each, not fourteen.
    assert!(
        matches!(
            d.findings[0].fixes[..],
            [
                Fix::DataLoading(DataLoadingFix::MoreWorkers {
                    suggested: 2,
                    current: Some(1),
                    host_cpus: None,
                }),
                ..
            ]
        ),
        "{:?}",
        d.findings[0].fixes
    );
    // The others' all-reduce time is their wait for rank 3, a symptom without a fix of its
    // own, and not the all-reduce's cost.
    let straggler = d
        .finding("communication/straggler")
        .expect("the others wait");
    assert!(matches!(
        straggler.cause,
        Cause::Communication(Communication::Straggler { slow_rank: 3, .. })
    ));
    assert!(straggler.fixes.is_empty(), "{:?}", straggler.fixes);
    assert!(!d.findings.iter().any(|f| f.id() == "communication"));
    assert!(!d
        .notes
        .iter()
        .any(|n| matches!(n, checkup_model::Note::SlowNode { .. })));
}

#[test]
fn a_thread_holding_the_interpreter_is_named_instead_of_compile_and_its_twin_measures_the_gain() {
    // A reporter thread sorting a long list holds Python's lock: 49 ms of host time per
    // kernel launched, the process at one core, the GPU idle. Compiling would not help.
    let d = diagnose("probe_reporter_thread");
    assert_eq!(d.primary, "kernel_launch/interpreter_held");
    assert_eq!(
        d.findings[0].fixes,
        vec![Fix::KernelLaunch(KernelLaunchFix::FreeInterpreter)]
    );
    let fixes: Vec<&Fix> = d.findings.iter().flat_map(|f| &f.fixes).collect();
    assert!(
        !fixes.contains(&&Fix::KernelLaunch(KernelLaunchFix::CompileFuseKernels)),
        "{fixes:?}"
    );
    let per_kernel = evidence(
        &d,
        "kernel_launch/interpreter_held",
        K::KernelLaunch(KernelLaunchEvidence::HostTimePerKernel),
    );
    assert!((per_kernel - 48.8).abs() < 0.5, "{per_kernel}");
    // The same script recorded right after without the thread.
    let predicted = d.plan[0].gain.expected.after_ms;
    let twin = diagnose("probe_no_reporter_thread");
    assert_eq!(twin.primary, "compute_bound");
    let measured = twin.diagnosed_timing().unwrap().mean_step_ms;
    let error = (predicted / measured - 1.0).abs();
    assert!(
        error < 0.2,
        "predicted {predicted:.2} ms, measured {measured:.2} ms"
    );
    // A launch-bound twin of a growing loader, whose launches cost microseconds, is not held.
    let d = diagnose("probe_folder_listed_once");
    assert_eq!(d.primary, "kernel_launch");
}

#[test]
fn a_loader_that_slows_as_its_folder_grows_is_a_slowdown_fixed_on_the_data_side() {
    let d = diagnose("probe_growing_folder_loader");
    assert_eq!(d.primary, "data_loading");
    let slowdown = d.finding("slowdown").expect("a slowdown finding");
    let Cause::Slowdown(Slowdown::StepsGrow {
        grew: checkup_model::SlowdownPart::DataWait,
        grew_ms: Some([from, to]),
        ..
    }) = slowdown.cause
    else {
        panic!("{:?}", slowdown.cause)
    };
    // What grew, from what to what: the mean wait for a batch, from 6.4 to 135 ms.
    assert!(
        (from - 6.4).abs() < 0.1 && (to - 135.0).abs() < 0.5,
        "{from} {to}"
    );
    assert_eq!(
        slowdown.fixes,
        vec![Fix::Slowdown(SlowdownFix::ConstantSampleWork)]
    );
    // Two thirds of the run waited for batches, as its ledger shows.
    let l = d.ledger.as_ref().unwrap();
    let waited = l
        .part(checkup_model::LedgerKind::DataWait)
        .map_or(0.0, |p| p.share);
    assert!(waited > 0.6, "{waited}");
}

#[test]
fn a_loop_whose_host_time_grows_for_no_recorded_reason_gets_no_snippet_it_does_not_have() {
    // An MLP-Mixer fed by six workers without pinned memory slowed in its last third (26 ->
    // 37 ms a step, the loop's host time) for a reason the recording does not hold: no line
    // keeps a history. The fix says how to find the work that grows, with no code for a
    // metric the run does not compute.
    let d = diagnose("probe_loader_unpinned_mixer");
    let f = d.finding("slowdown").expect("a slowdown finding");
    assert_eq!(
        f.fixes,
        [Fix::Slowdown(SlowdownFix::ConstantHostWork {
            kept_at: None
        })]
    );
    for l in [Language::En, Language::Zh] {
        let words = checkup_text::fixes::text(&f.fixes[0], l);
        assert_eq!(words.snippet, None, "{l:?}");
    }
}

#[test]
fn a_growing_loader_recorded_with_hot_lines_names_the_per_sample_listing() {
    // The same loader recorded again with the host's hot lines: its workers spent 170 of
    // their 172 s of CPU listing the folder for every sample. The loader finding quotes that
    // line, and the slowdown says the data side grew.
    let d = diagnose("probe_growing_folder_loader_hot");
    assert_eq!(d.primary, "data_loading");
    let lines = d.findings[0].cause.hot_lines();
    let top = lines.first().expect("the workers' line");
    assert_eq!(top.role, checkup_model::ThreadRole::LoaderWorker);
    assert_eq!(top.line.location(), "growing_folder_loader.py:23");
    assert!(top.line.code.contains("os.listdir"), "{}", top.line.code);
    assert!(top.share_of_thread > 0.95, "{}", top.share_of_thread);
    let slowdown = d.finding("slowdown").expect("a slowdown finding");
    assert!(matches!(
        slowdown.cause,
        Cause::Slowdown(Slowdown::StepsGrow {
            grew: checkup_model::SlowdownPart::DataWait,
            ..
        })
    ));
    assert_eq!(
        d.plan[0].fix, 0,
        "{:?}",
        d.findings[d.plan[0].finding].fixes
    );
    assert_eq!(
        d.findings[d.plan[0].finding].fixes[0],
        Fix::Slowdown(SlowdownFix::ConstantSampleWork)
    );
    // The slowdown, whose fix comes first, names the same line: where the wait that grew
    // went.
    let grew_at = slowdown.cause.hot_lines();
    assert_eq!(
        grew_at.first().map(|h| h.line.location()).as_deref(),
        Some("growing_folder_loader.py:23")
    );
    let en = checkup_text::findings::summary(&d.findings[0], Language::En);
    assert!(
        en.contains("99% at growing_folder_loader.py:23 in __getitem__()"),
        "{en}"
    );
}

#[test]
fn a_few_long_steps_without_a_trace_still_get_a_verdict_from_the_samples_and_the_host() {
    // The reporter-thread run cut to its first 9 steps (2 s each) and without its trace,
    // as a run stopped early looks: its GPU idled (0.04 % busy, but a CUDA context on it)
    // while the training process held a core. That is a verdict, not "not enough data".
    let dir = altered_copy("probe_reporter_thread", "steps.csv", |text| {
        text.lines().take(10).collect::<Vec<_>>().join("\n") + "\n"
    });
    std::fs::remove_file(dir.path().join("trace.json.gz")).unwrap();
    let d = analyze_paths(&[dir.path().to_path_buf()], &Options::default()).unwrap();
    assert_eq!(d.primary, "gpu_idle");
    assert_eq!(
        (d.window.first_step, d.window.last_step),
        (Some(1), Some(8))
    );
    let f = &d.findings[0];
    let main_cpu = evidence(
        &d,
        "gpu_idle",
        K::GpuIdle(GpuIdleEvidence::MainCpuWhileIdle),
    );
    assert!(main_cpu > 95.0, "{main_cpu}");
    assert_eq!(f.fixes[0], Fix::Shared(SharedFix::ProfileSteps));
    // An idle GPU has no compute portrait to add.
    assert!(d.finding("compute_bound").is_none());
}

/// A problem run, the fix the checkup printed for it, and the run recorded again with that
/// fix applied (`tests/corpus/twins.json`).
#[derive(serde::Deserialize)]
struct Twin {
    run: String,
    fix: String,
    twin: String,
    #[serde(default)]
    known_miss: Option<String>,
}

#[test]
fn each_printed_fix_predicts_the_step_time_its_twin_measured() {
    #[derive(serde::Deserialize)]
    struct Twins {
        twins: Vec<Twin>,
    }
    let twins: Twins =
        serde_json::from_str(&std::fs::read_to_string(corpus("twins.json")).unwrap()).unwrap();
    let mut table = String::from("run | fix | predicted ms | measured ms | error\n");
    let mut errors = Vec::new();
    for t in &twins.twins {
        let d = diagnose(&t.run);
        // The fix as printed with its gain: the plan holds each finding's best fix only,
        // and a twin may check another of a finding's fixes.
        let gain = d
            .findings
            .iter()
            .flat_map(|f| f.fixes_with_gains())
            .find(|(fix, _)| serde_json::to_value(fix).unwrap()["fix"] == t.fix.as_str())
            .and_then(|(_, gain)| gain)
            .unwrap_or_else(|| panic!("{}: no `{}` with a gain", t.run, t.fix));
        // A range is right where the twin falls inside it, and off by its nearer end where
        // not.
        let (fastest, slowest) = gain.after_range_ms();
        let measured = diagnose(&t.twin).diagnosed_timing().unwrap().mean_step_ms;
        let predicted = measured.clamp(fastest, slowest);
        let error = predicted / measured - 1.0;
        let printed = if slowest > fastest {
            format!("{fastest:.2}–{slowest:.2}")
        } else {
            format!("{fastest:.2}")
        };
        table.push_str(&format!(
            "{} | {} | {printed} | {measured:.2} | {:+.0} %\n",
            t.run,
            t.fix,
            error * 100.0
        ));
        // A known miss stays one until the prediction comes true: then its note goes.
        assert_eq!(
            error.abs() > 0.2,
            t.known_miss.is_some(),
            "{}: predicted {printed} ms, measured {measured:.2} ms",
            t.run
        );
        errors.push(error.abs());
    }
    eprintln!("{table}");
    let mut hits: Vec<f64> = twins
        .twins
        .iter()
        .zip(&errors)
        .filter(|(t, _)| t.known_miss.is_none())
        .map(|(_, e)| *e)
        .collect();
    hits.sort_by(f64::total_cmp);
    assert!(hits.len() >= 4, "{table}");
    // The median error of the predictions that come true: issue 35 asks for 10 % or less.
    let median = (hits[(hits.len() - 1) / 2] + hits[hits.len() / 2]) / 2.0;
    assert!(
        median <= 0.10,
        "median error {:.0} %\n{table}",
        median * 100.0
    );
}

#[test]
fn a_sort_on_the_host_every_step_is_fixed_by_sorting_on_the_gpu_not_by_compiling() {
    // Hard-example mining sorts per-sample losses in NumPy every step and copies the indices
    // back. The profiled host looks too slow for the GPU; at unprofiled speed its work is at
    // most 10.5 ms against the GPU's 9.4 ms, so the sync leaves the GPU idle, not the
    // launches: the sort moves to the GPU, every step, never "read back less often".
    let d = diagnose("probe_hard_example_mining_numpy");
    // The GPU is busy 84 % of the step: compute-bound leads, and the sort's fix is the
    // first to try, in the plan and in the verdict.
    assert_eq!(d.primary, "compute_bound");
    let f = &d.findings[d.plan[0].finding];
    assert_eq!(f.id(), "host_sync");
    assert_eq!(d.plan[0].fix, 0);
    assert!(checkup_text::findings::verdict(&d, Language::En)
        .ends_with("First fix to try: sort on the GPU at hard_example_mining.py:43."));
    let Fix::HostSync(HostSyncFix::SortOnGpuAtLine {
        site,
        site_per_step,
    }) = &f.fixes[0]
    else {
        panic!("{:?}", f.fixes);
    };
    assert_eq!(site.location(), "hard_example_mining.py:43");
    assert_eq!(
        *site_per_step, 2.0,
        "the sort's line and the copy of its order back"
    );
    let bound = f
        .evidence_value(&K::HostSync(HostSyncEvidence::UnprofiledHostWork))
        .unwrap();
    assert!((10.4..10.6).contains(&bound), "{bound}");
    let gain = d.plan[0].gain;
    assert_eq!(gain.reach, checkup_model::FixReach::SyncsAtUnprofiledSpeed);
    let (fastest, slowest) = gain.after_range_ms();
    let busy = d.diagnosed_rank_summary().unwrap().gpu_busy_per_step_us / 1e3;
    assert!((fastest - busy).abs() < 1e-9, "{fastest} {busy}");
    assert!((slowest - bound).abs() < 0.05, "{slowest} {bound}");
    let text = fix_words(&f.fixes[0]);
    let snippet = text.snippet.unwrap();
    assert!(
        snippet.contains("hardest = torch.argsort(-per_sample.detach().float())[:keep]"),
        "{snippet}"
    );
    assert!(!snippet.contains("step % 50"), "{snippet}");
}

#[test]
fn a_pageable_copy_that_holds_the_host_is_the_first_fix_not_compile() {
    // A GRU whose 25 MB batch is copied from pageable memory every step: each copy call
    // holds the host about 2.5 ms, and the GPU then waits for the launches the host owes.
    // Its twin with the batch pinned and copied non-blocking ran 14.5 ms.
    let d = diagnose("probe_sensor_gru_pageable");
    assert_eq!(
        d.primary, "compute_bound",
        "the GPU is busy 83 % of the step"
    );
    assert!(
        d.finding("kernel_launch").is_none(),
        "the launch gaps are the copies' holding the host: no compile advice"
    );
    let f = &d.findings[d.plan[0].finding];
    assert_eq!(f.id(), "h2d_copy/pageable");
    assert!(matches!(
        f.fixes[d.plan[0].fix],
        Fix::H2dCopy(H2dCopyFix::PinnedCopy)
    ));
    let held = evidence(
        &d,
        "h2d_copy",
        K::H2dCopy(H2dCopyEvidence::PageableCopyHostPerStep),
    );
    assert!((2.4..2.6).contains(&held), "{held}");
    let beside = evidence(
        &d,
        "h2d_copy",
        K::H2dCopy(H2dCopyEvidence::HostWorkBesideCopies),
    );
    assert!((14.9..15.3).contains(&beside), "{beside}");
    // What the copies cost is what they hold, at most: the step beyond the host's other
    // work, here just under the 2.5 ms held.
    let (after, _) = d.plan[0].gain.after_range_ms();
    assert!((15.2..15.6).contains(&after), "{after}");
    assert!(checkup_text::findings::verdict(&d, Language::En)
        .ends_with("First fix to try: copy from pinned memory, asynchronously."));
}

#[test]
fn the_sync_after_a_pageable_copy_is_the_copys_wait_not_a_read_back() {
    // A temporal ConvNet whose 38 MB batch is copied from pageable memory: PyTorch
    // synchronises the stream after each copy, and the probe names the copy's line as the
    // one that synchronises, twice a step. One wait, one fix: the pinned copy, priced once,
    // never offered again at that line as a read-back. Its pinned twin ran 22.5 ms.
    let d = diagnose("probe_tcn_pageable");
    assert_eq!(d.primary, "h2d_copy/pageable");
    assert!(d.finding("host_sync").is_none(), "{:?}", d.findings);
    assert_eq!(d.plan.len(), 1, "{:?}", d.plan);
    assert!(matches!(
        d.findings[d.plan[0].finding].fixes[d.plan[0].fix],
        Fix::H2dCopy(H2dCopyFix::PinnedCopy)
    ));
    // The host's time in the copies counts the synchronisation after each.
    let held = evidence(
        &d,
        "h2d_copy",
        K::H2dCopy(H2dCopyEvidence::PageableCopyHostPerStep),
    );
    assert!((7.6..7.7).contains(&held), "{held}");
    let (after, _) = d.plan[0].gain.after_range_ms();
    assert!((24.5..25.0).contains(&after), "{after}");
}

#[test]
fn copies_from_pageable_memory_that_hold_the_host_briefly_cost_no_more_than_that() {
    // Four DataLoader workers without pinned memory: each 64 KB batch's copy call holds the
    // host ~60 µs of a 3.5 ms step, while the steps wait for data far longer. The copies
    // get none of that wait: the launches and the loader keep it.
    let d = diagnose("probe_small_mlp_short_epochs");
    assert_eq!(d.primary, "kernel_launch");
    assert!(d.finding("h2d_copy").is_none());
}

#[test]
fn a_run_that_profiles_itself_is_told_to_stop_its_profiler_not_to_profile() {
    // The training's own torch.profiler records every step: the probe took no trace beside
    // it, and the idle GPU's first fix is to take that profiler out, never to profile more.
    let d = diagnose("probe_profiler_left_on");
    let f = &d.findings[0];
    assert!(matches!(
        f.cause,
        Cause::GpuIdle(GpuIdle::Unexplained {
            recorded: Recorded::StepsTrainingProfiler,
            ..
        })
    ));
    assert_eq!(f.fixes[0], Fix::Shared(SharedFix::StopTrainingProfiler));
    assert!(!f.fixes.contains(&Fix::Shared(SharedFix::ProfileSteps)));
    assert!(d
        .settings
        .iter()
        .any(|c| c.setting == SpeedSetting::TrainingProfiler
            && c.verdict
                == SettingVerdict::NotCosted {
                    because: NotCosted::MeasuredOnlyWithoutIt
                }));
    // Its twin, the same loop without the profiler, is traced and diagnosed as it runs.
    assert_eq!(diagnose("probe_profiler_removed").primary, "kernel_launch");
}

#[test]
fn a_thread_holding_the_interpreter_is_named_with_the_line_it_holds_it_at() {
    // A metrics thread serialises a 5,000-entry history with json.dumps over and over; the
    // training thread waits for the interpreter lock between its operations, and the
    // finding quotes the other thread's line, not the training loop's.
    let d = diagnose("probe_json_logger_thread");
    assert_eq!(d.primary, "kernel_launch/interpreter_held");
    let lines = d.findings[0].cause.hot_lines();
    let top = lines.first().expect("the holder's line");
    assert_eq!(top.role, checkup_model::ThreadRole::Thread);
    assert_eq!(top.thread, "metrics-upload");
    assert_eq!(top.line.location(), "json_logger_thread.py:15");
    assert!(
        top.line.code.contains("json.dumps(history)"),
        "{}",
        top.line.code
    );
    assert!(
        top.line.inside.starts_with("encoder.py:"),
        "{}",
        top.line.inside
    );
    assert!(top.share_of_thread > 0.9, "{}", top.share_of_thread);
    assert!(
        (0.9..1.1).contains(&top.thread_cores),
        "{}",
        top.thread_cores
    );
    let en = checkup_text::findings::summary(&d.findings[0], Language::En);
    assert!(
        en.contains("100% at json_logger_thread.py:15 in publish_forever()"),
        "{en}"
    );
    let zh = checkup_text::findings::summary(&d.findings[0], Language::Zh);
    assert!(zh.contains("json_logger_thread.py:15"), "{zh}");
}

/// The launch finding of `d` and what compiling its model would leave of the step.
fn compile_floor(d: &Diagnosis) -> (&Finding, checkup_model::CompileFloor) {
    let launch = d.finding("kernel_launch").unwrap();
    let Cause::KernelLaunch(KernelLaunch::TinyKernels {
        compile_floor: Some(floor),
        ..
    }) = &launch.cause
    else {
        panic!("{:?}", launch.cause)
    };
    (launch, *floor)
}

/// The gain of the first of `f`'s fixes that `want` picks.
fn gain_of(f: &Finding, want: fn(&Fix) -> bool) -> checkup_model::FixGain {
    f.fixes_with_gains()
        .find(|(fix, _)| want(fix))
        .and_then(|(_, g)| g.copied())
        .unwrap()
}

fn compiles(f: &Fix) -> bool {
    matches!(f, Fix::KernelLaunch(KernelLaunchFix::CompileFuseKernels))
}

#[test]
fn compiling_the_model_is_promised_only_the_launches_its_optimizer_and_read_backs_leave() {
    // 192 `.item()` read-backs a step in the loop: compiling the model cannot fuse them, so
    // the promise keeps the GPU's work and each read-back's turn of host and GPU. The twin
    // compiled as printed measured 16.8 ms (the promise was 7.6 ms before).
    let d = diagnose("probe_grad_norm_items");
    let (launch, floor) = compile_floor(&d);
    assert_eq!(floor.read_backs_per_step, 192.0);
    let compile = gain_of(launch, compiles);
    assert!(
        matches!(compile.reach, checkup_model::FixReach::CompiledPart(p) if p < 0.5),
        "{:?}",
        compile.reach
    );
    assert!(
        (15.0..18.0).contains(&compile.expected.after_ms),
        "{:?}",
        compile.expected
    );
    let en = checkup_text::findings::fix_gain(&compile, Language::En);
    assert!(
        en.contains("each read-back's wait for the GPU stay"),
        "{en}"
    );
    let zh = checkup_text::findings::fix_gain(&compile, Language::Zh);
    assert!(zh.contains("回读"), "{zh}");
    // A per-parameter optimizer launches most of a launch-bound step's kernels and takes
    // half the host's time: compiling the model leaves it, a fused optimizer takes it away,
    // and the promises say so (twins recorded in the same call: compiled 9.3 ms, fused
    // 7.1 ms; compiling was promised the GPU's 1.7 ms before).
    let plain = diagnose("probe_plain_launch_bound");
    let (launch, floor) = compile_floor(&plain);
    assert!(
        (600.0..750.0).contains(&floor.optimizer_kernels_per_step),
        "{floor:?}"
    );
    assert!(floor.read_backs_per_step < 1.0, "{floor:?}");
    assert!((0.4..0.6).contains(&floor.optimizer_share), "{floor:?}");
    let compile = gain_of(launch, compiles);
    assert!(
        (7.0..9.5).contains(&compile.expected.after_ms),
        "{compile:?}"
    );
    let fused = gain_of(launch, |f| {
        matches!(
            f,
            Fix::KernelLaunch(KernelLaunchFix::ForeachOptimizer { .. })
        )
    });
    assert!((7.0..9.0).contains(&fused.expected.after_ms), "{fused:?}");
    assert!(matches!(
        fused.reach,
        checkup_model::FixReach::OptimizerLaunches(_)
    ));
    let en = checkup_text::findings::fix_gain(&fused, Language::En);
    assert!(
        en.contains("that the optimizer's per-parameter kernels make"),
        "{en}"
    );
    // The fused optimizer saves the most: it comes first in what to do.
    let first = &plain.findings[plain.plan[0].finding].fixes[plain.plan[0].fix];
    assert!(
        matches!(
            first,
            Fix::KernelLaunch(KernelLaunchFix::ForeachOptimizer { .. })
        ),
        "{first:?}"
    );
}

#[test]
fn a_slow_input_pipeline_names_the_line_its_workers_spend_their_cpu_on() {
    // Three workers filter noise through a 2-D FFT per sample: the GPU waits for data, and
    // the probe's hot lines put most of the workers' CPU on the FFT line.
    let d = diagnose("probe_spectral_augment_loader");
    assert_eq!(d.primary, "data_loading");
    let lines = d.findings[0].cause.hot_lines();
    assert!(!lines.is_empty());
    let top = &lines[0];
    assert_eq!(top.role, checkup_model::ThreadRole::LoaderWorker);
    assert_eq!(top.processes, 3);
    assert_eq!(top.line.location(), "spectral_augment_loader.py:29");
    assert!(top.line.code.contains("np.fft.fft2"), "{}", top.line.code);
    assert!(
        top.line.inside.starts_with("_pocketfft.py:"),
        "{}",
        top.line.inside
    );
    assert!(
        (0.5..0.7).contains(&top.share_of_thread),
        "{}",
        top.share_of_thread
    );
    assert!(
        (2.0..3.0).contains(&top.thread_cores),
        "{}",
        top.thread_cores
    );
    assert_eq!(lines[1].line.location(), "spectral_augment_loader.py:28");
    // The finding's words say it, in both languages.
    let en = checkup_text::findings::summary(&d.findings[0], Language::En);
    assert!(
        en.contains("The 3 DataLoader workers used 2.6 cores together: 58% at spectral_augment_loader.py:29 in __getitem__()"),
        "{en}"
    );
    let zh = checkup_text::findings::summary(&d.findings[0], Language::Zh);
    assert!(
        zh.contains("3 个 DataLoader worker 合计使用了 2.6 个核心"),
        "{zh}"
    );
}

#[test]
fn anomaly_detection_left_on_is_costed_first_and_no_line_is_told_to_read_back_less() {
    let d = diagnose("probe_anomaly_detection_left_on");
    assert_eq!(d.primary, "kernel_launch/anomaly_detection");
    assert_eq!(
        d.findings[0].fixes,
        vec![Fix::KernelLaunch(KernelLaunchFix::DisableAnomalyDetection)]
    );
    // Its 65 read-backs a step are anomaly mode's NaN checks, made inside loss.backward():
    // no host-sync finding asks the run to read back less there.
    assert!(d
        .findings
        .iter()
        .all(|f| f.family() != checkup_model::Family::HostSync));
    let fixes: Vec<&Fix> = d.findings.iter().flat_map(|f| &f.fixes).collect();
    assert!(
        !fixes.contains(&&Fix::KernelLaunch(KernelLaunchFix::CompileFuseKernels)),
        "{fixes:?}"
    );
    // The gain is a range: from the host's own 9.5 ms (only the turns go) down to the GPU's
    // 7.9 ms (the tracebacks and NaN checks go too, which the recording cannot split).
    let (fastest, slowest) = d.plan[0].gain.after_range_ms();
    assert_eq!(
        d.plan[0].gain.reach,
        checkup_model::FixReach::CauseAndAddedHostWork
    );
    let gpu_busy = d.diagnosed_rank_summary().unwrap().gpu_busy_per_step_us / 1e3;
    assert!((fastest - gpu_busy).abs() < 1e-9, "{fastest} {gpu_busy}");
    assert!((9.0..10.0).contains(&slowest), "{slowest}");
    // The twin without the setting is compute-bound, at the fast end: the GPU's work, less
    // the NaN checks' own kernels.
    let twin = diagnose("probe_anomaly_detection_off");
    assert_eq!(twin.primary, "compute_bound");
    let measured = twin.diagnosed_timing().unwrap().mean_step_ms;
    assert!(measured < slowest && measured > 0.9 * fastest, "{measured}");
}

#[test]
fn a_checkpoint_that_outlasts_the_training_between_saves_goes_aside_at_a_pace_it_keeps_up_with() {
    // torch.save of 1.885 GB every 40 steps in the loop: 2.5-4.5 s a save, each followed by
    // one slower step, against 0.69 s of training between two saves.
    let d = diagnose("probe_lstm_checkpoint");
    assert_eq!(d.primary, "periodic_stall");
    let stall = d.finding("periodic_stall").unwrap();
    // The slow step after each save belongs to its stall: the period survives it.
    assert_eq!(
        stall_cause(stall),
        (40.0, Some(checkup_model::PeriodicWork::Checkpoint))
    );
    // In the background at every 40 steps, each save would wait for the last write: the fix
    // names a period its writes keep up with, a multiple of the run's own.
    assert_eq!(
        stall.fixes,
        vec![Fix::PeriodicStall(PeriodicStallFix::AsyncCheckpoint {
            checkpoint_seen: true,
            every_steps: Some(280),
        })]
    );
    let between = evidence(
        &d,
        "periodic_stall",
        K::PeriodicStall(PeriodicStallEvidence::TrainingBetweenStalls),
    );
    assert!((650.0..750.0).contains(&between), "{between}");
    // What stays in the loop: the copy to host memory, the shortest stall less the bytes
    // at the disk's peak write rate.
    let copy = evidence(
        &d,
        "periodic_stall",
        K::PeriodicStall(PeriodicStallEvidence::StagingCopy),
    );
    assert!((1200.0..1350.0).contains(&copy), "{copy}");
    // The rest of a save, its write, leaves the loop only as far as the writer thread lets
    // the loop hold the interpreter: the gain is a range, from all of it to none of it.
    let write = evidence(
        &d,
        "periodic_stall",
        K::PeriodicStall(PeriodicStallEvidence::CheckpointWrite),
    );
    assert!((2500.0..2750.0).contains(&write), "{write}");
    let gain = stall.gains.fixes[0].unwrap();
    let (fastest, slowest) = gain.after_range_ms();
    // The range spans one write per 280 steps, scaled as the stalls' share of the mean step
    // scales their excess (83 % of 104 ms against 3.9 s every 40 steps).
    let per_step_write = write / 280.0;
    assert!(
        (0.8 * per_step_write..=per_step_write).contains(&(slowest - fastest)),
        "{fastest}–{slowest} against {per_step_write}"
    );
    // Every save wrote the same 1.885 GB: slower saves are the disk's, not a growing state.
    assert!(d.finding("slowdown/periodic_work").is_none());
}

#[test]
fn a_run_that_writes_checkpoints_in_a_thread_is_told_to_save_less_often_not_to_go_async() {
    let d = diagnose("probe_lstm_checkpoint_async");
    assert_eq!(d.primary, "periodic_stall");
    let stall = d.finding("periodic_stall").unwrap();
    assert_eq!(
        stall_cause(stall).1,
        Some(checkup_model::PeriodicWork::BackgroundCheckpoint)
    );
    let [Fix::PeriodicStall(PeriodicStallFix::CheckpointLessOften {
        every_steps,
        write_ms,
    })] = stall.fixes.as_slice()
    else {
        panic!("{:?}", stall.fixes);
    };
    assert_eq!(*every_steps, 200);
    assert!((2700.0..2850.0).contains(write_ms), "{write_ms}");
    let asks_async = d.findings.iter().flat_map(|f| &f.fixes).any(|f| {
        matches!(
            f,
            Fix::PeriodicStall(PeriodicStallFix::AsyncCheckpoint { .. })
        )
    });
    assert!(!asks_async);
    // Writes in the background cost the loop only its waits, which the stall prices.
    assert!(d.finding("slowdown/periodic_work").is_none());
}

#[test]
fn a_step_the_writer_thread_holds_is_part_of_its_saves_stall() {
    // A transformer saving 3.63 GB in a writer thread every 40 steps: each save stops the
    // loop to copy the state, and about 1.4 s into each write the writer holds the
    // interpreter, one step taking 1.0-1.5 s. Alone those steps break the stalls' period
    // and the run read as an idle GPU of unknown cause; inside the write their save began,
    // they are that save's stall.
    let d = diagnose("probe_transformer_checkpoint_async");
    assert_eq!(d.primary, "periodic_stall");
    assert!(d.finding("gpu_idle").is_none());
    let t = d.diagnosed_timing().unwrap();
    assert_eq!(t.stall_period_steps, Some(40.0));
    let held: Vec<(u64, u64)> = t.stalls.iter().map(|s| (s.step, s.steps)).collect();
    assert_eq!(
        held,
        [(40, 1), (80, 2), (120, 2), (160, 2), (200, 1)],
        "{held:?}"
    );
    let stall = d.finding("periodic_stall").unwrap();
    assert_eq!(
        stall_cause(stall).1,
        Some(checkup_model::PeriodicWork::BackgroundCheckpoint)
    );
    assert!(matches!(
        stall.fixes.as_slice(),
        [Fix::PeriodicStall(PeriodicStallFix::CheckpointLessOften {
            every_steps: 80,
            ..
        })]
    ));
}

#[test]
fn a_range_is_ranked_by_its_middle_not_its_fast_end() {
    // Saving less often promises 116 -> 68.5-112 ms (the writer may hold the loop for all
    // of each write; its twin ran 108 ms); compiling promises 85.1 ms. By the range's fast
    // end saving less often would lead; by its middle, 90 ms, compiling does.
    let d = diagnose("probe_transformer_checkpoint_async");
    let ids: Vec<String> = d
        .plan
        .iter()
        .map(|p| {
            serde_json::to_value(&d.findings[p.finding].fixes[p.fix]).unwrap()["fix"].to_string()
        })
        .map(|id| id.trim_matches('"').to_owned())
        .collect();
    assert_eq!(
        ids,
        ["compile_fuse_kernels", "checkpoint_less_often"],
        "{ids:?}"
    );
    let (fastest, slowest) = d.plan[1].gain.after_range_ms();
    assert!(fastest < d.plan[0].gain.expected.after_ms);
    assert!((fastest + slowest) / 2.0 > d.plan[0].gain.expected.after_ms);
}

#[test]
fn fp32_matmuls_are_offered_tf32_at_the_gpus_datasheet_rate_and_a_tf32_run_is_not() {
    let d = diagnose("probe_fp32_mlp_mixer");
    let compute = d.finding("compute_bound").unwrap();
    let Fix::ComputeBound(ComputeBoundFix::AllowTf32 {
        fp32_matmul_share,
        tf32_speedup,
    }) = &compute.fixes[0]
    else {
        panic!("{:?}", compute.fixes);
    };
    assert!(
        (0.75..0.85).contains(fp32_matmul_share),
        "{fp32_matmul_share}"
    );
    // The H100's datasheet: 494.7 TFLOPS of TF32 over 67 of fp32.
    assert!(tf32_speedup.is_some_and(|x| (x - 7.38).abs() < 0.01));
    // Its one patch-embedding convolution costs nothing: no layout change for it.
    assert!(!compute
        .fixes
        .contains(&Fix::ComputeBound(ComputeBoundFix::ChannelsLast)));
    let twin = diagnose("probe_fp32_mlp_mixer_tf32");
    assert!(!twin
        .findings
        .iter()
        .flat_map(|f| &f.fixes)
        .any(|f| matches!(f, Fix::ComputeBound(ComputeBoundFix::AllowTf32 { .. }))));
}

/// The setting and verdict of each speed setting the diagnosis costed.
fn setting_verdicts(d: &Diagnosis) -> Vec<(SpeedSetting, SettingVerdict)> {
    d.settings
        .iter()
        .map(|c| (c.setting, c.verdict.clone()))
        .collect()
}

#[test]
fn deterministic_algorithms_fills_are_costed_and_their_fix_keeps_determinism() {
    let d = diagnose("probe_convnet_deterministic");
    let compute = d.finding("compute_bound").unwrap();
    // First: the line that keeps what the run asked for. 63 fill kernels a step (the
    // default twin launches 6), 0.51 ms of an 11.9 ms step.
    let Fix::ComputeBound(ComputeBoundFix::SkipUninitializedFill {
        fill_share,
        fills_per_step,
    }) = &compute.fixes[0]
    else {
        panic!("{:?}", compute.fixes);
    };
    assert_eq!(*fills_per_step, 63.0);
    assert!((0.040..0.045).contains(fill_share), "{fill_share}");
    assert!(
        (evidence(
            &d,
            "compute_bound",
            K::ComputeBound(ComputeBoundEvidence::FillTimePerStep)
        ) - 0.51)
            .abs()
            < 0.01
    );
    let gain = compute.gains.fixes[0].unwrap();
    assert_eq!(
        gain.reach,
        checkup_model::FixReach::LessGpuWork(*fill_share)
    );
    assert!((gain.expected.after_ms - 11.41).abs() < 0.02, "{gain:?}");
    assert_eq!((d.plan[0].finding, d.plan[0].fix), (0, 0));
    let verdicts: Vec<_> = setting_verdicts(&d)
        .into_iter()
        .map(|(s, v)| (s, round_verdict(v)))
        .collect();
    assert_eq!(
        verdicts,
        vec![
            (
                SpeedSetting::DeterministicAlgorithms,
                SettingVerdict::InFinding { finding: 0 }
            ),
            (
                SpeedSetting::CudnnBenchmarkOff,
                SettingVerdict::NotCosted {
                    because: NotCosted::OtherAlgorithmsNotRun
                }
            ),
            (
                SpeedSetting::Tf32MatmulOff,
                SettingVerdict::Small {
                    ms_per_step: 0.153,
                    share: 0.0128
                }
            ),
        ]
    );
    // The fix applied: the probe reads the fill off, and nothing is offered for it.
    let twin = diagnose("probe_convnet_deterministic_no_fill");
    let settings = &twin.training.as_ref().unwrap().settings;
    assert_eq!(settings.fill_uninitialized_memory, Some(false));
    assert!(!twin
        .findings
        .iter()
        .flat_map(|f| &f.fixes)
        .any(|f| matches!(
            f,
            Fix::ComputeBound(ComputeBoundFix::SkipUninitializedFill { .. })
        )));
    assert_eq!(
        setting_verdicts(&twin)[0],
        (
            SpeedSetting::DeterministicAlgorithms,
            SettingVerdict::NotCosted {
                because: NotCosted::OtherAlgorithmsNotRun
            }
        )
    );
}

#[test]
fn fills_under_a_fiftieth_of_the_step_show_their_time_and_leave_the_fixes_as_they_were() {
    // The fp32 MLP-Mixer on the H200: 391 fills a step, 1.5 ms of 142.7 ms. TF32 stays the
    // first fix; the twin without the fill ran 1.8 % faster.
    let d = diagnose("probe_mixer_deterministic");
    assert!(matches!(
        d.finding("compute_bound").unwrap().fixes[0],
        Fix::ComputeBound(ComputeBoundFix::AllowTf32 { .. })
    ));
    assert!(!d.findings.iter().flat_map(|f| &f.fixes).any(|f| matches!(
        f,
        Fix::ComputeBound(ComputeBoundFix::SkipUninitializedFill { .. })
    )));
    let Some(SettingVerdict::Small { ms_per_step, share }) = d
        .settings
        .iter()
        .find(|c| c.setting == SpeedSetting::DeterministicAlgorithms)
        .map(|c| &c.verdict)
    else {
        panic!("{:?}", d.settings);
    };
    assert!((ms_per_step - 1.52).abs() < 0.01, "{ms_per_step}");
    assert!((0.010..0.012).contains(share), "{share}");
}

#[test]
fn a_transformers_fills_are_a_range_down_from_its_profiled_host_work() {
    // Another model, the bf16 encoder: 733 fill kernels a step, 8.5 ms of 71.1. The GPU
    // work goes (62.7 ms); the host's work per step measured under the profiler, 67.5 ms,
    // is the slow end. The twin ran 62.2 ms.
    let d = diagnose("probe_transformer_deterministic");
    let compute = d.finding("compute_bound").unwrap();
    let Fix::ComputeBound(ComputeBoundFix::SkipUninitializedFill { fills_per_step, .. }) =
        &compute.fixes[0]
    else {
        panic!("{:?}", compute.fixes);
    };
    assert_eq!(*fills_per_step, 733.0);
    let (fastest, slowest) = compute.gains.fixes[0].unwrap().after_range_ms();
    assert!((fastest - 62.7).abs() < 0.1, "{fastest}");
    assert!((slowest - 67.5).abs() < 0.1, "{slowest}");
}

/// A verdict's figures to three places, as a reader compares them.
fn round_verdict(v: SettingVerdict) -> SettingVerdict {
    match v {
        SettingVerdict::Small { ms_per_step, share } => SettingVerdict::Small {
            ms_per_step: (ms_per_step * 1e3).round() / 1e3,
            share: (share * 1e4).round() / 1e4,
        },
        v => v,
    }
}

#[test]
fn settings_that_cannot_matter_to_a_run_are_shown_harmless() {
    // An LSTM in bf16: no convolution for a benchmark, no fp32 matrix multiply for TF32.
    assert_eq!(
        setting_verdicts(&diagnose("probe_lstm_checkpoint")),
        vec![
            (
                SpeedSetting::CudnnBenchmarkOff,
                SettingVerdict::Harmless {
                    because: Harmless::NoConvolutions
                }
            ),
            (
                SpeedSetting::Tf32MatmulOff,
                SettingVerdict::Harmless {
                    because: Harmless::NoFp32Matmuls
                }
            ),
        ]
    );
    // Benchmark mode on is not a slow setting; TF32 off still is, and the fp32 mixer's
    // matrix multiplies make it a finding's fix.
    assert!(
        !setting_verdicts(&diagnose("probe_convnet_cudnn_benchmark"))
            .iter()
            .any(|(s, _)| *s == SpeedSetting::CudnnBenchmarkOff)
    );
    let mixer = diagnose("probe_fp32_mlp_mixer");
    let tf32 = setting_verdicts(&mixer)
        .into_iter()
        .find(|(s, _)| *s == SpeedSetting::Tf32MatmulOff)
        .unwrap();
    let SettingVerdict::InFinding { finding } = tf32.1 else {
        panic!("{tf32:?}");
    };
    assert_eq!(mixer.findings[finding].id(), "compute_bound");
    // Settings a finding costs point at it.
    let blocking = diagnose("probe_convnet1d_launch_blocking");
    let SettingVerdict::InFinding { finding } = &blocking.settings[0].verdict else {
        panic!("{:?}", blocking.settings);
    };
    assert_eq!(blocking.settings[0].setting, SpeedSetting::LaunchBlocking);
    assert_eq!(
        blocking.findings[*finding].id(),
        "kernel_launch/synchronous_launches"
    );
}

#[test]
fn a_run_that_froze_its_objects_is_told_to_stop_collecting_not_to_freeze_again() {
    let problem = diagnose("probe_gc_collect_every_n");
    assert_eq!(problem.primary, "periodic_stall");
    assert_eq!(
        problem.finding("periodic_stall").unwrap().fixes,
        vec![Fix::PeriodicStall(PeriodicStallFix::FreezeGc {
            again_later: false
        })]
    );
    let frozen = diagnose("probe_gc_frozen");
    assert_eq!(
        frozen.finding("periodic_stall").unwrap().fixes,
        vec![Fix::PeriodicStall(PeriodicStallFix::NoCollectInLoop {
            site: None,
            frozen: true
        })]
    );
}

#[test]
fn a_loop_that_calls_gc_collect_is_told_to_stop_at_its_line_not_to_freeze() {
    // The probe counted 22 `gc.collect()` calls at one line, each a full collection of
    // 640-700 ms: not calling removes them whole (the twin without the calls ran 3.9 ms,
    // as promised), where freezing left each call 40-50 ms (4.8 ms steps).
    let problem = diagnose("probe_gc_collect_counted");
    assert_eq!(problem.primary, "periodic_stall");
    let f = problem.finding("periodic_stall").unwrap();
    let [Fix::PeriodicStall(PeriodicStallFix::NoCollectInLoop {
        site: Some(site),
        frozen: false,
    })] = f.fixes.as_slice()
    else {
        panic!("{:?}", f.fixes)
    };
    assert_eq!(
        (site.location().as_str(), site.count),
        ("gc_collect_every_n.py:44", 22)
    );
    // The 375 objects some library froze are not the run's freeze.
    assert_eq!(
        problem
            .training
            .as_ref()
            .unwrap()
            .settings
            .gc_frozen_objects,
        Some(375)
    );
    assert!(checkup_text::findings::verdict(&problem, Language::En)
        .ends_with("First fix to try: stop calling gc.collect() at gc_collect_every_n.py:44."));
    // Frozen as the old fix said, the calls kept: told to stop them, with what each walks.
    let frozen = diagnose("probe_gc_frozen_counted");
    let f = frozen.finding("periodic_stall").unwrap();
    assert!(matches!(
        f.fixes.as_slice(),
        [Fix::PeriodicStall(PeriodicStallFix::NoCollectInLoop {
            site: Some(_),
            frozen: true,
        })]
    ));
}

#[test]
fn a_per_step_synchronize_in_a_launch_bound_loop_gets_no_fix_of_its_own() {
    // The loop times each step with torch.cuda.synchronize(); its twin without it ran no
    // faster (19.1 against 20.0 ms): the host's launches are the limit.
    let d = diagnose("probe_timed_steps_sync");
    assert_eq!(d.primary, "kernel_launch");
    assert!(d.finding("host_sync").is_none());
    assert_eq!(
        d.findings[0].fixes[0],
        Fix::KernelLaunch(KernelLaunchFix::CompileFuseKernels)
    );
}
