//! One collector per data source: NVML/GPM (behind the `nvml` feature) and the host.

pub mod host;
#[cfg(feature = "nvml")]
pub mod nvml;
