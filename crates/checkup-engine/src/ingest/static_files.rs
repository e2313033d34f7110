//! The static snapshot of a host: `nvidia-smi -q -x`, `nvidia-smi topo -m`,
//! `python -m torch.utils.collect_env` and the host summary (lscpu, free, df).

use std::path::Path;

use checkup_model::{GpuLink, GpuStatic, LinkKind, Topology};

use crate::error::{EngineError, Result};

/// What `nvidia-smi -q -x` says about the driver and each GPU.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SmiSnapshot {
    /// The driver's version.
    pub driver_version: Option<String>,
    /// The CUDA version the driver supports.
    pub cuda_version: Option<String>,
    /// Each GPU's static facts (name, memory, power limit, clocks, PCIe link).
    pub gpus: Vec<GpuStatic>,
}

/// Reads `nvidia-smi -q -x` output.
pub fn read_smi_xml(path: &Path) -> Result<SmiSnapshot> {
    let text = std::fs::read_to_string(path).map_err(|e| EngineError::io(path, e))?;
    parse_smi_xml(&text).map_err(|m| EngineError::invalid(path, m))
}

/// nvidia-smi's XML nests about six deep; a parser that recurses per level must not meet a
/// file that nests thousands deep.
const SMI_XML_MAX_DEPTH: usize = 64;

/// The deepest element nesting of `text`, counted from its tags without parsing (a tag
/// opens a level unless it closes one, closes itself, or is a declaration, comment or
/// processing instruction).
fn xml_depth(text: &str) -> usize {
    let b = text.as_bytes();
    let (mut depth, mut max) = (0usize, 0usize);
    let mut i = 0;
    while let Some(off) = b[i..].iter().position(|&c| c == b'<') {
        let start = i + off;
        let end = b[start..]
            .iter()
            .position(|&c| c == b'>')
            .map_or(b.len(), |e| start + e);
        match b.get(start + 1) {
            Some(b'/') => depth = depth.saturating_sub(1),
            Some(b'?' | b'!') => {}
            _ if end > start && b.get(end - 1) == Some(&b'/') => {}
            _ => {
                depth += 1;
                max = max.max(depth);
            }
        }
        i = end.min(b.len());
        if i >= b.len() {
            break;
        }
    }
    max
}

