//! A small typed view over the CSV files recordings use: columns by name, empty or `nan`
//! cells as missing, and errors that name the file, line and column.

use std::path::Path;

use crate::error::{RecordingError, Result};

/// A CSV file read whole: its column names and its rows.
pub struct CsvTable {
    /// Column names; empty for a file read without a header.
    pub header: Vec<String>,
    /// Every data row.
    pub rows: Vec<csv::StringRecord>,
}

impl CsvTable {
    /// Reads `path`, with its first row as the header or (without one) `#` lines as
    /// comments; an empty file is refused by name.
    pub fn read(path: &Path, has_header: bool) -> Result<Self> {
        let bytes = std::fs::read(path).map_err(|e| RecordingError::io(path, e))?;
        if bytes.iter().all(|b| b.is_ascii_whitespace()) {
            return Err(RecordingError::invalid(path, "file is empty"));
        }
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(has_header)
            .flexible(true)
            .trim(csv::Trim::All)
            .comment(if has_header { None } else { Some(b'#') })
            .from_reader(bytes.as_slice());
        let header = if has_header {
            reader
                .headers()
                .map_err(|e| RecordingError::invalid(path, format!("unreadable CSV header: {e}")))?
                .iter()
                .map(str::to_owned)
                .collect()
        } else {
            Vec::new()
        };
        let mut rows = Vec::new();
        for (i, rec) in reader.records().enumerate() {
            let rec = rec.map_err(|e| {
                RecordingError::invalid(path, format!("line {}: {e}", i + 1 + has_header as usize))
            })?;
            if rec.iter().all(str::is_empty) {
                continue;
            }
            rows.push(rec);
        }
        Ok(Self { header, rows })
    }

    /// Index of a column, or an error listing what the file has.
    pub fn require(&self, path: &Path, name: &str) -> Result<usize> {
        self.column(name).ok_or_else(|| {
            RecordingError::invalid(
                path,
                format!(
                    "missing column `{name}` (the header has: {})",
                    self.header.join(", ")
                ),
            )
        })
    }

    /// The index of the column called `name`.
    pub fn column(&self, name: &str) -> Option<usize> {
        self.header.iter().position(|h| h == name)
    }
}

/// A numeric cell: `None` for empty, `nan`, `N/A` or `[N/A]`-style cells; an error for text.
pub fn number(path: &Path, line: usize, column: &str, cell: Option<&str>) -> Result<Option<f64>> {
    let Some(cell) = cell.map(str::trim) else {
        return Ok(None);
    };
    if cell.is_empty()
        || cell.eq_ignore_ascii_case("nan")
        || cell.contains("N/A")
        || cell.contains("Not Supported")
    {
        return Ok(None);
    }
    // nvidia-smi without `nounits` appends the unit: "85.63 W", "1980 MHz", "4 %".
    let numeric = cell.split_whitespace().next().unwrap_or(cell);
    let parsed = if let Some(hex) = numeric.strip_prefix("0x") {
        u64::from_str_radix(hex, 16).map(|v| v as f64).ok()
    } else {
        numeric.parse::<f64>().ok()
    };
    match parsed {
        Some(v) if v.is_finite() => Ok(Some(v)),
        Some(_) => Ok(None),
        None => Err(RecordingError::invalid(
            path,
            format!("line {line}: column `{column}`: `{cell}` is not a number"),
        )),
    }
}

/// A numeric cell that must hold a number: empty is an error naming its line and column.
pub fn required_number(path: &Path, line: usize, column: &str, cell: Option<&str>) -> Result<f64> {
    number(path, line, column, cell)?.ok_or_else(|| {
        RecordingError::invalid(path, format!("line {line}: column `{column}` is empty"))
    })
}

/// `v` as a whole number of at least `at_least` that fits a u32, if it is one (counts,
/// ids and indices read from numeric cells).
pub fn whole_number(v: f64, at_least: u32) -> Option<u32> {
    (v >= f64::from(at_least) && v.fract() == 0.0 && v <= f64::from(u32::MAX)).then_some(v as u32)
}

/// The cell at column `idx` of a row, if the column exists.
pub fn cell(rec: &csv::StringRecord, idx: Option<usize>) -> Option<&str> {
    idx.and_then(|i| rec.get(i))
}
