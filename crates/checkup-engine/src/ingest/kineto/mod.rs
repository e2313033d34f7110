//! Streaming reader for PyTorch profiler (Kineto) Chrome traces, `.json` or `.json.gz`.
//!
//! Traces of several GB exist in the wild, so the file is never held whole: a small scanner
//! walks the top-level object, cuts `traceEvents` into one event at a time, and serde parses
//! each event from a reused buffer, borrowing its strings. Only the few fields the analysis
//! needs are kept, in compact structs (about 40 bytes per kept event).

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;

use crate::error::{EngineError, Result};

use builder::TraceBuilder;
use events::RawEvent;
use scanner::{offset_in, ClassifyMessage, Scanner};
use threaded_reader::{read_up_to, ThreadedReader};
use triage::{triage, Triage};

mod builder;
mod classify;
mod events;
mod scanner;
mod steps;
mod threaded_reader;
mod triage;
mod types;

pub use classify::is_nccl_kernel;
pub use types::*;

/// Reads one trace file, gzip or plain (told apart by the gzip magic bytes, not the name).
pub fn read_trace(path: &Path) -> Result<Trace> {
    let mut file = File::open(path).map_err(|e| EngineError::io(path, e))?;
    let mut magic = [0u8; 2];
    let got = read_up_to(&mut file, &mut magic).map_err(|e| EngineError::io(path, e))?;
    if got == 0 {
        return Err(EngineError::invalid(path, "file is empty"));
    }
    let file = File::open(path).map_err(|e| EngineError::io(path, e))?;
    const BUF: usize = 1 << 20;
    let reader: Box<dyn BufRead> = if magic == [0x1f, 0x8b] {
        // Inflate on a second thread while this one parses: the two take similar time.
        Box::new(ThreadedReader::spawn(flate2::read::MultiGzDecoder::new(
            BufReader::with_capacity(BUF, file),
        )))
    } else {
        Box::new(BufReader::with_capacity(BUF, file))
    };
    parse_trace(reader, path)
}

/// Parses a Chrome trace from any reader; `path` only names it in errors.
pub fn parse_trace(reader: impl BufRead, path: &Path) -> Result<Trace> {
    let mut scanner = Scanner {
        r: reader,
        pos: 0,
        path,
    };
    let mut builder = TraceBuilder::new(path);
    let mut buf = Vec::with_capacity(64 * 1024);
    match scanner.peek_nonws()? {
        Some(b'{') => {
            scanner.bump();
            scan_top_object(&mut scanner, &mut builder, &mut buf)?;
        }
        // The Chrome trace format also allows a bare array of events.
        Some(b'[') => {
            scanner.bump();
            scan_events(&mut scanner, &mut builder, &mut buf)?;
        }
        Some(_) => {
            return Err(EngineError::invalid(
                path,
                "not a JSON trace: expected '{' or '[' at the start",
            ))
        }
        None => return Err(EngineError::invalid(path, "file is empty")),
    }
    builder.finish()
}

fn scan_top_object<R: BufRead>(
    s: &mut Scanner<'_, R>,
    builder: &mut TraceBuilder,
    buf: &mut Vec<u8>,
) -> Result<()> {
    let mut saw_events = false;
    loop {
        match s.peek_nonws()? {
            Some(b'}') => {
                s.bump();
                break;
            }
            Some(b'"') => {}
            _ => return Err(s.syntax("expected a key in the top-level object")),
        }
        buf.clear();
        s.capture_value(buf)?;
        let key: String = serde_json::from_slice(buf).map_err(|e| s.json(e))?;
        s.expect(b':')?;
        match key.as_str() {
            "traceEvents" => {
                s.expect(b'[')?;
                scan_events(s, builder, buf)?;
                saw_events = true;
            }
            "distributedInfo" | "deviceProperties" => {
                buf.clear();
                s.capture_value(buf)?;
                let value: serde_json::Value =
                    serde_json::from_slice(buf).map_err(|e| s.json(e))?;
                builder.top_level(&key, &value);
            }
            _ => {
                buf.clear();
                s.capture_value(buf)?;
            }
        }
        match s.peek_nonws()? {
            Some(b',') => s.bump(),
            Some(b'}') => {
                s.bump();
                break;
            }
            _ => return Err(s.syntax("expected ',' or '}' after a top-level value")),
        }
    }
    if !saw_events {
        return Err(EngineError::invalid(
            builder.trace.source.as_path(),
            "no \"traceEvents\" array: not a PyTorch profiler trace",
        ));
    }
    Ok(())
}

fn scan_events<R: BufRead>(
    s: &mut Scanner<'_, R>,
    builder: &mut TraceBuilder,
    buf: &mut Vec<u8>,
) -> Result<()> {
    if s.peek_nonws()? == Some(b']') {
        s.bump();
        return Ok(());
    }
    loop {
        buf.clear();
        let at = s.pos;
        s.capture_value(buf)?;
        // Only complete ("X") events are kept: skip flows, instants and metadata before
        // paying for a full parse.
        let skip = match triage(buf) {
            Triage::Parse => false,
            Triage::Skip => true,
            Triage::Operator(name, external) => {
                builder.operator(name, external);
                true
            }
        };
        if skip {
            match s.peek_nonws()? {
                Some(b',') => {
                    s.bump();
                    continue;
                }
                Some(b']') => {
                    s.bump();
                    return Ok(());
                }
                Some(_) => return Err(s.syntax("expected ',' or ']' between trace events")),
                None => return Err(s.truncated()),
            }
        }
        let event: RawEvent<'_> = serde_json::from_slice(buf).map_err(|e| {
            let byte = at + offset_in(buf, e.line(), e.column()) as u64;
            EngineError::invalid(
                s.path,
                format!(
                    "invalid trace event at byte {byte}: {}",
                    e.classify_message()
                ),
            )
        })?;
        builder.push(event);
        match s.peek_nonws()? {
            Some(b',') => s.bump(),
            Some(b']') => {
                s.bump();
                return Ok(());
            }
            Some(_) => return Err(s.syntax("expected ',' or ']' between trace events")),
            None => return Err(s.truncated()),
        }
    }
}

#[cfg(test)]
mod tests;
