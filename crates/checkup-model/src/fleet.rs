//! Several hosts at once (a fleet): the hosts of one job or a list of SSH aliases, each with
//! its agent, watched side by side and their environments compared. What differs between
//! hosts is a fact here ([`HostDifference`]); the catalogue words it.

use serde::{Deserialize, Serialize};

use crate::{ChartSvg, CheckReport, HostInfo, LiveStatus, SampleSet, UiError};

/// Where a fleet's hosts come from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum FleetSource {
    /// SSH aliases or `user@host[:port]`, one per host.
    Hosts {
        /// The hosts, in the order given.
        specs: Vec<String>,
    },
    /// The nodes of a Slurm job, asked of the cluster's login host and reached through it.
    Slurm {
        /// The login host (an alias or `user@host[:port]`).
        login: String,
        /// The job's id.
        job: String,
    },
}

impl FleetSource {
    /// The hosts of a list typed one per line (or separated by spaces or commas), blanks and
    /// repeats dropped, in the order given.
    pub fn from_list(text: &str) -> Self {
        let mut specs: Vec<String> = Vec::new();
        for s in text.split(|c: char| c.is_whitespace() || c == ',') {
            if !s.is_empty() && !specs.iter().any(|x| x == s) {
                specs.push(s.to_owned());
            }
        }
        FleetSource::Hosts { specs }
    }
}

/// One host of a fleet: its agent's health once connected, or why it could not be reached.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FleetHost {
    /// The host as given (alias, `user@host`, or the Slurm node's name).
    pub spec: String,
    /// Its agent, when connected.
    pub info: Option<HostInfo>,
    /// Why it is not connected.
    pub error: Option<UiError>,
}

/// The fleet as connected.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FleetView {
    /// Every host, in the order given (a Slurm job's in `SLURM_NODEID` order).
    pub hosts: Vec<FleetHost>,
    /// The Slurm job the hosts are the nodes of, and its state then (`RUNNING`).
    pub slurm_job: Option<(String, String)>,
}

impl FleetView {
    /// How many hosts answered.
    pub fn connected(&self) -> usize {
        self.hosts.iter().filter(|h| h.info.is_some()).count()
    }
}

/// Each host's environment check, and what stands out between hosts.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FleetEnvironment {
    /// Each connected host's check, in fleet order.
    pub hosts: Vec<HostCheck>,
    /// What differs from the other hosts.
    pub differences: Vec<HostDifference>,
}

/// One host's environment check, or why it did not run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HostCheck {
    /// The host.
    pub host: String,
    /// Its check.
    pub report: Option<CheckReport>,
    /// Why there is none.
    pub error: Option<UiError>,
}

/// Something on one host that its peers do not share, and that can make it the slow one (or
/// the one that fails). Each names the host, the GPU where it is about one, what this host has
/// and what the others have.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum HostDifference {
    /// Persistence mode is off on these GPUs while other hosts keep it on: each new process
    /// waits for the driver to load, and clocks and settings may reset between runs.
    PersistenceOff {
        /// The host.
        host: String,
        /// Its GPUs with persistence off.
        gpus: Vec<u32>,
    },
    /// An older NVIDIA driver than other hosts run: other CUDA and NCCL code.
    OlderDriver {
        /// The host.
        host: String,
        /// Its driver.
        driver: String,
        /// The newest driver among the hosts.
        newest: String,
    },
    /// A GPU's PCIe link runs narrower or at a lower generation than the same GPUs elsewhere.
    SlowerPcieLink {
        /// The host.
        host: String,
        /// The GPU.
        gpu: u32,
        /// Its link generation now.
        gen: u32,
        /// Its lanes now.
        width: u32,
        /// The best generation among the other hosts' GPUs of this model.
        usual_gen: u32,
        /// The most lanes among them.
        usual_width: u32,
    },
    /// A GPU's power limit is lower than the same GPUs' elsewhere.
    LowerPowerLimit {
        /// The host.
        host: String,
        /// The GPU.
        gpu: u32,
        /// Its limit, W.
        limit_w: f64,
        /// The highest limit among the other hosts' GPUs of this model, W.
        usual_w: f64,
    },
    /// Another GPU model than most hosts have.
    OtherGpuModel {
        /// The host.
        host: String,
        /// Its GPU model.
        model: String,
        /// The model most hosts have.
        usual: String,
    },
    /// Another PyTorch in the training's interpreter than most hosts have.
    OtherTorch {
        /// The host.
        host: String,
        /// Its torch.
        torch: String,
        /// The torch most hosts have.
        usual: String,
    },
}

impl HostDifference {
    /// The host it is about.
    pub fn host(&self) -> &str {
        match self {
            HostDifference::PersistenceOff { host, .. }
            | HostDifference::OlderDriver { host, .. }
            | HostDifference::SlowerPcieLink { host, .. }
            | HostDifference::LowerPowerLimit { host, .. }
            | HostDifference::OtherGpuModel { host, .. }
            | HostDifference::OtherTorch { host, .. } => host,
        }
    }
}

