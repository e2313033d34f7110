//! `training.json`, `events.csv` and `memory.csv`: what the probe saw of the training from
//! inside it.

use std::path::Path;

use checkup_model::{MarkerKind, MemorySample, RunMarker, TrainingContext};

use crate::csv_table::{number, required_number, CsvTable};
use crate::error::{RecordingError, Result};
use crate::schema::{EVENTS_COLUMNS, MEMORY_COLUMNS};

/// Reads the probe's `training.json`; fields it does not know are ignored.
pub fn read_training_json(path: &Path) -> Result<TrainingContext> {
    let text = std::fs::read_to_string(path).map_err(|e| RecordingError::io(path, e))?;
    if text.trim().is_empty() {
        return Err(RecordingError::invalid(path, "file is empty"));
    }
    serde_json::from_str(&text)
        .map_err(|e| RecordingError::invalid(path, format!("not a training description: {e}")))
}

/// The markers in step order. Kinds this reader does not know (a newer probe's) are
/// skipped, not refused.
pub fn read_events_csv(path: &Path) -> Result<Vec<RunMarker>> {
    let t = CsvTable::read(path, true)?;
    let [step_col, t_col, kind_col, detail_col, duration_col] = EVENTS_COLUMNS;
    let step = t.require(path, step_col)?;
    let at = t.require(path, t_col)?;
    let kind = t.require(path, kind_col)?;
    let detail = t.column(detail_col);
    let duration = t.column(duration_col);
    let mut out = Vec::with_capacity(t.rows.len());
    for (i, rec) in t.rows.iter().enumerate() {
        let line = i + 2;
        let Some(kind) = rec.get(kind).and_then(MarkerKind::parse) else {
            continue;
        };
        let need = |idx: usize, name: &str| required_number(path, line, name, rec.get(idx));
        out.push(RunMarker {
            step: need(step, step_col)? as u64,
            t: need(at, t_col)?,
            kind,
            detail: detail.and_then(|d| rec.get(d)).unwrap_or("").to_owned(),
            duration_ms: number(path, line, duration_col, duration.and_then(|d| rec.get(d)))?,
        });
    }
    out.sort_by_key(|m| m.step);
    Ok(out)
}

/// The CUDA memory rows in step order. Every column is required: a row without one is
/// refused with its line.
pub fn read_memory_csv(path: &Path) -> Result<Vec<MemorySample>> {
    let t = CsvTable::read(path, true)?;
    let cols = MEMORY_COLUMNS
        .iter()
        .map(|c| t.require(path, c))
        .collect::<Result<Vec<usize>>>()?;
    let mut out = Vec::with_capacity(t.rows.len());
    for (i, rec) in t.rows.iter().enumerate() {
        let line = i + 2;
        let mut v = [0.0; 9];
        for (k, (&idx, name)) in cols.iter().zip(MEMORY_COLUMNS).enumerate() {
            v[k] = required_number(path, line, name, rec.get(idx))?;
            if k != 1 && (v[k] < 0.0 || v[k].fract() != 0.0) {
                return Err(RecordingError::invalid(
                    path,
                    format!(
                        "line {line}: {name} is {}, not a whole number of at least 0",
                        v[k]
                    ),
                ));
            }
        }
        let [step, t, alloc, reserved, peak_alloc, peak_reserved, split, retries, ooms] = v;
        out.push(MemorySample {
            step: step as u64,
            t,
            allocated_bytes: alloc as u64,
            reserved_bytes: reserved as u64,
            peak_allocated_bytes: peak_alloc as u64,
            peak_reserved_bytes: peak_reserved as u64,
            inactive_split_bytes: split as u64,
            alloc_retries: retries as u64,
            ooms: ooms as u64,
        });
    }
    out.sort_by_key(|m| m.step);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, name: &str, text: &str) -> std::path::PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p
    }

    #[test]
    fn markers_read_in_step_order_and_unknown_kinds_are_skipped() {
        let d = tempfile::tempdir().unwrap();
        let p = write(
            d.path(),
            "events.csv",
            "step,t,kind,detail,duration_ms\n30,2.5,epoch_start,loader0 workers=2 forked,\n\
             0,1.0,epoch_start,loader0 workers=2 forked,\n40,3.0,checkpoint,torch.save,3576.1\n\
             41,3.2,profiler_note,x,\n",
        );
        let m = read_events_csv(&p).unwrap();
        assert_eq!(m.iter().map(|m| m.step).collect::<Vec<_>>(), [0, 30, 40]);
        assert_eq!(m[2].kind, MarkerKind::Checkpoint);
        assert_eq!(m[2].duration_ms, Some(3576.1));
        assert_eq!(m[0].duration_ms, None);
    }

    #[test]
    fn a_broken_marker_row_names_its_line() {
        let d = tempfile::tempdir().unwrap();
        let p = write(d.path(), "events.csv", "step,t,kind\nabc,1.0,eval\n");
        let e = read_events_csv(&p).unwrap_err().to_string();
        assert!(e.contains("line 2"), "{e}");
    }

    #[test]
    fn a_training_file_that_is_not_json_says_so() {
        let d = tempfile::tempdir().unwrap();
        let p = write(d.path(), "training.json", "{\"loaders\": 3}");
        let e = read_training_json(&p).unwrap_err().to_string();
        assert!(
            e.contains("training.json") && e.contains("not a training description"),
            "{e}"
        );
    }

    #[test]
    fn memory_rows_read_in_step_order() {
        let d = tempfile::tempdir().unwrap();
        let p = write(
            d.path(),
            "memory.csv",
            "step,t,allocated_bytes,reserved_bytes,peak_allocated_bytes,peak_reserved_bytes,inactive_split_bytes,alloc_retries,ooms\n\
             141,2.5,70,100,90,100,4,0,0\n1,1.0,69,71,69,71,1,0,0\n",
        );
        let m = read_memory_csv(&p).unwrap();
        assert_eq!(m.iter().map(|m| m.step).collect::<Vec<_>>(), [1, 141]);
        assert_eq!((m[1].reserved_bytes, m[1].peak_allocated_bytes), (100, 90));
    }

    #[test]
    fn a_memory_row_with_a_fraction_or_a_missing_column_names_it() {
        let d = tempfile::tempdir().unwrap();
        let p = write(
            d.path(),
            "memory.csv",
            "step,t,allocated_bytes,reserved_bytes,peak_allocated_bytes,peak_reserved_bytes,inactive_split_bytes,alloc_retries,ooms\n\
             1,1.0,69.5,71,69,71,1,0,0\n",
        );
        let e = read_memory_csv(&p).unwrap_err().to_string();
        assert!(e.contains("line 2: allocated_bytes is 69.5"), "{e}");
        let p = write(d.path(), "m2.csv", "step,t,allocated_bytes\n1,1.0,5\n");
        let e = read_memory_csv(&p).unwrap_err().to_string();
        assert!(e.contains("reserved_bytes"), "{e}");
    }
}
