//! NVML and GPM sampling of every GPU, and the GPUs' static facts.

use checkup_model::{ClockEventReasons, GpmSample, GpuProcessSample, GpuStatic, NvmlSample};
use nvml_wrapper::enum_wrappers::device::{
    Clock, EccCounter, MemoryError, PcieUtilCounter, TemperatureSensor, TemperatureThreshold,
};
use nvml_wrapper::enums::device::UsedGpuMemory;
use nvml_wrapper::enums::gpm::GpmMetricId;
use nvml_wrapper::error::NvmlError;
use nvml_wrapper::gpm::{gpm_metrics_get, GpmSample as NvGpmSample};
use nvml_wrapper::{Device, Nvml};

use crate::error::{AgentError, Result};

/// GPM metrics recorded, in `samples_gpm.csv` column order.
const GPM_METRICS: [GpmMetricId; 16] = [
    GpmMetricId::GraphicsUtil,
    GpmMetricId::SmUtil,
    GpmMetricId::SmOccupancy,
    GpmMetricId::IntegerUtil,
    GpmMetricId::AnyTensorUtil,
    GpmMetricId::DfmaTensorUtil,
    GpmMetricId::HmmaTensorUtil,
    GpmMetricId::ImmaTensorUtil,
    GpmMetricId::DramBwUtil,
    GpmMetricId::Fp64Util,
    GpmMetricId::Fp32Util,
    GpmMetricId::Fp16Util,
    GpmMetricId::PcieTxPerSec,
    GpmMetricId::PcieRxPerSec,
    GpmMetricId::NvlinkTotalRxPerSec,
    GpmMetricId::NvlinkTotalTxPerSec,
];

/// Metrics computed at every GPM sample, by index into [`GPM_METRICS`]: all but graphics
/// utilisation. Measured on an H200 (CPU per metric and GPU): graphics util 1.5 ms, DRAM
/// bandwidth 98 µs, every other metric about 1 µs. Graphics util (close to SM active anyway)
/// is computed only every `FULL_EVERY` GPM samples (a minute at the default 1 Hz).
const GPM_CORE: [usize; 15] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15];
const FULL_EVERY: u64 = 60;

/// Reads NVML (and GPM where the GPU has it) for every GPU, on the agent's sampling tiers.
pub struct NvmlCollector {
    /// Boxed so its address never changes: device handles and GPM samples point at it.
    nvml: Box<Nvml>,
    /// Handles looked up once: a lookup per GPU per tick was a third of the tick's cost.
    devices: Vec<Device<'static>>,
    count: u32,
    /// Previous GPM sample per GPU: GPM metrics are rates between two samples.
    gpm_prev: Vec<Option<NvGpmSample<'static>>>,
    gpm_supported: Vec<bool>,
    ticks: u64,
    gpm_ticks: u64,
    /// Max SM clock per GPU, read once: the query costs 1.7 ms of CPU.
    max_sm_clock: Vec<Option<f64>>,
    tiers: Tiers,
    /// The driver's GPU-Util update period, seconds (measured once).
    util_period_s: f64,
}

/// Every how many ticks each group of readings is taken (see [`NvmlCollector::sample`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tiers {
    /// GPU-Util and power.
    pub util: u64,
    /// Memory, temperature, clock-event reasons.
    pub medium: u64,
    /// Power limit, memory clock, P-state, PCIe.
    pub slow: u64,
}

impl Tiers {
    /// For a tick rate `hz` and the driver's GPU-Util update period: utilisation is read
    /// once per driver update (faster reads return the same figure; H200: 200 ms); power with
    /// it (since Ampere NVML reports power averaged over one second); the medium group about
    /// every half second on a utilisation tick, so a reasons reading sits next to a
    /// utilisation one; the slow group every second.
    pub fn for_rate(hz: f64, util_period_s: f64) -> Self {
        let hz = hz.max(0.1);
        let util = ((util_period_s * hz).round() as u64).max(1);
        let medium = util * (((0.5 * hz) / util as f64).round() as u64).max(1);
        let slow = (hz.round() as u64).max(1);
        Self { util, medium, slow }
    }
}

/// NVML documents GPU-Util's period as between 1/6 s and 1 s depending on the product.
const UTIL_PERIOD_FALLBACK_S: f64 = 1.0 / 6.0;

