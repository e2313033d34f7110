//! The host's hot lines (`training.json`'s `hot_lines`): where the training's threads and
//! its DataLoader workers spent their CPU, by line of the training's own code, as the
//! probe's stack sampler credited each wake-up's CPU to the line a thread was at. And the
//! fact a finding quotes from them: one line with its share of a thread's CPU.

use serde::{Deserialize, Serialize};

/// `hot_lines` of `training.json`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct HotLines {
    /// How often the stacks were read, ms.
    pub interval_ms: Option<f64>,
    /// Wall seconds sampled (the training process's; workers' fall inside).
    pub seconds: f64,
    /// Wake-ups of every process's sampler together.
    pub wakeups: u64,
    /// CPU the samplers themselves used, seconds: the sampling's own cost.
    pub sampler_cpu_s: f64,
    /// Each thread role's CPU and top lines: the training thread first, then the
    /// process's other threads, then the DataLoader workers (all workers as one).
    pub threads: Vec<HotThread>,
}

/// What a thread is to the training.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ThreadRole {
    /// The thread that runs the optimizer steps.
    Training,
    /// Another thread of the training process (a logger, a reporter, pin-memory).
    Thread,
    /// The DataLoader's worker processes.
    LoaderWorker,
    /// A role from a newer probe.
    #[serde(other)]
    Other,
}

/// One thread, or all the workers, as sampled.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct HotThread {
    /// What it is to the training.
    pub role: ThreadRole,
    /// Its name (empty for the training thread and the workers).
    pub name: String,
    /// Processes it ran in (the workers' count; 1 otherwise).
    pub processes: u32,
    /// CPU it used while sampled, seconds.
    pub cpu_s: f64,
    /// Wake-ups that found it.
    pub samples: u64,
    /// Its lines by CPU, busiest first.
    pub lines: Vec<HotLine>,
}

impl Default for HotThread {
    fn default() -> Self {
        HotThread {
            role: ThreadRole::Other,
            name: String::new(),
            processes: 1,
            cpu_s: 0.0,
            samples: 0,
            lines: Vec::new(),
        }
    }
}

/// One line of training code and the CPU credited to it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct HotLine {
    /// Its file; empty when the thread ran no training code (only a library's).
    pub file: String,
    /// Its line.
    pub line: u32,
    /// Its function.
    pub function: String,
    /// The library function it was inside (`Image.py:resize`), empty when the line itself
    /// was running.
    pub inside: String,
    /// The line's source text.
    pub code: String,
    /// CPU credited to it, seconds.
    pub cpu_s: f64,
    /// Wake-ups that found the thread there.
    pub samples: u64,
}

impl HotLine {
    /// `dataset.py:14`: the file's name (not its folders) and line; the library function
    /// when there is no training line.
    pub fn location(&self) -> String {
        if self.file.is_empty() {
            return self.inside.clone();
        }
        crate::file_line(&self.file, self.line)
    }
}

impl HotLines {
    /// The thread of one role that used the most CPU (the first listed, among equals).
    pub fn busiest(&self, role: ThreadRole) -> Option<&HotThread> {
        self.threads
            .iter()
            .filter(|t| t.role == role)
            .min_by(|a, b| b.cpu_s.total_cmp(&a.cpu_s))
    }
}

/// The fact a finding quotes: where one thread (or the workers) spent its CPU.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HostLine {
    /// Whose CPU it is.
    pub role: ThreadRole,
    /// The thread's name, empty for the training thread and the workers.
    pub thread: String,
    /// Processes the thread ran in (the workers' count; 1 otherwise).
    pub processes: u32,
    /// The line.
    pub line: HotLine,
    /// Its share of that thread's (or all workers') CPU, 0..=1.
    pub share_of_thread: f64,
    /// The thread's CPU over the wall time sampled, in cores (1 = one core all the time;
    /// the workers' together can pass 1).
    pub thread_cores: f64,
}
