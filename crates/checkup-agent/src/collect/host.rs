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

/// One process's line of /proc/PID/stat.
#[derive(Debug, Clone)]
pub(crate) struct ProcStat {
    /// The command name (at most 15 bytes, as the kernel keeps it).
    comm: String,
    /// Whether it has ended and waits to be reaped (a zombie).
    pub(crate) ended: bool,
    ppid: u32,
    /// Its process group.
    pub(crate) pgrp: u32,
    /// utime + stime, in clock ticks.
    cpu_ticks: u64,
    rss_pages: u64,
    /// When it started, in clock ticks since boot.
    start_ticks: u64,
}

pub(crate) fn read_proc_stat(pid: u32) -> Option<ProcStat> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name may contain spaces and parentheses: fields start after the last ')'.
    let close = text.rfind(')')?;
    let comm = text.get(text.find('(')? + 1..close)?.to_owned();
    let rest = text.get(close + 2..)?;
    let f: Vec<&str> = rest.split_whitespace().collect();
    let utime: u64 = f.get(11)?.parse().ok()?;
    let stime: u64 = f.get(12)?.parse().ok()?;
    Some(ProcStat {
        comm,
        ended: matches!(f.first(), Some(&"Z" | &"X")),
        ppid: f.get(1)?.parse().ok()?,
        pgrp: f.get(2)?.parse().ok()?,
        cpu_ticks: utime.saturating_add(stime),
        start_ticks: f.get(19)?.parse().ok()?,
        rss_pages: f.get(21)?.parse().ok()?,
    })
}

/// Seconds since boot, the clock of a process's start time.
fn read_uptime_s() -> Option<f64> {
    std::fs::read_to_string("/proc/uptime")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// The direct children of `pid`, from each of its threads' `children` file; None where the
/// kernel has no such file (CONFIG_PROC_CHILDREN off).
fn children_of(pid: u32) -> Option<Vec<u32>> {
    let mut out = Vec::new();
    for task in std::fs::read_dir(format!("/proc/{pid}/task"))
        .ok()?
        .flatten()
    {
        let text = std::fs::read_to_string(task.path().join("children")).ok()?;
        out.extend(
            text.split_whitespace()
                .filter_map(|c| c.parse::<u32>().ok()),
        );
    }
    Some(out)
}

/// `root` and all its descendants: from the processes' `children` files, which cost a few
/// reads per process of the tree, or else from one scan of all of /proc.
pub fn process_tree(root: u32) -> Vec<u32> {
    descendants(root, children_of).unwrap_or_else(|| {
        let children = children_by_scan();
        descendants(root, |p| {
            Some(children.get(&p).cloned().unwrap_or_default())
        })
        .unwrap_or_default()
    })
}

/// `root` and everything below it, breadth first; None where `children` cannot say.
fn descendants(root: u32, mut children: impl FnMut(u32) -> Option<Vec<u32>>) -> Option<Vec<u32>> {
    let mut out = vec![root];
    let mut i = 0;
    while i < out.len() {
        out.extend(children(out[i])?);
        i += 1;
    }
    Some(out)
}

/// Every process's children, from one scan of /proc.
fn children_by_scan() -> HashMap<u32, Vec<u32>> {
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
            if let Some(p) = read_proc_stat(pid) {
                children.entry(p.ppid).or_default().push(pid);
            }
        }
    }
    children
}

/// Programs that only start another one: a shell running `python train.py`, `timeout`,
/// `nohup`. Followed with `--pid` of such a launcher, the training is the process below it.
const LAUNCHERS: &[&str] = &[
    "sh", "bash", "dash", "zsh", "fish", "ksh", "env", "nohup", "timeout", "time", "sudo",
    "setsid", "stdbuf", "nice", "ionice", "taskset", "numactl", "chrt", "script",
];

