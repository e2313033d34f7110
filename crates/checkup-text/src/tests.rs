//! Every kind, key, unit, source, fix, check, note and figure has words in both languages,
//! and the Chinese is not the English left as it is (names such as `num_workers` aside).

use checkup_model::*;
use checkup_model::{
    Communication, ComputeBound, DataLoading, Environment, GpuIdle, H2dCopy, HostSync,
    KernelLaunch, Memory, MemoryBandwidth, PeriodicStall, Slowdown, Throttling,
};
use checkup_model::{
    CommunicationEvidence, CommunicationFix, ComputeBoundEvidence, ComputeBoundFix,
    DataLoadingEvidence, DataLoadingFix, EnvironmentEvidence, EnvironmentFix, GpuIdleEvidence,
    H2dCopyEvidence, H2dCopyFix, HostSyncEvidence, HostSyncFix, KernelLaunchEvidence,
    KernelLaunchFix, MemoryBandwidthEvidence, MemoryBandwidthFix, MemoryEvidence, MemoryFix,
    PeriodicStallEvidence, PeriodicStallFix, SharedEvidence, SharedFix, SlowdownEvidence,
    SlowdownFix, ThrottlingEvidence, ThrottlingFix,
};

use crate::{checks, comparison, evidence, findings, fixes, fleet, notes, Language::*};

fn all_causes() -> Vec<Cause> {
    let check = EnvCheck::new(
        CheckId::PowerLimit,
        CheckStatus::Warn,
        CheckValue::PowerLimit {
            limit_w: 600.0,
            default_w: 700.0,
        },
    )
    .on_gpu(0);
    vec![
        Cause::ComputeBound(ComputeBound::GpuComputes {
            compute_share: 0.9,
            gpu_is_limit: true,
            tensor_cores_idle: true,
        }),
        Cause::MemoryBandwidth(MemoryBandwidth::MemoryTraffic {
            busy_share: 0.95,
            dram_pct: Some(80.0),
            tensor_pct: Some(2.0),
        }),
        Cause::DataLoading(DataLoading::SlowLoader {
            hot_lines: Vec::new(),
            data_wait_ms: Some(40.0),
            step_ms: Some(50.0),
            idle_per_epoch_start_ms: None,
            epoch_start_idle_ms_per_step: None,
        }),
        Cause::DataLoading(DataLoading::SlowLoader {
            hot_lines: Vec::new(),
            data_wait_ms: Some(8.0),
            step_ms: Some(22.0),
            idle_per_epoch_start_ms: Some(230.0),
            epoch_start_idle_ms_per_step: None,
        }),
        Cause::DataLoading(DataLoading::CpuSaturated {
            hot_lines: Vec::new(),
            host_cpu_pct: 99.0,
            training_cores: 15.5,
            launch_wait_share: Some(0.3),
        }),
        Cause::DataLoading(DataLoading::CpuSaturated {
            hot_lines: Vec::new(),
            host_cpu_pct: 99.0,
            training_cores: 15.5,
            launch_wait_share: None,
        }),
        Cause::DataLoading(DataLoading::CpuContention {
            host_cpu_pct: 99.0,
            training_cores: 0.7,
        }),
        Cause::KernelLaunch(KernelLaunch::TinyKernels {
            hot_lines: Vec::new(),
            kernels_per_step: 1000.0,
            median_kernel_us: 3.2,
            compile_floor: None,
            launchless: None,
        }),
        Cause::KernelLaunch(KernelLaunch::TinyKernels {
            hot_lines: Vec::new(),
            kernels_per_step: 42.0,
            median_kernel_us: 8.5,
            compile_floor: None,
            launchless: Some(checkup_model::LaunchlessHostWork {
                ms_per_step: 1.4,
                share: 0.25,
            }),
        }),
        Cause::KernelLaunch(KernelLaunch::SynchronousLaunches {
            step_ms: 47.1,
            gpu_busy_ms: 27.5,
            host_ms: 19.6,
        }),
        Cause::KernelLaunch(KernelLaunch::AnomalyDetection {
            step_ms: 30.0,
            gpu_busy_ms: 6.0,
            host_ms: 24.0,
            check_nan: true,
        }),
        Cause::KernelLaunch(KernelLaunch::InterpreterHeld {
            hot_lines: Vec::new(),
            host_ms_per_kernel: 49.0,
            process_cpu_pct: 101.0,
        }),
        Cause::KernelLaunch(KernelLaunch::CpuContention {
            host_cpu_pct: 99.0,
            training_cores: 0.7,
        }),
        Cause::Communication(Communication::Exposed {
            exposed_share: 0.4,
            scaling: Some(ScalingFigures {
                gpus: 2,
                speedup: 1.1,
                efficiency: 0.55,
            }),
        }),
        Cause::Communication(Communication::Straggler {
            waiting_rank: 1,
            slow_rank: 0,
            extra_share: 0.12,
        }),
        Cause::Communication(Communication::ShiftingStraggler {
            slowest_ranks: vec![2, 0, 3, 1],
            steps: 7,
            wait_share: 0.31,
        }),
        Cause::Communication(Communication::P2pDisabled),
        Cause::HostSync(HostSync::Readbacks),
        Cause::HostSync(HostSync::Allocator {
            calls_per_step: 57.0,
        }),
        Cause::H2dCopy(H2dCopy::Exposed),
        Cause::H2dCopy(H2dCopy::Pageable),
        Cause::PeriodicStall(PeriodicStall::Stalls {
            period_steps: 25.0,
            excess_ms: 400.0,
            work: None,
            gpu_busy: None,
        }),
        Cause::PeriodicStall(PeriodicStall::Stalls {
            period_steps: 30.0,
            excess_ms: 900.0,
            work: Some(PeriodicWork::EpochStart {
                workers: 2,
                batches_per_epoch: Some(30),
            }),
            gpu_busy: None,
        }),
        Cause::PeriodicStall(PeriodicStall::Stalls {
            period_steps: 40.0,
            excess_ms: 4000.0,
            work: Some(PeriodicWork::Checkpoint),
            gpu_busy: None,
        }),
        Cause::PeriodicStall(PeriodicStall::Stalls {
            period_steps: 40.0,
            excess_ms: 3388.0,
            work: Some(PeriodicWork::BackgroundCheckpoint),
            gpu_busy: None,
        }),
        Cause::PeriodicStall(PeriodicStall::Stalls {
            period_steps: 40.0,
            excess_ms: 350.0,
            work: Some(PeriodicWork::Eval),
            gpu_busy: None,
        }),
        Cause::PeriodicStall(PeriodicStall::Stalls {
            period_steps: 100.0,
            excess_ms: 200.0,
            work: Some(PeriodicWork::GarbageCollection),
            gpu_busy: None,
        }),
        Cause::PeriodicStall(PeriodicStall::Stalls {
            period_steps: 12.0,
            excess_ms: 1175.0,
            work: Some(PeriodicWork::HostReadback {
                readbacks_per_stall: 161.0,
            }),
            gpu_busy: None,
        }),
        Cause::Throttling(Throttling::Power {
            clock_ratio: 0.7,
            reasons: vec!["sw_power_cap".into()],
        }),
        Cause::Throttling(Throttling::Thermal {
            clock_ratio: 0.7,
            reasons: vec!["hw_thermal_slowdown".into()],
        }),
        Cause::GpuIdle(GpuIdle::Unexplained {
            busy_share: 0.1,
            recorded: Recorded::SamplesOnly,
            suspect: None,
        }),
        Cause::Slowdown(Slowdown::StepsGrow {
            first_ms: 6.1,
            first_steps_ms: None,
            last_ms: 23.2,
            began_at_s: 4.0,
            began_at_step: 240,
            grew: SlowdownPart::HostWork,
            grew_ms: Some([4.1, 20.9]),
            host_rss_mib: Some([427.0, 1209.0]),
            measure: StepMeasure::Median,
            hot_lines: Vec::new(),
        }),
        Cause::Slowdown(Slowdown::StepsGrow {
            first_ms: 6.1,
            first_steps_ms: Some(2.4),
            last_ms: 23.2,
            began_at_s: 4.0,
            began_at_step: 240,
            grew: SlowdownPart::DataWait,
            grew_ms: Some([1.0, 17.5]),
            host_rss_mib: None,
            measure: StepMeasure::Mean,
            hot_lines: Vec::new(),
        }),
        Cause::Slowdown(Slowdown::StepsGrow {
            first_ms: 6.1,
            first_steps_ms: None,
            last_ms: 23.2,
            began_at_s: 4.0,
            began_at_step: 240,
            grew: SlowdownPart::Other,
            grew_ms: None,
            host_rss_mib: None,
            measure: StepMeasure::Median,
            hot_lines: Vec::new(),
        }),
        Cause::Slowdown(Slowdown::StepsGrow {
            first_ms: 10.0,
            first_steps_ms: None,
            last_ms: 18.0,
            began_at_s: 40.0,
            began_at_step: 400,
            grew: SlowdownPart::GpuWork,
            grew_ms: Some([5.0, 16.2]),
            host_rss_mib: None,
            measure: StepMeasure::Median,
            hot_lines: Vec::new(),
        }),
        Cause::Slowdown(Slowdown::PeriodicGrows {
            work: MarkerKind::Eval,
            first_ms: 390.0,
            last_ms: 1300.0,
            count: 9,
            began_at_step: 200,
        }),
        Cause::Slowdown(Slowdown::PeriodicGrows {
            work: MarkerKind::Checkpoint,
            first_ms: 3600.0,
            last_ms: 7200.0,
            count: 12,
            began_at_step: 3000,
        }),
        Cause::Slowdown(Slowdown::PeriodicGrows {
            work: MarkerKind::Gc,
            first_ms: 40.0,
            last_ms: 180.0,
            count: 30,
            began_at_step: 900,
        }),
        Cause::Slowdown(Slowdown::PeriodicGrows {
            work: MarkerKind::EpochStart,
            first_ms: 200.0,
            last_ms: 900.0,
            count: 8,
            began_at_step: 1200,
        }),
        Cause::Memory(Memory::Creep {
            from_gib: 0.5,
            to_gib: 44.2,
            gib_per_min: 800.0,
            capacity_gib: 140.0,
            full_in_min: Some(0.1),
        }),
        Cause::Memory(Memory::NearLimit {
            peak_gib: 127.0,
            capacity_gib: 140.4,
            others_gib: 1.5,
        }),
        Cause::Memory(Memory::Fragmented {
            reserved_gib: 32.4,
            peak_allocated_gib: 24.0,
            retries: 3,
        }),
        Cause::Memory(Memory::HostCreep {
            from_mib: 1210.0,
            to_mib: 14530.0,
            mib_per_min: 9300.0,
        }),
        Cause::GpuIdle(GpuIdle::Unexplained {
            busy_share: 0.1,
            recorded: Recorded::StepsNoTrace,
            suspect: None,
        }),
        Cause::GpuIdle(GpuIdle::Unexplained {
            busy_share: 0.1,
            recorded: Recorded::TraceNoSteps,
            suspect: None,
        }),
        Cause::GpuIdle(GpuIdle::Unexplained {
            busy_share: 0.1,
            recorded: Recorded::StepsAndTrace,
            suspect: None,
        }),
        Cause::GpuIdle(GpuIdle::Unexplained {
            busy_share: 0.06,
            recorded: Recorded::SamplesOnly,
            suspect: Some(IdleSuspect::InputPipeline {
                workers_cpu_pct: 195.0,
                busy_workers: 2.0,
            }),
        }),
        Cause::GpuIdle(GpuIdle::Unexplained {
            busy_share: 0.12,
            recorded: Recorded::SamplesOnly,
            suspect: Some(IdleSuspect::PythonLoop { main_cpu_pct: 99.0 }),
        }),
        Cause::Environment(Environment::Check { check }),
        Cause::Compilation(Compilation::Recompiles {
            function: "forward".into(),
            location: Some("classifier.py:21".into()),
            recompilations: 8,
            compile_ms: 41200.0,
            guard: GuardFailure::Size { dim: 1 },
            reason: Some(
                "tensor 'tokens' size mismatch at index 1. expected 96, actual 136".into(),
            ),
            asked_static: true,
            limit_step: Some(12),
            limit: Some(8),
            compiled_step_ms: Some(21.5),
            uncompiled_step_ms: Some(34.0),
            step_ms: Some(30.0),
            dynamic_compile_ms_per_step: None,
        }),
        Cause::Compilation(Compilation::Recompiles {
            function: "forward".into(),
            location: None,
            recompilations: 5,
            compile_ms: 9000.0,
            guard: GuardFailure::Value,
            reason: None,
            asked_static: false,
            limit_step: None,
            limit: None,
            compiled_step_ms: None,
            uncompiled_step_ms: None,
            step_ms: Some(20.0),
            dynamic_compile_ms_per_step: Some(2.0),
        }),
    ]
}

