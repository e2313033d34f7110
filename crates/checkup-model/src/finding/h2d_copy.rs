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
