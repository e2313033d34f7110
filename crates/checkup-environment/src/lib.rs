//! The environment rules: facts about the GPUs, the driver, the software and NCCL judged
//! pass, warn or fail, for a recording's snapshot and a live host alike. They are the things
//! that make training slow before any code runs (persistence, MIG, PCIe link, ECC, power cap,
//! versions, NCCL settings).
#![warn(missing_docs)]

mod across_hosts;

pub use across_hosts::across_hosts;

use checkup_model::{CheckId, CheckStatus, CheckValue, EnvCheck, RunFacts};

/// Pass when `ok`, else `otherwise`.
fn status(ok: bool, otherwise: CheckStatus) -> CheckStatus {
    if ok {
        CheckStatus::Pass
    } else {
        otherwise
    }
}

/// Every check the facts allow, each GPU's per-GPU checks first: what is not known is not
/// judged.
pub fn environment_checks(facts: &RunFacts) -> Vec<EnvCheck> {
    let mut out = Vec::new();
    for g in &facts.gpus {
        let gpu = g.index;
        let check = |id, st, value| EnvCheck::new(id, st, value).on_gpu(gpu);
        if let Some(p) = g.persistence_mode {
            out.push(check(
                CheckId::PersistenceMode,
                status(p, CheckStatus::Warn),
                CheckValue::Enabled { on: p },
            ));
        }
        if let Some(m) = g.mig_enabled {
            out.push(check(
                CheckId::Mig,
                status(!m, CheckStatus::Warn),
                CheckValue::Mig { on: m },
            ));
        }
        if let (Some(gc), Some(gm), Some(wc), Some(wm)) = (
            g.pcie_gen_current,
            g.pcie_gen_max,
            g.pcie_width_current,
            g.pcie_width_max,
        ) {
            // A reduced width is hardware; a lower generation may be an idle GPU saving power.
            let st = if wc < wm {
                CheckStatus::Fail
            } else {
                status(gc >= gm, CheckStatus::Warn)
            };
            out.push(check(
                CheckId::PcieLink,
                st,
                CheckValue::PcieLink {
                    gen: gc,
                    width: wc,
                    gen_max: gm,
                    width_max: wm,
                },
            ));
        }
        if let Some(errors) = g.ecc_uncorrected_volatile {
            out.push(check(
                CheckId::EccErrors,
                status(errors == 0, CheckStatus::Fail),
                CheckValue::Count { n: errors },
            ));
        }
        if g.retired_pages_pending == Some(true) || g.remapping_pending == Some(true) {
            out.push(check(
                CheckId::MemoryRepairPending,
                CheckStatus::Warn,
                CheckValue::RepairPending,
            ));
        }
        if let (Some(limit), Some(default)) = (g.power_limit_w, g.default_power_limit_w) {
            // 5 % under the default is a deliberate cap, not rounding.
            let capped = limit < 0.95 * default;
            out.push(check(
                CheckId::PowerLimit,
                status(!capped, CheckStatus::Warn),
                CheckValue::PowerLimit {
                    limit_w: limit,
                    default_w: default,
                },
            ));
        }
        let throttling: Vec<String> = g
            .clock_event_reasons_active
            .iter()
            .filter(|r| !r.contains("idle"))
            .cloned()
            .collect();
        if !throttling.is_empty() {
            out.push(check(
                CheckId::ClockEventReasons,
                CheckStatus::Warn,
                CheckValue::ClockReasons {
                    reasons: throttling,
                },
            ));
        }
    }
    if let (Some(runtime), Some(driver)) = (&facts.cuda_runtime_version, &facts.cuda_driver_version)
    {
        if let (Some(r), Some(d)) = (version_pair(runtime), version_pair(driver)) {
            out.push(EnvCheck::new(
                CheckId::CudaDriverMatch,
                status(r <= d, CheckStatus::Fail),
                CheckValue::CudaVersions {
                    runtime: runtime.clone(),
                    driver: driver.clone(),
                },
            ));
        }
    }
    // Hosts of one job on different drivers run different CUDA and NCCL code.
    let drivers: Vec<(String, String)> = facts
        .nodes
        .iter()
        .filter_map(|n| Some((n.label(&facts.nodes), n.driver_version.clone()?)))
        .collect();
    if facts.nodes.len() >= 2 && drivers.len() >= 2 {
        let distinct: std::collections::BTreeSet<&String> =
            drivers.iter().map(|(_, v)| v).collect();
        out.push(EnvCheck::new(
            CheckId::DriverAcrossHosts,
            status(distinct.len() == 1, CheckStatus::Warn),
            CheckValue::HostVersions { versions: drivers },
        ));
    }
    let p2p_disabled = facts
        .env
        .get("NCCL_P2P_DISABLE")
        .and_then(|v| v.as_deref())
        .is_some_and(is_truthy);
    let nvlink = facts.topology.as_ref().is_some_and(|t| t.has_nvlink());
    if facts.env.contains_key("NCCL_P2P_DISABLE") || nvlink {
        let st = match (p2p_disabled, nvlink) {
            (true, true) => CheckStatus::Fail,
            (true, false) => CheckStatus::Warn,
            _ => CheckStatus::Pass,
        };
        out.push(EnvCheck::new(
            CheckId::NcclP2p,
            st,
            CheckValue::P2p {
                disabled: p2p_disabled,
                nvlink,
            },
        ));
    }
    if let (Some(workers), Some(cpus)) = (
        facts.dataloader.as_ref().and_then(|d| d.num_workers),
        facts.host_cpus,
    ) {
        let gpus = facts.world_size.unwrap_or(1).max(1);
        // Each GPU's training process needs a core of its own besides its workers.
        let too_many = (workers + 1) * gpus > cpus;
        out.push(EnvCheck::new(
            CheckId::DataloaderWorkersVsCpus,
            status(!too_many, CheckStatus::Warn),
            CheckValue::Workers {
                workers,
                gpus,
                cpus,
            },
        ));
    }
    out
}

