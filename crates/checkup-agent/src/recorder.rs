//! Writes samples in the corpus run-folder layout (`samples_nvml.csv`, `samples_gpm.csv`,
//! `samples_host.csv`, same columns), so the engine reads live and recorded runs alike.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use checkup_model::{GpmSample, GpuProcessSample, HostSample, NvmlSample};
use checkup_recording::{layout, schema};

use crate::error::{AgentError, Result};

/// A CSV cell written straight into the buffer (no String per cell: the agent writes a row
/// ten times a second and its CPU budget is counted in microseconds).
struct Cell(Option<f64>);

impl std::fmt::Display for Cell {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            Some(v) if v.fract() == 0.0 && v.abs() < 1e15 => write!(f, "{}", v as i64),
            Some(v) => write!(f, "{v}"),
            None => Ok(()),
        }
    }
}

fn cell(v: Option<f64>) -> Cell {
    Cell(v)
}

/// An integer-like cell (bitmask, P-state) without a float round trip.
struct IntCell(Option<u64>);

impl std::fmt::Display for IntCell {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            Some(v) => write!(f, "{v}"),
            None => Ok(()),
        }
    }
}

/// Appends samples to the run folder's CSV files as they arrive. Each call's rows are
/// handed to the operating system (one `write`) before it returns, so before the sampler
/// publishes them: an agent killed outright leaves on disk every sample a client saw. A
/// `write` a tick costs microseconds; only the machine losing power loses the page cache.
pub struct Recorder {
    dir: PathBuf,
    nvml: Option<BufWriter<File>>,
    gpm: Option<BufWriter<File>>,
    host: Option<(BufWriter<File>, usize)>,
    gpu_processes: Option<BufWriter<File>>,
}

impl Recorder {
    /// A recorder writing into `dir` (created private to the user).
    pub fn create(dir: &Path) -> Result<Self> {
        crate::private::create_dir(dir).map_err(|e| AgentError::io(dir, e))?;
        Ok(Self {
            dir: dir.to_path_buf(),
            nvml: None,
            gpm: None,
            host: None,
            gpu_processes: None,
        })
    }

