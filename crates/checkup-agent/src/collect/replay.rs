//! A recorded run played back as if its GPUs were sampled now: the samples of a run folder
//! (`samples_nvml.csv`, `samples_gpm.csv`, `samples_host.csv`) come out at the pace they were
//! recorded, stamped with the current time, and the recording starts over when it ends. It
//! lets the whole live path (sampling, the WebSocket stream, the app's live curves, the
//! diagnosis of the run) be shown and tested with real GPU data on a machine without a GPU.

use std::path::{Path, PathBuf};

use checkup_model::{GpmSample, HostSample, NvmlSample};
use checkup_recording::samples::{read_gpm_csv, read_host_csv, read_nvml_csv};

use crate::error::{AgentError, Result};

/// Samples that came due since the previous call.
#[derive(Debug, Default)]
pub struct Due {
    /// NVML readings that came due.
    pub nvml: Vec<NvmlSample>,
    /// GPM readings that came due.
    pub gpm: Vec<GpmSample>,
    /// Host readings that came due.
    pub host: Vec<HostSample>,
}

/// A recorded run folder played back at its recorded pace, looping, in place of the GPUs and the host (demos and tests).
pub struct Replay {
    dir: PathBuf,
    nvml: Vec<NvmlSample>,
    gpm: Vec<GpmSample>,
    host: Vec<HostSample>,
    /// The recording's first timestamp.
    t0: f64,
    /// Seconds from the first sample to one sample period past the last: one pass.
    span: f64,
    /// Next row of each series, and how many passes are done.
    next: [usize; 3],
    passes: u32,
}

impl Replay {
    /// Reads the run folder's samples; it must hold `samples_nvml.csv` with at least two rows.
    pub fn open(dir: &Path) -> Result<Self> {
        let invalid = |why: String| AgentError::Invalid(format!("{}: {why}", dir.display()));
        let nvml_path = dir.join("samples_nvml.csv");
        if !nvml_path.is_file() {
            return Err(invalid(
                "no samples_nvml.csv: give a run folder recorded on a GPU (tests/corpus/healthy, or a folder the agent wrote)".into(),
            ));
        }
        let read_err = |e: checkup_recording::RecordingError| invalid(e.to_string());
        let mut nvml = read_nvml_csv(&nvml_path).map_err(read_err)?;
        let optional = |name: &str| {
            let p = dir.join(name);
            p.is_file().then_some(p)
        };
        let mut gpm = match optional("samples_gpm.csv") {
            Some(p) => read_gpm_csv(&p).map_err(read_err)?,
            None => Vec::new(),
        };
        let mut host = match optional("samples_host.csv") {
            Some(p) => read_host_csv(&p).map_err(read_err)?,
            None => Vec::new(),
        };
        nvml.sort_by(|a, b| a.ts.total_cmp(&b.ts));
        gpm.sort_by(|a, b| a.ts.total_cmp(&b.ts));
        host.sort_by(|a, b| a.ts.total_cmp(&b.ts));
        let (Some(first), Some(last)) = (nvml.first(), nvml.last()) else {
            return Err(invalid("samples_nvml.csv has no rows".into()));
        };
        let (t0, t_last) = (first.ts, last.ts);
        if t_last <= t0 {
            return Err(invalid(
                "samples_nvml.csv covers no time: at least two timestamps are needed".into(),
            ));
        }
        // One sample period past the last row, so the next pass does not repeat its time.
        let period =
            (t_last - t0) / nvml.iter().filter(|s| s.gpu == first.gpu).count().max(2) as f64;
        Ok(Self {
            dir: dir.to_path_buf(),
            nvml,
            gpm,
            host,
            t0,
            span: t_last - t0 + period,
            next: [0; 3],
            passes: 0,
        })
    }

    /// The run folder being played back.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// How many GPUs the recording has.
    pub fn gpus(&self) -> u32 {
        let mut ids: Vec<u32> = self.nvml.iter().map(|s| s.gpu).collect();
        ids.sort_unstable();
        ids.dedup();
        ids.len() as u32
    }

