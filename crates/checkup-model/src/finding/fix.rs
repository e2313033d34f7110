//! Fixes: the changes a finding proposes, each with the run's own values.

use super::{
    CommunicationFix, CompilationFix, ComputeBoundFix, DataLoadingFix, EnvironmentFix, H2dCopyFix,
    HostSyncFix, KernelLaunchFix, MemoryBandwidthFix, MemoryFix, PeriodicStallFix, SharedFix,
    SlowdownFix, ThrottlingFix,
};

by_family! {
    tag = "fix", what = "fix";
    /// A change to make, with the run's own values it quotes, by the family that proposes it. The catalogue words it (title, why, the code to paste, the effect to expect).
    #[derive(Debug, Clone, PartialEq)]
    pub enum Fix {
        /// The `data_loading` family's.
        DataLoading(DataLoadingFix),
        /// The `kernel_launch` family's.
        KernelLaunch(KernelLaunchFix),
        /// The `host_sync` family's.
        HostSync(HostSyncFix),
        /// The `h2d_copy` family's.
        H2dCopy(H2dCopyFix),
        /// The `communication` family's.
        Communication(CommunicationFix),
        /// The `periodic_stall` family's.
        PeriodicStall(PeriodicStallFix),
        /// The `throttling` family's.
        Throttling(ThrottlingFix),
        /// The `compute_bound` family's.
        ComputeBound(ComputeBoundFix),
        /// The `memory_bandwidth` family's.
        MemoryBandwidth(MemoryBandwidthFix),
        /// The `slowdown` family's.
        Slowdown(SlowdownFix),
        /// The `memory` family's.
        Memory(MemoryFix),
        /// The `environment` family's.
        Environment(EnvironmentFix),
        /// The `compilation` family's.
        Compilation(CompilationFix),
        /// Shared by several families.
        Shared(SharedFix),
    }
}

impl Fix {
    /// Whether this fix measures more rather than changes the training (profile some steps,
    /// make syncs warn): there is nothing to re-run and compare after it.
    pub fn is_investigation(&self) -> bool {
        matches!(
            self,
            Fix::Shared(SharedFix::ProfileSteps) | Fix::HostSync(HostSyncFix::FindHiddenSyncs)
        )
    }
}