/// The training processes of a tree (`stats`, breadth first from `root`): those holding a
/// GPU; where none does (not started yet, or a container's NVML reports other pids), the
/// root with launchers stepped through while each has a single child.
fn training_processes(root: u32, stats: &[(u32, ProcStat)], gpu_pids: &[u32]) -> Vec<u32> {
    let on_gpu: Vec<u32> = stats
        .iter()
        .map(|(pid, _)| *pid)
        .filter(|pid| gpu_pids.contains(pid))
        .collect();
    if !on_gpu.is_empty() {
        return on_gpu;
    }
    let mut main = root;
    loop {
        let Some((_, p)) = stats.iter().find(|(pid, _)| *pid == main) else {
            return vec![main];
        };
        let mut children = stats.iter().filter(|(_, c)| c.ppid == main);
        match (children.next(), children.next()) {
            (Some((child, _)), None) if LAUNCHERS.contains(&p.comm.as_str()) => main = *child,
            _ => return vec![main],
        }
    }
}

/// A tree process using at least this share of a core counts as a busy helper.
const BUSY_CHILD_CORE_SHARE: f64 = 0.9;

/// How many of the processes that used `ticks` each over an interval of `interval_ticks`
/// (one core's worth) held at least `BUSY_CHILD_CORE_SHARE` of a core.
fn count_busy(ticks: &[u64], interval_ticks: f64) -> u32 {
    ticks
        .iter()
        .filter(|&&t| t as f64 >= BUSY_CHILD_CORE_SHARE * interval_ticks)
        .count() as u32
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
    /// Whether the tree comes from `children` files (cheap: rescanned every sample, so a
    /// DataLoader worker that lives a few seconds is seen) or from a full /proc scan
    /// (every `TREE_RESCAN` samples).
    cheap_tree: Option<bool>,
    tree: Vec<u32>,
    /// Processes holding a GPU context (NVML's list), the training's ranks.
    gpu_pids: Vec<u32>,
    samples: u64,
    ticks: f64,
    page: f64,
    prev: Option<Prev>,
}

struct Prev {
    ts: f64,
    all: CpuTimes,
    cores: Vec<CpuTimes>,
    /// CPU ticks of each process of the tree at the previous sample.
    tree_ticks: HashMap<u32, u64>,
    /// Clock ticks since boot at the previous sample.
    uptime_ticks: Option<f64>,
    disk: (u64, u64),
}

/// The tree's CPU between two samples, in ticks: in all, in the training process, and per
/// other process.
struct TreeCpu {
    total: u64,
    main: u64,
    children: Vec<u64>,
    rss_pages: u64,
    now: HashMap<u32, u64>,
}

impl HostCollector {
    /// `root`: the training process whose tree is followed (None: machine only).
    pub fn new(root: Option<u32>) -> Self {
        Self {
            root,
            cheap_tree: None,
            tree: Vec::new(),
            gpu_pids: Vec::new(),
            samples: 0,
            ticks: ticks_per_s(),
            page: page_size(),
            prev: None,
        }
    }

    /// Follows the process tree under `root` (the training) from the next sample on.
    pub fn set_root(&mut self, root: Option<u32>) {
        if self.root != root {
            self.tree.clear();
            if let Some(p) = self.prev.as_mut() {
                p.tree_ticks.clear();
            }
        }
        self.root = root;
    }

    /// The processes that hold a GPU now (from the GPU collector's process list).
    pub fn set_gpu_pids(&mut self, pids: Vec<u32>) {
        self.gpu_pids = pids;
    }

    /// Each process's CPU since the previous sample. A process first seen now counts from
    /// its start if it started since then, else from now on; one that exited takes its
    /// last interval's CPU with it (at most one sample period of it).
    fn tree_cpu(&mut self, root: u32) -> TreeCpu {
        const TREE_RESCAN: u64 = 10;
        let cheap = *self
            .cheap_tree
            .get_or_insert_with(|| children_of(root).is_some());
        if self.tree.is_empty() || cheap || self.samples.is_multiple_of(TREE_RESCAN) {
            self.tree = process_tree(root);
        }
        let prev = self.prev.as_ref();
        let stats: Vec<(u32, ProcStat)> = self
            .tree
            .iter()
            .filter_map(|&pid| Some((pid, read_proc_stat(pid)?)))
            .collect();
        let mains = training_processes(root, &stats, &self.gpu_pids);
        let mut out = TreeCpu {
            total: 0,
            main: 0,
            children: Vec::new(),
            rss_pages: 0,
            now: HashMap::with_capacity(stats.len()),
        };
        for (pid, p) in &stats {
            out.now.insert(*pid, p.cpu_ticks);
            out.rss_pages += p.rss_pages;
            let before = prev.and_then(|v| v.tree_ticks.get(pid).copied());
            let since_start = prev
                .and_then(|v| v.uptime_ticks)
                .is_some_and(|t| p.start_ticks as f64 >= t);
            let delta = match before {
                Some(b) => p.cpu_ticks.saturating_sub(b),
                None if since_start => p.cpu_ticks,
                None => 0,
            };
            out.total += delta;
            if mains.contains(pid) {
                // Several ranks: the busiest one is the closest to being held by its loop.
                out.main = out.main.max(delta);
            } else {
                out.children.push(delta);
            }
        }
        out
    }

