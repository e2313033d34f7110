//! Streaming reader for PyTorch profiler (Kineto) Chrome traces, `.json` or `.json.gz`.
//!
//! Traces of several GB exist in the wild, so the file is never held whole: a small scanner
//! walks the top-level object, cuts `traceEvents` into one event at a time, and serde parses
//! each event from a reused buffer, borrowing its strings. Only the few fields the analysis
//! needs are kept, in compact structs (about 40 bytes per kept event).

use std::borrow::Cow;
use std::collections::HashMap;
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use serde::de::{self, Deserializer, Visitor};
use serde::Deserialize;

use crate::error::{EngineError, Result};

/// One rank's trace, reduced to what the analysis reads. Times are microseconds on the
/// trace's own clock.
#[derive(Debug, Clone, Default)]
pub struct Trace {
    /// The file it was read from.
    pub source: PathBuf,
    /// The rank, from `distributedInfo` or the file name.
    pub rank: Option<u32>,
    /// The job's ranks, from `distributedInfo`.
    pub world_size: Option<u32>,
    /// The GPU's name, from `deviceProperties`.
    pub device_name: Option<String>,
    /// Kernel names, indexed by [`GpuOp::name`].
    pub kernel_names: Vec<String>,
    /// CPU-side step ranges, sorted by start: `ProfilerStep#N`, or inferred (`step_marks`).
    pub steps: Vec<StepSpan>,
    /// How step boundaries were found: `ProfilerStep#N`, optimizer steps or the whole trace.
    pub step_marks: checkup_model::StepMarks,
    /// `Optimizer.step#…` ranges: step ends when a trace has no `ProfilerStep#N`.
    pub optimizer_steps: Vec<(f64, f64)>,
    /// The optimizer class of those steps (`Optimizer.step#AdamW.step` → `AdamW`).
    pub optimizer: Option<String>,
    /// CPU ranges the analysis classifies (batch waits, read-backs, checkpoints), sorted by start.
    pub cpu: Vec<CpuSpan>,
    /// CUDA runtime and driver calls, sorted by start.
    pub runtime: Vec<RuntimeCall>,
    /// Kernels, copies and sets, sorted by start.
    pub gpu: Vec<GpuOp>,
    /// CPU operators' names by `External id` (an index into `operator_names`, `u32::MAX`
    /// where no operator had the id): a launch call's `External id` names the operator that
    /// launched it. Kineto numbers operators one after another, so the ids are dense.
    pub operators: Vec<u32>,
    /// Operator names, indexed by [`Trace::operators`].
    pub operator_names: Vec<String>,
}

impl Trace {
    /// The operator that made the launch call `r`, by name.
    pub fn operator_of(&self, r: &RuntimeCall) -> Option<&str> {
        let name = *self.operators.get(r.external? as usize)?;
        self.operator_names.get(name as usize).map(String::as_str)
    }
}

/// One step on the CPU side.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StepSpan {
    /// The step's number (`ProfilerStep#N`, or counted).
    pub number: u64,
    /// Start, µs.
    pub start: f64,
    /// End, µs.
    pub end: f64,
}

/// What a CPU range the analysis reads is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CpuKind {
    /// `enumerate(DataLoader)#...__next__`: the training loop waiting for its batch.
    DataLoader,
    /// `aten::item` / `aten::_local_scalar_dense`: a tensor read back to Python.
    Item,
    /// `torch.save` and friends: a checkpoint being written.
    Checkpoint,
    /// A collective run by the host (`gloo:all_reduce`, `mpi:…`, `ucc:…`): communication
    /// that a CPU backend does while the GPU has nothing of it to show.
    HostCollective,
}

/// A classified CPU range.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CpuSpan {
    /// What it is.
    pub kind: CpuKind,
    /// Start, µs.
    pub start: f64,
    /// End, µs.
    pub end: f64,
}

