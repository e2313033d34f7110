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

keyed! {
    tag = "key";
    /// What the `throttling` family's findings measure.
    #[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
    pub enum ThrottlingEvidence {
        /// Busy samples with a throttling clock-event reason.
        ThrottledSamples => "throttled_samples",
        /// SM clock while busy, share of max.
        SmClockRatio => "sm_clock_ratio",
        /// Power draw, share of limit.
        PowerShareOfLimit => "power_share_of_limit",
        /// Peak GPU temperature.
        PeakTemp => "peak_temp",
    }
}

keyed! {
    tag = "fix";
    /// The changes the `throttling` family's findings propose.
    #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
    pub enum ThrottlingFix {
        /// Cool the GPU.
        CoolGpu => "cool_gpu",
        /// Check the power limit and power delivery.
        CheckPower => "check_power",
    }
}