    /// Whether the recording has GPM samples.
    pub fn has_gpm(&self) -> bool {
        !self.gpm.is_empty()
    }

    /// The samples recorded up to `elapsed` seconds into the playback, each stamped as if it
    /// were taken now (`started` is the epoch time the playback began).
    pub fn due(&mut self, elapsed: f64, started: f64) -> Due {
        let mut due = Due::default();
        loop {
            let offset = self.passes as f64 * self.span;
            let stamp = |ts: f64| ((started + offset + ts - self.t0) * 1000.0).round() / 1000.0;
            let is_due = |ts: f64| offset + ts - self.t0 <= elapsed;
            while let Some(s) = self.nvml.get(self.next[0]).filter(|s| is_due(s.ts)) {
                due.nvml.push(NvmlSample {
                    ts: stamp(s.ts),
                    ..s.clone()
                });
                self.next[0] += 1;
            }
            while let Some(s) = self.gpm.get(self.next[1]).filter(|s| is_due(s.ts)) {
                due.gpm.push(GpmSample {
                    ts: stamp(s.ts),
                    ..s.clone()
                });
                self.next[1] += 1;
            }
            while let Some(s) = self.host.get(self.next[2]).filter(|s| is_due(s.ts)) {
                due.host.push(HostSample {
                    ts: stamp(s.ts),
                    ..s.clone()
                });
                self.next[2] += 1;
            }
            let pass_done = self.next[0] >= self.nvml.len()
                && self.next[1] >= self.gpm.len()
                && self.next[2] >= self.host.len();
            if !pass_done || offset + self.span > elapsed {
                return due;
            }
            // This pass is over and the next has begun.
            self.next = [0; 3];
            self.passes += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn healthy() -> Replay {
        Replay::open(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus/healthy"))
            .unwrap()
    }

    #[test]
    fn samples_come_due_at_their_recorded_pace_stamped_now() {
        let mut r = healthy();
        assert_eq!(r.gpus(), 1);
        assert!(r.has_gpm());
        let started = 2_000_000_000.0;
        let first = r.due(0.95, started);
        // 10 Hz NVML: the rows of the first 0.95 s (0.0, 0.1, ... 0.9).
        assert_eq!(
            first.nvml.len(),
            10,
            "{:?}",
            first.nvml.iter().map(|s| s.ts).collect::<Vec<_>>()
        );
        assert!((first.nvml[0].ts - started).abs() < 1e-6);
        assert!(first.nvml.iter().all(|s| s.ts <= started + 0.95 + 1e-6));
        // Nothing new until time moves on; then only the new rows.
        assert!(r.due(0.95, started).nvml.is_empty());
        let next = r.due(1.95, started);
        assert_eq!(next.nvml.len(), 10);
        assert!(next.nvml[0].ts > first.nvml[9].ts);
    }

    #[test]
    fn the_recording_starts_over_when_it_ends_with_time_still_rising() {
        let mut r = healthy();
        let started = 2_000_000_000.0;
        let one_pass = r.due(r.span - 1e-3, started);
        let rows = one_pass.nvml.len();
        assert_eq!(rows, r.nvml.len());
        let second = r.due(2.0 * r.span - 1e-3, started);
        assert_eq!(second.nvml.len(), rows);
        assert!(second.nvml[0].ts > one_pass.nvml[rows - 1].ts);
        assert_eq!(second.nvml[0].util_gpu, one_pass.nvml[0].util_gpu);
    }

    #[test]
    fn a_folder_without_gpu_samples_is_refused_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let e = Replay::open(dir.path()).err().unwrap().to_string();
        assert!(e.contains("no samples_nvml.csv"), "{e}");
        std::fs::write(dir.path().join("samples_nvml.csv"), "ts,gpu,util_gpu\n").unwrap();
        let e = Replay::open(dir.path()).err().unwrap().to_string();
        assert!(e.contains("no rows"), "{e}");
    }
}