fn parse_smi_xml(text: &str) -> Result<SmiSnapshot, String> {
    if text.trim().is_empty() {
        return Err("file is empty".into());
    }
    let depth = xml_depth(text);
    if depth > SMI_XML_MAX_DEPTH {
        return Err(format!(
            "elements nest {depth} deep; nvidia-smi -q -x nests a few levels (at most {SMI_XML_MAX_DEPTH} are read)"
        ));
    }
    // nvidia-smi writes a DOCTYPE with an external DTD, which roxmltree refuses to resolve.
    let body = match (text.find("<!DOCTYPE"), text.find("<nvidia_smi_log")) {
        (Some(_), Some(start)) => &text[start..],
        _ => text,
    };
    let doc =
        roxmltree::Document::parse(body).map_err(|e| format!("not valid nvidia-smi XML: {e}"))?;
    let root = doc.root_element();
    if root.tag_name().name() != "nvidia_smi_log" {
        return Err(format!(
            "root element is <{}>, expected <nvidia_smi_log> (nvidia-smi -q -x)",
            root.tag_name().name()
        ));
    }
    let child_text = |node: roxmltree::Node, path: &[&str]| -> Option<String> {
        let mut n = node;
        for part in path {
            n = n.children().find(|c| c.has_tag_name(*part))?;
        }
        let t = n.text()?.trim();
        (!t.is_empty() && t != "N/A" && !t.starts_with("[N/A")).then(|| t.to_owned())
    };
    let leading_number = |s: Option<String>| -> Option<f64> {
        s.and_then(|s| {
            s.split_whitespace()
                .next()
                .and_then(|n| n.trim_end_matches('x').parse().ok())
        })
    };
    let enabled = |s: Option<String>| s.map(|s| s.eq_ignore_ascii_case("Enabled"));
    let mut snap = SmiSnapshot {
        driver_version: child_text(root, &["driver_version"]),
        cuda_version: child_text(root, &["cuda_version"]),
        gpus: Vec::new(),
    };
    for (index, gpu) in root
        .children()
        .filter(|c| c.has_tag_name("gpu"))
        .enumerate()
    {
        let power = |tag: &str| {
            leading_number(
                child_text(gpu, &["gpu_power_readings", tag])
                    .or_else(|| child_text(gpu, &["power_readings", tag])),
            )
        };
        let reasons = gpu
            .children()
            .find(|c| {
                c.has_tag_name("clocks_event_reasons") || c.has_tag_name("clocks_throttle_reasons")
            })
            .map(|r| {
                r.children()
                    .filter(|c| c.is_element() && c.text().is_some_and(|t| t.trim() == "Active"))
                    .map(|c| {
                        let tag = c.tag_name().name();
                        tag.trim_start_matches("clocks_event_reason_")
                            .trim_start_matches("clocks_throttle_reason_")
                            .replace('_', " ")
                    })
                    .collect()
            })
            .unwrap_or_default();
        let volatile_uncorrected = gpu
            .children()
            .find(|c| c.has_tag_name("ecc_errors"))
            .and_then(|e| e.children().find(|c| c.has_tag_name("volatile")))
            .map(|v| {
                v.children()
                    .filter(|c| c.is_element() && c.tag_name().name().contains("uncorrectable"))
                    .filter_map(|c| c.text().and_then(|t| t.trim().parse::<u64>().ok()))
                    .sum()
            });
        snap.gpus.push(GpuStatic {
            index: index as u32,
            name: child_text(gpu, &["product_name"]),
            persistence_mode: enabled(child_text(gpu, &["persistence_mode"])),
            mig_enabled: enabled(child_text(gpu, &["mig_mode", "current_mig"])),
            ecc_enabled: enabled(child_text(gpu, &["ecc_mode", "current_ecc"])),
            ecc_uncorrected_volatile: volatile_uncorrected,
            retired_pages_pending: child_text(gpu, &["retired_pages", "pending_retirement"])
                .map(|s| s.eq_ignore_ascii_case("Yes")),
            remapping_pending: child_text(gpu, &["remapped_rows", "remapped_row_pending"])
                .map(|s| s.eq_ignore_ascii_case("Yes")),
            pcie_gen_current: leading_number(child_text(
                gpu,
                &["pci", "pci_gpu_link_info", "pcie_gen", "current_link_gen"],
            ))
            .map(|v| v as u32),
            pcie_gen_max: leading_number(child_text(
                gpu,
                &["pci", "pci_gpu_link_info", "pcie_gen", "max_link_gen"],
            ))
            .map(|v| v as u32),
            pcie_width_current: leading_number(child_text(
                gpu,
                &[
                    "pci",
                    "pci_gpu_link_info",
                    "link_widths",
                    "current_link_width",
                ],
            ))
            .map(|v| v as u32),
            pcie_width_max: leading_number(child_text(
                gpu,
                &["pci", "pci_gpu_link_info", "link_widths", "max_link_width"],
            ))
            .map(|v| v as u32),
            power_limit_w: power("current_power_limit").or_else(|| power("enforced_power_limit")),
            default_power_limit_w: power("default_power_limit"),
            sm_clock_max_mhz: leading_number(child_text(gpu, &["max_clocks", "sm_clock"])),
            clock_event_reasons_active: reasons,
            other_processes: 0,
            // Older drivers give the slowdown threshold in °C. Newer ones give each threshold
            // as a margin to T.Limit (the hottest the GPU may run: margin 0), with the GPU's
            // own margin beside its temperature, so the threshold is the temperature plus
            // the GPU's margin less the threshold's (32 °C + 55 − (−2) = 89 °C on an H200).
            temp_slowdown_c: {
                let temp = |tag| leading_number(child_text(gpu, &["temperature", tag]));
                temp("gpu_temp_slow_threshold").or_else(|| {
                    Some(
                        temp("gpu_temp")? + temp("gpu_temp_tlimit")?
                            - temp("gpu_temp_slow_tlimit_threshold")?,
                    )
                })
            },
        });
    }
    Ok(snap)
}

/// Links between GPUs from the `nvidia-smi topo -m` matrix.
pub fn read_topology(path: &Path) -> Result<Option<Topology>> {
    let text = std::fs::read_to_string(path).map_err(|e| EngineError::io(path, e))?;
    Ok(parse_topology(&text))
}

fn parse_topology(text: &str) -> Option<Topology> {
    let strip_ansi = |s: &str| {
        let mut out = String::with_capacity(s.len());
        let mut chars = s.chars();
        while let Some(c) = chars.next() {
            if c == '\u{1b}' {
                for c2 in chars.by_ref() {
                    if c2.is_ascii_alphabetic() {
                        break;
                    }
                }
            } else {
                out.push(c);
            }
        }
        out
    };
    let lines: Vec<String> = text.lines().map(strip_ansi).collect();
    let header = lines
        .iter()
        .find(|l| l.split_whitespace().next() == Some("GPU0"))?;
    let gpu_cols: Vec<u32> = header
        .split_whitespace()
        .map_while(|c| c.strip_prefix("GPU").and_then(|n| n.parse().ok()))
        .collect();
    let mut links = Vec::new();
    for line in &lines {
        let mut cells = line.split_whitespace();
        let Some(row) = cells
            .next()
            .and_then(|c| c.strip_prefix("GPU"))
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        if std::ptr::eq(line, header) {
            continue;
        }
        for (&col, cell) in gpu_cols.iter().zip(cells) {
            if col <= row || cell == "X" {
                continue;
            }
            let kind = if let Some(n) = cell.strip_prefix("NV") {
                LinkKind::NvLink {
                    links: n.parse().unwrap_or(1),
                }
            } else {
                LinkKind::Pcie {
                    path: cell.to_owned(),
                }
            };
            links.push(GpuLink {
                from: row,
                to: col,
                kind,
            });
        }
    }
    Some(Topology { links })
}

