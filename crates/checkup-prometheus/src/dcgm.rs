//! DCGM-exporter's metric names and the sample field each one is, in one table read both
//! ways: the reader fills samples from Prometheus, the OpenMetrics writer turns recorded
//! samples back into the metrics DCGM-exporter would have exposed (for backfilling).
//!
//! Units: DCGM's device fields are NVML's (percent, MHz, W, °C, MiB); its profiling fields
//! (`DCGM_FI_PROF_*`) are ratios 0..=1, which the samples keep as percent like GPM's, and
//! bytes per second, which they keep as MiB/s.

use checkup_model::{ClockEventReasons, GpmSample, NvmlSample};

/// Which sample a metric fills.
#[derive(Debug, Clone, Copy)]
pub enum Field {
    /// A field of the NVML reading.
    Nvml {
        /// The field's value in the metric's unit, where the sample has it.
        get: fn(&NvmlSample) -> Option<f64>,
        /// Stores the metric's value in the field.
        set: fn(&mut NvmlSample, f64),
    },
    /// A field of the GPM reading.
    Gpm {
        /// The field's value in the metric's unit, where the sample has it.
        get: fn(&GpmSample) -> Option<f64>,
        /// Stores the metric's value in the field.
        set: fn(&mut GpmSample, f64),
    },
}

/// One DCGM-exporter metric.
#[derive(Debug, Clone, Copy)]
pub struct Metric {
    /// Its Prometheus name.
    pub name: &'static str,
    /// The field it is.
    pub field: Field,
}

const MIB: f64 = 1024.0 * 1024.0;

/// The metrics read, each once. The total memory is `FB_USED + FB_FREE` (see
/// [`FB_FREE`]); the clock-event reasons also come under their older name,
/// [`THROTTLE_REASONS_OLD`].
pub const METRICS: &[Metric] = &[
    Metric {
        name: GPU_UTIL,
        field: Field::Nvml {
            get: |s| s.util_gpu,
            set: |s, v| s.util_gpu = Some(v),
        },
    },
    Metric {
        name: "DCGM_FI_DEV_MEM_COPY_UTIL",
        field: Field::Nvml {
            get: |s| s.util_mem,
            set: |s, v| s.util_mem = Some(v),
        },
    },
    Metric {
        name: "DCGM_FI_DEV_FB_USED",
        field: Field::Nvml {
            get: |s| s.mem_used_mib,
            set: |s, v| s.mem_used_mib = Some(v),
        },
    },
    Metric {
        name: "DCGM_FI_DEV_GPU_TEMP",
        field: Field::Nvml {
            get: |s| s.temp_c,
            set: |s, v| s.temp_c = Some(v),
        },
    },
    Metric {
        name: "DCGM_FI_DEV_POWER_USAGE",
        field: Field::Nvml {
            get: |s| s.power_w,
            set: |s, v| s.power_w = Some(v),
        },
    },
    Metric {
        name: "DCGM_FI_DEV_POWER_MGMT_LIMIT",
        field: Field::Nvml {
            get: |s| s.power_limit_w,
            set: |s, v| s.power_limit_w = Some(v),
        },
    },
    Metric {
        name: "DCGM_FI_DEV_SM_CLOCK",
        field: Field::Nvml {
            get: |s| s.sm_clock_mhz,
            set: |s, v| s.sm_clock_mhz = Some(v),
        },
    },
    Metric {
        name: "DCGM_FI_DEV_MAX_SM_CLOCK",
        field: Field::Nvml {
            get: |s| s.sm_clock_max_mhz,
            set: |s, v| s.sm_clock_max_mhz = Some(v),
        },
    },
    Metric {
        name: "DCGM_FI_DEV_MEM_CLOCK",
        field: Field::Nvml {
            get: |s| s.mem_clock_mhz,
            set: |s, v| s.mem_clock_mhz = Some(v),
        },
    },
    Metric {
        name: THROTTLE_REASONS,
        field: Field::Nvml {
            get: |s| s.clock_event_reasons.map(|r| r.0 as f64),
            set: set_reasons,
        },
    },
    Metric {
        name: "DCGM_FI_PROF_GR_ENGINE_ACTIVE",
        field: Field::Gpm {
            get: |s| s.graphics_util.map(ratio),
            set: |s, v| s.graphics_util = Some(percent(v)),
        },
    },
    Metric {
        name: "DCGM_FI_PROF_SM_ACTIVE",
        field: Field::Gpm {
            get: |s| s.sm_util.map(ratio),
            set: |s, v| s.sm_util = Some(percent(v)),
        },
    },
    Metric {
        name: "DCGM_FI_PROF_SM_OCCUPANCY",
        field: Field::Gpm {
            get: |s| s.sm_occupancy.map(ratio),
            set: |s, v| s.sm_occupancy = Some(percent(v)),
        },
    },
    Metric {
        name: "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE",
        field: Field::Gpm {
            get: |s| s.any_tensor_util.map(ratio),
            set: |s, v| s.any_tensor_util = Some(percent(v)),
        },
    },
    Metric {
        name: "DCGM_FI_PROF_DRAM_ACTIVE",
        field: Field::Gpm {
            get: |s| s.dram_bw_util.map(ratio),
            set: |s, v| s.dram_bw_util = Some(percent(v)),
        },
    },
    Metric {
        name: "DCGM_FI_PROF_PIPE_FP64_ACTIVE",
        field: Field::Gpm {
            get: |s| s.fp64_util.map(ratio),
            set: |s, v| s.fp64_util = Some(percent(v)),
        },
    },
    Metric {
        name: "DCGM_FI_PROF_PIPE_FP32_ACTIVE",
        field: Field::Gpm {
            get: |s| s.fp32_util.map(ratio),
            set: |s, v| s.fp32_util = Some(percent(v)),
        },
    },
    Metric {
        name: "DCGM_FI_PROF_PIPE_FP16_ACTIVE",
        field: Field::Gpm {
            get: |s| s.fp16_util.map(ratio),
            set: |s, v| s.fp16_util = Some(percent(v)),
        },
    },
    Metric {
        name: "DCGM_FI_PROF_PCIE_TX_BYTES",
        field: Field::Gpm {
            get: |s| s.pcie_tx_mibs.map(|m| m * MIB),
            set: |s, v| s.pcie_tx_mibs = Some(v / MIB),
        },
    },
    Metric {
        name: "DCGM_FI_PROF_PCIE_RX_BYTES",
        field: Field::Gpm {
            get: |s| s.pcie_rx_mibs.map(|m| m * MIB),
            set: |s, v| s.pcie_rx_mibs = Some(v / MIB),
        },
    },
    Metric {
        name: "DCGM_FI_PROF_NVLINK_TX_BYTES",
        field: Field::Gpm {
            get: |s| s.nvlink_tx_mibs.map(|m| m * MIB),
            set: |s, v| s.nvlink_tx_mibs = Some(v / MIB),
        },
    },
    Metric {
        name: "DCGM_FI_PROF_NVLINK_RX_BYTES",
        field: Field::Gpm {
            get: |s| s.nvlink_rx_mibs.map(|m| m * MIB),
            set: |s, v| s.nvlink_rx_mibs = Some(v / MIB),
        },
    },
];

