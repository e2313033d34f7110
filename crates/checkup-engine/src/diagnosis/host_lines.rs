//! Where a host-bound finding's time goes: the lines of the probe's hot-line samples that
//! hold a tenth or more of the CPU of the thread the finding is about (the training
//! thread for launches, the thread holding the interpreter, the DataLoader's workers).

use checkup_model::{HostLine, HotThread, ThreadRole, TrainingContext};

use crate::thresholds::Thresholds;

/// How many lines a finding quotes at most.
const MAX_LINES: usize = 3;

/// The busiest thread of `role` and its lines, each at least the threshold share of its CPU.
pub fn of_role(
    training: Option<&TrainingContext>,
    role: ThreadRole,
    th: &Thresholds,
) -> Vec<HostLine> {
    let Some(hot) = training.and_then(|t| t.hot_lines.as_ref()) else {
        return Vec::new();
    };
    let Some(thread) = hot.busiest(role) else {
        return Vec::new();
    };
    lines_of(thread, hot.seconds, th)
}

/// The lines of the DataLoader's workers, or of the training thread when batches are made
/// in the training process (`num_workers=0`).
pub fn of_loader(training: Option<&TrainingContext>, th: &Thresholds) -> Vec<HostLine> {
    let in_process = training
        .and_then(|t| t.main_loader())
        .is_some_and(|l| l.num_workers == Some(0));
    of_role(
        training,
        if in_process {
            ThreadRole::Training
        } else {
            ThreadRole::LoaderWorker
        },
        th,
    )
}

fn lines_of(thread: &HotThread, seconds: f64, th: &Thresholds) -> Vec<HostLine> {
    if thread.samples < th.hot_line_min_samples || thread.cpu_s <= 0.0 || seconds <= 0.0 {
        return Vec::new();
    }
    thread
        .lines
        .iter()
        .filter(|l| l.cpu_s / thread.cpu_s >= th.hot_line_min_share)
        .take(MAX_LINES)
        .map(|l| HostLine {
            role: thread.role,
            thread: thread.name.clone(),
            processes: thread.processes,
            line: l.clone(),
            share_of_thread: l.cpu_s / thread.cpu_s,
            thread_cores: thread.cpu_s / seconds,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use checkup_model::{HotLine, HotLines, LoaderInfo};

    fn line(file: &str, n: u32, cpu_s: f64) -> HotLine {
        HotLine {
            file: file.into(),
            line: n,
            function: "f".into(),
            cpu_s,
            samples: 10,
            ..Default::default()
        }
    }

    fn training(threads: Vec<HotThread>, workers: u32) -> TrainingContext {
        TrainingContext {
            loaders: vec![LoaderInfo {
                num_workers: Some(workers),
                batches_fetched: 10,
                ..Default::default()
            }],
            hot_lines: Some(HotLines {
                interval_ms: Some(20.0),
                seconds: 10.0,
                wakeups: 500,
                sampler_cpu_s: 0.02,
                threads,
            }),
            ..Default::default()
        }
    }

    fn thread(role: ThreadRole, name: &str, samples: u64, lines: Vec<HotLine>) -> HotThread {
        HotThread {
            role,
            name: name.into(),
            processes: 1,
            cpu_s: lines.iter().map(|l| l.cpu_s).sum(),
            samples,
            lines,
        }
    }

    #[test]
    fn the_workers_lines_are_quoted_with_their_share_and_cores_down_to_a_tenth() {
        let workers = thread(
            ThreadRole::LoaderWorker,
            "",
            400,
            vec![
                line("/w/data.py", 14, 18.0),
                line("/w/data.py", 20, 2.0),
                line("/w/data.py", 9, 1.0),
            ],
        );
        let t = training(
            vec![
                thread(
                    ThreadRole::Training,
                    "",
                    500,
                    vec![line("/w/train.py", 3, 1.0)],
                ),
                workers,
            ],
            4,
        );
        let lines = of_loader(Some(&t), &Thresholds::default());
        assert_eq!(lines.len(), 1, "2 s of 21 s is under a tenth");
        assert_eq!(lines[0].line.location(), "data.py:14");
        assert!((lines[0].share_of_thread - 18.0 / 21.0).abs() < 1e-9);
        assert!((lines[0].thread_cores - 2.1).abs() < 1e-9);
    }

    #[test]
    fn batches_made_in_the_training_process_are_the_training_threads_lines() {
        let t = training(
            vec![thread(
                ThreadRole::Training,
                "",
                500,
                vec![line("/w/train.py", 3, 4.0)],
            )],
            0,
        );
        assert_eq!(
            of_loader(Some(&t), &Thresholds::default())[0]
                .line
                .location(),
            "train.py:3"
        );
    }

    #[test]
    fn the_busiest_other_thread_is_the_one_quoted() {
        let t = training(
            vec![
                thread(
                    ThreadRole::Thread,
                    "_pin_memory_loop",
                    500,
                    vec![line("", 0, 0.2)],
                ),
                thread(
                    ThreadRole::Thread,
                    "metrics-upload",
                    500,
                    vec![line("/w/log.py", 17, 9.5)],
                ),
            ],
            2,
        );
        let lines = of_role(Some(&t), ThreadRole::Thread, &Thresholds::default());
        assert_eq!(
            (lines[0].thread.as_str(), lines[0].line.line),
            ("metrics-upload", 17)
        );
    }

    #[test]
    fn too_few_wake_ups_or_no_samples_quote_nothing() {
        let t = training(
            vec![thread(
                ThreadRole::Training,
                "",
                24,
                vec![line("/w/train.py", 3, 1.0)],
            )],
            0,
        );
        assert!(of_role(Some(&t), ThreadRole::Training, &Thresholds::default()).is_empty());
        assert!(of_role(None, ThreadRole::Training, &Thresholds::default()).is_empty());
    }
}