/// The driver's GPU-Util update period, from the spacing of its sample buffer.
fn util_period(d: &Device) -> Option<f64> {
    let samples = d
        .samples(
            nvml_wrapper::enum_wrappers::device::Sampling::GpuUtilization,
            None,
        )
        .ok()?;
    let mut gaps: Vec<u64> = samples
        .windows(2)
        .map(|w| w[1].timestamp.saturating_sub(w[0].timestamp))
        .filter(|g| *g > 0)
        .collect();
    gaps.sort_unstable();
    gaps.get(gaps.len() / 2)
        .map(|us| *us as f64 / 1e6)
        .filter(|s| (0.01..=2.0).contains(s))
}

fn nvml_err(e: NvmlError) -> AgentError {
    AgentError::Nvml(e.to_string())
}

impl NvmlCollector {
    /// Loads NVML; an error says whether the driver is missing or NVML failed.
    pub fn new() -> Result<Self> {
        let nvml = Nvml::init().map_err(|e| match e {
            NvmlError::LibloadingError(_)
            | NvmlError::LibraryNotFound
            | NvmlError::DriverNotLoaded => {
                AgentError::NoDriver(format!("libnvidia-ml.so.1 could not be loaded ({e})"))
            }
            other => nvml_err(other),
        })?;
        let nvml = Box::new(nvml);
        let count = nvml.device_count().map_err(nvml_err)?;
        let mut devices = Vec::with_capacity(count as usize);
        for i in 0..count {
            let d = nvml.device_by_index(i).map_err(nvml_err)?;
            // SAFETY of the lifetime extension: handles borrow the boxed `Nvml`, whose address
            // is stable and which outlives them (`Drop` clears them first).
            devices.push(unsafe { std::mem::transmute::<Device<'_>, Device<'static>>(d) });
        }
        let gpm_supported = devices
            .iter()
            .map(|d| d.gpm_support().unwrap_or(false))
            .collect();
        Ok(Self {
            nvml,
            devices,
            count,
            gpm_prev: (0..count).map(|_| None).collect(),
            gpm_supported,
            ticks: 0,
            gpm_ticks: 0,
            max_sm_clock: Vec::new(),
            tiers: Tiers::for_rate(10.0, UTIL_PERIOD_FALLBACK_S),
            util_period_s: UTIL_PERIOD_FALLBACK_S,
        })
    }

    /// Plans the reading tiers for ticks at `hz` (measures the driver's GPU-Util period
    /// once: one buffer read, ~2 ms).
    pub fn set_rate(&mut self, hz: f64) -> Tiers {
        if let Some(p) = self.devices.first().and_then(util_period) {
            self.util_period_s = p;
        }
        self.tiers = Tiers::for_rate(hz, self.util_period_s);
        self.tiers
    }

    /// How often the driver updates GPU-Util (seconds), as measured at start.
    pub fn util_period_s(&self) -> f64 {
        self.util_period_s
    }

    /// The GPUs NVML sees.
    pub fn gpu_count(&self) -> u32 {
        self.count
    }

    /// Whether any GPU supports GPM metrics.
    pub fn gpm_supported(&self) -> bool {
        self.gpm_supported.iter().any(|s| *s)
    }

    /// The driver's version, as NVML reports it.
    pub fn driver_version(&self) -> Option<String> {
        self.nvml.sys_driver_version().ok()
    }

    /// "13.0" from NVML's 13000.
    pub fn cuda_driver_version(&self) -> Option<String> {
        self.nvml
            .sys_cuda_driver_version()
            .ok()
            .map(|v| format!("{}.{}", v / 1000, (v % 1000) / 10))
    }

