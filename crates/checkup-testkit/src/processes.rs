//! Process trees and their memory, read from /proc: what a desktop app costs is the app and
//! the WebKit processes it starts.

use std::collections::HashMap;

/// `pid` and every process below it.
pub fn descendants(pid: u32) -> Vec<u32> {
    let mut children: HashMap<u32, Vec<u32>> = HashMap::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Some(child) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        if let Some(parent) = parent_of(child) {
            children.entry(parent).or_default().push(child);
        }
    }
    let mut out = vec![pid];
    let mut i = 0;
    while i < out.len() {
        if let Some(c) = children.get(&out[i]) {
            out.extend(c);
        }
        i += 1;
    }
    out
}

fn parent_of(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name may hold spaces and parentheses: fields resume after the last ')'.
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(1)?.parse().ok()
}

/// Memory of a set of processes, in MiB.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Memory {
    /// Resident set: counts shared pages once per process.
    pub rss_mib: f64,
    /// Proportional set: shared pages split between the processes sharing them (what the
    /// set costs the machine).
    pub pss_mib: f64,
    /// The part of the proportional set that is the processes' own memory (heap, stacks,
    /// JIT), not mapped files such as shared libraries.
    pub pss_anon_mib: f64,
    pub processes: usize,
}

/// The summed memory of `pids` (processes gone meanwhile are skipped).
pub fn memory_of(pids: &[u32]) -> Memory {
    let mut m = Memory::default();
    for pid in pids {
        let Ok(rollup) = std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup")) else {
            continue;
        };
        let kib = |key: &str| {
            rollup
                .lines()
                .find_map(|l| l.strip_prefix(key))
                .and_then(|v| v.split_whitespace().next())
                .and_then(|v| v.parse::<f64>().ok())
                .unwrap_or(0.0)
        };
        m.rss_mib += kib("Rss:") / 1024.0;
        m.pss_mib += kib("Pss:") / 1024.0;
        m.pss_anon_mib += kib("Pss_Anon:") / 1024.0;
        m.processes += 1;
    }
    m
}

#[cfg(test)]
mod tests {
    #[test]
    fn this_test_process_is_its_own_tree_and_uses_memory() {
        let me = std::process::id();
        assert_eq!(super::descendants(me)[0], me);
        let m = super::memory_of(&[me]);
        assert_eq!(m.processes, 1);
        assert!(m.rss_mib > 1.0 && m.pss_mib > 0.5, "{m:?}");
    }
}
