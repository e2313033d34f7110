//! Host sampling from /proc: CPU per core, the training process tree (CPU and RSS), disk I/O
//! and load. Rates are computed between consecutive samples.

use std::collections::HashMap;

use checkup_model::HostSample;

/// Clock ticks per second for /proc CPU times.
fn ticks_per_s() -> f64 {
    // SAFETY: sysconf has no preconditions.
    let t = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    if t > 0 {
        t as f64
    } else {
        100.0
    }
}

fn page_size() -> f64 {
    // SAFETY: sysconf has no preconditions.
    let p = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if p > 0 {
        p as f64
    } else {
        4096.0
    }
}

#[derive(Default, Clone, Copy)]
struct CpuTimes {
    busy: u64,
    total: u64,
}

/// (busy, total) jiffies for the whole machine and for each core, from /proc/stat.
fn read_cpu_times() -> (CpuTimes, Vec<CpuTimes>) {
    let text = std::fs::read_to_string("/proc/stat").unwrap_or_default();
    let mut all = CpuTimes::default();
    let mut cores = Vec::new();
    for line in text.lines().filter(|l| l.starts_with("cpu")) {
        let mut parts = line.split_whitespace();
        let name = parts.next().unwrap_or_default();
        let v: Vec<u64> = parts.filter_map(|p| p.parse().ok()).collect();
        if v.len() < 4 {
            continue;
        }
        // user nice system idle iowait irq softirq steal
        let idle = v[3] + v.get(4).copied().unwrap_or(0);
        let total: u64 = v.iter().take(8).sum();
        let t = CpuTimes {
            busy: total - idle,
            total,
        };
        if name == "cpu" {
            all = t;
        } else {
            cores.push(t);
        }
    }
    (all, cores)
}

/// A process's (parent, utime+stime jiffies, rss pages) from /proc/PID/stat.
fn read_proc_stat(pid: u32) -> Option<(u32, u64, u64)> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name may contain spaces and parentheses: fields start after the last ')'.
    let rest = &text[text.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ppid = f.get(1)?.parse().ok()?;
    let utime: u64 = f.get(11)?.parse().ok()?;
    let stime: u64 = f.get(12)?.parse().ok()?;
    let rss: u64 = f.get(21)?.parse().ok()?;
    Some((ppid, utime + stime, rss))
}

/// `root` and all its descendants, from one scan of /proc.
pub fn process_tree(root: u32) -> Vec<u32> {
    let mut children: HashMap<u32, Vec<u32>> = HashMap::new();
    if let Ok(dir) = std::fs::read_dir("/proc") {
        for entry in dir.flatten() {
            let Some(pid) = entry
                .file_name()
                .to_str()
                .and_then(|n| n.parse::<u32>().ok())
            else {
                continue;
            };
            if let Some((ppid, _, _)) = read_proc_stat(pid) {
                children.entry(ppid).or_default().push(pid);
            }
        }
    }
    let mut out = vec![root];
    let mut i = 0;
    while i < out.len() {
        if let Some(c) = children.get(&out[i]) {
            out.extend(c);
        }
        i += 1;
    }
    out
}

fn read_disk_sectors() -> (u64, u64) {
    let text = std::fs::read_to_string("/proc/diskstats").unwrap_or_default();
    let mut read = 0;
    let mut written = 0;
    for line in text.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.len() < 10 {
            continue;
        }
        let name = f[2];
        // Whole devices only (partitions would double count): sdX, vdX, nvmeXnY, xvdX.
        let whole = (name.starts_with("sd") || name.starts_with("vd") || name.starts_with("xvd"))
            && !name.chars().last().is_some_and(|c| c.is_ascii_digit())
            || name.starts_with("nvme") && !name.contains('p');
        if whole {
            read += f[5].parse::<u64>().unwrap_or(0);
            written += f[9].parse::<u64>().unwrap_or(0);
        }
    }
    (read, written)
}