fn all_evidence_keys() -> Vec<EvidenceKey> {
    use EvidenceKey as K;
    vec![
        K::DataLoading(DataLoadingEvidence::DataLoaderIdleShare),
        K::DataLoading(DataLoadingEvidence::UnprofiledDataIdleShare),
        K::DataLoading(DataLoadingEvidence::IdlePerEpochStart),
        K::DataLoading(DataLoadingEvidence::StarvedLaunchIdleShare),
        K::DataLoading(DataLoadingEvidence::MeanDataWait),
        K::DataLoading(DataLoadingEvidence::MedianDataWait),
        K::DataLoading(DataLoadingEvidence::DataWaitShare),
        K::DataLoading(DataLoadingEvidence::MeanGpuUtil),
        K::DataLoading(DataLoadingEvidence::NumWorkers),
        K::Shared(SharedEvidence::HostCpu),
        K::Shared(SharedEvidence::TrainingTreeCpu),
        K::Shared(SharedEvidence::TrainingProcessCpu),
        K::H2dCopy(H2dCopyEvidence::ExposedH2dShare),
        K::H2dCopy(H2dCopyEvidence::PageableH2dPerStep),
        K::H2dCopy(H2dCopyEvidence::PinnedH2dPerStep),
        K::H2dCopy(H2dCopyEvidence::PageableBandwidth),
        K::H2dCopy(H2dCopyEvidence::PageableBytesPerStep),
        K::H2dCopy(H2dCopyEvidence::PageableCopyHostPerStep),
        K::H2dCopy(H2dCopyEvidence::HostWorkBesideCopies),
        K::HostSync(HostSyncEvidence::SyncIdleShare),
        K::HostSync(HostSyncEvidence::SyncCallsPerStep),
        K::HostSync(HostSyncEvidence::ProbeSyncsPerStep),
        K::HostSync(HostSyncEvidence::TopSyncSiteShare),
        K::PeriodicStall(PeriodicStallEvidence::StallsWithMarker),
        K::PeriodicStall(PeriodicStallEvidence::ProfiledStalls),
        K::PeriodicStall(PeriodicStallEvidence::ReadbacksPerStall),
        K::GpuIdle(GpuIdleEvidence::GpuIdleSeconds),
        K::GpuIdle(GpuIdleEvidence::BusyWorkersWhileIdle),
        K::GpuIdle(GpuIdleEvidence::MainCpuWhileIdle),
        K::GpuIdle(GpuIdleEvidence::WorkersCpuWhileIdle),
        K::HostSync(HostSyncEvidence::ItemCallsPerStep),
        K::HostSync(HostSyncEvidence::AllocIdleShare),
        K::HostSync(HostSyncEvidence::AllocCallsPerStep),
        K::HostSync(HostSyncEvidence::AllocHostTimePerStep),
        K::HostSync(HostSyncEvidence::EmptyCacheCallsPerStep),
        K::HostSync(HostSyncEvidence::HostLaunchTime),
        K::HostSync(HostSyncEvidence::GpuBusyPerStep),
        K::HostSync(HostSyncEvidence::UnprofiledHostWork),
        K::HostSync(HostSyncEvidence::HostWorkBesideAllocator),
        K::KernelLaunch(KernelLaunchEvidence::LaunchIdleShare),
        K::KernelLaunch(KernelLaunchEvidence::KernelsPerStep),
        K::KernelLaunch(KernelLaunchEvidence::MedianKernel),
        K::KernelLaunch(KernelLaunchEvidence::TinyKernelShare),
        K::Shared(SharedEvidence::UnprofiledBusyShare),
        K::KernelLaunch(KernelLaunchEvidence::UnprofiledStepTime),
        K::KernelLaunch(KernelLaunchEvidence::ProfiledStepTime),
        K::KernelLaunch(KernelLaunchEvidence::GpuUtil),
        K::KernelLaunch(KernelLaunchEvidence::LaunchBlockingSet),
        K::KernelLaunch(KernelLaunchEvidence::HostTurnPerStep),
        K::KernelLaunch(KernelLaunchEvidence::HostTimePerKernel),
        K::KernelLaunch(KernelLaunchEvidence::LaunchlessHostPerStep),
        K::KernelLaunch(KernelLaunchEvidence::AnomalyDetectionOn),
        K::Shared(SharedEvidence::SmActive),
        K::Communication(CommunicationEvidence::ExposedCommShare),
        K::Communication(CommunicationEvidence::CommOverlap),
        K::Communication(CommunicationEvidence::NcclPerStep),
        K::Communication(CommunicationEvidence::HostCollectivePerStep),
        K::Communication(CommunicationEvidence::ComputeRank { rank: 3 }),
        K::Communication(CommunicationEvidence::GpuThrottledSamples { gpu: 3 }),
        K::Communication(CommunicationEvidence::GpuPowerLimit { gpu: 3 }),
        K::Communication(CommunicationEvidence::StepWaitShare),
        K::Communication(CommunicationEvidence::SlowestRankSteps { rank: 2 }),
        K::Communication(CommunicationEvidence::ExposedCommRank { rank: 1 }),
        K::Communication(CommunicationEvidence::ScalingEfficiency { gpus: 2 }),
        K::Communication(CommunicationEvidence::Speedup),
        K::Communication(CommunicationEvidence::NvlinkTx),
        K::Communication(CommunicationEvidence::P2pDisabledWithNvlink),
        K::Communication(CommunicationEvidence::StragglerExtraComm),
        K::PeriodicStall(PeriodicStallEvidence::StallPeriod),
        K::PeriodicStall(PeriodicStallEvidence::StallExcess),
        K::PeriodicStall(PeriodicStallEvidence::StallCount),
        K::PeriodicStall(PeriodicStallEvidence::StallLostShare),
        K::PeriodicStall(PeriodicStallEvidence::UtilDipPeriod),
        K::PeriodicStall(PeriodicStallEvidence::StallsSeenIdle),
        K::PeriodicStall(PeriodicStallEvidence::TrainingBetweenStalls),
        K::PeriodicStall(PeriodicStallEvidence::StagingCopy),
        K::PeriodicStall(PeriodicStallEvidence::CheckpointWrite),
        K::PeriodicStall(PeriodicStallEvidence::PeakDiskWrite),
        K::Throttling(ThrottlingEvidence::ThrottledSamples),
        K::Throttling(ThrottlingEvidence::SmClockRatio),
        K::Throttling(ThrottlingEvidence::PowerShareOfLimit),
        K::Throttling(ThrottlingEvidence::PeakTemp),
        K::GpuIdle(GpuIdleEvidence::GpuBusyShare),
        K::GpuIdle(GpuIdleEvidence::UnexplainedIdle),
        K::ComputeBound(ComputeBoundEvidence::StepBusyShare),
        K::ComputeBound(ComputeBoundEvidence::ComputeShare),
        K::MemoryBandwidth(MemoryBandwidthEvidence::DramBandwidth),
        K::ComputeBound(ComputeBoundEvidence::TensorActive),
        K::ComputeBound(ComputeBoundEvidence::GemmShare),
        K::ComputeBound(ComputeBoundEvidence::FillTimePerStep),
        K::MemoryBandwidth(MemoryBandwidthEvidence::ElementwiseShare),
        K::Slowdown(SlowdownEvidence::FirstStepMedian),
        K::Slowdown(SlowdownEvidence::LastStepMedian),
        K::Slowdown(SlowdownEvidence::FirstStepMean),
        K::Slowdown(SlowdownEvidence::LastStepMean),
        K::Slowdown(SlowdownEvidence::FirstStepsMedian),
        K::Slowdown(SlowdownEvidence::StepTimeGrowth),
        K::Slowdown(SlowdownEvidence::DataWaitGrowth),
        K::Slowdown(SlowdownEvidence::HostWorkGrowth),
        K::Slowdown(SlowdownEvidence::GpuWorkGrowth),
        K::Slowdown(SlowdownEvidence::FirstPeriodicMedian),
        K::Slowdown(SlowdownEvidence::LastPeriodicMedian),
        K::Slowdown(SlowdownEvidence::PeriodicGrowth),
        K::Shared(SharedEvidence::HostRssGrowth),
        K::Memory(MemoryEvidence::AllocatedGrowth),
        K::Memory(MemoryEvidence::AllocatedGrowthRate),
        K::Memory(MemoryEvidence::HostRssGrowthRate),
        K::Memory(MemoryEvidence::PeakMemoryShareOfCapacity),
        K::Memory(MemoryEvidence::OtherProcessesMemory),
        K::Memory(MemoryEvidence::ReservedUnusedShare),
        K::Memory(MemoryEvidence::AllocRetries),
        K::Environment(EnvironmentEvidence::EnvStatus {
            check: CheckId::Mig,
        }),
        K::Compilation(CompilationEvidence::Recompilations),
        K::Compilation(CompilationEvidence::CompileTime),
        K::Compilation(CompilationEvidence::CompileShare),
        K::Compilation(CompilationEvidence::LimitStep),
        K::Compilation(CompilationEvidence::CompiledStep),
        K::Compilation(CompilationEvidence::UncompiledStep),
    ]
}

