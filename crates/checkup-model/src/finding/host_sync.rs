//! Host synchronisation: the host waits for the GPU inside the step, and the GPU idles.

causes! {
    /// The host waits for the GPU (`.item()`, `.cpu()`, synchronise) and the GPU then idles.
    pub enum HostSync {
        /// The host synchronises with the GPU inside the step and the GPU idles meanwhile.
        Readbacks => "host_sync",
        /// The caching allocator asks the driver for device memory in every step
        /// (`cudaMalloc`, `cudaFree`; its cache emptied, or caching turned off): `cudaFree`
        /// waits for the whole GPU, and the GPU idles while the host allocates and launches
        /// again.
        Allocator {
            /// `cudaMalloc` / `cudaFree` calls per step.
            calls_per_step: f64,
        } => "host_sync/allocator",
    }
}

keyed! {
    tag = "key";
    /// What the `host_sync` family's findings measure.
    #[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
    pub enum HostSyncEvidence {
        /// GPU idle after a host synchronisation (share of step).
        SyncIdleShare => "sync_idle_share",
        /// Synchronising CUDA calls per step.
        SyncCallsPerStep => "sync_calls_per_step",
        /// Synchronising calls per step the probe counted, outside the profiler.
        ProbeSyncsPerStep => "probe_syncs_per_step",
        /// Of them, the share made by the busiest line.
        TopSyncSiteShare => "top_sync_site_share",
        /// Aten::item / _local_scalar_dense per step.
        ItemCallsPerStep => "item_calls_per_step",
        /// GPU idle while the driver allocated or freed device memory and while the
        /// host launched into the queue that drained, share of step.
        AllocIdleShare => "alloc_idle_share",
        /// `cudaMalloc` / `cudaFree` calls per step.
        AllocCallsPerStep => "alloc_calls_per_step",
        /// Host time in those calls per step.
        AllocHostTimePerStep => "alloc_host_time_per_step",
        /// `torch.cuda.empty_cache()` calls per step, as the probe counted them.
        EmptyCacheCallsPerStep => "empty_cache_calls_per_step",
        /// Host time to launch a step, outside syncs.
        HostLaunchTime => "host_launch_time",
        /// GPU busy time per step.
        GpuBusyPerStep => "gpu_busy_per_step",
        /// The host's own work per step at unprofiled speed, at most: what the step would
        /// take without the syncs, were the host the limit.
        UnprofiledHostWork => "unprofiled_host_work",
        /// The host's other work per step at unprofiled speed, at most, without its time in
        /// the driver's allocation calls: what the step would take without them, were the
        /// host the limit.
        HostWorkBesideAllocator => "host_work_beside_allocator",
    }
}

keyed! {
    tag = "fix";
    /// The changes the `host_sync` family's findings propose.
    #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
    pub enum HostSyncFix {
        /// Stop reading GPU values back inside the step, at the line that does it most.
        FewerReadbacks {
            /// The line that synchronises most, when the probe saw it.
            #[serde(default)]
            site: Option<crate::SyncSite>,
            /// Its calls per step.
            #[serde(default)]
            site_per_step: Option<f64>,
        } => "fewer_readbacks",
        /// Keep the caching allocator's memory between steps: take `torch.cuda.empty_cache()` out
        /// of the loop (at its line, when the probe saw it), or turn caching back on.
        KeepAllocatorCache {
            /// The line that empties the cache most, when the probe saw it.
            #[serde(default)]
            site: Option<crate::SyncSite>,
            /// `torch.cuda.empty_cache()` calls per step, when the probe counted them.
            #[serde(default)]
            calls_per_step: Option<f64>,
            /// `PYTORCH_NO_CUDA_MEMORY_CACHING` is set in the run's environment.
            #[serde(default)]
            caching_off: bool,
        } => "keep_allocator_cache",
        /// The line that synchronises most copies a host tensor to the GPU from pageable
        /// memory: copy it from pinned memory without waiting, at that line, every step.
        AsyncCopyAtLine {
            /// The line.
            site: crate::SyncSite,
            /// Its calls per step.
            site_per_step: f64,
        } => "async_copy_at_line",
        /// The line that synchronises most reads values back to order them on the host, and
        /// the step uses that order: sort on the GPU at that line, every step.
        SortOnGpuAtLine {
            /// The line.
            site: crate::SyncSite,
            /// Its calls per step.
            site_per_step: f64,
        } => "sort_on_gpu_at_line",
        /// Compute metrics on the GPU.
        GpuMetrics => "gpu_metrics",
        /// Find hidden syncs.
        FindHiddenSyncs => "find_hidden_syncs",
    }
}