/// Versions from `python -m torch.utils.collect_env`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CollectEnv {
    /// The PyTorch version.
    pub torch_version: Option<String>,
    /// The CUDA version PyTorch was built with.
    pub cuda_build_version: Option<String>,
    /// The NVIDIA driver's version.
    pub driver_version: Option<String>,
}

/// Reads `python -m torch.utils.collect_env` output.
pub fn read_collect_env(path: &Path) -> Result<CollectEnv> {
    let text = std::fs::read_to_string(path).map_err(|e| EngineError::io(path, e))?;
    let field = |key: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(key))
            .map(|v| v.trim().to_owned())
            .filter(|v| !v.is_empty() && v != "N/A" && v != "None" && v != "Could not collect")
    };
    Ok(CollectEnv {
        torch_version: field("PyTorch version:"),
        cuda_build_version: field("CUDA used to build PyTorch:"),
        driver_version: field("Nvidia driver version:"),
    })
}

/// Logical CPUs from the `lscpu` part of `host.txt`.
pub fn read_host_cpus(path: &Path) -> Result<Option<u32>> {
    let text = std::fs::read_to_string(path).map_err(|e| EngineError::io(path, e))?;
    Ok(text
        .lines()
        .find_map(|l| l.strip_prefix("CPU(s):"))
        .and_then(|v| v.trim().parse().ok()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xml_nested_1500_deep_is_refused_with_its_depth_not_a_stack_overflow() {
        // The hostile file from the hardening issue: 11 KB, 1,500 levels.
        let text = format!(
            "<nvidia_smi_log>{}{}</nvidia_smi_log>",
            "<a>".repeat(1500),
            "</a>".repeat(1500)
        );
        let err = parse_smi_xml(&text).unwrap_err();
        assert!(err.starts_with("elements nest 1501 deep"), "{err}");
    }

    #[test]
    fn xml_depth_counts_open_elements_only() {
        let text = "<?xml version=\"1.0\"?>\n<!DOCTYPE nvidia_smi_log SYSTEM \"x.dtd\">\n<nvidia_smi_log><gpu id=\"0\"><fb_memory_usage><total>1 MiB</total><empty/></fb_memory_usage></gpu><!-- c --></nvidia_smi_log>";
        assert_eq!(xml_depth(text), 4);
    }

    #[test]
    fn topology_reads_nvlink_pairs_and_pcie_paths() {
        let t = parse_topology("\t\u{1b}[4mGPU0\tGPU1\tGPU2\tCPU Affinity\u{1b}[0m\nGPU0\t X \tNV18\tSYS\t0-31\nGPU1\tNV18\t X \tSYS\t0-31\nGPU2\tSYS\tSYS\t X \t0-31\n").unwrap();
        assert_eq!(t.links.len(), 3);
        assert_eq!(
            t.links[0],
            GpuLink {
                from: 0,
                to: 1,
                kind: LinkKind::NvLink { links: 18 }
            }
        );
        assert_eq!(
            t.links[2],
            GpuLink {
                from: 1,
                to: 2,
                kind: LinkKind::Pcie { path: "SYS".into() }
            }
        );
        assert!(t.has_nvlink());
    }

    #[test]
    fn xml_that_is_not_nvidia_smi_is_refused_by_name() {
        let err = parse_smi_xml("<html></html>").unwrap_err();
        assert!(err.contains("expected <nvidia_smi_log>"), "{err}");
    }

    #[test]
    fn the_slowdown_temperature_is_read_as_a_margin_or_in_degrees() {
        // An H200 under driver 580: margins to T.Limit (the corpus' own snapshot).
        let h200 = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/corpus/healthy/static/nvidia-smi-q.xml"
        ))
        .unwrap();
        let snap = parse_smi_xml(&h200).unwrap();
        assert_eq!(snap.gpus[0].temp_slowdown_c, Some(89.0));
        assert_eq!(snap.gpus[0].pcie_peak_gbs(), Some(3.938 * 16.0));
        // An older driver's threshold in degrees.
        let old = "<nvidia_smi_log><gpu id=\"0\"><temperature><gpu_temp>41 C</gpu_temp>\
                   <gpu_temp_slow_threshold>87 C</gpu_temp_slow_threshold></temperature>\
                   </gpu></nvidia_smi_log>";
        assert_eq!(
            parse_smi_xml(old).unwrap().gpus[0].temp_slowdown_c,
            Some(87.0)
        );
        let none = "<nvidia_smi_log><gpu id=\"0\"><temperature><gpu_temp>41 C</gpu_temp>\
                    </temperature></gpu></nvidia_smi_log>";
        assert_eq!(parse_smi_xml(none).unwrap().gpus[0].temp_slowdown_c, None);
    }
}