    /// One NVML reading of each GPU, at the cost the agent can afford at 10 Hz (measured on
    /// an H200, CPU per call: utilisation 20 µs, power 12 µs, SM clock 5 µs, clock-event
    /// reasons 3.5 µs, memory 8 µs, temperature 5 µs; but max SM clock 1.7 ms and PCIe
    /// throughput 0.8 ms). The SM clock (instantaneous) comes every tick; the other readings
    /// at the rates of [`Tiers`]; the max SM clock once. Readings not taken are empty cells.
    pub fn sample(&mut self, ts: f64) -> Vec<NvmlSample> {
        let Tiers {
            util: util_every,
            medium: medium_every,
            slow: slow_every,
        } = self.tiers;
        let tick = self.ticks;
        self.ticks += 1;
        let fast = tick.is_multiple_of(util_every);
        let medium = tick.is_multiple_of(medium_every);
        let slow = tick.is_multiple_of(slow_every);
        let pcie = slow && !self.gpm_supported();
        if self.max_sm_clock.is_empty() {
            self.max_sm_clock = self
                .devices
                .iter()
                .map(|d| d.max_clock_info(Clock::SM).ok().map(f64::from))
                .collect();
        }
        (0..self.count)
            .zip(&self.devices)
            .map(|(i, d)| {
                let util = fast.then(|| d.utilization_rates().ok()).flatten();
                let mem = medium.then(|| d.memory_info().ok()).flatten();
                NvmlSample {
                    ts,
                    gpu: i,
                    util_gpu: util.as_ref().map(|u| u.gpu as f64),
                    util_mem: util.as_ref().map(|u| u.memory as f64),
                    mem_used_mib: mem.as_ref().map(|m| (m.used / (1024 * 1024)) as f64),
                    mem_total_mib: mem.as_ref().map(|m| (m.total / (1024 * 1024)) as f64),
                    temp_c: medium
                        .then(|| d.temperature(TemperatureSensor::Gpu).ok().map(f64::from))
                        .flatten(),
                    power_w: fast
                        .then(|| d.power_usage().ok().map(|mw| mw as f64 / 1000.0))
                        .flatten(),
                    power_limit_w: slow
                        .then(|| d.enforced_power_limit().ok().map(|mw| mw as f64 / 1000.0))
                        .flatten(),
                    sm_clock_mhz: d.clock_info(Clock::SM).ok().map(f64::from),
                    sm_clock_max_mhz: self.max_sm_clock.get(i as usize).copied().flatten(),
                    mem_clock_mhz: slow
                        .then(|| d.clock_info(Clock::Memory).ok().map(f64::from))
                        .flatten(),
                    pcie_tx_kbs: pcie
                        .then(|| d.pcie_throughput(PcieUtilCounter::Send).ok().map(f64::from))
                        .flatten(),
                    pcie_rx_kbs: pcie
                        .then(|| {
                            d.pcie_throughput(PcieUtilCounter::Receive)
                                .ok()
                                .map(f64::from)
                        })
                        .flatten(),
                    clock_event_reasons: medium
                        .then(|| {
                            d.current_throttle_reasons()
                                .ok()
                                .map(|r| ClockEventReasons(r.bits()))
                        })
                        .flatten(),
                    pstate: slow
                        .then(|| d.performance_state().ok().map(|p| p.as_c()))
                        .flatten(),
                }
            })
            .collect()
    }

    /// GPU memory of each compute process on each GPU (one driver query per GPU).
    pub fn sample_processes(&self, ts: f64) -> Vec<GpuProcessSample> {
        let mut out = Vec::new();
        for (i, d) in (0..self.count).zip(&self.devices) {
            let Ok(processes) = d.running_compute_processes() else {
                continue;
            };
            out.extend(processes.into_iter().map(|p| GpuProcessSample {
                ts,
                gpu: i,
                pid: p.pid,
                used_mib: match p.used_gpu_memory {
                    UsedGpuMemory::Used(bytes) => Some((bytes / (1024 * 1024)) as f64),
                    UsedGpuMemory::Unavailable => None,
                },
            }));
        }
        out
    }

    /// GPM rates since the previous call, per GPU that supports GPM. The first call per GPU
    /// only takes the opening sample.
    pub fn sample_gpm(&mut self, ts: f64) -> Vec<GpmSample> {
        let mut out = Vec::new();
        for i in 0..self.count {
            if !self.gpm_supported[i as usize] {
                continue;
            }
            let Ok(now) = self.devices[i as usize].gpm_sample() else {
                continue;
            };
            // SAFETY of the lifetime extension: samples borrow the boxed `Nvml`, whose address
            // is stable and which outlives them (`Drop` clears them first).
            let now: NvGpmSample<'static> = unsafe { std::mem::transmute(now) };
            if let Some(prev) = self.gpm_prev[i as usize].take() {
                let full = self.gpm_ticks.is_multiple_of(FULL_EVERY);
                let wanted: Vec<usize> = if full {
                    (0..GPM_METRICS.len()).collect()
                } else {
                    GPM_CORE.to_vec()
                };
                let ids: Vec<GpmMetricId> = wanted.iter().map(|&k| GPM_METRICS[k]).collect();
                if let Ok(results) = gpm_metrics_get(&self.nvml, &prev, &now, &ids) {
                    let mut v: Vec<Option<f64>> = vec![None; GPM_METRICS.len()];
                    for (k, r) in wanted.iter().zip(results) {
                        v[*k] = r.ok().map(|m| (m.value * 1000.0).round() / 1000.0);
                    }
                    let g = |k: usize| v.get(k).copied().flatten();
                    out.push(GpmSample {
                        ts,
                        gpu: i,
                        graphics_util: g(0),
                        sm_util: g(1),
                        sm_occupancy: g(2),
                        integer_util: g(3),
                        any_tensor_util: g(4),
                        dfma_tensor_util: g(5),
                        hmma_tensor_util: g(6),
                        imma_tensor_util: g(7),
                        dram_bw_util: g(8),
                        fp64_util: g(9),
                        fp32_util: g(10),
                        fp16_util: g(11),
                        pcie_tx_mibs: g(12),
                        pcie_rx_mibs: g(13),
                        nvlink_rx_mibs: g(14),
                        nvlink_tx_mibs: g(15),
                    });
                }
            }
            self.gpm_prev[i as usize] = Some(now);
        }
        self.gpm_ticks += 1;
        out
    }

