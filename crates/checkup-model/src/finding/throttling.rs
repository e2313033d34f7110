//! Throttling: clocks held down by power or temperature.

causes! {
    /// Clocks held down by power or temperature.
    pub enum Throttling {
        /// Clocks held down by the power limit.
        Power {
            /// The SM clock while busy, share of its maximum.
            clock_ratio: f64,
            /// NVML clock-event reason names, as NVML spells them.
            reasons: Vec<String>,
        } => "throttling/power",
        /// Clocks held down by temperature.
        Thermal {
            /// The SM clock while busy, share of its maximum.
            clock_ratio: f64,
            /// NVML clock-event reason names, as NVML spells them.
            reasons: Vec<String>,
        } => "throttling/thermal",
    }
}