fn all_fixes() -> Vec<Fix> {
    vec![
        Fix::DataLoading(DataLoadingFix::CheaperSamples),
        Fix::DataLoading(DataLoadingFix::CheaperSamplesAtWorkerLimit { workers: 14 }),
        Fix::DataLoading(DataLoadingFix::LeaveCoresToLoop {
            workers: 16,
            cores: 16,
            suggested: 14,
            ranks: 1,
        }),
        Fix::DataLoading(DataLoadingFix::LeaveCoresToLoop {
            workers: 3,
            cores: 16,
            suggested: 2,
            ranks: 4,
        }),
        Fix::DataLoading(DataLoadingFix::MoreWorkers {
            suggested: 14,
            current: Some(2),
            host_cpus: Some(16),
        }),
        Fix::DataLoading(DataLoadingFix::MoreWorkers {
            suggested: 8,
            current: None,
            host_cpus: None,
        }),
        Fix::DataLoading(DataLoadingFix::PinMemory),
        Fix::DataLoading(DataLoadingFix::PersistentWorkers),
        Fix::DataLoading(DataLoadingFix::LoaderAcrossEpochs { workers: Some(14) }),
        Fix::DataLoading(DataLoadingFix::LoaderAcrossEpochs { workers: None }),
        Fix::PeriodicStall(PeriodicStallFix::FreezeGc { again_later: false }),
        Fix::PeriodicStall(PeriodicStallFix::FreezeGc { again_later: true }),
        Fix::H2dCopy(H2dCopyFix::PinnedCopy),
        Fix::H2dCopy(H2dCopyFix::OverlapCopy),
        Fix::H2dCopy(H2dCopyFix::FewerCopyBytes),
        Fix::Shared(SharedFix::FindCpuHogs),
        Fix::Shared(SharedFix::ReserveCores),
        Fix::KernelLaunch(KernelLaunchFix::CompileFuseKernels),
        Fix::KernelLaunch(KernelLaunchFix::ReduceOverhead { current_mode: None }),
        Fix::KernelLaunch(KernelLaunchFix::ReduceOverhead {
            current_mode: Some("max-autotune".into()),
        }),
        Fix::KernelLaunch(KernelLaunchFix::ForeachOptimizer { class: None }),
        Fix::KernelLaunch(KernelLaunchFix::ForeachOptimizer {
            class: Some("RMSprop".into()),
        }),
        Fix::KernelLaunch(KernelLaunchFix::BiggerKernels),
        Fix::KernelLaunch(KernelLaunchFix::UnsetLaunchBlocking),
        Fix::KernelLaunch(KernelLaunchFix::FreeInterpreter),
        Fix::KernelLaunch(KernelLaunchFix::HostWorkOffStep),
        Fix::KernelLaunch(KernelLaunchFix::DisableAnomalyDetection),
        Fix::HostSync(HostSyncFix::KeepAllocatorCache {
            site: None,
            calls_per_step: None,
            caching_off: false,
        }),
        Fix::HostSync(HostSyncFix::KeepAllocatorCache {
            site: None,
            calls_per_step: None,
            caching_off: true,
        }),
        Fix::HostSync(HostSyncFix::KeepAllocatorCache {
            site: Some(SyncSite {
                file: "/work/train.py".into(),
                line: 31,
                function: "main".into(),
                code: "torch.cuda.empty_cache()".into(),
                count: 190,
                kinds: Default::default(),
            }),
            calls_per_step: Some(1.0),
            caching_off: false,
        }),
        Fix::HostSync(HostSyncFix::FewerReadbacks {
            site: None,
            site_per_step: None,
        }),
        Fix::HostSync(HostSyncFix::FewerReadbacks {
            site: Some(SyncSite {
                file: "/work/train.py".into(),
                line: 20,
                function: "main".into(),
                code: "norms = {n: p.grad.norm().item() for n, p in model.named_parameters()}"
                    .into(),
                count: 1536,
                kinds: Default::default(),
            }),
            site_per_step: Some(192.0),
        }),
        Fix::HostSync(HostSyncFix::AsyncCopyAtLine {
            site: SyncSite {
                file: "/home/a/train.py".into(),
                line: 41,
                function: "train".into(),
                code: "x = x.cuda()".into(),
                count: 600,
                kinds: Default::default(),
            },
            site_per_step: 1.0,
        }),
        Fix::HostSync(HostSyncFix::SortOnGpuAtLine {
            site: SyncSite {
                file: "/home/a/train.py".into(),
                line: 38,
                function: "main".into(),
                code: "hardest = np.argsort(-per_sample.detach().float().cpu().numpy())[:keep]"
                    .into(),
                count: 1200,
                kinds: Default::default(),
            },
            site_per_step: 1.0,
        }),
        Fix::HostSync(HostSyncFix::GpuMetrics),
        Fix::PeriodicStall(PeriodicStallFix::SummariseOnGpu { readbacks: 161.0 }),
        Fix::HostSync(HostSyncFix::FindHiddenSyncs),
        Fix::Communication(CommunicationFix::EnableP2p),
        Fix::Communication(CommunicationFix::AccumulateGradients),
        Fix::Communication(CommunicationFix::MoreWorkPerAllReduce),
        Fix::Communication(CommunicationFix::CompressGradients),
        Fix::Communication(CommunicationFix::NcclForGpuTensors),
        Fix::Communication(CommunicationFix::EvenStepWork),
        Fix::Communication(CommunicationFix::EvenRankWork {
            slow_rank: 3,
            ratio: 6.6,
        }),
        Fix::Communication(CommunicationFix::SlowerGpu {
            slow_rank: 3,
            gpu: 3,
            host: Some("gpu-b".into()),
            reasons: vec![
                "software power cap".into(),
                "hardware thermal slowdown".into(),
            ],
            power_limit_w: Some(450.0),
            typical_power_limit_w: Some(700.0),
        }),
        Fix::Communication(CommunicationFix::OtherGpuModel {
            slow_rank: 3,
            gpu: 3,
            host: Some("gpu-b".into()),
            model: "NVIDIA A100-SXM4-80GB".into(),
            others_model: "NVIDIA H200".into(),
        }),
        Fix::PeriodicStall(PeriodicStallFix::AsyncCheckpoint {
            checkpoint_seen: true,
            every_steps: None,
        }),
        Fix::PeriodicStall(PeriodicStallFix::AsyncCheckpoint {
            checkpoint_seen: true,
            every_steps: Some(280),
        }),
        Fix::PeriodicStall(PeriodicStallFix::AsyncCheckpoint {
            checkpoint_seen: false,
            every_steps: None,
        }),
        Fix::PeriodicStall(PeriodicStallFix::CheckpointLessOften {
            every_steps: 200,
            write_ms: 3015.0,
        }),
        Fix::PeriodicStall(PeriodicStallFix::EvaluateLessOften {
            period_steps: 40,
            every_steps: 520,
            pass_ms: 358.0,
            pass_share: 0.05,
        }),
        Fix::PeriodicStall(PeriodicStallFix::LessPeriodicWork),
        Fix::PeriodicStall(PeriodicStallFix::NoCollectInLoop {
            site: None,
            frozen: true,
        }),
        Fix::PeriodicStall(PeriodicStallFix::NoCollectInLoop {
            site: Some(SyncSite {
                file: "/work/train.py".into(),
                line: 57,
                function: "main".into(),
                code: "gc.collect()".into(),
                count: 20,
                kinds: Default::default(),
            }),
            frozen: false,
        }),
        Fix::Shared(SharedFix::ProfileSteps),
        Fix::Shared(SharedFix::StopTrainingProfiler),
        Fix::Shared(SharedFix::MainThreadCpu),
        Fix::Throttling(ThrottlingFix::CoolGpu),
        Fix::Throttling(ThrottlingFix::CheckPower),
        Fix::ComputeBound(ComputeBoundFix::AllowTf32 {
            fp32_matmul_share: 0.79,
            tf32_speedup: Some(7.4),
        }),
        Fix::ComputeBound(ComputeBoundFix::AllowTf32 {
            fp32_matmul_share: 0.79,
            tf32_speedup: None,
        }),
        Fix::ComputeBound(ComputeBoundFix::SkipUninitializedFill {
            fill_share: 0.042,
            fills_per_step: 63.0,
        }),
        Fix::ComputeBound(ComputeBoundFix::TensorCores),
        Fix::ComputeBound(ComputeBoundFix::Compile),
        Fix::ComputeBound(ComputeBoundFix::ChannelsLast),
        Fix::ComputeBound(ComputeBoundFix::FusedOptimizer { class: None }),
        Fix::ComputeBound(ComputeBoundFix::FusedOptimizer {
            class: Some("SGD".into()),
        }),
        Fix::MemoryBandwidth(MemoryBandwidthFix::FuseElementwise),
        Fix::MemoryBandwidth(MemoryBandwidthFix::Bf16Activations),
        Fix::MemoryBandwidth(MemoryBandwidthFix::FusedKernels),
        Fix::Slowdown(SlowdownFix::ConstantHostWork { kept_at: None }),
        Fix::Slowdown(SlowdownFix::ConstantHostWork {
            kept_at: Some(SyncSite {
                file: "/home/a/train.py".into(),
                line: 81,
                function: "train".into(),
                code: "seen_preds.extend(out.argmax(1).tolist())".into(),
                count: 16,
                kinds: Default::default(),
            }),
        }),
        Fix::Slowdown(SlowdownFix::ConstantSampleWork),
        Fix::Slowdown(SlowdownFix::ConstantGpuWork),
        Fix::Slowdown(SlowdownFix::ConstantPeriodicWork {
            work: MarkerKind::Eval,
        }),
        Fix::Slowdown(SlowdownFix::ConstantPeriodicWork {
            work: MarkerKind::Checkpoint,
        }),
        Fix::Slowdown(SlowdownFix::ConstantPeriodicWork {
            work: MarkerKind::Gc,
        }),
        Fix::Slowdown(SlowdownFix::ConstantPeriodicWork {
            work: MarkerKind::EpochStart,
        }),
        Fix::Memory(MemoryFix::KeepValuesNotTensors),
        Fix::Memory(MemoryFix::BoundHostHistory),
        Fix::Memory(MemoryFix::ExpandableSegments),
        Fix::Memory(MemoryFix::FreeSharedGpu {
            pids: vec![615],
            frees_gib: 40.6,
        }),
        Fix::Memory(MemoryFix::Bf16Memory {
            frees_gib: Some(40.0),
        }),
        Fix::Memory(MemoryFix::ActivationCheckpointing {
            frees_gib: Some(60.0),
        }),
        Fix::Memory(MemoryFix::EightBitOptimizer { frees_gib: None }),
        Fix::Memory(MemoryFix::SmallerMicroBatch {
            frees_gib: Some(50.0),
        }),
        Fix::Memory(MemoryFix::OffloadOptimizer {
            frees_gib: Some(0.7),
        }),
        Fix::Environment(EnvironmentFix::Environment {
            check: CheckId::PcieLink,
        }),
        Fix::Compilation(CompilationFix::DropStaticShapes { dim: 1 }),
        Fix::Compilation(CompilationFix::MarkDynamic { dim: 1 }),
        Fix::Compilation(CompilationFix::StableGuardedValue),
        Fix::Compilation(CompilationFix::FindRecompileReason),
    ]
}