/// GPU-Util: the metric whose series say which GPUs and hosts a range has.
pub const GPU_UTIL: &str = "DCGM_FI_DEV_GPU_UTIL";
/// Free framebuffer memory (MiB): with `FB_USED`, the card's memory.
pub const FB_FREE: &str = "DCGM_FI_DEV_FB_FREE";
/// Clock-event reasons, NVML's bitmask (DCGM 3.3 and later).
pub const THROTTLE_REASONS: &str = "DCGM_FI_DEV_CLOCKS_EVENT_REASONS";
/// The same under the name DCGM used before 3.3.
pub const THROTTLE_REASONS_OLD: &str = "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS";

/// The labels DCGM-exporter puts on every GPU metric that name the GPU and its host.
pub mod labels {
    /// The GPU's index on its host.
    pub const GPU: &str = "gpu";
    /// The GPU's model, "NVIDIA H200".
    pub const MODEL: &str = "modelName";
    /// The host the exporter runs on (its node name).
    pub const HOSTNAME: &str = "Hostname";
    /// The exporter's scrape address, which Prometheus adds.
    pub const INSTANCE: &str = "instance";
    /// The driver's version, where the exporter adds it.
    pub const DRIVER: &str = "DCGM_FI_DRIVER_VERSION";
    /// The GPU's UUID.
    pub const UUID: &str = "UUID";
}

fn set_reasons(s: &mut NvmlSample, v: f64) {
    // A bitmask sent as a float: negative or fractional values are not one.
    if v >= 0.0 && v.fract() == 0.0 && v <= u64::MAX as f64 {
        s.clock_event_reasons = Some(ClockEventReasons(v as u64));
    }
}

fn percent(ratio: f64) -> f64 {
    ratio * 100.0
}

fn ratio(percent: f64) -> f64 {
    percent / 100.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_metric_reads_back_what_it_writes_in_the_samples_units() {
        for m in METRICS {
            match m.field {
                Field::Nvml { get, set } => {
                    let mut s = NvmlSample::default();
                    set(&mut s, 42.0);
                    assert_eq!(get(&s), Some(42.0), "{}", m.name);
                }
                Field::Gpm { get, set } => {
                    let mut s = GpmSample::default();
                    set(&mut s, 0.42);
                    let back = get(&s).unwrap();
                    assert!((back - 0.42).abs() < 1e-9, "{}: {back}", m.name);
                }
            }
        }
    }

    #[test]
    fn profiling_ratios_become_percent_and_bytes_become_mib() {
        let mut s = GpmSample::default();
        for m in METRICS {
            if let Field::Gpm { set, .. } = m.field {
                match m.name {
                    "DCGM_FI_PROF_SM_ACTIVE" => set(&mut s, 0.87),
                    "DCGM_FI_PROF_NVLINK_TX_BYTES" => set(&mut s, 2.0 * MIB),
                    _ => {}
                }
            }
        }
        assert!((s.sm_util.unwrap() - 87.0).abs() < 1e-9);
        assert_eq!(s.nvlink_tx_mibs, Some(2.0));
    }

    #[test]
    fn a_reason_mask_that_is_no_bitmask_is_left_out() {
        let mut s = NvmlSample::default();
        set_reasons(&mut s, 4.0);
        assert_eq!(s.clock_event_reasons, Some(ClockEventReasons(4)));
        let mut s = NvmlSample::default();
        set_reasons(&mut s, -1.0);
        set_reasons(&mut s, 2.5);
        assert_eq!(s.clock_event_reasons, None);
    }

    #[test]
    fn no_metric_is_listed_twice() {
        let mut names: Vec<&str> = METRICS.iter().map(|m| m.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), METRICS.len());
    }
}
