//! The hosts of one fleet compared: what one host has that its peers do not, and that can
//! make it the slow host of a job (or the one that fails). Each host's own checks judge it
//! alone; these only speak where hosts differ, so a setting every host shares is not
//! repeated here.

use crate::version_numbers;
use checkup_model::{GpuStatic, HostDifference, RunFacts};

/// A power limit under this share of the same GPU's elsewhere is a cap, not rounding (the
/// per-host power rule's margin).
const LOWER_POWER_SHARE: f64 = 0.95;

/// What stands out on each host against the others, host by host in the order given.
/// `hosts` pairs each host's name with its facts (a live check's or a recording's).
pub fn across_hosts(hosts: &[(String, RunFacts)]) -> Vec<HostDifference> {
    if hosts.len() < 2 {
        return Vec::new();
    }
    let mut out = Vec::new();
    let models: Vec<Option<String>> = hosts.iter().map(|(_, f)| gpu_model(f)).collect();
    let torches: Vec<Option<String>> = hosts.iter().map(|(_, f)| f.torch_version.clone()).collect();
    let newest_driver = hosts
        .iter()
        .filter_map(|(_, f)| f.driver_version.as_deref())
        .max_by(|a, b| version_numbers(a).cmp(&version_numbers(b)));
    let any_persistent = |except: usize| {
        hosts.iter().enumerate().any(|(i, (_, f))| {
            i != except && f.gpus.iter().any(|g| g.persistence_mode == Some(true))
        })
    };
    for (i, (host, facts)) in hosts.iter().enumerate() {
        if let (Some(model), Some(usual)) = (&models[i], more_common(&models, i)) {
            out.push(HostDifference::OtherGpuModel {
                host: host.clone(),
                model: model.clone(),
                usual,
            });
        }
        if let (Some(driver), Some(newest)) = (&facts.driver_version, newest_driver) {
            if version_numbers(driver) < version_numbers(newest) {
                out.push(HostDifference::OlderDriver {
                    host: host.clone(),
                    driver: driver.clone(),
                    newest: newest.to_owned(),
                });
            }
        }
        let off: Vec<u32> = facts
            .gpus
            .iter()
            .filter(|g| g.persistence_mode == Some(false))
            .map(|g| g.index)
            .collect();
        if !off.is_empty() && any_persistent(i) {
            out.push(HostDifference::PersistenceOff {
                host: host.clone(),
                gpus: off,
            });
        }
        for g in &facts.gpus {
            let peers = || same_gpus_elsewhere(hosts, i, g);
            // The generation the link can reach (a slot or riser that holds it back) and the
            // lanes it runs on: an idle GPU lowers its current generation, not these.
            if let (Some(gen), Some(width)) = (g.pcie_gen_max, g.pcie_width_current) {
                let usual_gen = peers().filter_map(|p| p.pcie_gen_max).max();
                let usual_width = peers().filter_map(|p| p.pcie_width_current).max();
                if let (Some(usual_gen), Some(usual_width)) = (usual_gen, usual_width) {
                    if gen < usual_gen || width < usual_width {
                        out.push(HostDifference::SlowerPcieLink {
                            host: host.clone(),
                            gpu: g.index,
                            gen,
                            width,
                            usual_gen,
                            usual_width,
                        });
                    }
                }
            }
            if let Some(limit) = g.power_limit_w {
                let usual = peers()
                    .filter_map(|p| p.power_limit_w)
                    .fold(None, |m: Option<f64>, w| Some(m.map_or(w, |m| m.max(w))));
                if let Some(usual) = usual.filter(|u| limit < LOWER_POWER_SHARE * u) {
                    out.push(HostDifference::LowerPowerLimit {
                        host: host.clone(),
                        gpu: g.index,
                        limit_w: limit,
                        usual_w: usual,
                    });
                }
            }
        }
        if let (Some(torch), Some(usual)) = (&torches[i], more_common(&torches, i)) {
            out.push(HostDifference::OtherTorch {
                host: host.clone(),
                torch: torch.clone(),
                usual,
            });
        }
    }
    out
}

/// The host's GPU model: its facts' name, else its first GPU's.
fn gpu_model(f: &RunFacts) -> Option<String> {
    f.gpu_name
        .clone()
        .or_else(|| f.gpus.iter().find_map(|g| g.name.clone()))
}

/// The value more hosts have than host `i`'s, when one is strictly more common (a tie says
/// nothing of which host is the odd one).
fn more_common(values: &[Option<String>], i: usize) -> Option<String> {
    let mine = values[i].as_ref()?;
    let count = |v: &String| values.iter().flatten().filter(|x| *x == v).count();
    let mut best: Option<(&String, usize)> = None;
    for v in values.iter().flatten() {
        let n = count(v);
        if best.is_none_or(|(_, m)| n > m) {
            best = Some((v, n));
        }
    }
    let (usual, n) = best?;
    (usual != mine && n > count(mine)).then(|| usual.clone())
}

