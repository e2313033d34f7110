//! One collector per data source: NVML/GPM (behind the `nvml` feature), the host, and a
//! recorded run played back in their place.

pub mod host;
#[cfg(feature = "nvml")]
pub mod nvml;
pub mod replay;