    /// Static facts of each GPU: what `nvidia-smi -q` would say.
    pub fn static_facts(&self) -> Vec<GpuStatic> {
        (0..self.count)
            .zip(&self.devices)
            .map(|(i, d)| GpuStatic {
                index: i,
                name: d.name().ok(),
                persistence_mode: d.is_in_persistent_mode().ok(),
                mig_enabled: d.mig_mode().ok().map(|m| m.current == 1),
                ecc_enabled: d.is_ecc_enabled().ok().map(|e| e.currently_enabled),
                ecc_uncorrected_volatile: d
                    .total_ecc_errors(MemoryError::Uncorrected, EccCounter::Volatile)
                    .ok(),
                retired_pages_pending: None,
                remapping_pending: None,
                pcie_gen_current: d.current_pcie_link_gen().ok(),
                pcie_gen_max: d.max_pcie_link_gen().ok(),
                pcie_width_current: d.current_pcie_link_width().ok(),
                pcie_width_max: d.max_pcie_link_width().ok(),
                power_limit_w: d.enforced_power_limit().ok().map(|mw| mw as f64 / 1000.0),
                default_power_limit_w: d
                    .power_management_limit_default()
                    .ok()
                    .map(|mw| mw as f64 / 1000.0),
                sm_clock_max_mhz: d.max_clock_info(Clock::SM).ok().map(f64::from),
                clock_event_reasons_active: d
                    .current_throttle_reasons()
                    .ok()
                    .map(|r| {
                        ClockEventReasons(r.bits())
                            .names()
                            .into_iter()
                            .map(str::to_owned)
                            .collect()
                    })
                    .unwrap_or_default(),
                other_processes: d
                    .running_compute_processes()
                    .map(|p| p.len() as u32)
                    .unwrap_or(0),
                temp_slowdown_c: d
                    .temperature_threshold(TemperatureThreshold::Slowdown)
                    .ok()
                    .map(f64::from),
            })
            .collect()
    }

    /// Processes using each GPU: (gpu, pid, used MiB).
    pub fn gpu_processes(&self) -> Vec<(u32, u32, Option<u64>)> {
        let mut out = Vec::new();
        for (i, d) in (0..self.count).zip(&self.devices) {
            for p in d.running_compute_processes().unwrap_or_default() {
                let used = match p.used_gpu_memory {
                    nvml_wrapper::enums::device::UsedGpuMemory::Used(b) => Some(b / (1024 * 1024)),
                    nvml_wrapper::enums::device::UsedGpuMemory::Unavailable => None,
                };
                out.push((i, p.pid, used));
            }
        }
        out
    }
}

impl Drop for NvmlCollector {
    fn drop(&mut self) {
        // Samples and handles must go before the library they borrow.
        self.gpm_prev.clear();
        self.devices.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::Tiers;

    #[test]
    fn utilisation_is_read_once_per_driver_update_and_reasons_sit_on_utilisation_ticks() {
        // H200: GPU-Util updates every 200 ms.
        assert_eq!(
            Tiers::for_rate(10.0, 0.2),
            Tiers {
                util: 2,
                medium: 6,
                slow: 10
            }
        );
        // A driver updating every 1/6 s, sampled at 10 Hz: every other tick.
        assert_eq!(Tiers::for_rate(10.0, 1.0 / 6.0).util, 2);
        // Slow tick rates read everything every tick.
        assert_eq!(
            Tiers::for_rate(1.0, 0.2),
            Tiers {
                util: 1,
                medium: 1,
                slow: 1
            }
        );
        let t = Tiers::for_rate(20.0, 0.2);
        assert_eq!(t.medium % t.util, 0);
    }
}