    /// The run folder written to.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn open(&self, name: &str, header: &str) -> Result<BufWriter<File>> {
        let path = self.dir.join(name);
        let mut w = BufWriter::new(File::create(&path).map_err(|e| AgentError::io(&path, e))?);
        writeln!(w, "{header}").map_err(|e| AgentError::io(&path, e))?;
        Ok(w)
    }

    /// Writes everything buffered to disk.
    pub fn flush(&mut self) -> Result<()> {
        let dir = self.dir.clone();
        let io = |e| AgentError::io(&dir, e);
        if let Some(w) = self.nvml.as_mut() {
            w.flush().map_err(io)?;
        }
        if let Some(w) = self.gpm.as_mut() {
            w.flush().map_err(io)?;
        }
        if let Some((w, _)) = self.host.as_mut() {
            w.flush().map_err(io)?;
        }
        if let Some(w) = self.gpu_processes.as_mut() {
            w.flush().map_err(io)?;
        }
        Ok(())
    }

    /// Appends NVML readings to `samples_nvml.csv`.
    pub fn write_nvml(&mut self, samples: &[NvmlSample]) -> Result<()> {
        if samples.is_empty() {
            return Ok(());
        }
        if self.nvml.is_none() {
            self.nvml = Some(self.open(layout::NVML_CSV, &schema::NVML_COLUMNS.join(","))?);
        }
        let w = self.nvml.as_mut().expect("opened above");
        for s in samples {
            writeln!(
                w,
                "{:.3},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},",
                s.ts,
                s.gpu,
                cell(s.util_gpu),
                cell(s.util_mem),
                cell(s.mem_used_mib),
                cell(s.mem_total_mib),
                cell(s.temp_c),
                cell(s.power_w),
                cell(s.power_limit_w),
                cell(s.sm_clock_mhz),
                cell(s.sm_clock_max_mhz),
                cell(s.mem_clock_mhz),
                cell(s.pcie_tx_kbs),
                cell(s.pcie_rx_kbs),
                IntCell(s.clock_event_reasons.map(|r| r.0)),
                IntCell(s.pstate.map(u64::from)),
            )
            .map_err(|e| AgentError::io(self.dir.join(layout::NVML_CSV), e))?;
        }
        w.flush()
            .map_err(|e| AgentError::io(self.dir.join(layout::NVML_CSV), e))
    }

    /// Appends GPM readings to `samples_gpm.csv`.
    pub fn write_gpm(&mut self, samples: &[GpmSample]) -> Result<()> {
        if samples.is_empty() {
            return Ok(());
        }
        if self.gpm.is_none() {
            self.gpm = Some(self.open(layout::GPM_CSV, &schema::GPM_COLUMNS.join(","))?);
        }
        let path = self.dir.join(layout::GPM_CSV);
        let w = self.gpm.as_mut().expect("opened above");
        for s in samples {
            let v = [
                s.graphics_util,
                s.sm_util,
                s.sm_occupancy,
                s.integer_util,
                s.any_tensor_util,
                s.dfma_tensor_util,
                s.hmma_tensor_util,
                s.imma_tensor_util,
                s.dram_bw_util,
                s.fp64_util,
                s.fp32_util,
                s.fp16_util,
                s.pcie_tx_mibs,
                s.pcie_rx_mibs,
                s.nvlink_rx_mibs,
                s.nvlink_tx_mibs,
            ];
            write!(w, "{:.3},{}", s.ts, s.gpu).map_err(|e| AgentError::io(&path, e))?;
            for x in v {
                match x {
                    Some(x) => write!(w, ",{x:.3}"),
                    None => write!(w, ","),
                }
                .map_err(|e| AgentError::io(&path, e))?;
            }
            writeln!(w).map_err(|e| AgentError::io(&path, e))?;
        }
        w.flush().map_err(|e| AgentError::io(&path, e))
    }

    /// Appends a host reading to `samples_host.csv`.
    pub fn write_host(&mut self, s: &HostSample) -> Result<()> {
        if self.host.is_none() {
            let header = schema::host_header(s.per_core_pct.len());
            self.host = Some((self.open(layout::HOST_CSV, &header)?, s.per_core_pct.len()));
        }
        let path = self.dir.join(layout::HOST_CSV);
        let (w, cores) = self.host.as_mut().expect("opened above");
        write!(
            w,
            "{:.3},{},{},{},{},{},{},{},{}",
            s.ts,
            cell(s.cpu_total_pct),
            cell(s.proc_tree_cpu_pct.or(Some(0.0))),
            cell(s.proc_tree_rss_mib.or(Some(0.0))),
            cell(s.disk_read_mbs),
            cell(s.disk_write_mbs),
            cell(s.load1),
            cell(s.proc_main_cpu_pct),
            IntCell(s.proc_busy_children.map(u64::from)),
        )
        .map_err(|e| AgentError::io(&path, e))?;
        for i in 0..*cores {
            write!(w, ",{}", cell(s.per_core_pct.get(i).copied()))
                .map_err(|e| AgentError::io(&path, e))?;
        }
        writeln!(w).map_err(|e| AgentError::io(&path, e))?;
        w.flush().map_err(|e| AgentError::io(&path, e))
    }

    /// Appends one reading of the GPUs' compute processes (`samples_gpu_processes.csv`:
    /// `ts,gpu,pid,used_mib`, a row per process; a reading with none writes nothing).
    pub fn write_gpu_processes(&mut self, samples: &[GpuProcessSample]) -> Result<()> {
        if samples.is_empty() {
            return Ok(());
        }
        if self.gpu_processes.is_none() {
            self.gpu_processes = Some(self.open(
                layout::GPU_PROCESSES_CSV,
                &schema::GPU_PROCESSES_COLUMNS.join(","),
            )?);
        }
        let path = self.dir.join(layout::GPU_PROCESSES_CSV);
        let w = self.gpu_processes.as_mut().expect("opened above");
        for s in samples {
            writeln!(w, "{:.3},{},{},{}", s.ts, s.gpu, s.pid, cell(s.used_mib))
                .map_err(|e| AgentError::io(&path, e))?;
        }
        w.flush().map_err(|e| AgentError::io(&path, e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gpu_processes_are_a_row_each_and_a_reading_with_none_writes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let mut rec = Recorder::create(dir.path()).unwrap();
        rec.write_gpu_processes(&[]).unwrap();
        rec.flush().unwrap();
        let path = dir.path().join(layout::GPU_PROCESSES_CSV);
        assert!(!path.exists());
        let p = |pid, used_mib| GpuProcessSample {
            ts: 1796007589.4011,
            gpu: 1,
            pid,
            used_mib,
        };
        rec.write_gpu_processes(&[p(4242, Some(80515.0)), p(77, None)])
            .unwrap();
        rec.flush().unwrap();
        assert_eq!(
            std::fs::read_to_string(path).unwrap(),
            "ts,gpu,pid,used_mib\n1796007589.401,1,4242,80515\n1796007589.401,1,77,\n"
        );
    }

    #[test]
    fn a_sample_is_in_the_file_when_its_write_returns() {
        // What the sampler publishes next is already the operating system's: no flush of
        // the recorder's own comes before a kill -9.
        let dir = tempfile::tempdir().unwrap();
        let mut rec = Recorder::create(dir.path()).unwrap();
        let sample = NvmlSample {
            ts: 1796007589.25,
            gpu: 0,
            util_gpu: Some(97.0),
            ..Default::default()
        };
        rec.write_nvml(std::slice::from_ref(&sample)).unwrap();
        let on_disk = std::fs::read_to_string(dir.path().join(layout::NVML_CSV)).unwrap();
        assert!(
            on_disk
                .lines()
                .nth(1)
                .unwrap()
                .starts_with("1796007589.250,0,97,"),
            "{on_disk}"
        );
        std::mem::forget(rec);
    }
}