/// Whether an environment variable's value means "on" (`1`, `true`, `yes`, `on`).
pub fn is_truthy(v: &str) -> bool {
    matches!(
        v.trim().to_ascii_lowercase().as_str(),
        "1" | "true" | "yes" | "on"
    )
}

/// A version's numbers in order ("580.159.04" → 580, 159, 4; "12.8" → 12, 8), to compare
/// versions number by number.
pub(crate) fn version_numbers(v: &str) -> Vec<u64> {
    v.split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().unwrap_or(0))
        .collect()
}

/// A version's major and minor number (minor 0 when it has none).
fn version_pair(v: &str) -> Option<(u32, u32)> {
    let n = version_numbers(v);
    Some((
        u32::try_from(*n.first()?).ok()?,
        n.get(1).and_then(|m| u32::try_from(*m).ok()).unwrap_or(0),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_torch_built_for_a_newer_cuda_than_the_driver_fails() {
        let facts = RunFacts {
            cuda_runtime_version: Some("12.8".into()),
            cuda_driver_version: Some("12.4".into()),
            ..RunFacts::default()
        };
        let checks = environment_checks(&facts);
        let c = checks
            .iter()
            .find(|c| c.id == CheckId::CudaDriverMatch)
            .unwrap();
        assert_eq!(c.status, CheckStatus::Fail);
        assert_eq!(
            c.value,
            CheckValue::CudaVersions {
                runtime: "12.8".into(),
                driver: "12.4".into()
            }
        );
    }

    #[test]
    fn workers_that_leave_no_core_per_training_process_warn() {
        let facts = |workers| RunFacts {
            dataloader: Some(checkup_model::DataLoaderSettings {
                num_workers: Some(workers),
                ..Default::default()
            }),
            host_cpus: Some(16),
            world_size: Some(2),
            ..RunFacts::default()
        };
        let status = |w| {
            environment_checks(&facts(w))
                .into_iter()
                .find(|c| c.id == CheckId::DataloaderWorkersVsCpus)
                .unwrap()
                .status
        };
        // (7 + 1) × 2 = 16 cores: each process has its own core.
        assert_eq!(status(7), CheckStatus::Pass);
        assert_eq!(status(8), CheckStatus::Warn);
    }

    #[test]
    fn a_host_of_a_job_on_another_driver_stands_out() {
        let node = |host: &str, n: u32, driver: &str| checkup_model::NodeFacts {
            hostname: Some(host.into()),
            node_rank: Some(n),
            ranks: vec![n],
            driver_version: Some(driver.into()),
            ..Default::default()
        };
        let job = |drivers: [&str; 3]| RunFacts {
            nodes: vec![
                node("gpu-a", 0, drivers[0]),
                node("gpu-b", 1, drivers[1]),
                node("gpu-c", 2, drivers[2]),
            ],
            ..RunFacts::default()
        };
        let check = |facts: &RunFacts| {
            environment_checks(facts)
                .into_iter()
                .find(|c| c.id == CheckId::DriverAcrossHosts)
                .unwrap()
        };
        let odd = check(&job(["580.159.04", "570.86.15", "580.159.04"]));
        assert_eq!(odd.status, CheckStatus::Warn);
        assert_eq!(
            odd.value,
            CheckValue::HostVersions {
                versions: vec![
                    ("gpu-a".into(), "580.159.04".into()),
                    ("gpu-b".into(), "570.86.15".into()),
                    ("gpu-c".into(), "580.159.04".into()),
                ]
            }
        );
        assert_eq!(check(&job(["580.159.04"; 3])).status, CheckStatus::Pass);
        // One host: nothing to compare.
        let alone = RunFacts::default();
        assert!(environment_checks(&alone)
            .iter()
            .all(|c| c.id != CheckId::DriverAcrossHosts));
    }
}