/// What a CUDA runtime call does, for the host side of the timeline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuntimeKind {
    /// `cudaLaunchKernel` and the like.
    Launch,
    /// A call that blocks the host until GPU work finishes.
    Sync,
    /// `cudaMemcpy*`: blocking when it copies device-to-host into pageable memory.
    Memcpy,
    /// The driver's device memory allocated or freed (`cudaMalloc`, `cudaFree`): what the
    /// caching allocator does when its cache is empty or emptied. `cudaFree` waits for the
    /// whole device first.
    Alloc,
    /// Any other runtime call.
    Other,
}

/// A CUDA runtime or driver call on the host.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RuntimeCall {
    /// What it does.
    pub kind: RuntimeKind,
    /// Start, µs.
    pub start: f64,
    /// End, µs.
    pub end: f64,
    /// Links the call to the GPU work it launched.
    pub correlation: i64,
    /// The `External id` of the CPU operator that made the call.
    pub external: Option<u32>,
}

/// Direction and host memory of a copy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CopyKind {
    /// Host to device from pageable memory (staged, blocking the host).
    HtoDPageable,
    /// Host to device from pinned memory.
    HtoDPinned,
    /// Device to host into pageable memory (`.item()`, `.cpu()`): the host waits for it.
    DtoH,
    /// Device to host into pinned memory (`non_blocking=True`, a CPU collective staging a
    /// GPU tensor): the host goes on while it runs.
    DtoHPinned,
    /// Device to device.
    DtoD,
    /// Peer-to-peer or unrecognised.
    Other,
}

/// What GPU work is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GpuKind {
    /// A kernel that computes.
    Compute,
    /// NCCL kernels (`ncclKernel_*`, `ncclDevKernel_*`).
    Communication,
    /// A copy.
    Memcpy(CopyKind),
    /// A memset.
    Memset,
}

/// One piece of GPU work: a kernel, copy or set.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GpuOp {
    /// What it is.
    pub kind: GpuKind,
    /// Start, µs.
    pub start: f64,
    /// End, µs.
    pub end: f64,
    /// Links it to the runtime call that launched it.
    pub correlation: i64,
    /// Index into [`Trace::kernel_names`]; `u32::MAX` for copies and sets.
    pub name: u32,
    /// Bytes moved, for copies and sets.
    pub bytes: u64,
}

impl GpuOp {
    /// Its duration, µs.
    pub fn dur(&self) -> f64 {
        self.end - self.start
    }
}

/// The largest single JSON value read (one event, one top-level value): a profiler event is
/// a few KB, and a value is held whole while it is parsed.
const MAX_VALUE_BYTES: usize = 64 << 20;
/// The most JSON read from one trace, after decompression: well past the 10 GB traces of
/// large jobs, and a stop for a small gzip that inflates without end.
const MAX_TRACE_BYTES: u64 = 64 << 30;

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

/// A reader that fills buffers on its own thread and hands them over a bounded channel;
/// emptied buffers go back to be refilled, so no fresh pages are touched per chunk.
struct ThreadedReader {
    rx: std::sync::mpsc::Receiver<std::io::Result<Vec<u8>>>,
    recycle: std::sync::mpsc::Sender<Vec<u8>>,
    current: Vec<u8>,
    pos: usize,
    done: bool,
}

impl ThreadedReader {
    fn spawn(mut inner: impl Read + Send + 'static) -> Self {
        const CHUNK: usize = 256 * 1024;
        let (tx, rx) = std::sync::mpsc::sync_channel(4);
        let (recycle, reuse) = std::sync::mpsc::channel::<Vec<u8>>();
        std::thread::spawn(move || loop {
            let mut buf = reuse.try_recv().unwrap_or_default();
            buf.resize(CHUNK, 0);
            let result = read_up_to(&mut inner, &mut buf).map(|n| {
                buf.truncate(n);
                buf
            });
            let stop = !matches!(&result, Ok(b) if !b.is_empty());
            if tx.send(result).is_err() || stop {
                break;
            }
        });
        Self {
            rx,
            recycle,
            current: Vec::new(),
            pos: 0,
            done: false,
        }
    }
}