fn read_load1() -> Option<f64> {
    std::fs::read_to_string("/proc/loadavg")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// Samples the host; remembers the previous reading to turn counters into rates.
pub struct HostCollector {
    root: Option<u32>,
    /// The process tree, rescanned every `TREE_RESCAN` samples: a full /proc scan costs
    /// milliseconds, reading the known pids microseconds.
    tree: Vec<u32>,
    samples: u64,
    ticks: f64,
    page: f64,
    prev: Option<Prev>,
}

struct Prev {
    ts: f64,
    all: CpuTimes,
    cores: Vec<CpuTimes>,
    tree_jiffies: u64,
    disk: (u64, u64),
}

impl HostCollector {
    /// `root`: the training process whose tree is followed (None: machine only).
    pub fn new(root: Option<u32>) -> Self {
        Self {
            root,
            tree: Vec::new(),
            samples: 0,
            ticks: ticks_per_s(),
            page: page_size(),
            prev: None,
        }
    }

    pub fn set_root(&mut self, root: Option<u32>) {
        if self.root != root {
            self.tree.clear();
        }
        self.root = root;
    }

    /// One sample at `ts` (epoch seconds). The first call only primes the counters and
    /// returns None.
    pub fn sample(&mut self, ts: f64) -> Option<HostSample> {
        let (all, cores) = read_cpu_times();
        const TREE_RESCAN: u64 = 10;
        if let Some(root) = self.root {
            if self.tree.is_empty() || self.samples.is_multiple_of(TREE_RESCAN) {
                self.tree = process_tree(root);
            }
        }
        self.samples += 1;
        // Exited workers simply stop counting; a worker that exits between rescans takes its
        // CPU time with it, which is why the tree is rescanned often.
        let (tree_jiffies, tree_rss_pages) = self
            .tree
            .iter()
            .filter_map(|p| read_proc_stat(*p))
            .fold((0, 0), |(j, r), (_, jj, rr)| (j + jj, r + rr));
        let disk = read_disk_sectors();
        let prev = self.prev.replace(Prev {
            ts,
            all,
            cores: cores.clone(),
            tree_jiffies,
            disk,
        })?;
        let dt = (ts - prev.ts).max(1e-3);
        let pct = |now: CpuTimes, before: CpuTimes| {
            let total = now.total.saturating_sub(before.total);
            if total == 0 {
                0.0
            } else {
                now.busy.saturating_sub(before.busy) as f64 * 100.0 / total as f64
            }
        };
        Some(HostSample {
            ts,
            cpu_total_pct: Some(round1(pct(all, prev.all))),
            proc_tree_cpu_pct: self.root.map(|_| {
                round1(
                    tree_jiffies.saturating_sub(prev.tree_jiffies) as f64 / self.ticks / dt * 100.0,
                )
            }),
            proc_tree_rss_mib: self
                .root
                .map(|_| (tree_rss_pages as f64 * self.page / (1024.0 * 1024.0)).round()),
            disk_read_mbs: Some(round1(
                disk.0.saturating_sub(prev.disk.0) as f64 * 512.0 / 1e6 / dt,
            )),
            disk_write_mbs: Some(round1(
                disk.1.saturating_sub(prev.disk.1) as f64 * 512.0 / 1e6 / dt,
            )),
            load1: read_load1(),
            per_core_pct: cores
                .iter()
                .zip(
                    prev.cores
                        .iter()
                        .chain(std::iter::repeat(&CpuTimes::default())),
                )
                .map(|(n, b)| pct(*n, *b).round())
                .collect(),
        })
    }
}

fn round1(v: f64) -> f64 {
    (v * 10.0).round() / 10.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_samples_measure_this_process_burning_cpu() {
        let mut c = HostCollector::new(Some(std::process::id()));
        let t0 = std::time::Instant::now();
        assert!(c.sample(0.0).is_none(), "first call primes");
        let mut x = 0u64;
        while t0.elapsed().as_millis() < 300 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
        }
        std::hint::black_box(x);
        let s = c.sample(t0.elapsed().as_secs_f64()).unwrap();
        assert!(!s.per_core_pct.is_empty());
        let tree = s.proc_tree_cpu_pct.unwrap();
        assert!(tree > 50.0, "this test spins one core: {tree}");
        assert!(s.proc_tree_rss_mib.unwrap() > 0.0);
    }
}