/// Each variant once, so that a variant added to a model enum fails to build here until the
/// lists above name it.
#[allow(dead_code)]
fn lists_name_every_variant(c: &Cause, k: &EvidenceKey, f: &Fix) {
    match c {
        Cause::ComputeBound(ComputeBound::GpuComputes { .. })
        | Cause::MemoryBandwidth(MemoryBandwidth::MemoryTraffic { .. })
        | Cause::DataLoading(DataLoading::SlowLoader { .. })
        | Cause::DataLoading(DataLoading::CpuSaturated { .. })
        | Cause::DataLoading(DataLoading::CpuContention { .. })
        | Cause::KernelLaunch(KernelLaunch::TinyKernels { .. })
        | Cause::KernelLaunch(KernelLaunch::CpuContention { .. })
        | Cause::KernelLaunch(KernelLaunch::SynchronousLaunches { .. })
        | Cause::KernelLaunch(KernelLaunch::InterpreterHeld { .. })
        | Cause::KernelLaunch(KernelLaunch::AnomalyDetection { .. })
        | Cause::Communication(Communication::Exposed { .. })
        | Cause::Communication(Communication::Straggler { .. })
        | Cause::Communication(Communication::ShiftingStraggler { .. })
        | Cause::Communication(Communication::P2pDisabled)
        | Cause::HostSync(HostSync::Readbacks)
        | Cause::HostSync(HostSync::Allocator { .. })
        | Cause::H2dCopy(H2dCopy::Exposed)
        | Cause::H2dCopy(H2dCopy::Pageable)
        | Cause::PeriodicStall(PeriodicStall::Stalls { .. })
        | Cause::Throttling(Throttling::Power { .. })
        | Cause::Throttling(Throttling::Thermal { .. })
        | Cause::GpuIdle(GpuIdle::Unexplained { .. })
        | Cause::Environment(Environment::Check { .. })
        | Cause::Slowdown(Slowdown::StepsGrow { .. })
        | Cause::Slowdown(Slowdown::PeriodicGrows { .. })
        | Cause::Memory(Memory::Creep { .. })
        | Cause::Memory(Memory::NearLimit { .. })
        | Cause::Memory(Memory::Fragmented { .. })
        | Cause::Memory(Memory::HostCreep { .. })
        | Cause::Compilation(Compilation::Recompiles { .. }) => {}
    }
    use EvidenceKey as K;
    match k {
        K::DataLoading(DataLoadingEvidence::DataLoaderIdleShare)
        | K::DataLoading(DataLoadingEvidence::UnprofiledDataIdleShare)
        | K::DataLoading(DataLoadingEvidence::IdlePerEpochStart)
        | K::DataLoading(DataLoadingEvidence::StarvedLaunchIdleShare)
        | K::DataLoading(DataLoadingEvidence::MeanDataWait)
        | K::DataLoading(DataLoadingEvidence::MedianDataWait)
        | K::DataLoading(DataLoadingEvidence::DataWaitShare)
        | K::DataLoading(DataLoadingEvidence::MeanGpuUtil)
        | K::DataLoading(DataLoadingEvidence::NumWorkers)
        | K::Shared(SharedEvidence::HostCpu)
        | K::Shared(SharedEvidence::TrainingTreeCpu)
        | K::Shared(SharedEvidence::TrainingProcessCpu)
        | K::H2dCopy(H2dCopyEvidence::ExposedH2dShare)
        | K::H2dCopy(H2dCopyEvidence::PageableH2dPerStep)
        | K::H2dCopy(H2dCopyEvidence::PinnedH2dPerStep)
        | K::H2dCopy(H2dCopyEvidence::PageableBandwidth)
        | K::H2dCopy(H2dCopyEvidence::PageableBytesPerStep)
        | K::H2dCopy(H2dCopyEvidence::PageableCopyHostPerStep)
        | K::H2dCopy(H2dCopyEvidence::HostWorkBesideCopies)
        | K::HostSync(HostSyncEvidence::SyncIdleShare)
        | K::HostSync(HostSyncEvidence::SyncCallsPerStep)
        | K::HostSync(HostSyncEvidence::ProbeSyncsPerStep)
        | K::HostSync(HostSyncEvidence::TopSyncSiteShare)
        | K::PeriodicStall(PeriodicStallEvidence::StallsWithMarker)
        | K::PeriodicStall(PeriodicStallEvidence::ProfiledStalls)
        | K::PeriodicStall(PeriodicStallEvidence::ReadbacksPerStall)
        | K::GpuIdle(GpuIdleEvidence::GpuIdleSeconds)
        | K::GpuIdle(GpuIdleEvidence::BusyWorkersWhileIdle)
        | K::GpuIdle(GpuIdleEvidence::MainCpuWhileIdle)
        | K::GpuIdle(GpuIdleEvidence::WorkersCpuWhileIdle)
        | K::HostSync(HostSyncEvidence::ItemCallsPerStep)
        | K::HostSync(HostSyncEvidence::AllocIdleShare)
        | K::HostSync(HostSyncEvidence::AllocCallsPerStep)
        | K::HostSync(HostSyncEvidence::AllocHostTimePerStep)
        | K::HostSync(HostSyncEvidence::EmptyCacheCallsPerStep)
        | K::HostSync(HostSyncEvidence::HostLaunchTime)
        | K::HostSync(HostSyncEvidence::GpuBusyPerStep)
        | K::HostSync(HostSyncEvidence::UnprofiledHostWork)
        | K::HostSync(HostSyncEvidence::HostWorkBesideAllocator)
        | K::KernelLaunch(KernelLaunchEvidence::LaunchIdleShare)
        | K::KernelLaunch(KernelLaunchEvidence::KernelsPerStep)
        | K::KernelLaunch(KernelLaunchEvidence::MedianKernel)
        | K::KernelLaunch(KernelLaunchEvidence::TinyKernelShare)
        | K::Shared(SharedEvidence::UnprofiledBusyShare)
        | K::KernelLaunch(KernelLaunchEvidence::UnprofiledStepTime)
        | K::KernelLaunch(KernelLaunchEvidence::ProfiledStepTime)
        | K::KernelLaunch(KernelLaunchEvidence::GpuUtil)
        | K::KernelLaunch(KernelLaunchEvidence::LaunchBlockingSet)
        | K::KernelLaunch(KernelLaunchEvidence::HostTurnPerStep)
        | K::KernelLaunch(KernelLaunchEvidence::HostTimePerKernel)
        | K::KernelLaunch(KernelLaunchEvidence::LaunchlessHostPerStep)
        | K::KernelLaunch(KernelLaunchEvidence::AnomalyDetectionOn)
        | K::Shared(SharedEvidence::SmActive)
        | K::Communication(CommunicationEvidence::ExposedCommShare)
        | K::Communication(CommunicationEvidence::CommOverlap)
        | K::Communication(CommunicationEvidence::NcclPerStep)
        | K::Communication(CommunicationEvidence::HostCollectivePerStep)
        | K::Communication(CommunicationEvidence::ComputeRank { .. })
        | K::Communication(CommunicationEvidence::GpuThrottledSamples { .. })
        | K::Communication(CommunicationEvidence::GpuPowerLimit { .. })
        | K::Communication(CommunicationEvidence::StepWaitShare)
        | K::Communication(CommunicationEvidence::SlowestRankSteps { .. })
        | K::Communication(CommunicationEvidence::ExposedCommRank { .. })
        | K::Communication(CommunicationEvidence::ScalingEfficiency { .. })
        | K::Communication(CommunicationEvidence::Speedup)
        | K::Communication(CommunicationEvidence::NvlinkTx)
        | K::Communication(CommunicationEvidence::P2pDisabledWithNvlink)
        | K::Communication(CommunicationEvidence::StragglerExtraComm)
        | K::PeriodicStall(PeriodicStallEvidence::StallPeriod)
        | K::PeriodicStall(PeriodicStallEvidence::StallExcess)
        | K::PeriodicStall(PeriodicStallEvidence::StallCount)
        | K::PeriodicStall(PeriodicStallEvidence::StallLostShare)
        | K::PeriodicStall(PeriodicStallEvidence::UtilDipPeriod)
        | K::PeriodicStall(PeriodicStallEvidence::StallsSeenIdle)
        | K::PeriodicStall(PeriodicStallEvidence::TrainingBetweenStalls)
        | K::PeriodicStall(PeriodicStallEvidence::StagingCopy)
        | K::PeriodicStall(PeriodicStallEvidence::CheckpointWrite)
        | K::PeriodicStall(PeriodicStallEvidence::PeakDiskWrite)
        | K::Throttling(ThrottlingEvidence::ThrottledSamples)
        | K::Throttling(ThrottlingEvidence::SmClockRatio)
        | K::Throttling(ThrottlingEvidence::PowerShareOfLimit)
        | K::Throttling(ThrottlingEvidence::PeakTemp)
        | K::GpuIdle(GpuIdleEvidence::GpuBusyShare)
        | K::GpuIdle(GpuIdleEvidence::UnexplainedIdle)
        | K::ComputeBound(ComputeBoundEvidence::StepBusyShare)
        | K::ComputeBound(ComputeBoundEvidence::ComputeShare)
        | K::MemoryBandwidth(MemoryBandwidthEvidence::DramBandwidth)
        | K::ComputeBound(ComputeBoundEvidence::TensorActive)
        | K::ComputeBound(ComputeBoundEvidence::GemmShare)
        | K::ComputeBound(ComputeBoundEvidence::FillTimePerStep)
        | K::MemoryBandwidth(MemoryBandwidthEvidence::ElementwiseShare)
        | K::Slowdown(SlowdownEvidence::FirstStepMedian)
        | K::Slowdown(SlowdownEvidence::LastStepMedian)
        | K::Slowdown(SlowdownEvidence::FirstStepMean)
        | K::Slowdown(SlowdownEvidence::LastStepMean)
        | K::Slowdown(SlowdownEvidence::FirstStepsMedian)
        | K::Slowdown(SlowdownEvidence::StepTimeGrowth)
        | K::Slowdown(SlowdownEvidence::DataWaitGrowth)
        | K::Slowdown(SlowdownEvidence::HostWorkGrowth)
        | K::Slowdown(SlowdownEvidence::GpuWorkGrowth)
        | K::Slowdown(SlowdownEvidence::FirstPeriodicMedian)
        | K::Slowdown(SlowdownEvidence::LastPeriodicMedian)
        | K::Slowdown(SlowdownEvidence::PeriodicGrowth)
        | K::Shared(SharedEvidence::HostRssGrowth)
        | K::Memory(MemoryEvidence::AllocatedGrowth)
        | K::Memory(MemoryEvidence::AllocatedGrowthRate)
        | K::Memory(MemoryEvidence::HostRssGrowthRate)
        | K::Memory(MemoryEvidence::PeakMemoryShareOfCapacity)
        | K::Memory(MemoryEvidence::OtherProcessesMemory)
        | K::Memory(MemoryEvidence::ReservedUnusedShare)
        | K::Memory(MemoryEvidence::AllocRetries)
        | K::Compilation(
            CompilationEvidence::Recompilations
            | CompilationEvidence::CompileTime
            | CompilationEvidence::CompileShare
            | CompilationEvidence::LimitStep
            | CompilationEvidence::CompiledStep
            | CompilationEvidence::UncompiledStep,
        )
        | K::Environment(EnvironmentEvidence::EnvStatus { .. }) => {}
    }
    match f {
        Fix::DataLoading(DataLoadingFix::CheaperSamples)
        | Fix::DataLoading(DataLoadingFix::CheaperSamplesAtWorkerLimit { .. })
        | Fix::DataLoading(DataLoadingFix::LeaveCoresToLoop { .. })
        | Fix::DataLoading(DataLoadingFix::MoreWorkers { .. })
        | Fix::DataLoading(DataLoadingFix::PinMemory)
        | Fix::DataLoading(DataLoadingFix::PersistentWorkers)
        | Fix::DataLoading(DataLoadingFix::LoaderAcrossEpochs { .. })
        | Fix::PeriodicStall(PeriodicStallFix::FreezeGc { .. })
        | Fix::H2dCopy(H2dCopyFix::PinnedCopy)
        | Fix::H2dCopy(H2dCopyFix::OverlapCopy)
        | Fix::H2dCopy(H2dCopyFix::FewerCopyBytes)
        | Fix::Shared(SharedFix::FindCpuHogs)
        | Fix::Shared(SharedFix::ReserveCores)
        | Fix::KernelLaunch(KernelLaunchFix::CompileFuseKernels)
        | Fix::KernelLaunch(KernelLaunchFix::ReduceOverhead { .. })
        | Fix::KernelLaunch(KernelLaunchFix::ForeachOptimizer { .. })
        | Fix::KernelLaunch(KernelLaunchFix::BiggerKernels)
        | Fix::KernelLaunch(KernelLaunchFix::UnsetLaunchBlocking)
        | Fix::KernelLaunch(KernelLaunchFix::FreeInterpreter)
        | Fix::KernelLaunch(KernelLaunchFix::HostWorkOffStep)
        | Fix::KernelLaunch(KernelLaunchFix::DisableAnomalyDetection)
        | Fix::HostSync(HostSyncFix::FewerReadbacks { .. })
        | Fix::HostSync(HostSyncFix::KeepAllocatorCache { .. })
        | Fix::HostSync(HostSyncFix::GpuMetrics)
        | Fix::HostSync(HostSyncFix::AsyncCopyAtLine { .. })
        | Fix::HostSync(HostSyncFix::SortOnGpuAtLine { .. })
        | Fix::PeriodicStall(PeriodicStallFix::SummariseOnGpu { .. })
        | Fix::HostSync(HostSyncFix::FindHiddenSyncs)
        | Fix::Communication(CommunicationFix::EnableP2p)
        | Fix::Communication(CommunicationFix::AccumulateGradients)
        | Fix::Communication(CommunicationFix::MoreWorkPerAllReduce)
        | Fix::Communication(CommunicationFix::CompressGradients)
        | Fix::Communication(CommunicationFix::NcclForGpuTensors)
        | Fix::Communication(CommunicationFix::EvenStepWork)
        | Fix::Communication(CommunicationFix::EvenRankWork { .. })
        | Fix::Communication(CommunicationFix::SlowerGpu { .. })
        | Fix::Communication(CommunicationFix::OtherGpuModel { .. })
        | Fix::PeriodicStall(PeriodicStallFix::AsyncCheckpoint { .. })
        | Fix::PeriodicStall(PeriodicStallFix::CheckpointLessOften { .. })
        | Fix::PeriodicStall(PeriodicStallFix::NoCollectInLoop { .. })
        | Fix::PeriodicStall(PeriodicStallFix::LessPeriodicWork)
        | Fix::PeriodicStall(PeriodicStallFix::EvaluateLessOften { .. })
        | Fix::Shared(SharedFix::ProfileSteps)
        | Fix::Shared(SharedFix::StopTrainingProfiler)
        | Fix::Shared(SharedFix::MainThreadCpu)
        | Fix::Throttling(ThrottlingFix::CoolGpu)
        | Fix::Throttling(ThrottlingFix::CheckPower)
        | Fix::ComputeBound(ComputeBoundFix::AllowTf32 { .. })
        | Fix::ComputeBound(ComputeBoundFix::SkipUninitializedFill { .. })
        | Fix::ComputeBound(ComputeBoundFix::TensorCores)
        | Fix::ComputeBound(ComputeBoundFix::Compile)
        | Fix::ComputeBound(ComputeBoundFix::ChannelsLast)
        | Fix::ComputeBound(ComputeBoundFix::FusedOptimizer { .. })
        | Fix::MemoryBandwidth(MemoryBandwidthFix::FuseElementwise)
        | Fix::MemoryBandwidth(MemoryBandwidthFix::Bf16Activations)
        | Fix::MemoryBandwidth(MemoryBandwidthFix::FusedKernels)
        | Fix::Environment(EnvironmentFix::Environment { .. })
        | Fix::Compilation(
            CompilationFix::DropStaticShapes { .. }
            | CompilationFix::MarkDynamic { .. }
            | CompilationFix::StableGuardedValue
            | CompilationFix::FindRecompileReason,
        )
        | Fix::Slowdown(SlowdownFix::ConstantHostWork { .. })
        | Fix::Slowdown(SlowdownFix::ConstantSampleWork)
        | Fix::Slowdown(SlowdownFix::ConstantGpuWork)
        | Fix::Slowdown(SlowdownFix::ConstantPeriodicWork { .. })
        | Fix::Memory(MemoryFix::KeepValuesNotTensors)
        | Fix::Memory(MemoryFix::BoundHostHistory)
        | Fix::Memory(MemoryFix::ExpandableSegments)
        | Fix::Memory(MemoryFix::FreeSharedGpu { .. })
        | Fix::Memory(MemoryFix::Bf16Memory { .. })
        | Fix::Memory(MemoryFix::ActivationCheckpointing { .. })
        | Fix::Memory(MemoryFix::EightBitOptimizer { .. })
        | Fix::Memory(MemoryFix::SmallerMicroBatch { .. })
        | Fix::Memory(MemoryFix::OffloadOptimizer { .. }) => {}
    }
}

