//! Host-to-device copies not hidden behind compute.

causes! {
    /// Host-to-device copies not hidden behind compute.
    pub enum H2dCopy {
        /// Exposed host-to-device copies.
        Exposed => "h2d_copy",
        /// Exposed host-to-device copies from pageable memory.
        Pageable => "h2d_copy/pageable",
    }
}

keyed! {
    tag = "key";
    /// What the `h2d_copy` family's findings measure.
    #[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
    pub enum H2dCopyEvidence {
        /// Host-to-device copies not hidden by compute (share of step).
        ExposedH2dShare => "exposed_h2d_share",
        /// Pageable host-to-device copy time per step.
        PageableH2dPerStep => "pageable_h2d_per_step",
        /// Pinned host-to-device copy time per step.
        PinnedH2dPerStep => "pinned_h2d_per_step",
        /// Pageable copy bandwidth.
        PageableBandwidth => "pageable_bandwidth",
        /// Pageable bytes copied per step.
        PageableBytesPerStep => "pageable_bytes_per_step",
        /// Host time per step held inside the pageable copies' calls.
        PageableCopyHostPerStep => "pageable_copy_host_per_step",
        /// The host's other work per step at unprofiled speed, at most: the step's length
        /// were the copies no longer to hold it, if the host were the limit.
        HostWorkBesideCopies => "host_work_beside_copies",
    }
}

keyed! {
    tag = "fix";
    /// The changes the `h2d_copy` family's findings propose.
    #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
    pub enum H2dCopyFix {
        /// Copy from pinned memory, asynchronously.
        PinnedCopy => "pinned_copy",
        /// Overlap the next batch's copy with this step's compute.
        OverlapCopy => "overlap_copy",
        /// Send fewer bytes.
        FewerCopyBytes => "fewer_copy_bytes",
    }
}
