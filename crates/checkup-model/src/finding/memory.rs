//! Memory: GPU or host memory creeping up, close to the card's capacity, or fragmented.

causes! {
    /// GPU memory: creeping up, close to the card's capacity, or fragmented; and the
    /// training's host memory creeping up.
    pub enum Memory {
        /// Memory in live tensors keeps growing step after step: from and to (GiB), how fast,
        /// and when the card would be full at that pace (minutes from the recording's end).
        Creep {
            /// Live tensors at the start, GiB.
            from_gib: f64,
            /// Live tensors at the end, GiB.
            to_gib: f64,
            /// Growth per minute, GiB.
            gib_per_min: f64,
            /// The card's memory, GiB.
            capacity_gib: f64,
            /// Minutes from the recording's end until the card is full at that pace.
            full_in_min: Option<f64>,
        } => "memory/creep",
        /// The GPU's memory at its peak was close to its capacity: the batch size is set by
        /// memory. `others_gib`: what other processes held on the same GPU then.
        NearLimit {
            /// Memory in use at the peak, GiB.
            peak_gib: f64,
            /// The card's memory, GiB.
            capacity_gib: f64,
            /// What other processes held on the GPU then, GiB.
            others_gib: f64,
        } => "memory/near_limit",
        /// The training processes' host memory keeps growing over the run: from and to (MiB,
        /// the first and last tenth of its steps), and how fast.
        HostCreep {
            /// In the first tenth of the steps, MiB.
            from_mib: f64,
            /// In the last tenth, MiB.
            to_mib: f64,
            /// Growth per minute, MiB.
            mib_per_min: f64,
        } => "memory/host_creep",
        /// The caching allocator holds far more than the tensors ever needed at once: memory
        /// split into blocks of the wrong sizes. `retries`: cache flushes after a failed
        /// allocation.
        Fragmented {
            /// What the allocator reserved, GiB.
            reserved_gib: f64,
            /// The most live tensors held at once, GiB.
            peak_allocated_gib: f64,
            /// Cache flushes after a failed allocation.
            retries: u64,
        } => "memory/fragmented",
    }
}