    /// One sample at `ts` (epoch seconds). The first call only primes the counters and
    /// returns None.
    pub fn sample(&mut self, ts: f64) -> Option<HostSample> {
        let (all, cores) = read_cpu_times();
        let uptime_ticks = read_uptime_s().map(|u| u * self.ticks);
        let tree = self.root.map(|root| self.tree_cpu(root));
        self.samples += 1;
        let disk = read_disk_sectors();
        let prev = self.prev.replace(Prev {
            ts,
            all,
            cores: cores.clone(),
            tree_ticks: tree.as_ref().map(|t| t.now.clone()).unwrap_or_default(),
            uptime_ticks,
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
        let core_pct = |ticks: u64| ticks as f64 / self.ticks / dt * 100.0;
        Some(HostSample {
            ts,
            cpu_total_pct: Some(round1(pct(all, prev.all))),
            proc_tree_cpu_pct: tree.as_ref().map(|t| round1(core_pct(t.total))),
            proc_tree_rss_mib: tree
                .as_ref()
                .map(|t| (t.rss_pages as f64 * self.page / (1024.0 * 1024.0)).round()),
            proc_main_cpu_pct: tree.as_ref().map(|t| round1(core_pct(t.main))),
            proc_busy_children: tree
                .as_ref()
                .map(|t| count_busy(&t.children, self.ticks * dt)),
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
    use std::os::unix::process::CommandExt;

    #[test]
    fn host_samples_measure_this_process_burning_cpu() {
        // This thread's CPU time, which a loaded machine gives it at its own pace: the
        // collector must report what the process really got, not what the wall clock allows.
        let thread_cpu_s = || {
            let mut t = libc::timespec {
                tv_sec: 0,
                tv_nsec: 0,
            };
            unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
            t.tv_sec as f64 + t.tv_nsec as f64 / 1e9
        };
        let mut c = HostCollector::new(Some(std::process::id()));
        let t0 = std::time::Instant::now();
        assert!(c.sample(0.0).is_none(), "first call primes");
        let cpu0 = thread_cpu_s();
        let mut x = 0u64;
        while thread_cpu_s() - cpu0 < 0.3 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
        }
        std::hint::black_box(x);
        let wall_s = t0.elapsed().as_secs_f64();
        let spun_pct = (thread_cpu_s() - cpu0) / wall_s * 100.0;
        let s = c.sample(wall_s).unwrap();
        assert!(!s.per_core_pct.is_empty());
        let tree = s.proc_tree_cpu_pct.unwrap();
        // /proc counts in clock ticks (10 ms): 300 ms of spinning reads within a few ticks.
        assert!(
            tree > spun_pct * 0.8,
            "this test spun {spun_pct:.0} % of a core over {wall_s:.2} s; the collector read {tree}"
        );
        // The spinning is this process's own, counted in the root (a test running beside
        // this one may add a child to the tree).
        let main = s.proc_main_cpu_pct.unwrap();
        assert!(main > 0.0 && main <= tree, "{s:?}");
        assert!(s.proc_tree_rss_mib.unwrap() > 0.0);
    }

    fn stat(comm: &str, ppid: u32) -> ProcStat {
        ProcStat {
            comm: comm.into(),
            ended: false,
            ppid,
            pgrp: 0,
            cpu_ticks: 0,
            rss_pages: 0,
            start_ticks: 0,
        }
    }

    #[test]
    fn the_training_processes_are_those_on_a_gpu_else_the_root_below_its_launchers() {
        // torchrun (python) with two ranks on GPUs and a DataLoader worker under rank 0.
        let torchrun = [
            (10, stat("torchrun", 1)),
            (11, stat("python3", 10)),
            (12, stat("python3", 10)),
            (13, stat("pt_data_worker", 11)),
        ];
        assert_eq!(
            training_processes(10, &torchrun, &[12, 11, 99]),
            vec![11, 12]
        );
        // `bash run.sh` -> `timeout 1h python train.py` -> python with its workers, before
        // the GPU is in use.
        let shell = [
            (20, stat("bash", 1)),
            (21, stat("timeout", 20)),
            (22, stat("python", 21)),
            (23, stat("python", 22)),
            (24, stat("python", 22)),
        ];
        assert_eq!(training_processes(20, &shell, &[]), vec![22]);
        // A shell that started two programs is where the tree branches: it stays the root.
        let two = [
            (30, stat("bash", 1)),
            (31, stat("python", 30)),
            (32, stat("tail", 30)),
        ];
        assert_eq!(training_processes(30, &two, &[]), vec![30]);
        assert_eq!(training_processes(40, &[], &[]), vec![40]);
    }

    #[test]
    fn a_process_followed_through_its_launcher_shell_is_the_training_not_a_busy_child() {
        // bash forks `yes` (it is not the last command, so bash does not exec it): the busy
        // process is the training, below its launcher.
        let shell = ProcessGroup(
            std::process::Command::new("bash")
                .args(["-c", "yes > /dev/null; true"])
                .process_group(0)
                .spawn()
                .unwrap(),
        );
        let mut c = HostCollector::new(Some(shell.0.id()));
        std::thread::sleep(std::time::Duration::from_millis(100));
        assert!(c.sample(0.0).is_none());
        let t0 = std::time::Instant::now();
        std::thread::sleep(std::time::Duration::from_millis(500));
        let s = c.sample(t0.elapsed().as_secs_f64()).unwrap();
        assert_eq!(s.proc_busy_children, Some(0), "{s:?}");
        // Its share depends on how loaded the machine is; it is all in the main process.
        assert!(s.proc_main_cpu_pct.unwrap() >= 10.0, "{s:?}");
        assert_eq!(s.proc_main_cpu_pct, s.proc_tree_cpu_pct, "{s:?}");
    }

    #[test]
    fn a_helper_is_busy_from_nine_tenths_of_a_core() {
        // 100 ticks a second over 2 s: 200 ticks is a whole core.
        assert_eq!(count_busy(&[180, 179, 200, 0], 200.0), 2);
    }

    /// A child that spins until dropped, so a failed assertion leaves nothing running.
    struct Spinner(std::process::Child);

    impl Drop for Spinner {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }

    /// A process and everything it started, killed when dropped (killing the shell alone
    /// would leave its child spinning).
    struct ProcessGroup(std::process::Child);

    impl Drop for ProcessGroup {
        fn drop(&mut self) {
            // SAFETY: kill(2) on the group this test created; no memory is involved.
            unsafe { libc::kill(-(self.0.id() as i32), libc::SIGKILL) };
            let _ = self.0.wait();
        }
    }

    #[test]
    fn a_childs_cpu_counts_in_the_tree_and_its_exit_does_not_zero_the_tree() {
        let me = std::process::id();
        let mut c = HostCollector::new(Some(me));
        let spin = Spinner(
            std::process::Command::new("sh")
                .args(["-c", "while :; do :; done"])
                .spawn()
                .unwrap(),
        );
        assert!(c.sample(0.0).is_none());
        let t0 = std::time::Instant::now();
        std::thread::sleep(std::time::Duration::from_millis(500));
        let s = c.sample(t0.elapsed().as_secs_f64()).unwrap();
        // The child's share depends on how busy the machine is (a loaded 2-core CI host
        // gives it a fraction): it is in the tree, not in the root.
        let child = s.proc_tree_cpu_pct.unwrap() - s.proc_main_cpu_pct.unwrap();
        assert!(child >= 10.0, "{s:?}");
        drop(spin);
        std::thread::sleep(std::time::Duration::from_millis(200));
        let s = c.sample(t0.elapsed().as_secs_f64()).unwrap();
        assert_eq!(s.proc_busy_children, Some(0), "{s:?}");
        let tree = s.proc_tree_cpu_pct.unwrap();
        assert!(tree >= s.proc_main_cpu_pct.unwrap(), "{s:?}");
    }
}
