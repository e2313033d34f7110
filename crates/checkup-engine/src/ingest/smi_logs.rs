//! GPU samples from the logs people already have: `nvidia-smi --query-gpu` output (with or
//! without header, units or timestamp) and `nvidia-smi dmon` output.

use std::path::Path;

use checkup_model::{ClockEventReasons, NvmlSample};
use checkup_recording::csv_table::{number, CsvTable};

use crate::error::{EngineError, Result};

/// Fields of `nvidia-smi --query-gpu` this reader understands, by query name.
fn query_field(name: &str) -> Option<&'static str> {
    // Headers look like "utilization.gpu [%]" or "power.draw [W]"; keep the query name.
    let key = name.split('[').next().unwrap_or(name).trim();
    Some(match key {
        "timestamp" => "timestamp",
        "index" => "index",
        "utilization.gpu" => "util_gpu",
        "utilization.memory" => "util_mem",
        "memory.used" => "mem_used_mib",
        "memory.total" => "mem_total_mib",
        "temperature.gpu" => "temp_c",
        "power.draw" | "power.draw.instant" | "power.draw.average" => "power_w",
        "power.limit" | "enforced.power.limit" => "power_limit_w",
        "clocks.sm" | "clocks.current.sm" => "sm_clock_mhz",
        "clocks.max.sm" => "sm_clock_max_mhz",
        "clocks.mem" | "clocks.current.memory" => "mem_clock_mhz",
        "clocks_event_reasons.active" | "clocks_throttle_reasons.active" => "clock_event_reasons",
        _ => return None,
    })
}

/// An `nvidia-smi --query-gpu=... --format=csv[,noheader][,nounits]` log. With a header, the
/// columns are read by name; without one, the seed's 1 Hz loop layout is assumed:
/// `date +%s.%N`, utilization.gpu, memory.used, temperature.gpu, power.draw, clocks.sm
/// (the timestamp column may be absent). Rows without an `index` column cycle through GPUs
/// by the order they appear within one timestamp.
pub fn read_query_gpu_log(path: &Path) -> Result<Vec<NvmlSample>> {
    let first_line = std::fs::read_to_string(path)
        .map_err(|e| EngineError::io(path, e))?
        .lines()
        .find(|l| !l.trim().is_empty())
        .map(str::to_owned)
        .ok_or_else(|| EngineError::invalid(path, "file is empty"))?;
    // A header cell is a query name ("utilization.gpu [%]"); data cells start with digits.
    let has_header = first_line.split(',').any(|c| {
        let key = c.split('[').next().unwrap_or(c).trim();
        key.bytes().any(|b| b.is_ascii_alphabetic())
            && key
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b == b'.' || b == b'_')
    });
    let t = CsvTable::read(path, has_header)?;
    let fields: Vec<Option<&'static str>> = if has_header {
        t.header.iter().map(|h| query_field(h)).collect()
    } else {
        let width = t.rows.first().map(|r| r.len()).unwrap_or(0);
        const SEED: [&str; 5] = [
            "util_gpu",
            "mem_used_mib",
            "temp_c",
            "power_w",
            "sm_clock_mhz",
        ];
        match width {
            6 => std::iter::once("epoch").chain(SEED).map(Some).collect(),
            5 => SEED.iter().copied().map(Some).collect(),
            n => return Err(EngineError::invalid(path, format!("no header line and {n} columns: use --format=csv with its header, or the seed's layout (date +%s.%N, utilization.gpu, memory.used, temperature.gpu, power.draw, clocks.sm)"))),
        }
    };
    if !fields
        .iter()
        .any(|f| matches!(f, Some("util_gpu" | "power_w" | "sm_clock_mhz")))
    {
        return Err(EngineError::invalid(
            path,
            "none of utilization.gpu, power.draw or clocks.sm is in this nvidia-smi log",
        ));
    }
    let mut out = Vec::with_capacity(t.rows.len());
    let mut last_ts = f64::NAN;
    let mut gpu_in_tick = 0u32;
    for (i, rec) in t.rows.iter().enumerate() {
        let line = i + 1 + has_header as usize;
        let mut s = NvmlSample::default();
        let mut ts = None;
        let mut index = None;
        for (k, field) in fields.iter().enumerate() {
            let Some(field) = field else { continue };
            let raw = rec.get(k);
            match *field {
                "timestamp" => ts = raw.and_then(parse_smi_timestamp),
                "epoch" => ts = number(path, line, "timestamp", raw)?,
                "index" => index = number(path, line, "index", raw)?.map(|v| v as u32),
                "clock_event_reasons" => {
                    s.clock_event_reasons =
                        number(path, line, field, raw)?.map(|v| ClockEventReasons(v as u64))
                }
                "util_gpu" => s.util_gpu = number(path, line, field, raw)?,
                "util_mem" => s.util_mem = number(path, line, field, raw)?,
                "mem_used_mib" => s.mem_used_mib = number(path, line, field, raw)?,
                "mem_total_mib" => s.mem_total_mib = number(path, line, field, raw)?,
                "temp_c" => s.temp_c = number(path, line, field, raw)?,
                "power_w" => s.power_w = number(path, line, field, raw)?,
                "power_limit_w" => s.power_limit_w = number(path, line, field, raw)?,
                "sm_clock_mhz" => s.sm_clock_mhz = number(path, line, field, raw)?,
                "sm_clock_max_mhz" => s.sm_clock_max_mhz = number(path, line, field, raw)?,
                "mem_clock_mhz" => s.mem_clock_mhz = number(path, line, field, raw)?,
                _ => {}
            }
        }
        // Without timestamps, rows are taken as 1 s apart (the usual `-l 1` loop).
        let ts = ts.unwrap_or(i as f64);
        // Rows of one tick share (nearly) one timestamp: count GPUs within it.
        if (ts - last_ts).abs() < 0.2 {
            gpu_in_tick += 1;
        } else {
            gpu_in_tick = 0;
            last_ts = ts;
        }
        s.ts = ts;
        s.gpu = index.unwrap_or(gpu_in_tick);
        out.push(s);
    }
    Ok(out)
}

