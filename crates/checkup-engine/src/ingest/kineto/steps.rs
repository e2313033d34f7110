//! Steps of a trace that has no `ProfilerStep#N` marks.

use super::types::{StepSpan, Trace};

/// Steps of a trace without `ProfilerStep#N`: from the end of one optimizer step to the end
/// of the next when there are at least two (a training loop), else the whole trace as one
/// window, from its first launch or GPU work to its last GPU work.
pub(super) fn infer_steps(t: &mut Trace) {
    t.optimizer_steps.sort_by(|a, b| a.1.total_cmp(&b.1));
    if t.optimizer_steps.len() >= 2 {
        t.steps = t
            .optimizer_steps
            .windows(2)
            .zip(1..)
            .map(|(w, number)| StepSpan {
                number,
                start: w[0].1,
                end: w[1].1,
            })
            .collect();
        t.step_marks = checkup_model::StepMarks::OptimizerSteps;
        return;
    }
    let start = t
        .runtime
        .iter()
        .map(|r| r.start)
        .chain(t.gpu.iter().map(|g| g.start))
        .fold(f64::INFINITY, f64::min);
    let end = t
        .gpu
        .iter()
        .map(|g| g.end)
        .fold(f64::NEG_INFINITY, f64::max);
    t.steps = vec![StepSpan {
        number: 0,
        start,
        // The span is half-open: the last op's own end is inside it.
        end: end.max(start) + 1.0,
    }];
    t.step_marks = checkup_model::StepMarks::WholeTrace;
}
