//! `steps.csv`: every training step as the loop timed it.

use std::path::Path;

use checkup_model::StepRecord;

use crate::csv_table::{number, required_number, CsvTable};
use crate::error::{RecordingError, Result};
use crate::schema::STEPS_COLUMNS;

pub fn read_steps_csv(path: &Path) -> Result<Vec<StepRecord>> {
    let t = CsvTable::read(path, true)?;
    let [step_col, t_start_col, data_wait_col, launch_col, gpu_col] = STEPS_COLUMNS;
    let step = t.require(path, step_col)?;
    let t_start = t.require(path, t_start_col)?;
    let data_wait = t.require(path, data_wait_col)?;
    let launch = t.require(path, launch_col)?;
    let gpu = t.column(gpu_col);
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
    if out.windows(2).any(|w| w[1].t_start < w[0].t_start) {
        return Err(RecordingError::invalid(
            path,
            "t_start goes backwards: rows must be in step order",
        ));
    }
    Ok(out)
}
