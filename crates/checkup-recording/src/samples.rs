//! The sample files of a run folder: `samples_nvml.csv`, `samples_gpm.csv`,
//! `samples_host.csv`.

use std::path::Path;

use checkup_model::{ClockEventReasons, GpmSample, HostSample, NvmlSample};

use crate::csv_table::{cell, number, CsvTable};
use crate::error::{RecordingError, Result};

/// `samples_nvml.csv`: one row per GPU per tick.
pub fn read_nvml_csv(path: &Path) -> Result<Vec<NvmlSample>> {
    let t = CsvTable::read(path, true)?;
    let ts = t.require(path, "ts")?;
    let gpu = t.require(path, "gpu")?;
    let col = |n: &str| t.column(n);
    let cols = [
        "util_gpu",
        "util_mem",
        "mem_used_mib",
        "mem_total_mib",
        "temp_c",
        "power_w",
        "power_limit_w",
        "sm_clock_mhz",
        "sm_clock_max_mhz",
        "mem_clock_mhz",
        "pcie_tx_kbs",
        "pcie_rx_kbs",
        "clock_event_reasons",
        "pstate",
    ];
    let idx: Vec<Option<usize>> = cols.iter().map(|c| col(c)).collect();
    if idx[0].is_none() && idx[5].is_none() {
        return Err(RecordingError::invalid(
            path,
            format!(
                "neither `util_gpu` nor `power_w` column found (the header has: {})",
                t.header.join(", ")
            ),
        ));
    }
    let mut out = Vec::with_capacity(t.rows.len());
    for (i, rec) in t.rows.iter().enumerate() {
        let line = i + 2;
        let v = |k: usize| number(path, line, cols[k], cell(rec, idx[k]));
        let Some(ts) = number(path, line, "ts", rec.get(ts))? else {
            continue;
        };
        out.push(NvmlSample {
            ts,
            gpu: number(path, line, "gpu", rec.get(gpu))?.unwrap_or(0.0) as u32,
            util_gpu: v(0)?,
            util_mem: v(1)?,
            mem_used_mib: v(2)?,
            mem_total_mib: v(3)?,
            temp_c: v(4)?,
            power_w: v(5)?,
            power_limit_w: v(6)?,
            sm_clock_mhz: v(7)?,
            sm_clock_max_mhz: v(8)?,
            mem_clock_mhz: v(9)?,
            pcie_tx_kbs: v(10)?,
            pcie_rx_kbs: v(11)?,
            clock_event_reasons: v(12)?.map(|r| ClockEventReasons(r as u64)),
            pstate: v(13)?.map(|p| p as u32),
        });
    }
    Ok(out)
}

/// `samples_gpm.csv`: GPM metrics, percent unless noted.
pub fn read_gpm_csv(path: &Path) -> Result<Vec<GpmSample>> {
    let t = CsvTable::read(path, true)?;
    let ts = t.require(path, "ts")?;
    let gpu = t.require(path, "gpu")?;
    let cols = [
        "graphics_util",
        "sm_util",
        "sm_occupancy",
        "integer_util",
        "any_tensor_util",
        "dfma_tensor_util",
        "hmma_tensor_util",
        "imma_tensor_util",
        "dram_bw_util",
        "fp64_util",
        "fp32_util",
        "fp16_util",
        "pcie_tx_per_sec",
        "pcie_rx_per_sec",
        "nvlink_total_rx_per_sec",
        "nvlink_total_tx_per_sec",
    ];
    let idx: Vec<Option<usize>> = cols.iter().map(|c| t.column(c)).collect();
    let mut out = Vec::with_capacity(t.rows.len());
    for (i, rec) in t.rows.iter().enumerate() {
        let line = i + 2;
        let v = |k: usize| number(path, line, cols[k], cell(rec, idx[k]));
        let Some(ts) = number(path, line, "ts", rec.get(ts))? else {
            continue;
        };
        out.push(GpmSample {
            ts,
            gpu: number(path, line, "gpu", rec.get(gpu))?.unwrap_or(0.0) as u32,
            graphics_util: v(0)?,
            sm_util: v(1)?,
            sm_occupancy: v(2)?,
            integer_util: v(3)?,
            any_tensor_util: v(4)?,
            dfma_tensor_util: v(5)?,
            hmma_tensor_util: v(6)?,
            imma_tensor_util: v(7)?,
            dram_bw_util: v(8)?,
            fp64_util: v(9)?,
            fp32_util: v(10)?,
            fp16_util: v(11)?,
            pcie_tx_mibs: v(12)?,
            pcie_rx_mibs: v(13)?,
            nvlink_rx_mibs: v(14)?,
            nvlink_tx_mibs: v(15)?,
        });
    }
    Ok(out)
}

/// `samples_host.csv`: whole host, training process tree, then `cpu0..cpuN`.
pub fn read_host_csv(path: &Path) -> Result<Vec<HostSample>> {
    let t = CsvTable::read(path, true)?;
    let ts = t.require(path, "ts")?;
    let cols = [
        "cpu_total_pct",
        "proc_tree_cpu_pct",
        "proc_tree_rss_mib",
        "disk_read_mbs",
        "disk_write_mbs",
        "load1",
    ];
    let idx: Vec<Option<usize>> = cols.iter().map(|c| t.column(c)).collect();
    let cores: Vec<(usize, &str)> = t
        .header
        .iter()
        .enumerate()
        .filter(|(_, h)| {
            h.strip_prefix("cpu")
                .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        })
        .map(|(i, h)| (i, h.as_str()))
        .collect();
    let mut out = Vec::with_capacity(t.rows.len());
    for (i, rec) in t.rows.iter().enumerate() {
        let line = i + 2;
        let v = |k: usize| number(path, line, cols[k], cell(rec, idx[k]));
        let Some(ts) = number(path, line, "ts", rec.get(ts))? else {
            continue;
        };
        let mut per_core_pct = Vec::with_capacity(cores.len());
        for &(c, name) in &cores {
            per_core_pct.push(number(path, line, name, rec.get(c))?.unwrap_or(0.0));
        }
        out.push(HostSample {
            ts,
            cpu_total_pct: v(0)?,
            proc_tree_cpu_pct: v(1)?,
            proc_tree_rss_mib: v(2)?,
            disk_read_mbs: v(3)?,
            disk_write_mbs: v(4)?,
            load1: v(5)?,
            per_core_pct,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn file(text: &str) -> tempfile::NamedTempFile {
        let mut f = tempfile::NamedTempFile::new().unwrap();
        f.write_all(text.as_bytes()).unwrap();
        f
    }

    #[test]
    fn a_text_cell_in_a_numeric_column_names_line_and_column() {
        let f = file("ts,gpu,util_gpu,power_w\n1.0,0,fast,100\n");
        let err = read_nvml_csv(f.path()).unwrap_err().to_string();
        assert!(
            err.ends_with("line 2: column `util_gpu`: `fast` is not a number"),
            "{err}"
        );
    }
}