/// Both texts exist and the Chinese one has Chinese in it.
fn translated(what: &str, en: &str, zh: &str) {
    assert!(!en.trim().is_empty(), "{what}: no English");
    assert!(!zh.trim().is_empty(), "{what}: no Chinese");
    assert!(
        zh.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c)),
        "{what}: the Chinese text has no Chinese: {zh}"
    );
}

fn finding(cause: Cause) -> Finding {
    Finding {
        gains: Default::default(),
        cause,
        severity: Severity::Major,
        confidence: 0.9,
        share: 0.3,
        evidence: Vec::new(),
        fixes: vec![Fix::DataLoading(DataLoadingFix::PinMemory)],
    }
}

#[test]
fn every_finding_has_a_title_summary_and_verdict_in_both_languages() {
    for c in all_causes() {
        let f = finding(c.clone());
        let id = c.id();
        translated(&id, &findings::summary(&f, En), &findings::summary(&f, Zh));
        translated(&id, &findings::lead(&f, En), &findings::lead(&f, Zh));
        let (en, zh) = (findings::title(&c, En), findings::title(&c, Zh));
        assert!(
            !en.is_empty() && !zh.is_empty() && en != zh,
            "{id}: {en} / {zh}"
        );
    }
}

#[test]
fn one_recompilation_after_the_warm_up_is_said_once_not_again_and_again() {
    let once = Cause::Compilation(Compilation::Recompiles {
        function: "forward".into(),
        location: Some("curriculum_lm.py:44".into()),
        recompilations: 1,
        compile_ms: 8320.0,
        guard: GuardFailure::Size { dim: 1 },
        reason: None,
        asked_static: false,
        limit_step: None,
        limit: None,
        compiled_step_ms: None,
        uncompiled_step_ms: None,
        step_ms: Some(10.7),
        dynamic_compile_ms_per_step: None,
    });
    assert_eq!(
        findings::title(&once, En),
        "The compiled model recompiles after its warm-up"
    );
    assert!(findings::summary(&finding(once), En)
        .starts_with("Dynamo compiled `forward` (curriculum_lm.py:44) again once."));
}

