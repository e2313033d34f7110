//! A byte-level walker over a JSON document that never holds more than one value at a
//! time, with the limits on a value's and a trace's size, and errors that name the byte.

use std::io::BufRead;
use std::path::Path;

use crate::error::{EngineError, Result};

/// The largest single JSON value read (one event, one top-level value): a profiler event is
/// a few KB, and a value is held whole while it is parsed.
pub(super) const MAX_VALUE_BYTES: usize = 64 << 20;
/// The most JSON read from one trace, after decompression: well past the 10 GB traces of
/// large jobs, and a stop for a small gzip that inflates without end.
pub(super) const MAX_TRACE_BYTES: u64 = 64 << 30;

/// Byte offset of a 1-based (line, column) position inside `buf`.
pub(super) fn offset_in(buf: &[u8], line: usize, column: usize) -> usize {
    let line_start = if line <= 1 {
        0
    } else {
        buf.iter()
            .enumerate()
            .filter(|(_, b)| **b == b'\n')
            .nth(line - 2)
            .map_or(0, |(i, _)| i + 1)
    };
    line_start + column.saturating_sub(1)
}

pub(super) trait ClassifyMessage {
    fn classify_message(&self) -> String;
}

impl ClassifyMessage for serde_json::Error {
    /// serde_json's message without its "at line L column C" suffix (the byte is given instead).
    fn classify_message(&self) -> String {
        let text = self.to_string();
        match text.rfind(" at line ") {
            Some(i) => text[..i].to_owned(),
            None => text,
        }
    }
}

/// Byte-level walker over a JSON document that never holds more than one value at a time.
pub(super) struct Scanner<'p, R> {
    pub(super) r: R,
    pub(super) pos: u64,
    pub(super) path: &'p Path,
}

impl<R: BufRead> Scanner<'_, R> {
    pub(super) fn fill(&mut self) -> Result<&[u8]> {
        let path = self.path;
        if self.pos > MAX_TRACE_BYTES {
            return Err(EngineError::invalid(
                path,
                format!(
                    "the trace runs past {} GiB of JSON (after decompression); that is the most read",
                    MAX_TRACE_BYTES >> 30
                ),
            ));
        }
        self.r.fill_buf().map_err(|e| EngineError::io(path, e))
    }

    /// `out` holds one value; past the limit, the error that names it.
    pub(super) fn check_value_size(&self, out: &[u8]) -> Result<()> {
        if out.len() > MAX_VALUE_BYTES {
            return Err(EngineError::invalid(
                self.path,
                format!(
                    "a JSON value at byte {} is over {} MiB; a profiler event is a few KB",
                    self.pos,
                    MAX_VALUE_BYTES >> 20
                ),
            ));
        }
        Ok(())
    }

    pub(super) fn consume(&mut self, n: usize) {
        self.r.consume(n);
        self.pos += n as u64;
    }

    pub(super) fn bump(&mut self) {
        self.consume(1);
    }

    pub(super) fn peek_nonws(&mut self) -> Result<Option<u8>> {
        loop {
            let buf = self.fill()?;
            if buf.is_empty() {
                return Ok(None);
            }
            match buf.iter().position(|b| !b.is_ascii_whitespace()) {
                Some(i) => {
                    let b = buf[i];
                    self.consume(i);
                    return Ok(Some(b));
                }
                None => {
                    let n = buf.len();
                    self.consume(n);
                }
            }
        }
    }

    pub(super) fn expect(&mut self, want: u8) -> Result<()> {
        match self.peek_nonws()? {
            Some(b) if b == want => {
                self.bump();
                Ok(())
            }
            Some(_) => Err(self.syntax(&format!("expected '{}'", want as char))),
            None => Err(self.truncated()),
        }
    }

    /// Appends the next JSON value's raw bytes to `out`.
    pub(super) fn capture_value(&mut self, out: &mut Vec<u8>) -> Result<()> {
        let first = self.peek_nonws()?.ok_or_else(|| self.truncated())?;
        match first {
            b'{' | b'[' | b'"' => self.capture_nested(out, first == b'"'),
            _ => self.capture_scalar(out),
        }
    }

    pub(super) fn capture_nested(&mut self, out: &mut Vec<u8>, string_only: bool) -> Result<()> {
        let mut depth: u32 = 0;
        let mut in_string = false;
        let mut escaped = false;
        loop {
            let buf = self.fill()?;
            if buf.is_empty() {
                return Err(self.truncated());
            }
            let mut end = None;
            let mut i = 0;
            while i < buf.len() {
                if in_string {
                    if escaped {
                        escaped = false;
                        i += 1;
                        continue;
                    }
                    // Strings (kernel names, args) are most of a trace: jump to the next
                    // quote or backslash with SIMD.
                    match memchr::memchr2(b'"', b'\\', &buf[i..]) {
                        None => i = buf.len(),
                        Some(k) => {
                            i += k;
                            if buf[i] == b'\\' {
                                escaped = true;
                            } else {
                                in_string = false;
                                if string_only {
                                    end = Some(i);
                                    break;
                                }
                            }
                            i += 1;
                        }
                    }
                    continue;
                }
                match buf[i] {
                    b'"' => in_string = true,
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth = depth.saturating_sub(1);
                        if depth == 0 {
                            end = Some(i);
                            break;
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
            match end {
                Some(i) => {
                    out.extend_from_slice(&buf[..=i]);
                    self.consume(i + 1);
                    return Ok(());
                }
                None => {
                    out.extend_from_slice(buf);
                    let n = buf.len();
                    self.consume(n);
                    self.check_value_size(out)?;
                }
            }
        }
    }

    pub(super) fn capture_scalar(&mut self, out: &mut Vec<u8>) -> Result<()> {
        loop {
            let buf = self.fill()?;
            if buf.is_empty() {
                return Ok(());
            }
            match buf
                .iter()
                .position(|b| matches!(b, b',' | b'}' | b']') || b.is_ascii_whitespace())
            {
                Some(i) => {
                    out.extend_from_slice(&buf[..i]);
                    self.consume(i);
                    return Ok(());
                }
                None => {
                    out.extend_from_slice(buf);
                    let n = buf.len();
                    self.consume(n);
                    self.check_value_size(out)?;
                }
            }
        }
    }

    pub(super) fn syntax(&self, what: &str) -> EngineError {
        EngineError::invalid(
            self.path,
            format!("invalid JSON at byte {}: {what}", self.pos),
        )
    }

    pub(super) fn truncated(&self) -> EngineError {
        EngineError::invalid(
            self.path,
            format!(
                "file is truncated: the JSON ends at byte {} before the trace is complete",
                self.pos
            ),
        )
    }

    pub(super) fn json(&self, e: serde_json::Error) -> EngineError {
        EngineError::invalid(
            self.path,
            format!("invalid JSON near byte {}: {e}", self.pos),
        )
    }
}
