//! Each part of the run's time ledger tied to the finding that explains it and says what to
//! do about it.

use checkup_model::{
    Cause, Family, Finding, KernelClass, KernelLaunch, LedgerKind, MarkerKind, Slowdown, TimeLedger,
};

/// The findings that take up a part of the ledger, most fitting first.
fn families(kind: LedgerKind) -> &'static [Family] {
    use Family as F;
    match kind {
        LedgerKind::GpuCompute(KernelClass::Elementwise) => &[F::MemoryBandwidth, F::ComputeBound],
        LedgerKind::GpuCompute(_) => &[F::ComputeBound, F::MemoryBandwidth],
        LedgerKind::Copies => &[F::H2dCopy],
        LedgerKind::ExposedCommunication => &[F::Communication],
        LedgerKind::LaunchGaps => &[F::KernelLaunch],
        // The host late: launching, calling the allocator (a host-sync cause), or held in a
        // copy from pageable memory.
        LedgerKind::HostLate => &[F::KernelLaunch, F::HostSync, F::H2dCopy],
        LedgerKind::HostLaunchless => &[F::KernelLaunch],
        LedgerKind::SyncIdle => &[F::HostSync],
        LedgerKind::DataWait => &[F::DataLoading],
        LedgerKind::Periodic(MarkerKind::Compile) => &[F::Compilation],
        LedgerKind::Periodic(_) => &[F::PeriodicStall],
        LedgerKind::SlowSteps => &[F::Slowdown, F::PeriodicStall],
        LedgerKind::NotExplained => &[F::GpuIdle],
        // The run's own start and the checkup's profiler: nothing to fix in the training.
        LedgerKind::WarmUp | LedgerKind::Profiler => &[],
    }
}

/// `ledger` with each part's finding, where the diagnosis has one of its families; periodic
/// work no stall finding took goes to the finding that says it grows, if one does, and idle
/// after syncs no host-sync finding took to anomaly detection, whose NaN checks they are.
pub fn link(mut ledger: TimeLedger, findings: &[Finding]) -> TimeLedger {
    for part in &mut ledger.parts {
        let grows = |f: &Finding| match f.cause {
            Cause::Slowdown(Slowdown::PeriodicGrows { work, .. }) => Some(work),
            _ => None,
        };
        part.finding = families(part.kind)
            .iter()
            .find_map(|family| {
                findings
                    .iter()
                    .position(|f| f.family() == *family && grows(f).is_none())
            })
            .or_else(|| match part.kind {
                LedgerKind::Periodic(kind) => findings.iter().position(|f| grows(f) == Some(kind)),
                LedgerKind::SyncIdle => findings.iter().position(|f| {
                    matches!(
                        f.cause,
                        Cause::KernelLaunch(KernelLaunch::AnomalyDetection { .. })
                    )
                }),
                _ => None,
            });
    }
    ledger
}
