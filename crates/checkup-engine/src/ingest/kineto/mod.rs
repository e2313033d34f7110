//! Streaming reader for PyTorch profiler (Kineto) Chrome traces, `.json` or `.json.gz`.
//!
//! Traces of several GB exist in the wild, so the file is never held whole: a plain file is
//! mapped and its pages let go as they are read (`leased_map`), or read through a buffer; a
//! small scanner walks the top-level object; `traceEvents` is cut into events where they
//! lie, 64 bytes at a time (`structure`), and the few the analysis needs are read in place,
//! borrowing their strings (an event across a window's edge is copied out first). Only the
//! fields the analysis needs are kept, in compact structs (about 40 bytes per event).

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
mod fields;
#[cfg(all(
    target_os = "linux",
    any(target_arch = "x86_64", target_arch = "aarch64")
))]
mod leased_map;
mod scanner;
mod steps;
mod structure;
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
        plain_reader(file, BUF)
    };
    parse_trace(reader, path)
}

/// A plain trace read in place where the system lets it be mapped safely, through a
/// buffer otherwise.
fn plain_reader(file: File, buffer_bytes: usize) -> Box<dyn BufRead> {
    #[cfg(all(
        target_os = "linux",
        any(target_arch = "x86_64", target_arch = "aarch64")
    ))]
    let file = match leased_map::LeasedMap::new(file) {
        Ok(map) => return Box::new(map),
        Err(file) => file,
    };
    Box::new(BufReader::with_capacity(buffer_bytes, file))
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

/// Where reading the events array stands after the events that lay whole in the buffer.
enum Next {
    /// The array closed.
    Done,
    /// An event comes next that the buffer does not hold whole (or that is not an object).
    Event,
    /// A separator comes next, past the buffer's end (or something else, an error).
    Separator,
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
        // The events lying whole in the reader's buffer are read in place; one that runs
        // past its end is copied out by the byte scanner, as are the separators there.
        let (used, next) = {
            let (at, path) = (s.pos, s.path);
            let chunk = s.fill()?;
            events_in_place(chunk, at, path, builder)?
        };
        s.consume(used);
        if matches!(next, Next::Done) {
            return Ok(());
        }
        if matches!(next, Next::Event) {
            buf.clear();
            let at = s.pos;
            s.capture_value(buf)?;
            let mut quotes = structure::StringQuotes::default();
            let whole = structure::value_end(buf, &mut quotes) == buf.len().checked_sub(1);
            let quotes = quotes.of_plain_strings().filter(|_| whole);
            event(buf, quotes, at, s.path, builder)?;
        }
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

/// Reads the events `chunk` holds whole, from its start (before an event), and says how
/// many bytes that used and what comes next. `at`: the chunk's offset in the trace.
fn events_in_place(
    chunk: &[u8],
    at: u64,
    path: &Path,
    builder: &mut TraceBuilder,
) -> Result<(usize, Next)> {
    let skip_ws = |i: usize| {
        chunk[i..]
            .iter()
            .position(|b| !b.is_ascii_whitespace())
            .map_or(chunk.len(), |k| i + k)
    };
    let mut quotes = structure::StringQuotes::default();
    let mut i = 0;
    loop {
        i = skip_ws(i);
        let Some(end) = structure::value_end(&chunk[i..], &mut quotes) else {
            return Ok((i, Next::Event));
        };
        let raw = &chunk[i..=i + end];
        event(raw, quotes.of_plain_strings(), at + i as u64, path, builder)?;
        i = skip_ws(i + end + 1);
        match chunk.get(i) {
            Some(b',') => i += 1,
            Some(b']') => return Ok((i + 1, Next::Done)),
            _ => return Ok((i, Next::Separator)),
        }
    }
}

/// One event's raw bytes, starting at byte `at` of the trace: skipped, read off its bytes,
/// or parsed and kept. `quotes`: where its strings lie, when all are plain.
fn event(
    raw: &[u8],
    quotes: Option<&[u64]>,
    at: u64,
    path: &Path,
    builder: &mut TraceBuilder,
) -> Result<()> {
    // Only complete ("X") events are kept: skip flows, instants and metadata before paying
    // for a full parse.
    let started = match triage(raw, quotes) {
        Triage::Parse(started) => started,
        Triage::Skip => return Ok(()),
        Triage::Operator(name, external) => {
            builder.operator(name, external);
            return Ok(());
        }
    };
    // What a profiler writes is read straight off the bytes; anything else goes to serde,
    // which reads it in full or words the error.
    if let Some(event) = fields::read_event(raw, quotes, started.as_ref()) {
        builder.push(event);
        return Ok(());
    }
    let event: RawEvent<'_> = serde_json::from_slice(raw).map_err(|e| {
        let byte = at + offset_in(raw, e.line(), e.column()) as u64;
        EngineError::invalid(
            path,
            format!(
                "invalid trace event at byte {byte}: {}",
                e.classify_message()
            ),
        )
    })?;
    builder.push(event);
    Ok(())
}

#[cfg(test)]
mod tests;