#[test]
fn every_evidence_key_unit_and_source_has_words() {
    for k in all_evidence_keys() {
        let (en, zh) = (evidence::label(&k, En), evidence::label(&k, Zh));
        // Labels that are names alone (`DataLoader num_workers`) read the same.
        if k != EvidenceKey::DataLoading(DataLoadingEvidence::NumWorkers) {
            translated(&format!("{k:?}"), &en, &zh);
        }
    }
    for u in Unit::ALL {
        assert!(!evidence::unit(u, En).is_empty() && !evidence::unit(u, Zh).is_empty());
    }
    for s in [
        Source::Trace { rank: Some(1) },
        Source::AllRankTraces,
        Source::StepsCsvUnprofiled,
        Source::StepsWaitMinusBusy,
        Source::StepsGpuClockPerStep,
        Source::NvmlSamples,
        Source::GpuProcessSamples,
        Source::Probe,
        Source::GpmSamples,
        Source::HostSamples,
        Source::MetaEnvAndTopology,
        Source::StaticSnapshot,
        Source::ThisDiagnosis,
        Source::Busy {
            method: BusyMethod::TraceOverUnprofiledSteps,
        },
        Source::Busy {
            method: BusyMethod::ProfiledWindow,
        },
        Source::Busy {
            method: BusyMethod::SampledGpuUtil,
        },
        Source::Busy {
            method: BusyMethod::SampledSmActive,
        },
        Source::Throughput,
        Source::PartnerThroughput {
            partner: "run".into(),
        },
    ] {
        translated(
            &format!("{s:?}"),
            &evidence::source(&s, En),
            &evidence::source(&s, Zh),
        );
    }
}

#[test]
fn every_fix_has_words_in_both_languages_and_the_same_code() {
    for f in all_fixes() {
        let (en, zh) = (fixes::text(&f, En), fixes::text(&f, Zh));
        let what = format!("{f:?}");
        translated(&what, &en.title, &zh.title);
        translated(&what, &en.detail, &zh.detail);
        translated(&what, &en.effect, &zh.effect);
        // The code itself is the same; only comments differ.
        let code = |s: &Option<String>| {
            s.as_deref().map(|s| {
                s.lines()
                    .map(|l| l.split('#').next().unwrap_or("").trim_end().to_owned())
                    .collect::<Vec<_>>()
            })
        };
        assert_eq!(code(&en.snippet), code(&zh.snippet), "{what}");
    }
}

#[test]
fn fixes_quote_the_runs_own_values() {
    let en = fixes::text(
        &Fix::DataLoading(DataLoadingFix::MoreWorkers {
            suggested: 14,
            current: Some(2),
            host_cpus: Some(16),
        }),
        En,
    );
    assert!(en
        .snippet
        .as_deref()
        .unwrap()
        .contains("num_workers=14,          # was 2"));
    assert!(en.detail.contains("only 2 worker(s) run"), "{}", en.detail);
    let zh = fixes::text(
        &Fix::DataLoading(DataLoadingFix::MoreWorkers {
            suggested: 14,
            current: None,
            host_cpus: None,
        }),
        Zh,
    );
    assert!(zh.snippet.as_deref().unwrap().contains("# 原先未设置"));
}

#[test]
fn every_check_has_a_title_meaning_and_fix_in_both_languages() {
    for id in CheckId::ALL {
        let c = EnvCheck::new(id, CheckStatus::Fail, CheckValue::Count { n: 3 });
        let (en, zh) = (checks::text(&c, En), checks::text(&c, Zh));
        translated(id.as_str(), &en.title, &zh.title);
        translated(id.as_str(), &en.meaning, &zh.meaning);
        translated(
            id.as_str(),
            &checks::fix_for(id, En),
            &checks::fix_for(id, Zh),
        );
        assert_eq!(en.fix.is_some(), zh.fix.is_some(), "{id:?}");
    }
    let pass = EnvCheck::new(
        CheckId::DevShm,
        CheckStatus::Pass,
        CheckValue::Size { gib: 32.0 },
    );
    assert_eq!(checks::text(&pass, En).fix, None);
    let gpu = EnvCheck::new(
        CheckId::PcieLink,
        CheckStatus::Warn,
        CheckValue::PcieLink {
            gen: 4,
            width: 16,
            gen_max: 5,
            width_max: 16,
        },
    )
    .on_gpu(1);
    let t = checks::text(&gpu, Zh);
    assert_eq!(t.title, "GPU 1：PCIe 链路");
    assert_eq!(t.value, "Gen 4 x16（最高 Gen 5 x16）");
    assert_eq!(checks::text(&gpu, En).title, "GPU 1: PCIe link");
}

#[test]
fn check_values_read_in_both_languages() {
    let disk = CheckValue::DiskFree {
        gib: 53.8,
        path: "/data".into(),
    };
    assert_eq!(checks::value(&disk, En), "53.8 GiB free at /data");
    assert_eq!(checks::value(&disk, Zh), "/data 剩余 53.8 GiB");
    let w = CheckValue::Workers {
        workers: 2,
        gpus: 1,
        cpus: 16,
    };
    assert_eq!(
        checks::value(&w, Zh),
        "2 个 worker × 1 块 GPU，16 个逻辑 CPU"
    );
    let none = CheckValue::Processes {
        processes: Vec::new(),
    };
    assert_eq!(checks::value(&none, Zh), "无");
}

#[test]
fn every_note_and_window_method_has_words() {
    for n in [
        Note::ProfilerOverheadLaunches {
            launch_share: 0.4,
            busy_share: 0.97,
        },
        Note::FewTraceSteps { rank: 0, steps: 1 },
        Note::EmptyFiles {
            files: vec!["samples_host.csv".into()],
        },
        Note::SamplesFromQueryLog {
            path: "gpu.csv".into(),
        },
        Note::SamplesFromDmon {
            path: "dmon.txt".into(),
        },
        Note::SamplesFromPrometheus {
            url: "http://prom:9090".into(),
            host: "gpu-07".into(),
            interval_s: Some(15.0),
        },
        Note::StepsInferred {
            rank: 0,
            from: StepMarks::OptimizerSteps,
        },
        Note::StepsInferred {
            rank: 0,
            from: StepMarks::WholeTrace,
        },
        job_of_two_hosts(),
        Note::SlowNode {
            node: "gpu-b".into(),
            ranks: vec![8, 9, 10, 11, 12, 13, 14, 15],
        },
        Note::TracesSummarisedOnHosts {
            ranks: vec![2, 3],
            trace_bytes: 232_594,
        },
    ] {
        translated(
            &format!("{n:?}"),
            &notes::note(&n, En),
            &notes::note(&n, Zh),
        );
    }
    for m in [
        WindowMethod::Steps {
            first: 13,
            last: 200,
            warmup: 13,
            warmup_factor: 3.0,
            margin_steps: 8,
        },
        WindowMethod::NoStepTimings {
            has_trace: true,
            start_up_s: Some(13.0),
            wind_down_s: Some(2.5),
        },
        WindowMethod::NoStepTimings {
            has_trace: false,
            start_up_s: Some(0.0),
            wind_down_s: None,
        },
        WindowMethod::NoStepTimings {
            has_trace: false,
            start_up_s: None,
            wind_down_s: None,
        },
    ] {
        translated(
            &format!("{m:?}"),
            &notes::window_method(&m, En),
            &notes::window_method(&m, Zh),
        );
    }
}

#[test]
fn a_comparison_reads_in_both_languages_with_its_numbers_kept() {
    let c = RunComparison {
        changes: vec![FigureChange {
            figure: Figure::DataLoadingShare,
            baseline: FigureValue::Share { share: Some(0.0) },
            current: FigureValue::Share { share: Some(0.91) },
            delta: Delta::Points { by: 91.0 },
        }],
        step: StepChange::Changed { by: 9.51 },
        step_figure: Figure::MeanStepTime,
        reasons: vec![CompareReason::InputRegressed {
            from: Some(0.0),
            to: Some(0.91),
        }],
    };
    assert_eq!(
        comparison::summary(&c, En),
        "step time +951%, data-loading share 0% → 91%: the input pipeline regressed"
    );
    assert_eq!(
        comparison::summary(&c, Zh),
        "步骤时间 +951%，数据加载占比 0% → 91%：输入管线退化"
    );
    assert_eq!(comparison::row(&c.changes[0], Zh)[2], "+91 个百分点");
    for f in Figure::ALL {
        let (en, zh) = (comparison::figure(f, En), comparison::figure(f, Zh));
        assert!(!en.is_empty() && !zh.is_empty());
    }
    let calm = RunComparison {
        changes: Vec::new(),
        step: StepChange::Unchanged { by: 0.01 },
        step_figure: Figure::TimePerStep,
        reasons: vec![CompareReason::NothingRegressed],
    };
    assert_eq!(
        comparison::summary(&calm, En),
        "time per step unchanged (within 5%); no figure regressed"
    );
}

#[test]
fn severities_read_the_same_in_the_ui_and_the_report() {
    for s in Severity::ALL {
        for l in [En, Zh] {
            assert_eq!(crate::ui::severity(l, s), crate::severity(s, l), "{s:?}");
        }
    }
}

#[test]
fn numbers_never_read_minus_zero() {
    assert_eq!(crate::pct(-0.0001), "0");
    assert_eq!(crate::fixed(-0.04, 1), "0.0");
    assert_eq!(crate::signed(-0.2), "+0");
    assert_eq!(crate::signed(-3.4), "-3");
}