impl Read for ThreadedReader {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        let n = {
            let buf = self.fill_buf()?;
            let n = buf.len().min(out.len());
            out[..n].copy_from_slice(&buf[..n]);
            n
        };
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for ThreadedReader {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        while self.pos >= self.current.len() && !self.done {
            match self.rx.recv() {
                Ok(Ok(chunk)) if !chunk.is_empty() => {
                    let used = std::mem::replace(&mut self.current, chunk);
                    // The producer may have finished; a lost buffer is only a lost reuse.
                    let _ = self.recycle.send(used);
                    self.pos = 0;
                }
                Ok(Ok(_)) | Err(_) => self.done = true,
                Ok(Err(e)) => {
                    self.done = true;
                    return Err(e);
                }
            }
        }
        Ok(&self.current[self.pos.min(self.current.len())..])
    }

    fn consume(&mut self, n: usize) {
        self.pos += n;
    }
}

fn read_up_to(r: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..])? {
            0 => break,
            k => n += k,
        }
    }
    Ok(n)
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

/// The raw bytes of a top-level string field's value, unescaped only as far as ASCII
/// prefix matching needs (Kineto names never escape their first characters).
fn raw_string_field<'a>(raw: &'a [u8], key: &memchr::memmem::Finder<'static>) -> Option<&'a [u8]> {
    let at = key.find(raw)?;
    let rest = &raw[at + key.needle().len()..];
    let open = rest.iter().position(|b| *b == b'"')?;
    let value = &rest[open + 1..];
    let close = memchr::memchr(b'"', value)?;
    Some(&value[..close])
}

/// What to do with a raw event, decided from a few byte searches before any parsing.
enum Triage<'a> {
    /// Not a complete event, or a CPU-side one the analysis does not read.
    Skip,
    /// Parse it in full.
    Parse,
    /// A CPU operator: only its name and `External id` are kept (operators are most of a
    /// trace's events), for the kernels it launched to be counted under it.
    Operator(&'a str, u32),
}

/// CPU-side events are parsed in full only for the few names the analysis reads; of the
/// rest, operators keep their name and id, read off the raw bytes.
fn triage(raw: &[u8]) -> Triage<'_> {
    if !is_complete_event(raw) {
        return Triage::Skip;
    }
    use std::sync::LazyLock;
    static CAT: LazyLock<memchr::memmem::Finder<'static>> =
        LazyLock::new(|| memchr::memmem::Finder::new(b"\"cat\""));
    static NAME: LazyLock<memchr::memmem::Finder<'static>> =
        LazyLock::new(|| memchr::memmem::Finder::new(b"\"name\""));
    static SAVE: LazyLock<memchr::memmem::Finder<'static>> =
        LazyLock::new(|| memchr::memmem::Finder::new(b"save"));
    match raw_string_field(raw, &CAT) {
        Some(cat @ (b"cpu_op" | b"user_annotation" | b"python_function" | b"Operator")) => {
            let Some(name) = raw_string_field(raw, &NAME) else {
                return Triage::Parse;
            };
            if name.starts_with(b"ProfilerStep#")
                || name.starts_with(b"Optimizer.step#")
                || name.starts_with(b"enumerate(DataLoader)")
                || name.starts_with(b"aten::item")
                || name.starts_with(b"aten::_local_scalar_dense")
                || SAVE.find(name).is_some()
                || HOST_COLLECTIVES
                    .iter()
                    .any(|p| name.starts_with(p.as_bytes()))
            {
                return Triage::Parse;
            }
            match (cat == b"cpu_op")
                .then(|| operator_ref(raw, name))
                .flatten()
            {
                Some((name, id)) => Triage::Operator(name, id),
                None => Triage::Skip,
            }
        }
        _ => Triage::Parse,
    }
}

