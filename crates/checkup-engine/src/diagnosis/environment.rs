//! Environment checks from a recording's static snapshot: the things that make training slow
//! before any code runs (persistence, MIG, PCIe link, ECC, power cap, versions, NCCL settings).

use checkup_model::{CheckStatus, EnvCheck, RunFacts};

pub fn environment_checks(facts: &RunFacts) -> Vec<EnvCheck> {
    let mut out = Vec::new();
    let check = EnvCheck::new;
    for g in &facts.gpus {
        let gpu = format!("GPU {}", g.index);
        if let Some(p) = g.persistence_mode {
            out.push(check(
                "persistence_mode",
                &format!("{gpu}: persistence mode"),
                if p { CheckStatus::Pass } else { CheckStatus::Warn },
                if p { "enabled" } else { "disabled" }.into(),
                "Without persistence mode the driver tears the GPU down when no process holds it; every job start pays seconds of re-initialisation and clocks may start low.",
                (!p).then_some("sudo nvidia-smi -pm 1 (or enable nvidia-persistenced); ask the host's admin on shared machines"),
            ));
        }
        if let Some(m) = g.mig_enabled {
            out.push(check(
                "mig",
                &format!("{gpu}: MIG mode"),
                if m { CheckStatus::Warn } else { CheckStatus::Pass },
                if m { "enabled: this job gets a slice of the GPU" } else { "disabled" }.into(),
                "With MIG on, a process sees only its slice's SMs and memory bandwidth: expect a fraction of the full GPU's speed.",
                m.then_some("Ask for a full GPU (MIG disabled) or size expectations to the slice"),
            ));
        }
        if let (Some(gc), Some(gm), Some(wc), Some(wm)) = (
            g.pcie_gen_current,
            g.pcie_gen_max,
            g.pcie_width_current,
            g.pcie_width_max,
        ) {
            let status = if wc < wm {
                CheckStatus::Fail
            } else if gc < gm {
                CheckStatus::Warn
            } else {
                CheckStatus::Pass
            };
            out.push(check(
                "pcie_link",
                &format!("{gpu}: PCIe link"),
                status,
                format!("Gen {gc} x{wc} of Gen {gm} x{wm}"),
                "A narrower or slower PCIe link than the card supports cuts host↔GPU copy bandwidth. An idle GPU may lower its link generation to save power; a reduced width is a seating, riser or BIOS problem.",
                (status != CheckStatus::Pass).then_some("Re-check under load (nvidia-smi -q -d PCI); a reduced width needs the card reseated or the slot/BIOS fixed by the host's admin"),
            ));
        }
        if let Some(errors) = g.ecc_uncorrected_volatile {
            out.push(check(
                "ecc_errors",
                &format!("{gpu}: uncorrectable ECC errors"),
                if errors > 0 { CheckStatus::Fail } else { CheckStatus::Pass },
                errors.to_string(),
                "Uncorrectable memory errors since the driver loaded mean failing memory: jobs can crash or corrupt results.",
                (errors > 0).then_some("Drain the GPU and report it to the host's admin or cloud provider"),
            ));
        }
        if g.retired_pages_pending == Some(true) || g.remapping_pending == Some(true) {
            out.push(check(
                "memory_repair_pending",
                &format!("{gpu}: memory repair pending"),
                CheckStatus::Warn,
                "row remapping or page retirement waits for a GPU reset".into(),
                "Memory rows were marked bad; the repair takes effect only after the GPU is reset.",
                Some("Reset the GPU when idle (nvidia-smi -r) or reboot the host"),
            ));
        }
        if let (Some(limit), Some(default)) = (g.power_limit_w, g.default_power_limit_w) {
            let capped = limit < 0.95 * default;
            out.push(check(
                "power_limit",
                &format!("{gpu}: power limit"),
                if capped {
                    CheckStatus::Warn
                } else {
                    CheckStatus::Pass
                },
                format!("{limit:.0} W of {default:.0} W default"),
                "A power limit below the default lowers clocks under heavy load.",
                capped.then_some(
                    "Ask the host's admin to restore the default power limit (nvidia-smi -pl)",
                ),
            ));
        }
        let throttling: Vec<&String> = g
            .clock_event_reasons_active
            .iter()
            .filter(|r| !r.contains("idle"))
            .collect();
        if !throttling.is_empty() {
            out.push(check(
                "clock_event_reasons",
                &format!("{gpu}: clock-event reasons at snapshot"),
                CheckStatus::Warn,
                throttling.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", "),
                "The GPU was holding its clocks down when the snapshot was taken.",
                Some("Check cooling and power; compare against the sampled clock-event reasons during training"),
            ));
        }
    }
    if let (Some(runtime), Some(driver)) = (&facts.cuda_runtime_version, &facts.cuda_driver_version)
    {
        let (r, d) = (version_pair(runtime), version_pair(driver));
        if let (Some(r), Some(d)) = (r, d) {
            let ok = r <= d;
            out.push(check(
                "cuda_driver_match",
                "CUDA runtime vs driver",
                if ok { CheckStatus::Pass } else { CheckStatus::Fail },
                format!("torch built for CUDA {runtime}; driver supports up to CUDA {driver}"),
                "PyTorch's CUDA runtime must not be newer than what the driver supports; otherwise CUDA fails to initialise or falls back to slow paths (forward-compat packages aside).",
                (!ok).then_some("Install a torch wheel built for the driver's CUDA version (e.g. the cu12x index), or upgrade the driver"),
            ));
        }
    }
    let p2p_disabled = facts
        .env
        .get("NCCL_P2P_DISABLE")
        .and_then(|v| v.as_deref())
        .is_some_and(is_truthy);
    let nvlink = facts.topology.as_ref().is_some_and(|t| t.has_nvlink());
    if facts.env.contains_key("NCCL_P2P_DISABLE") || nvlink {
        out.push(check(
            "nccl_p2p",
            "NCCL peer-to-peer",
            if p2p_disabled && nvlink { CheckStatus::Fail } else if p2p_disabled { CheckStatus::Warn } else { CheckStatus::Pass },
            match (p2p_disabled, nvlink) {
                (true, true) => "NCCL_P2P_DISABLE=1 although the GPUs share NVLink".into(),
                (true, false) => "NCCL_P2P_DISABLE=1".into(),
                (false, true) => "enabled; GPUs connected by NVLink".into(),
                (false, false) => "enabled".into(),
            },
            "With P2P disabled, NCCL sends GPU-to-GPU traffic through host memory instead of NVLink/PCIe peer access: all-reduce gets several times slower.",
            p2p_disabled.then_some("Unset NCCL_P2P_DISABLE (it is often left over from a workaround for a broken PCIe switch)"),
        ));
    }
    if let (Some(workers), Some(cpus)) = (
        facts.dataloader.as_ref().and_then(|d| d.num_workers),
        facts.host_cpus,
    ) {
        let gpus = facts.world_size.unwrap_or(1).max(1);
        // Each GPU's training process needs a core of its own besides its workers.
        let too_many = (workers + 1) * gpus > cpus;
        out.push(check(
            "dataloader_workers_vs_cpus",
            "DataLoader workers vs CPU cores",
            if too_many { CheckStatus::Warn } else { CheckStatus::Pass },
            format!("{workers} workers × {gpus} GPU(s) on {cpus} logical CPUs"),
            "Each DataLoader worker is a process that wants a core, and so does each training process: with every core taken by workers, the training loop launches kernels late.",
            too_many.then_some("Lower num_workers to about (cores / GPUs) − 1"),
        ));
    }
    out
}

pub fn is_truthy(v: &str) -> bool {
    matches!(
        v.trim().to_ascii_lowercase().as_str(),
        "1" | "true" | "yes" | "on"
    )
}

fn version_pair(v: &str) -> Option<(u32, u32)> {
    let mut it = v
        .trim()
        .split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty());
    Some((
        it.next()?.parse().ok()?,
        it.next().and_then(|m| m.parse().ok()).unwrap_or(0),
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
        let c = checks.iter().find(|c| c.id == "cuda_driver_match").unwrap();
        assert_eq!(c.status, CheckStatus::Fail);
        assert!(c.value.contains("12.8") && c.value.contains("12.4"));
    }
}