/// The GPUs of the same model as `g` on every host but host `i`.
fn same_gpus_elsewhere<'a>(
    hosts: &'a [(String, RunFacts)],
    i: usize,
    g: &'a GpuStatic,
) -> impl Iterator<Item = &'a GpuStatic> + 'a {
    let model = g.name.clone();
    hosts
        .iter()
        .enumerate()
        .filter(move |(j, _)| *j != i)
        .flat_map(|(_, (_, f))| f.gpus.iter())
        .filter(move |p| p.name == model)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h200(index: u32) -> GpuStatic {
        GpuStatic {
            index,
            name: Some("NVIDIA H200".into()),
            persistence_mode: Some(true),
            pcie_gen_current: Some(5),
            pcie_gen_max: Some(5),
            pcie_width_current: Some(16),
            pcie_width_max: Some(16),
            power_limit_w: Some(700.0),
            default_power_limit_w: Some(700.0),
            ..Default::default()
        }
    }

    fn host(name: &str, edit: impl FnOnce(&mut RunFacts)) -> (String, RunFacts) {
        let mut f = RunFacts {
            gpu_name: Some("NVIDIA H200".into()),
            driver_version: Some("580.159.04".into()),
            torch_version: Some("2.11.0+cu130".into()),
            gpus: vec![h200(0), h200(1)],
            ..Default::default()
        };
        edit(&mut f);
        (name.into(), f)
    }

    #[test]
    fn identical_hosts_have_nothing_that_stands_out() {
        let fleet = [host("a", |_| {}), host("b", |_| {}), host("c", |_| {})];
        assert_eq!(across_hosts(&fleet), []);
        assert_eq!(
            across_hosts(&fleet[..1]),
            [],
            "one host: nothing to compare"
        );
    }

    #[test]
    fn persistence_off_stands_out_only_where_another_host_keeps_it_on() {
        let off = |f: &mut RunFacts| f.gpus[1].persistence_mode = Some(false);
        assert_eq!(
            across_hosts(&[host("a", |_| {}), host("b", off)]),
            [HostDifference::PersistenceOff {
                host: "b".into(),
                gpus: vec![1]
            }]
        );
        // Off everywhere: each host's own check says so; no host differs.
        let all_off = |f: &mut RunFacts| {
            f.gpus
                .iter_mut()
                .for_each(|g| g.persistence_mode = Some(false))
        };
        assert_eq!(across_hosts(&[host("a", all_off), host("b", all_off)]), []);
    }

    #[test]
    fn an_older_driver_is_named_against_the_newest_by_version_not_by_text() {
        let fleet = [
            host("a", |f| f.driver_version = Some("580.95.05".into())),
            host("b", |f| f.driver_version = Some("580.159.04".into())),
            host("c", |f| f.driver_version = Some("570.86.15".into())),
        ];
        assert_eq!(
            across_hosts(&fleet),
            [
                HostDifference::OlderDriver {
                    host: "a".into(),
                    driver: "580.95.05".into(),
                    newest: "580.159.04".into()
                },
                HostDifference::OlderDriver {
                    host: "c".into(),
                    driver: "570.86.15".into(),
                    newest: "580.159.04".into()
                },
            ]
        );
    }

    #[test]
    fn a_narrower_or_capped_pcie_link_stands_out_but_an_idle_lower_generation_does_not() {
        let fleet = [
            host("a", |f| f.gpus[0].pcie_gen_current = Some(1)),
            host("b", |f| f.gpus[0].pcie_width_current = Some(8)),
            host("c", |f| f.gpus[1].pcie_gen_max = Some(4)),
        ];
        assert_eq!(
            across_hosts(&fleet),
            [
                HostDifference::SlowerPcieLink {
                    host: "b".into(),
                    gpu: 0,
                    gen: 5,
                    width: 8,
                    usual_gen: 5,
                    usual_width: 16
                },
                HostDifference::SlowerPcieLink {
                    host: "c".into(),
                    gpu: 1,
                    gen: 4,
                    width: 16,
                    usual_gen: 5,
                    usual_width: 16
                },
            ]
        );
    }

    #[test]
    fn a_power_limit_stands_out_from_five_percent_under_the_same_gpus_elsewhere() {
        let capped = |w| move |f: &mut RunFacts| f.gpus[0].power_limit_w = Some(w);
        assert_eq!(
            across_hosts(&[host("a", |_| {}), host("b", capped(666.0))]),
            []
        );
        assert_eq!(
            across_hosts(&[host("a", |_| {}), host("b", capped(600.0))]),
            [HostDifference::LowerPowerLimit {
                host: "b".into(),
                gpu: 0,
                limit_w: 600.0,
                usual_w: 700.0
            }]
        );
        // Another model's limit is not this GPU's yardstick.
        let h100 = |f: &mut RunFacts| {
            f.gpu_name = Some("NVIDIA H100 80GB HBM3".into());
            for g in &mut f.gpus {
                g.name = f.gpu_name.clone();
                g.power_limit_w = Some(350.0);
            }
        };
        let mixed = across_hosts(&[host("a", |_| {}), host("b", |_| {}), host("c", h100)]);
        assert_eq!(
            mixed,
            [HostDifference::OtherGpuModel {
                host: "c".into(),
                model: "NVIDIA H100 80GB HBM3".into(),
                usual: "NVIDIA H200".into()
            }]
        );
    }

    #[test]
    fn another_torch_stands_out_against_what_most_hosts_run_and_a_tie_names_no_one() {
        let old = |f: &mut RunFacts| f.torch_version = Some("2.4.1+cu121".into());
        assert_eq!(
            across_hosts(&[host("a", |_| {}), host("b", old), host("c", |_| {})]),
            [HostDifference::OtherTorch {
                host: "b".into(),
                torch: "2.4.1+cu121".into(),
                usual: "2.11.0+cu130".into()
            }]
        );
        assert_eq!(across_hosts(&[host("a", |_| {}), host("b", old)]), []);
    }
}