/// An operator's name (already cut out of `raw`) and its `External id`. A name with escapes
/// in it is left out, as is an id that is not a plain number.
fn operator_ref<'a>(raw: &[u8], name: &'a [u8]) -> Option<(&'a str, u32)> {
    static EXTERNAL: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
        std::sync::LazyLock::new(|| memchr::memmem::Finder::new(b"\"External id\""));
    if name.contains(&b'\\') {
        return None;
    }
    let at = EXTERNAL.find(raw)? + EXTERNAL.needle().len();
    let rest = &raw[at..];
    let start = rest.iter().position(|b| b.is_ascii_digit())?;
    if rest[..start]
        .iter()
        .any(|b| !matches!(b, b' ' | b':' | b'\t' | b'\n' | b'\r' | b'"'))
    {
        return None;
    }
    let len = rest[start..]
        .iter()
        .take_while(|b| b.is_ascii_digit())
        .count();
    let external = std::str::from_utf8(&rest[start..start + len])
        .ok()?
        .parse()
        .ok()?;
    Some((std::str::from_utf8(name).ok()?, external))
}

/// Whether a raw event's `ph` is `"X"` (a cheap byte search; a full parse decides the rest).
fn is_complete_event(raw: &[u8]) -> bool {
    static PH: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
        std::sync::LazyLock::new(|| memchr::memmem::Finder::new(b"\"ph\""));
    let Some(at) = PH.find(raw) else { return false };
    raw[at + 4..]
        .iter()
        .copied()
        .find(|b| !matches!(b, b' ' | b':' | b'\t' | b'\n' | b'\r'))
        .is_some_and(|b| b == b'"')
        && raw[at + 4..]
            .iter()
            .copied()
            .filter(|b| !matches!(b, b' ' | b':' | b'\t' | b'\n' | b'\r'))
            .nth(1)
            == Some(b'X')
}