fn job_of_two_hosts() -> Note {
    let node = |host: &str, n: u32, offset: Option<f64>| NodeFacts {
        hostname: Some(host.into()),
        node_rank: Some(n),
        ranks: vec![2 * n, 2 * n + 1],
        gpus: vec![2 * n, 2 * n + 1],
        clock_offset_s: offset,
        clock_rtt_s: Some(2e-4),
        driver_version: Some("580.159.04".into()),
        source: format!("/runs/{host}"),
    };
    Note::JobOnNodes {
        nodes: vec![
            node("gpu-a", 0, Some(0.0)),
            node("gpu-b", 1, Some(-0.0004)),
            node("gpu-c", 2, None),
        ],
        host_readings_of: "gpu-a".into(),
    }
}

#[test]
fn ranks_measured_on_their_hosts_say_where_their_traces_are() {
    let note = |ranks: Vec<u32>, trace_bytes| {
        notes::note(&Note::TracesSummarisedOnHosts { ranks, trace_bytes }, En)
    };
    assert_eq!(
        note(vec![2, 3], 232_594),
        "Ranks 2–3 were measured on their hosts (trace_summary.json, by this version of GPU Checkup); their 0.2 MB of traces stayed there. To open one, copy it next to its summary (checkup gather --trace-ranks 2)."
    );
    assert_eq!(
        note(vec![3], 1_430_000),
        "Rank 3 was measured on its host (trace_summary.json, by this version of GPU Checkup); its 1.4 MB trace stayed there. To open it, copy it next to its summary (checkup gather --trace-ranks 3)."
    );
}

#[test]
fn a_job_of_several_hosts_says_where_each_rank_ran_and_whose_clock_rules() {
    assert_eq!(
        notes::note(&job_of_two_hosts(), En),
        "One job on 3 hosts: gpu-a (ranks 0–1, GPUs 0–1), gpu-b (ranks 2–3, GPUs 2–3, clock −0.4 ms), gpu-c (ranks 4–5, GPUs 4–5). GPUs are numbered across the job and every time is on gpu-a's clock; the host CPU readings are gpu-a's. The clocks of gpu-c were not measured (a probe older than the agent, or its ranks could not reach rank 0's store): their times are as their clocks read them."
    );
    assert!(notes::note(&job_of_two_hosts(), Zh).starts_with(
        "一个作业运行在 3 台主机上：gpu-a（rank 0–1，GPU 0–1），gpu-b（rank 2–3，GPU 2–3，时钟 −0.4 ms）"
    ));
}

#[test]
fn ranks_that_take_turns_being_slowest_are_listed_in_words() {
    let f = Finding {
        gains: Default::default(),
        cause: Cause::Communication(Communication::ShiftingStraggler {
            slowest_ranks: vec![2, 0, 3, 1],
            steps: 7,
            wait_share: 0.31,
        }),
        severity: Severity::Major,
        confidence: 0.7,
        share: 0.31,
        evidence: Vec::new(),
        fixes: vec![Fix::Communication(CommunicationFix::EvenStepWork)],
    };
    assert_eq!(
        findings::summary(&f, En),
        "In each of the 7 profiled steps one rank is the last to reach the all-reduce and the others wait for it, 31% of the step on average; but it is not always the same rank (ranks 2, 0, 3 and 1 took turns). The work per step differs between the ranks and moves between them: batches of different size or length."
    );
    assert!(findings::summary(&f, Zh).contains("rank 2、0、3、1 轮流最慢"));
}

#[test]
fn every_difference_between_hosts_reads_in_both_languages() {
    let all = [
        HostDifference::PersistenceOff {
            host: "b".into(),
            gpus: vec![1],
        },
        HostDifference::OlderDriver {
            host: "b".into(),
            driver: "570.86.15".into(),
            newest: "580.159.04".into(),
        },
        HostDifference::SlowerPcieLink {
            host: "b".into(),
            gpu: 0,
            gen: 4,
            width: 8,
            usual_gen: 5,
            usual_width: 16,
        },
        HostDifference::LowerPowerLimit {
            host: "b".into(),
            gpu: 0,
            limit_w: 600.0,
            usual_w: 700.0,
        },
        HostDifference::OtherGpuModel {
            host: "b".into(),
            model: "NVIDIA H100".into(),
            usual: "NVIDIA H200".into(),
        },
        HostDifference::OtherTorch {
            host: "b".into(),
            torch: "2.4.1".into(),
            usual: "2.11.0".into(),
        },
    ];
    for d in &all {
        let (en, zh) = (fleet::difference(d, En), fleet::difference(d, Zh));
        translated("a difference between hosts", &en, &zh);
        assert!(
            en.starts_with("b: ") && zh.starts_with("b："),
            "{en} / {zh}"
        );
    }
    // Each variant is listed above: a new one fails to build here until it is.
    for d in &all {
        match d {
            HostDifference::PersistenceOff { .. }
            | HostDifference::OlderDriver { .. }
            | HostDifference::SlowerPcieLink { .. }
            | HostDifference::LowerPowerLimit { .. }
            | HostDifference::OtherGpuModel { .. }
            | HostDifference::OtherTorch { .. } => {}
        }
    }
}

#[test]
fn numbers_print_without_a_negative_zero() {
    use crate::format_number;
    assert_eq!(format_number(-0.001), "0.00");
    assert_eq!(format_number(-0.0), "0");
    assert_eq!(format_number(-12.34), "-12.3");
    assert_eq!(format_number(2000.0), "2000");
}

#[test]
fn every_ledger_part_and_basis_has_its_own_words_in_both_languages() {
    use checkup_model::{LedgerBasis, LedgerKind, TimeLedger};
    let mut seen = std::collections::BTreeSet::new();
    for kind in LedgerKind::ALL {
        let (en, zh) = (
            crate::ledger::kind(kind, Language::En),
            crate::ledger::kind(kind, Language::Zh),
        );
        assert_ne!(en, zh, "{kind:?}");
        assert!(seen.insert(en), "{en} names two parts");
    }
    for basis in [
        LedgerBasis::WholeRun,
        LedgerBasis::ProfiledSteps,
        LedgerBasis::SampledSeconds,
    ] {
        let ledger = TimeLedger {
            rank: 3,
            total_s: 142.25,
            basis,
            parts: Vec::new(),
        };
        let (en, zh) = (
            crate::ledger::basis(&ledger, Language::En),
            crate::ledger::basis(&ledger, Language::Zh),
        );
        assert!(en.contains("142 s") && zh.contains("142 秒"), "{en} / {zh}");
        assert!(en.ends_with("100 %.") && zh.ends_with("100%。"));
    }
}

fn host_line(
    role: ThreadRole,
    thread: &str,
    file: &str,
    line: u32,
    code: &str,
    inside: &str,
) -> HostLine {
    HostLine {
        role,
        thread: thread.into(),
        processes: if role == ThreadRole::LoaderWorker {
            3
        } else {
            1
        },
        line: HotLine {
            file: file.into(),
            line,
            function: "f".into(),
            inside: inside.into(),
            code: code.into(),
            cpu_s: 9.0,
            samples: 450,
        },
        share_of_thread: 0.912,
        thread_cores: if role == ThreadRole::LoaderWorker {
            2.94
        } else {
            0.97
        },
    }
}

#[test]
fn a_host_bound_finding_says_whose_cpu_goes_to_which_line_in_both_languages() {
    let held = finding(Cause::KernelLaunch(KernelLaunch::InterpreterHeld {
        host_ms_per_kernel: 4.0,
        process_cpu_pct: 99.0,
        hot_lines: vec![host_line(
            ThreadRole::Thread,
            "metrics-upload",
            "/w/log.py",
            17,
            "payload = json.dumps(history)",
            "",
        )],
    }));
    let en = findings::summary(&held, En);
    assert!(
        en.ends_with(" The thread metrics-upload used 1.0 of a core: 91% at log.py:17 in f() `payload = json.dumps(history)`."),
        "{en}"
    );
    let zh = findings::summary(&held, Zh);
    assert!(zh.ends_with("线程 metrics-upload 使用了 1.0 个核心：91% 在 log.py:17 的 f() 中 `payload = json.dumps(history)`。"), "{zh}");

    let loader = finding(Cause::DataLoading(DataLoading::SlowLoader {
        data_wait_ms: Some(120.0),
        step_ms: Some(130.0),
        idle_per_epoch_start_ms: None,
        epoch_start_idle_ms_per_step: None,
        hot_lines: vec![host_line(
            ThreadRole::LoaderWorker,
            "",
            "/w/data.py",
            31,
            "image = np.fft.ifft2(x)",
            "_pocketfft.py:_raw_fft",
        )],
    }));
    let en = findings::summary(&loader, En);
    assert!(en.contains("The 3 DataLoader workers used 2.9 cores together: 91% at data.py:31 in f() `image = np.fft.ifft2(x)`, inside _pocketfft.py:_raw_fft."), "{en}");
    // A finding without samples says nothing of lines.
    let plain = finding(Cause::DataLoading(DataLoading::SlowLoader {
        data_wait_ms: Some(120.0),
        step_ms: Some(130.0),
        idle_per_epoch_start_ms: None,
        epoch_start_idle_ms_per_step: None,
        hot_lines: Vec::new(),
    }));
    assert!(!findings::summary(&plain, En).contains("workers used"));
}

#[test]
fn a_gain_the_recording_only_bounds_reads_as_a_range_with_why() {
    // A checkpoint written beside the loop: 104 ms steps become 21.3 ms with the write fully
    // beside it, 29.6 ms if the loop waits out each write for the interpreter.
    let gain = FixGain {
        expected: ExpectedGain {
            before_ms: 104.1,
            after_ms: 21.3,
            gpu_busy_ms: Some(16.2),
            bounded_by_gpu_busy: false,
            basis: StepBasis::UnprofiledSteps,
        },
        reach: FixReach::OutsideStagingCopy {
            part: 0.95,
            at_least: 0.86,
        },
        after_at_most_ms: Some(29.6),
    };
    let en = findings::fix_gain(&gain, En);
    assert!(
        en.contains("104 → 21.3–29.6 ms per step (3.5–4.9×)"),
        "{en}"
    );
    assert!(en.contains("for the 95% of the stalls"), "{en}");
    assert!(
        en.contains("86% if the loop also waits out each write"),
        "{en}"
    );
    let zh = findings::fix_gain(&gain, Zh);
    assert!(zh.contains("104 → 21.3–29.6 ms（3.5–4.9×）"), "{zh}");
    assert!(zh.contains("只能省下 86%"), "{zh}");
    // A point stays a point.
    let point = FixGain {
        after_at_most_ms: None,
        ..gain
    };
    assert!(findings::fix_gain(&point, En).contains("104 → 21.3 ms per step (4.9×)"));
}

