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