/// Byte offset of a 1-based (line, column) position inside `buf`.
fn offset_in(buf: &[u8], line: usize, column: usize) -> usize {
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

trait ClassifyMessage {
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
struct Scanner<'p, R> {
    r: R,
    pos: u64,
    path: &'p Path,
}

impl<R: BufRead> Scanner<'_, R> {
    fn fill(&mut self) -> Result<&[u8]> {
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
    fn check_value_size(&self, out: &[u8]) -> Result<()> {
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

    fn consume(&mut self, n: usize) {
        self.r.consume(n);
        self.pos += n as u64;
    }

    fn bump(&mut self) {
        self.consume(1);
    }

    fn peek_nonws(&mut self) -> Result<Option<u8>> {
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

    fn expect(&mut self, want: u8) -> Result<()> {
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
    fn capture_value(&mut self, out: &mut Vec<u8>) -> Result<()> {
        let first = self.peek_nonws()?.ok_or_else(|| self.truncated())?;
        match first {
            b'{' | b'[' | b'"' => self.capture_nested(out, first == b'"'),
            _ => self.capture_scalar(out),
        }
    }

    fn capture_nested(&mut self, out: &mut Vec<u8>, string_only: bool) -> Result<()> {
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

    fn capture_scalar(&mut self, out: &mut Vec<u8>) -> Result<()> {
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

    fn syntax(&self, what: &str) -> EngineError {
        EngineError::invalid(
            self.path,
            format!("invalid JSON at byte {}: {what}", self.pos),
        )
    }

    fn truncated(&self) -> EngineError {
        EngineError::invalid(
            self.path,
            format!(
                "file is truncated: the JSON ends at byte {} before the trace is complete",
                self.pos
            ),
        )
    }

    fn json(&self, e: serde_json::Error) -> EngineError {
        EngineError::invalid(
            self.path,
            format!("invalid JSON near byte {}: {e}", self.pos),
        )
    }
}

#[derive(Deserialize)]
struct RawEvent<'a> {
    #[serde(borrow, default)]
    ph: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    cat: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    name: Option<Cow<'a, str>>,
    #[serde(default)]
    ts: Option<f64>,
    #[serde(default)]
    dur: Option<f64>,
    #[serde(default)]
    args: Option<RawArgs>,
}

#[derive(Deserialize, Default)]
struct RawArgs {
    #[serde(default, deserialize_with = "lenient_i64")]
    correlation: Option<i64>,
    #[serde(default, deserialize_with = "lenient_i64")]
    bytes: Option<i64>,
    #[serde(default, rename = "External id", deserialize_with = "lenient_i64")]
    external: Option<i64>,
}

/// Kineto writes ids as numbers, some tools as strings; either is accepted.
fn lenient_i64<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<Option<i64>, D::Error> {
    struct V;
    impl<'de> Visitor<'de> for V {
        type Value = Option<i64>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("an integer")
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> std::result::Result<Self::Value, E> {
            Ok(Some(v))
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> std::result::Result<Self::Value, E> {
            Ok(i64::try_from(v).ok())
        }
        fn visit_f64<E: de::Error>(self, v: f64) -> std::result::Result<Self::Value, E> {
            Ok(Some(v as i64))
        }
        fn visit_str<E: de::Error>(self, v: &str) -> std::result::Result<Self::Value, E> {
            Ok(v.trim().parse().ok())
        }
        fn visit_unit<E: de::Error>(self) -> std::result::Result<Self::Value, E> {
            Ok(None)
        }
    }
    d.deserialize_any(V)
}

struct TraceBuilder {
    trace: Trace,
    names: HashMap<String, u32>,
    /// Operator names are looked up once per operator event: a fast hash, not SipHash.
    operator_names: HashMap<String, u32, foldhash::fast::RandomState>,
    operators_seen: usize,
    /// Device events the checkup does not time, to say what a trace without GPU work holds.
    range_profiler_events: u64,
    mtia_events: u64,
}

impl TraceBuilder {
    fn new(path: &Path) -> Self {
        Self {
            trace: Trace {
                source: path.to_path_buf(),
                ..Trace::default()
            },
            names: HashMap::new(),
            operator_names: HashMap::default(),
            operators_seen: 0,
            range_profiler_events: 0,
            mtia_events: 0,
        }
    }

    fn top_level(&mut self, key: &str, value: &serde_json::Value) {
        match key {
            "distributedInfo" => {
                self.trace.rank = value.get("rank").and_then(|v| v.as_u64()).map(|v| v as u32);
                self.trace.world_size = value
                    .get("world_size")
                    .and_then(|v| v.as_u64())
                    .map(|v| v as u32);
            }
            "deviceProperties" => {
                self.trace.device_name = value
                    .as_array()
                    .and_then(|a| a.first())
                    .and_then(|d| d.get("name"))
                    .and_then(|n| n.as_str())
                    .map(str::to_owned);
            }
            _ => {}
        }
    }

    fn intern(&mut self, name: &str) -> u32 {
        if let Some(&id) = self.names.get(name) {
            return id;
        }
        let id = self.trace.kernel_names.len() as u32;
        self.trace.kernel_names.push(name.to_owned());
        self.names.insert(name.to_owned(), id);
        id
    }

    /// A CPU operator, kept as its `External id` and name only. An id far beyond the
    /// operators seen (not Kineto's numbering) is left out rather than given a huge table.
    fn operator(&mut self, name: &str, external: u32) {
        let at = external as usize;
        if at > 16 * self.operators_seen + (1 << 20) {
            return;
        }
        self.operators_seen += 1;
        let id = match self.operator_names.get(name) {
            Some(&id) => id,
            None => {
                let id = self.trace.operator_names.len() as u32;
                self.trace.operator_names.push(name.to_owned());
                self.operator_names.insert(name.to_owned(), id);
                id
            }
        };
        let table = &mut self.trace.operators;
        if at >= table.len() {
            table.resize(at + 1, u32::MAX);
        }
        table[at] = id;
    }

    fn push(&mut self, e: RawEvent<'_>) {
        if e.ph.as_deref() != Some("X") {
            return;
        }
        let (Some(cat), Some(name), Some(start)) = (e.cat.as_deref(), e.name.as_deref(), e.ts)
        else {
            return;
        };
        let end = start + e.dur.unwrap_or(0.0).max(0.0);
        let args = e.args.unwrap_or_default();
        let correlation = args.correlation.unwrap_or(-1);
        match cat.to_ascii_lowercase().as_str() {
            "kernel" => {
                let kind = if is_nccl_kernel(name) {
                    GpuKind::Communication
                } else {
                    GpuKind::Compute
                };
                let name = self.intern(name);
                self.trace.gpu.push(GpuOp {
                    kind,
                    start,
                    end,
                    correlation,
                    name,
                    bytes: 0,
                });
            }
            "gpu_memcpy" | "memcpy" => self.trace.gpu.push(GpuOp {
                kind: GpuKind::Memcpy(copy_kind(name)),
                start,
                end,
                correlation,
                name: u32::MAX,
                bytes: args.bytes.unwrap_or(0).max(0) as u64,
            }),
            "gpu_memset" | "memset" => self.trace.gpu.push(GpuOp {
                kind: GpuKind::Memset,
                start,
                end,
                correlation,
                name: u32::MAX,
                bytes: args.bytes.unwrap_or(0).max(0) as u64,
            }),
            "cuda_runtime" | "cuda_driver" | "runtime" | "driver" => {
                self.trace.runtime.push(RuntimeCall {
                    kind: runtime_kind(name),
                    start,
                    end,
                    correlation,
                    external: args.external.and_then(|x| u32::try_from(x).ok()),
                })
            }
            "user_annotation" | "cpu_op" | "operator" | "python_function" => {
                if let Some(number) = name.strip_prefix("ProfilerStep#") {
                    if let Ok(number) = number.trim().parse() {
                        self.trace.steps.push(StepSpan { number, start, end });
                    }
                } else if let Some(class) = name.strip_prefix("Optimizer.step#") {
                    self.trace.optimizer_steps.push((start, end));
                    if self.trace.optimizer.is_none() {
                        let class = class.strip_suffix(".step").unwrap_or(class);
                        self.trace.optimizer = Some(class.to_owned());
                    }
                } else if let Some(kind) = cpu_kind(name) {
                    self.trace.cpu.push(CpuSpan { kind, start, end });
                }
            }
            "cuda_profiler_range" => self.range_profiler_events += 1,
            c if c.starts_with("mtia") => self.mtia_events += 1,
            _ => {}
        }
    }

    fn finish(mut self) -> Result<Trace> {
        let t = &mut self.trace;
        let by_start = |a: &f64, b: &f64| a.total_cmp(b);
        t.steps.sort_by(|a, b| by_start(&a.start, &b.start));
        // Kineto can emit a step twice (CPU and, rarely, a duplicate on another thread).
        t.steps.dedup_by_key(|s| s.number);
        t.cpu.sort_by(|a, b| by_start(&a.start, &b.start));
        t.runtime.sort_by(|a, b| by_start(&a.start, &b.start));
        t.gpu.sort_by(|a, b| by_start(&a.start, &b.start));
        // Only a trace with no GPU work at all has nothing to analyse.
        if t.gpu.is_empty() {
            let why = if self.range_profiler_events > 0 {
                format!(
                    "the trace holds CUPTI range-profiler counters for {} kernels (`cuda_profiler_range`), not their timings (the profiler replays each kernel): record an activity trace, torch.profiler with ProfilerActivity.CUDA and no profiler_metrics, for a checkup",
                    self.range_profiler_events
                )
            } else if self.mtia_events > 0 {
                format!(
                    "the trace's device work runs on MTIA ({} `mtia_*` events), not on an NVIDIA or AMD GPU: the checkup reads GPU traces only",
                    self.mtia_events
                )
            } else {
                "the trace has no GPU activity (kernels, memcpy, memset): profile with activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]".into()
            };
            return Err(EngineError::invalid(&t.source, why));
        }
        if t.steps.is_empty() {
            infer_steps(t);
        }
        Ok(self.trace)
    }
}

/// Steps of a trace without `ProfilerStep#N`: from the end of one optimizer step to the end
/// of the next when there are at least two (a training loop), else the whole trace as one
/// window, from its first launch or GPU work to its last GPU work.
fn infer_steps(t: &mut Trace) {
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

/// Whether a kernel name is an NCCL kernel.
pub fn is_nccl_kernel(name: &str) -> bool {
    name.starts_with("nccl") || name.contains("ncclKernel") || name.contains("ncclDevKernel")
}

fn copy_kind(name: &str) -> CopyKind {
    if name.contains("HtoD") {
        if name.contains("Pageable") {
            CopyKind::HtoDPageable
        } else {
            CopyKind::HtoDPinned
        }
    } else if name.contains("DtoH") {
        if name.contains("Pinned") {
            CopyKind::DtoHPinned
        } else {
            CopyKind::DtoH
        }
    } else if name.contains("DtoD") || name.contains("PtoP") {
        CopyKind::DtoD
    } else {
        CopyKind::Other
    }
}

fn runtime_kind(name: &str) -> RuntimeKind {
    if name.contains("Synchronize")
        || name == "cudaMemcpy"
        || name == "cuMemcpyDtoH_v2"
        || name == "cudaMemcpy2D"
    {
        RuntimeKind::Sync
    } else if matches!(
        name,
        "cudaMalloc" | "cudaFree" | "cuMemAlloc_v2" | "cuMemFree_v2"
    ) {
        RuntimeKind::Alloc
    } else if name.contains("Launch") {
        RuntimeKind::Launch
    } else if name.contains("Memcpy") {
        RuntimeKind::Memcpy
    } else {
        RuntimeKind::Other
    }
}

/// How the CPU backends of torch.distributed name their collectives (`gloo:all_reduce`).
const HOST_COLLECTIVES: [&str; 3] = ["gloo:", "mpi:", "ucc:"];

fn cpu_kind(name: &str) -> Option<CpuKind> {
    if name.starts_with("enumerate(DataLoader)") {
        Some(CpuKind::DataLoader)
    } else if name == "aten::item" || name == "aten::_local_scalar_dense" {
        Some(CpuKind::Item)
    } else if name == "torch.save"
        || name.contains("serialization.py") && name.contains("save")
        || name.contains("save_checkpoint")
        || name.contains("distributed/checkpoint") && name.contains("save")
    {
        Some(CpuKind::Checkpoint)
    } else if HOST_COLLECTIVES.iter().any(|p| name.starts_with(p)) {
        Some(CpuKind::HostCollective)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Trace> {
        parse_trace(text.as_bytes(), Path::new("t.json"))
    }

    const MINIMAL: &str = r#"{"schemaVersion":1,"distributedInfo":{"rank":1,"world_size":2},
      "traceEvents":[
        {"ph":"X","cat":"user_annotation","name":"ProfilerStep#7","pid":1,"tid":1,"ts":100.0,"dur":50.0},
        {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":110,"dur":5,"args":{"correlation":9}},
        {"ph":"X","cat":"kernel","name":"ncclDevKernel_AllReduce_Sum_f32","pid":0,"tid":7,"ts":120,"dur":10,"args":{"correlation":9}},
        {"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD (Pageable -> Device)","pid":0,"tid":7,"ts":131,"dur":4,"args":{"correlation":10,"bytes":4096}},
        {"ph":"s","id":9,"pid":1,"tid":1,"ts":110,"cat":"ac2g","name":"ac2g"},
        {"ph":"X","cat":"Trace","ts":1,"dur":2,"pid":"Spans","tid":"PyTorch Profiler","name":"x \"quoted\" [}"}
      ],"traceName":"t"}"#;

    #[test]
    fn keeps_steps_launches_kernels_and_copies_with_their_rank() {
        let t = parse(MINIMAL).unwrap();
        assert_eq!(t.rank, Some(1));
        assert_eq!(t.world_size, Some(2));
        assert_eq!(
            t.steps,
            vec![StepSpan {
                number: 7,
                start: 100.0,
                end: 150.0
            }]
        );
        assert_eq!(t.runtime.len(), 1);
        assert_eq!(t.gpu.len(), 2);
        assert_eq!(t.gpu[0].kind, GpuKind::Communication);
        assert_eq!(t.gpu[1].kind, GpuKind::Memcpy(CopyKind::HtoDPageable));
        assert_eq!(t.gpu[1].bytes, 4096);
    }

    #[test]
    fn a_trace_without_step_marks_is_read_as_one_window() {
        let t = parse(r#"{"traceEvents":[
            {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","ts":1,"dur":2,"args":{"correlation":7}},
            {"ph":"X","cat":"kernel","name":"k","ts":5,"dur":10,"args":{"correlation":7}}]}"#)
        .unwrap();
        assert_eq!(t.step_marks, checkup_model::StepMarks::WholeTrace);
        assert_eq!(t.steps.len(), 1);
        assert!(
            t.steps[0].start <= 1.0 && t.steps[0].end > 15.0,
            "{:?}",
            t.steps
        );
    }

    #[test]
    fn optimizer_steps_mark_the_steps_of_a_trace_without_profiler_steps() {
        let t = parse(
            r#"{"traceEvents":[
            {"ph":"X","cat":"user_annotation","name":"Optimizer.step#AdamW.step","ts":10,"dur":5},
            {"ph":"X","cat":"user_annotation","name":"Optimizer.step#AdamW.step","ts":40,"dur":5},
            {"ph":"X","cat":"user_annotation","name":"Optimizer.step#AdamW.step","ts":70,"dur":5},
            {"ph":"X","cat":"kernel","name":"k","ts":20,"dur":10}]}"#,
        )
        .unwrap();
        assert_eq!(t.step_marks, checkup_model::StepMarks::OptimizerSteps);
        assert_eq!(t.optimizer.as_deref(), Some("AdamW"));
        let spans: Vec<(f64, f64)> = t.steps.iter().map(|s| (s.start, s.end)).collect();
        assert_eq!(spans, vec![(15.0, 45.0), (45.0, 75.0)]);
    }

    #[test]
    fn a_trace_without_gpu_work_is_refused() {
        let err = parse(
            r#"{"traceEvents":[{"ph":"X","cat":"cpu_op","name":"aten::mm","ts":1,"dur":1}]}"#,
        )
        .unwrap_err();
        assert!(err.to_string().contains("no GPU activity"), "{err}");
    }

    #[test]
    fn a_cut_off_trace_is_reported_as_truncated() {
        let err = parse(&MINIMAL[..MINIMAL.len() / 2]).unwrap_err();
        assert!(err.to_string().contains("truncated"), "{err}");
    }

    #[test]
    fn broken_json_names_the_byte_where_it_broke() {
        let err = parse(r#"{"traceEvents":[{"ph":"X","cat":kernel}]}"#).unwrap_err();
        assert_eq!(
            err.to_string(),
            "t.json: invalid trace event at byte 32: expected value"
        );
    }

    #[test]
    fn a_json_file_that_is_not_a_trace_says_so() {
        let err = parse(r#"{"hello": [1, 2, 3]}"#).unwrap_err();
        assert!(err.to_string().contains("no \"traceEvents\""), "{err}");
    }
}
