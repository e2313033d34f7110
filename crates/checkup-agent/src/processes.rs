//! The processes using the GPUs now, for the app's PID picker: the driver's compute
//! processes with their command lines, or, while sampling plays a recording back, the
//! processes that recording saw last.

use std::path::Path;

use checkup_model::{GpuProblem, GpuProcess, GpuProcessList};

/// The longest command line handed out (a launcher's can run to kilobytes).
const COMMAND_CHARS: usize = 200;

/// The processes using each GPU, with their memory and command line (from the recording when replaying).
pub fn gpu_processes(replay: Option<&Path>) -> GpuProcessList {
    match replay {
        Some(run) => recorded(run),
        None => live(),
    }
}

#[cfg(feature = "nvml")]
fn live() -> GpuProcessList {
    match crate::collect::nvml::NvmlCollector::new() {
        Ok(nv) => GpuProcessList {
            processes: nv
                .gpu_processes()
                .into_iter()
                .map(|(gpu, pid, used_mib)| GpuProcess {
                    gpu,
                    pid,
                    used_mib,
                    command: command_line(pid),
                })
                .collect(),
            ..Default::default()
        },
        Err(crate::AgentError::NoDriver(detail)) => problem(GpuProblem::NoDriver { detail }),
        Err(e) => problem(GpuProblem::Nvml {
            detail: e.to_string(),
        }),
    }
}

#[cfg(not(feature = "nvml"))]
fn live() -> GpuProcessList {
    problem(GpuProblem::NoNvmlInBuild)
}

fn problem(p: GpuProblem) -> GpuProcessList {
    GpuProcessList {
        gpu_problem: Some(p),
        ..Default::default()
    }
}

/// The processes of the recording's last reading (none when it has no process file).
fn recorded(run: &Path) -> GpuProcessList {
    let file = run.join(checkup_recording::layout::GPU_PROCESSES_CSV);
    let samples = checkup_recording::samples::read_gpu_processes_csv(&file).unwrap_or_default();
    let last = samples
        .iter()
        .map(|s| s.ts)
        .fold(f64::NEG_INFINITY, f64::max);
    GpuProcessList {
        processes: samples
            .iter()
            .filter(|s| s.ts == last)
            .map(|s| GpuProcess {
                gpu: s.gpu,
                pid: s.pid,
                used_mib: s.used_mib.map(|m| m.max(0.0) as u64),
                command: None,
            })
            .collect(),
        gpu_problem: None,
        recorded_in: Some(run.display().to_string()),
    }
}

/// `/proc/PID/cmdline` with its arguments joined by spaces, shortened to `COMMAND_CHARS`.
fn command_line(pid: u32) -> Option<String> {
    let raw = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
    Some(shorten(&raw)).filter(|c| !c.is_empty())
}

fn shorten(raw: &[u8]) -> String {
    let joined: String = String::from_utf8_lossy(raw)
        .split('\0')
        .filter(|a| !a.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    if joined.chars().count() <= COMMAND_CHARS {
        joined
    } else {
        let cut: String = joined.chars().take(COMMAND_CHARS - 1).collect();
        format!("{cut}…")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_command_line_reads_as_typed_and_a_long_one_is_shortened() {
        assert_eq!(
            shorten(b"python3\0train.py\0--bs\x0064\0"),
            "python3 train.py --bs 64"
        );
        let long = format!("python3\0{}", "x".repeat(500));
        let s = shorten(long.as_bytes());
        assert_eq!(s.chars().count(), COMMAND_CHARS);
        assert!(s.ends_with('…'));
    }

    #[test]
    fn this_process_s_own_command_line_is_found() {
        let me = command_line(std::process::id()).unwrap();
        assert!(!me.is_empty());
    }

    #[test]
    fn a_played_back_recording_lists_the_processes_of_its_last_reading() {
        let run = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/corpus/probe_small_mlp_short_epochs");
        let list = gpu_processes(Some(&run));
        assert_eq!(list.processes.len(), 1);
        assert_eq!(list.processes[0].pid, 473);
        assert!(list
            .recorded_in
            .unwrap()
            .ends_with("probe_small_mlp_short_epochs"));
        // A recording without the file lists none, and says whose they would be.
        let none = gpu_processes(Some(&run.join("../memory_bound")));
        assert!(none.processes.is_empty() && none.recorded_in.is_some());
    }
}