/// One GPU of a fleet host at a glance: its latest readings and the last minute's curve.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct GpuGlance {
    /// The GPU's index on its host.
    pub gpu: u32,
    /// GPU-Util, %.
    pub util_pct: Option<f64>,
    /// SM active (GPM), %.
    pub sm_active_pct: Option<f64>,
    /// Power draw, W.
    pub power_w: Option<f64>,
    /// SM clock, MHz.
    pub sm_clock_mhz: Option<f64>,
    /// Memory in use, GiB.
    pub mem_used_gib: Option<f64>,
    /// The throttling clock-event reasons set now (`software power cap`), empty when none.
    pub throttled: Vec<String>,
    /// The last minute's utilisation curves, small.
    pub chart: Option<ChartSvg>,
}

impl GpuGlance {
    /// Each GPU's latest readings in `samples`, GPUs in index order (charts left to draw).
    pub fn latest(samples: &SampleSet) -> Vec<GpuGlance> {
        let mut out: Vec<GpuGlance> = Vec::new();
        for s in &samples.nvml {
            let g = match out.iter_mut().find(|g| g.gpu == s.gpu) {
                Some(g) => g,
                None => {
                    out.push(GpuGlance {
                        gpu: s.gpu,
                        ..Default::default()
                    });
                    out.last_mut().expect("just pushed")
                }
            };
            // Samples come in time order: the last reading of each field is the latest (the
            // agent reads some fields, memory among them, once a second only).
            let keep = |now: Option<f64>, before: Option<f64>| now.or(before);
            g.util_pct = keep(s.util_gpu, g.util_pct);
            g.power_w = keep(s.power_w, g.power_w);
            g.sm_clock_mhz = keep(s.sm_clock_mhz, g.sm_clock_mhz);
            g.mem_used_gib = keep(s.mem_used_mib.map(|m| m / 1024.0), g.mem_used_gib);
            if let Some(r) = s.clock_event_reasons {
                g.throttled = crate::ClockEventReasons(r.0 & crate::ClockEventReasons::THROTTLING)
                    .names()
                    .into_iter()
                    .map(String::from)
                    .collect();
            }
        }
        for s in &samples.gpm {
            if let Some(g) = out.iter_mut().find(|g| g.gpu == s.gpu) {
                g.sm_active_pct = s.sm_util.or(g.sm_active_pct);
            }
        }
        out.sort_by_key(|g| g.gpu);
        out
    }
}

/// One host during a fleet watch.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct HostLive {
    /// The host.
    pub host: String,
    /// Where its sampling stands.
    pub status: LiveStatus,
    /// Samples received from it.
    pub samples: u64,
    /// Its GPUs.
    pub gpus: Vec<GpuGlance>,
    /// The checkup its samples were stored as, once analysed.
    pub checkup_id: Option<i64>,
    /// Why its sampling stopped.
    pub error: Option<UiError>,
}

/// What a fleet watch reports about once a second: every host's GPUs.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FleetProgress {
    /// Seconds since it started.
    pub elapsed_s: f64,
    /// Planned length.
    pub total_s: f64,
    /// Every host, in fleet order.
    pub hosts: Vec<HostLive>,
    /// Whether the watch has ended (every host analysed or failed).
    pub done: bool,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ClockEventReasons, GpmSample, NvmlSample};

    #[test]
    fn a_typed_host_list_keeps_its_order_and_drops_blanks_and_repeats() {
        assert_eq!(
            FleetSource::from_list("node-2\n node-1,node-2\n\n  gpu@10.0.0.3:2222 "),
            FleetSource::Hosts {
                specs: vec!["node-2".into(), "node-1".into(), "gpu@10.0.0.3:2222".into()]
            }
        );
    }

    #[test]
    fn a_glance_holds_each_gpu_s_latest_reading_of_each_field_and_only_its_throttling_reasons() {
        let nvml = |ts, gpu, util, reasons| NvmlSample {
            ts,
            gpu,
            util_gpu: Some(util),
            power_w: Some(100.0 + util),
            mem_used_mib: Some(2048.0),
            clock_event_reasons: Some(ClockEventReasons(reasons)),
            ..Default::default()
        };
        let samples = SampleSet {
            nvml: vec![
                nvml(1.0, 1, 10.0, 0),
                nvml(1.0, 0, 20.0, 0),
                nvml(2.0, 1, 90.0, ClockEventReasons::SW_POWER_CAP | 0x1),
                nvml(2.0, 0, 30.0, ClockEventReasons::GPU_IDLE),
                // A fast row: utilisation only.
                NvmlSample {
                    ts: 2.1,
                    gpu: 1,
                    util_gpu: Some(95.0),
                    ..Default::default()
                },
            ],
            gpm: vec![GpmSample {
                ts: 2.0,
                gpu: 1,
                sm_util: Some(55.0),
                ..Default::default()
            }],
            host: Vec::new(),
        };
        let g = GpuGlance::latest(&samples);
        assert_eq!(g.iter().map(|g| g.gpu).collect::<Vec<_>>(), [0, 1]);
        assert_eq!(g[0].util_pct, Some(30.0));
        assert!(g[0].throttled.is_empty(), "idle is not throttling");
        assert_eq!(g[0].sm_active_pct, None);
        // The fast row's utilisation; power and memory as last read.
        assert_eq!(g[1].util_pct, Some(95.0));
        assert_eq!(g[1].power_w, Some(190.0));
        assert_eq!(g[1].mem_used_gib, Some(2.0));
        assert_eq!(g[1].throttled, ["software power cap"]);
        assert_eq!(g[1].sm_active_pct, Some(55.0));
    }
}