/// "2026/11/30 04:33:12.123" (nvidia-smi's timestamp) as epoch seconds, UTC assumed.
fn parse_smi_timestamp(s: &str) -> Option<f64> {
    let s = s.trim();
    let (date, time) = s.split_once(' ')?;
    let mut d = date.split(['/', '-']).map(|p| p.parse::<i64>());
    let (y, m, day) = (d.next()?.ok()?, d.next()?.ok()?, d.next()?.ok()?);
    let mut t = time.split(':');
    let (hh, mm) = (
        t.next()?.parse::<i64>().ok()?,
        t.next()?.parse::<i64>().ok()?,
    );
    let ss: f64 = t.next()?.parse().ok()?;
    Some((days_from_civil(y, m, day) * 86400 + hh * 3600 + mm * 60) as f64 + ss)
}

/// Days since 1970-01-01 (Howard Hinnant's algorithm).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let doy = (153 * (m + if m > 2 { -3 } else { 9 }) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146097 + doe - 719468
}

/// `nvidia-smi dmon` output. Its columns vary with `-s`; they are read from the `# gpu ...`
/// header line. dmon prints no timestamps unless `-o T`/`-o DT`; rows are then taken as
/// `interval_s` apart from `start_s`.
pub fn read_dmon(path: &Path, start_s: f64, interval_s: f64) -> Result<Vec<NvmlSample>> {
    let text = std::fs::read_to_string(path).map_err(|e| EngineError::io(path, e))?;
    let mut columns: Vec<String> = Vec::new();
    let mut out = Vec::new();
    let mut tick = -1i64;
    let mut last_gpu = u32::MAX;
    for (i, line) in text.lines().enumerate() {
        let line_no = i + 1;
        let trimmed = line.trim();
        if trimmed.is_empty() {
            continue;
        }
        if let Some(h) = trimmed.strip_prefix('#') {
            if columns.is_empty() {
                columns = h.split_whitespace().map(str::to_owned).collect();
            }
            continue;
        }
        if columns.is_empty() {
            return Err(EngineError::invalid(path, format!("line {line_no}: data before the `# gpu ...` header line: not nvidia-smi dmon output")));
        }
        let cells: Vec<&str> = trimmed.split_whitespace().collect();
        let get = |name: &str| {
            columns
                .iter()
                .position(|c| c == name)
                .and_then(|k| cells.get(k).copied())
        };
        let num = |name: &str| number(path, line_no, name, get(name).filter(|c| *c != "-"));
        let gpu = num("gpu")?.or(num("Idx")?).unwrap_or(0.0) as u32;
        if gpu <= last_gpu {
            tick += 1;
        }
        last_gpu = gpu;
        out.push(NvmlSample {
            ts: start_s + tick as f64 * interval_s,
            gpu,
            util_gpu: num("sm")?,
            util_mem: num("mem")?,
            mem_used_mib: num("fb")?,
            temp_c: num("gtemp")?,
            power_w: num("pwr")?,
            sm_clock_mhz: num("pclk")?,
            mem_clock_mhz: num("mclk")?,
            ..NvmlSample::default()
        });
    }
    if out.is_empty() {
        return Err(EngineError::invalid(
            path,
            "no data rows in this nvidia-smi dmon output",
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn file(text: &str) -> tempfile::NamedTempFile {
        let mut f = tempfile::NamedTempFile::new().unwrap();
        f.write_all(text.as_bytes()).unwrap();
        f
    }

    #[test]
    fn query_gpu_log_with_header_and_units_reads_columns_by_name() {
        let f = file("timestamp, index, utilization.gpu [%], power.draw [W], clocks.sm [MHz]\n2026/11/30 04:33:12.500, 0, 97 %, 612.40 W, 1980 MHz\n");
        let s = read_query_gpu_log(f.path()).unwrap();
        assert_eq!(s.len(), 1);
        assert_eq!(s[0].util_gpu, Some(97.0));
        assert_eq!(s[0].power_w, Some(612.4));
        assert_eq!(s[0].sm_clock_mhz, Some(1980.0));
        assert_eq!(s[0].ts, 1_796_013_192.5);
    }

    #[test]
    fn query_gpu_log_with_an_unknown_layout_and_no_header_is_refused() {
        let f = file("1, 2, 3\n");
        let err = read_query_gpu_log(f.path()).unwrap_err().to_string();
        assert!(err.contains("no header line and 3 columns"), "{err}");
    }
}
