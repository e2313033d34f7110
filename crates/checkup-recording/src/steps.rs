//! `steps.csv`: every training step as the loop timed it.

use std::path::Path;

use checkup_model::StepRecord;

use crate::csv_table::{number, required_number, whole_number, CsvTable};
use crate::error::{RecordingError, Result};
use crate::schema::STEPS_COLUMNS;

/// Reads `steps.csv`, refusing a row it cannot read by its line and column.
pub fn read_steps_csv(path: &Path) -> Result<Vec<StepRecord>> {
    let t = CsvTable::read(path, true)?;
    let [step_col, t_start_col, data_wait_col, launch_col, gpu_col, gpu_steps_col] = STEPS_COLUMNS;
    let step = t.require(path, step_col)?;
    let t_start = t.require(path, t_start_col)?;
    let data_wait = t.require(path, data_wait_col)?;
    let launch = t.require(path, launch_col)?;
    let gpu = t.column(gpu_col);
    let gpu_steps = t.column(gpu_steps_col);
    let mut out = Vec::with_capacity(t.rows.len());
    for (i, rec) in t.rows.iter().enumerate() {
        let line = i + 2;
        let need = |idx: usize, name: &str| required_number(path, line, name, rec.get(idx));
        out.push(StepRecord {
            step: need(step, step_col)? as u64,
            t_start: need(t_start, t_start_col)?,
            data_wait_ms: number(path, line, data_wait_col, rec.get(data_wait))?.unwrap_or(0.0),
            launch_ms: number(path, line, launch_col, rec.get(launch))?.unwrap_or(0.0),
            gpu_ms: number(path, line, gpu_col, gpu.and_then(|g| rec.get(g)))?,
            gpu_steps: span_steps(
                path,
                line,
                gpu_steps_col,
                gpu_steps.and_then(|g| rec.get(g)),
            )?,
        });
    }
    if out.len() < 2 {
        return Err(RecordingError::invalid(
            path,
            format!(
                "{} step row(s): at least 2 steps are needed to time anything",
                out.len()
            ),
        ));
    }
    // A span covers rows of the file: it cannot begin before the first one.
    if let Some(i) = out
        .iter()
        .enumerate()
        .position(|(i, s)| s.gpu_ms.is_some() && s.gpu_steps as usize > i + 1)
    {
        return Err(RecordingError::invalid(
            path,
            format!(
                "line {}: `{gpu_steps_col}` = {} reaches before the first step",
                i + 2,
                out[i].gpu_steps
            ),
        ));
    }
    if out.windows(2).any(|w| w[1].t_start < w[0].t_start) {
        return Err(RecordingError::invalid(
            path,
            "t_start goes backwards: rows must be in step order",
        ));
    }
    Ok(out)
}

/// The `gpu_steps` cell: a whole number of steps, at least 1; empty or absent is 1.
fn span_steps(path: &Path, line: usize, column: &str, cell: Option<&str>) -> Result<u32> {
    match number(path, line, column, cell)? {
        None => Ok(1),
        Some(n) => whole_number(n, 1).ok_or_else(|| {
            RecordingError::invalid(
                path,
                format!("line {line}: `{column}` = {n} is not a whole number of steps ≥ 1"),
            )
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_files::file;

    #[test]
    fn a_span_of_steps_timed_on_the_gpu_is_read_on_its_last_row() {
        let f = file(
            "step,t_start,data_wait_ms,launch_ms,gpu_ms,gpu_steps\n\
             0,10.0,1,2,,\n1,10.1,0,1,,\n2,10.2,0,1,,\n3,10.3,0,1,29.5,3\n4,10.4,0,1,,\n",
        );
        let steps = read_steps_csv(f.path()).unwrap();
        let spans: Vec<_> = steps.iter().map(|s| (s.gpu_ms, s.gpu_steps)).collect();
        assert_eq!(
            spans,
            [(None, 1), (None, 1), (None, 1), (Some(29.5), 3), (None, 1)]
        );
    }

    #[test]
    fn files_from_before_spans_time_each_step_alone() {
        let f = file("step,t_start,data_wait_ms,launch_ms,gpu_ms\n0,10.0,1,2,\n1,10.1,0,1,98.5\n");
        let steps = read_steps_csv(f.path()).unwrap();
        assert_eq!((steps[1].gpu_ms, steps[1].gpu_steps), (Some(98.5), 1));
    }

    #[test]
    fn a_span_that_is_not_a_whole_number_of_steps_names_its_line() {
        let f = file(
            "step,t_start,data_wait_ms,launch_ms,gpu_ms,gpu_steps\n0,10.0,0,1,,\n1,10.1,0,1,5,1.5\n",
        );
        let err = read_steps_csv(f.path()).unwrap_err().to_string();
        assert!(
            err.ends_with("line 3: `gpu_steps` = 1.5 is not a whole number of steps ≥ 1"),
            "{err}"
        );
    }

    #[test]
    fn a_span_reaching_before_the_first_row_is_refused() {
        let f = file(
            "step,t_start,data_wait_ms,launch_ms,gpu_ms,gpu_steps\n0,10.0,0,1,,\n1,10.1,0,1,5,3\n",
        );
        let err = read_steps_csv(f.path()).unwrap_err().to_string();
        assert!(
            err.ends_with("line 3: `gpu_steps` = 3 reaches before the first step"),
            "{err}"
        );
    }
}
