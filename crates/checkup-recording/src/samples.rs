//! The sample files of a run folder: `samples_nvml.csv`, `samples_gpm.csv`,
//! `samples_host.csv`, `samples_gpu_processes.csv`.

use std::path::Path;

use checkup_model::{ClockEventReasons, GpmSample, GpuProcessSample, HostSample, NvmlSample};

use crate::csv_table::{cell, number, whole_number, CsvTable};
use crate::error::{RecordingError, Result};
use crate::schema::{GPM_COLUMNS, GPU_PROCESSES_COLUMNS, HOST_COLUMNS, NVML_COLUMNS};

/// `samples_nvml.csv`: one row per GPU per tick.
pub fn read_nvml_csv(path: &Path) -> Result<Vec<NvmlSample>> {
    let t = CsvTable::read(path, true)?;
    let ts = t.require(path, "ts")?;
    let gpu = t.require(path, "gpu")?;
    let col = |n: &str| t.column(n);
    // The columns after `ts` and `gpu`, up to `pstate` (`fan_pct` is not read).
    let cols = &NVML_COLUMNS[2..16];
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
    // The columns after `ts` and `gpu`.
    let cols = &GPM_COLUMNS[2..];
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

/// `samples_gpu_processes.csv`: each GPU's compute processes at each reading.
pub fn read_gpu_processes_csv(path: &Path) -> Result<Vec<GpuProcessSample>> {
    let t = CsvTable::read(path, true)?;
    let [ts_col, gpu_col, pid_col, used_col] = GPU_PROCESSES_COLUMNS;
    let (ts, gpu, pid) = (
        t.require(path, ts_col)?,
        t.require(path, gpu_col)?,
        t.require(path, pid_col)?,
    );
    let used = t.column(used_col);
    let whole = |line: usize, name: &str, v: f64| {
        whole_number(v, 0).ok_or_else(|| {
            RecordingError::invalid(
                path,
                format!("line {line}: `{name}` = {v} is not a whole number"),
            )
        })
    };
    let mut out = Vec::with_capacity(t.rows.len());
    for (i, rec) in t.rows.iter().enumerate() {
        let line = i + 2;
        let need = |idx: usize, name: &str| {
            crate::csv_table::required_number(path, line, name, rec.get(idx))
        };
        out.push(GpuProcessSample {
            ts: need(ts, ts_col)?,
            gpu: whole(line, gpu_col, need(gpu, gpu_col)?)?,
            pid: whole(line, pid_col, need(pid, pid_col)?)?,
            used_mib: number(path, line, used_col, cell(rec, used))?,
        });
    }
    Ok(out)
}

/// `samples_host.csv`: whole host, training process tree, then `cpu0..cpuN`.
pub fn read_host_csv(path: &Path) -> Result<Vec<HostSample>> {
    let t = CsvTable::read(path, true)?;
    let ts = t.require(path, "ts")?;
    // The fixed columns after `ts`; `cpu0..cpuN` follow.
    let cols = &HOST_COLUMNS[1..];
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
            proc_main_cpu_pct: v(6)?,
            proc_busy_children: v(7)?
                .filter(|n| n.is_finite() && *n >= 0.0)
                .map(|n| n.min(u32::MAX as f64) as u32),
            per_core_pct,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_files::file;

    #[test]
    fn a_text_cell_in_a_numeric_column_names_line_and_column() {
        let f = file("ts,gpu,util_gpu,power_w\n1.0,0,fast,100\n");
        let err = read_nvml_csv(f.path()).unwrap_err().to_string();
        assert!(
            err.ends_with("line 2: column `util_gpu`: `fast` is not a number"),
            "{err}"
        );
    }

    #[test]
    fn files_with_the_schemas_headers_read_back_every_column() {
        let nvml = file(&format!(
            "{}\n1.5,0,97,40,1000,143771,50,500,700,1980,1980,2619,10,20,4,0,\n",
            crate::schema::NVML_COLUMNS.join(",")
        ));
        let n = &read_nvml_csv(nvml.path()).unwrap()[0];
        assert_eq!(
            (n.util_gpu, n.power_w, n.pstate),
            (Some(97.0), Some(500.0), Some(0))
        );
        assert_eq!(n.clock_event_reasons, Some(ClockEventReasons(4)));
        let gpm = file(&format!(
            "{}\n1.5,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16\n",
            crate::schema::GPM_COLUMNS.join(",")
        ));
        let g = &read_gpm_csv(gpm.path()).unwrap()[0];
        assert_eq!(
            (g.sm_util, g.dram_bw_util, g.nvlink_tx_mibs),
            (Some(2.0), Some(9.0), Some(16.0))
        );
        let host = file(&format!(
            "{}\n1.5,12,250,900,0,3,1.2,40,2,10,90\n",
            crate::schema::host_header(2)
        ));
        let h = &read_host_csv(host.path()).unwrap()[0];
        assert_eq!((h.cpu_total_pct, h.load1), (Some(12.0), Some(1.2)));
        assert_eq!(
            (h.proc_main_cpu_pct, h.proc_busy_children),
            (Some(40.0), Some(2))
        );
        assert_eq!(h.per_core_pct, vec![10.0, 90.0]);
    }

    #[test]
    fn gpu_processes_read_back_and_a_broken_pid_names_its_line() {
        let f = file("ts,gpu,pid,used_mib\n1.5,0,811,1672\n1.5,1,812,\n");
        let p = read_gpu_processes_csv(f.path()).unwrap();
        assert_eq!((p[0].pid, p[0].used_mib), (811, Some(1672.0)));
        assert_eq!((p[1].gpu, p[1].used_mib), (1, None));
        let bad = file("ts,gpu,pid,used_mib\n1.5,0,81.5,10\n");
        let err = read_gpu_processes_csv(bad.path()).unwrap_err().to_string();
        assert!(
            err.ends_with("line 2: `pid` = 81.5 is not a whole number"),
            "{err}"
        );
    }
}