#[test]
fn more_workers_slower_than_the_loop_say_their_pace_and_that_it_is_a_best_case() {
    // `probe_spectral_augment_loader`: 3 workers made a batch every 82.2 ms; 14 would at
    // best make one every 17.6 ms, above the loop's 8.9 ms.
    let gain = FixGain {
        expected: ExpectedGain {
            before_ms: 90.4,
            after_ms: 25.7,
            gpu_busy_ms: Some(5.3),
            bounded_by_gpu_busy: false,
            basis: StepBasis::UnprofiledSteps,
        },
        reach: FixReach::WorkersPace {
            part: 0.84,
            workers_now: 3,
            batch_ms_now: 82.2,
            workers_after: 14,
            batch_ms_after: 17.6,
            if_cores_shared: None,
        },
        after_at_most_ms: None,
    };
    let en = findings::fix_gain(&gain, En);
    assert!(
        en.starts_with("Expected gain: about 90.4 → 25.7 ms per step (3.5×) at best: the run's 3 workers made a batch every 82.2 ms; 14, each as fast, would make one every 17.6 ms"),
        "{en}"
    );
    assert!(en.contains("which this recording cannot measure"), "{en}");
    let zh = findings::fix_gain(&gain, Zh);
    assert!(zh.contains("90.4 → 25.7 ms（3.5×），这是最好情况"), "{zh}");
    assert!(
        zh.contains("现有 3 个 worker 每 82.2 ms 产出一批；14 个"),
        "{zh}"
    );
    let one = FixGain {
        reach: FixReach::WorkersPace {
            part: 0.97,
            workers_now: 1,
            batch_ms_now: 798.0,
            workers_after: 14,
            batch_ms_after: 57.0,
            if_cores_shared: None,
        },
        ..gain
    };
    assert!(findings::fix_gain(&one, En).contains("the run's 1 worker made"));
    // On the host's 16 logical CPUs, which may be 8 cores of two threads: the slow end.
    let shared = FixGain {
        reach: FixReach::WorkersPace {
            part: 0.84,
            workers_now: 3,
            batch_ms_now: 82.2,
            workers_after: 14,
            batch_ms_after: 17.6,
            if_cores_shared: Some(SharedCores {
                host_cpus: 16,
                pace: 0.65,
                batch_ms: 27.1,
                part: 0.62,
            }),
        },
        after_at_most_ms: Some(39.6),
        ..gain
    };
    let en = findings::fix_gain(&shared, En);
    assert!(
        en.starts_with("Expected gain: about 90.4 → 25.7–39.6 ms per step (2.3–3.5×) at best"),
        "{en}"
    );
    assert!(
        en.contains("; 39.6 ms if the host's 16 logical CPUs are 8 cores of two threads"),
        "{en}"
    );
    assert!(
        en.contains("(each worker then at 65% of its pace, a batch every 27.1 ms)"),
        "{en}"
    );
    assert!(!en.contains("cannot measure"), "{en}");
    let zh = findings::fix_gain(&shared, Zh);
    assert!(
        zh.contains("若主机的 16 个逻辑 CPU 实为 8 个双线程核心") && zh.contains("则为 39.6 ms"),
        "{zh}"
    );
}

#[test]
fn turning_anomaly_detection_off_reads_as_a_range_down_to_the_gpus_work() {
    // 17.5 ms steps: 9.5 ms of host work taking turns with 7.9 ms of GPU work.
    let gain = FixGain {
        expected: ExpectedGain {
            before_ms: 17.5,
            after_ms: 7.93,
            gpu_busy_ms: Some(7.93),
            bounded_by_gpu_busy: true,
            basis: StepBasis::UnprofiledSteps,
        },
        reach: FixReach::CauseAndAddedHostWork,
        after_at_most_ms: Some(9.53),
    };
    let en = findings::fix_gain(&gain, En);
    assert!(en.contains("17.5 → 7.9–9.5 ms per step (1.8–2.2×)"), "{en}");
    assert!(
        en.contains(
            "9.5 ms if only the host's and the GPU's turns go, 7.9 ms (the GPU's own work)"
        ),
        "{en}"
    );
    let zh = findings::fix_gain(&gain, Zh);
    assert!(zh.contains("17.5 → 7.9–9.5 ms（1.8–2.2×）"), "{zh}");
    assert!(zh.contains("则为 7.9 ms（GPU 自身的工作）"), "{zh}");
}

#[test]
fn a_gc_collect_line_is_named_as_the_call_or_as_the_way_to_it() {
    let at = |code: &str| {
        Fix::PeriodicStall(PeriodicStallFix::NoCollectInLoop {
            site: Some(SyncSite {
                file: "/work/train.py".into(),
                line: 44,
                function: "main".into(),
                code: code.into(),
                count: 22,
                kinds: Default::default(),
            }),
            frozen: false,
        })
    };
    let words = |f: &Fix, l| crate::fixes::text(f, l);
    let direct = at("gc.collect()");
    assert_eq!(
        words(&direct, En).title,
        "Stop calling gc.collect() at train.py:44"
    );
    assert!(words(&direct, Zh)
        .title
        .contains("train.py:44 调用 gc.collect()"));
    // A helper the loop calls every step, which collects inside.
    let helper = at("log_metrics(step)");
    let en = words(&helper, En);
    assert_eq!(
        en.title,
        "Stop the gc.collect() calls made through train.py:44"
    );
    assert!(
        en.detail
            .contains("calls code that asks for a full collection"),
        "{}",
        en.detail
    );
    assert!(words(&helper, Zh).detail.contains("所调用的代码"));
}

#[test]
fn a_growth_begun_in_the_first_tenth_reads_as_a_range_down_to_the_first_steps() {
    // `probe_growing_folder_loader`: 89.1 ms steps, 18.3 ms in the first tenth, 5.4 ms in
    // the run's first steps.
    let gain = FixGain {
        expected: ExpectedGain {
            before_ms: 89.1,
            after_ms: 5.37,
            gpu_busy_ms: Some(0.5),
            bounded_by_gpu_busy: false,
            basis: StepBasis::UnprofiledSteps,
        },
        reach: FixReach::GrowthFromFirstSteps(0.94),
        after_at_most_ms: Some(18.3),
    };
    let en = findings::fix_gain(&gain, En);
    assert!(en.contains("89.1 → 5.4–18.3 ms per step (4.9–17×)"), "{en}");
    assert!(
        en.contains("18.3 ms back at the first tenth's pace, 5.4 ms at the run's first steps'"),
        "{en}"
    );
    let zh = findings::fix_gain(&gain, Zh);
    assert!(zh.contains("89.1 → 5.4–18.3 ms（4.9–17×）"), "{zh}");
    assert!(zh.contains("回到运行最初几步的速度则为 5.4 ms"), "{zh}");
}

#[test]
fn a_stall_says_what_the_gpu_did_only_as_far_as_nvml_saw_it() {
    let stall = |gpu_busy, work| PeriodicStall::Stalls {
        period_steps: 25.0,
        excess_ms: 162.0,
        work,
        gpu_busy,
    };
    let en = |c: &PeriodicStall| crate::causes::periodic_stall::summary(c, En);
    assert!(en(&stall(Some(true), Some(PeriodicWork::Eval)))
        .contains("the GPU runs that work meanwhile, not training."));
    assert!(
        en(&stall(None, Some(PeriodicWork::Eval))).contains("the training waits for it meanwhile.")
    );
    assert!(en(&stall(Some(false), Some(PeriodicWork::Eval)))
        .contains("during it the GPU has nothing to do."));
    assert!(en(&stall(None, Some(PeriodicWork::Checkpoint)))
        .contains("during it the GPU has nothing to do."));
    assert!(crate::causes::periodic_stall::summary(
        &stall(Some(true), Some(PeriodicWork::Eval)),
        Zh
    )
    .contains("期间 GPU 在做这项工作，而不是训练。"));
}

#[test]
fn a_launch_wait_partly_without_launches_is_titled_and_told_as_such() {
    let cause = |launchless| {
        Cause::KernelLaunch(KernelLaunch::TinyKernels {
            hot_lines: Vec::new(),
            kernels_per_step: 63.0,
            median_kernel_us: 5.7,
            compile_floor: None,
            launchless,
        })
    };
    let quiet = finding(cause(Some(LaunchlessHostWork {
        ms_per_step: 2.86,
        share: 0.50,
    })));
    assert_eq!(
        findings::title(&quiet.cause, En),
        "The GPU waits for the host between launches"
    );
    let en = findings::summary(&quiet, En);
    assert!(
        en.starts_with("The GPU waits for the host to launch its work: 63 kernels per step with a median of 5.7 µs each, and 2.9 ms of each step (50%) in which the host made no CUDA call for a millisecond or more"),
        "{en}"
    );
    assert!(
        en.contains("which compiling the model leaves as it is"),
        "{en}"
    );
    let zh = findings::summary(&quiet, Zh);
    assert!(
        zh.contains("另有每步 2.9 ms（50%）主机连续一毫秒以上没有任何 CUDA 调用"),
        "{zh}"
    );
    // Without it, the launch overhead it always was.
    let plain = finding(cause(None));
    assert_eq!(
        findings::title(&plain.cause, En),
        "Kernel launch overhead: many tiny kernels"
    );
    assert!(findings::summary(&plain, En).starts_with("The host cannot launch kernels as fast"));
}

#[test]
fn a_thread_that_mostly_waits_is_said_to_use_hundredths_of_a_core_not_none() {
    // `probe_growing_folder_loader_hot`: the training thread used 1.9 s of CPU in 49 s.
    let waiting = HostLine {
        thread_cores: 0.038,
        ..host_line(
            ThreadRole::Training,
            "",
            "/w/train.py",
            49,
            "open(path, \"w\").close()",
            "",
        )
    };
    let en = crate::causes::shared::hot_lines(std::slice::from_ref(&waiting), En);
    assert!(
        en.starts_with(" The training thread used 0.04 of a core: 91% at train.py:49"),
        "{en}"
    );
    let zh = crate::causes::shared::hot_lines(&[waiting], Zh);
    assert!(zh.starts_with("训练线程使用了 0.04 个核心"), "{zh}");
}
