//! The live sample stream: every sample gets a sequence number; a client that reconnects with
//! the last number it saw gets everything after it. Memory stays bounded: recent events live
//! in a ring, every event is also appended to a JSON-lines spill file that older requests
//! are served from. Disk stays bounded too: the spill file is two segments of at most
//! `segment_bytes` each; when the current one is full it replaces the previous one. What a
//! client asks for beyond them is gone from the stream (the run folder keeps every sample);
//! the first event it gets then tells it by its sequence number.

use std::collections::VecDeque;
use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::sampler::Sampled;

pub use checkup_model::{LiveSample, StreamEvent};

struct Inner {
    next_seq: u64,
    ring: VecDeque<StreamEvent>,
    spill: BufWriter<File>,
    /// Bytes written to the current segment.
    spill_bytes: u64,
}

/// The spill file's segment size by default: with two segments, 128 MiB of history, about
/// ten hours of one GPU's samples at 10 Hz.
pub const SPILL_SEGMENT_BYTES: u64 = 64 << 20;

/// The live sample stream: a ring of recent events in memory, spilled to a two-segment file so a client that reconnects catches up from its last event number.
pub struct SampleStream {
    inner: Mutex<Inner>,
    spill_path: PathBuf,
    /// The previous segment, `<spill>.1`.
    previous_path: PathBuf,
    segment_bytes: u64,
    ring_capacity: usize,
    /// Wakes clients waiting for new events.
    pub notify: tokio::sync::Notify,
}

impl SampleStream {
    /// A stream keeping `ring_capacity` events in memory and spilling to `spill_path`.
    pub fn new(spill_path: &Path, ring_capacity: usize) -> std::io::Result<Self> {
        Self::with_segments(spill_path, ring_capacity, SPILL_SEGMENT_BYTES)
    }

    /// The same with spill segments of `segment_bytes` (tests use small ones).
    pub fn with_segments(
        spill_path: &Path,
        ring_capacity: usize,
        segment_bytes: u64,
    ) -> std::io::Result<Self> {
        if let Some(dir) = spill_path.parent() {
            crate::private::create_dir(dir)?;
        }
        let mut previous = spill_path.as_os_str().to_owned();
        previous.push(".1");
        let previous_path = PathBuf::from(previous);
        // A previous agent's stream is not this one's: its numbers would repeat.
        let _ = std::fs::remove_file(&previous_path);
        let spill = BufWriter::new(crate::private::create_file(spill_path)?);
        Ok(Self {
            inner: Mutex::new(Inner {
                next_seq: 1,
                ring: VecDeque::with_capacity(ring_capacity),
                spill,
                spill_bytes: 0,
            }),
            spill_path: spill_path.to_path_buf(),
            previous_path,
            segment_bytes: segment_bytes.max(1),
            ring_capacity: ring_capacity.max(1),
            notify: tokio::sync::Notify::new(),
        })
    }

    /// Puts freshly taken samples on the stream, as the API's sample events.
    pub fn publish(&self, s: Sampled<'_>) {
        match s {
            Sampled::Nvml(v) => v
                .iter()
                .for_each(|x| self.push(LiveSample::Nvml(x.clone()))),
            Sampled::Gpm(v) => v.iter().for_each(|x| self.push(LiveSample::Gpm(x.clone()))),
            Sampled::Host(x) => self.push(LiveSample::Host(x.clone())),
        }
    }

    /// Adds an event and wakes waiting clients.
    pub fn push(&self, sample: LiveSample) {
        {
            let mut inner = self.inner.lock().unwrap_or_else(|p| p.into_inner());
            let event = StreamEvent {
                seq: inner.next_seq,
                sample,
            };
            inner.next_seq += 1;
            if let Ok(line) = serde_json::to_string(&event) {
                if inner.spill_bytes + line.len() as u64 + 1 > self.segment_bytes
                    && inner.spill_bytes > 0
                {
                    self.rotate(&mut inner);
                }
                if writeln!(inner.spill, "{line}").is_ok() {
                    inner.spill_bytes += line.len() as u64 + 1;
                }
            }
            if inner.ring.len() == self.ring_capacity {
                inner.ring.pop_front();
            }
            inner.ring.push_back(event);
        }
        self.notify.notify_waiters();
    }

    /// The full segment becomes the previous one (replacing it) and a new one starts. If the
    /// file system refuses, the stream keeps appending to the one it has.
    fn rotate(&self, inner: &mut Inner) {
        let _ = inner.spill.flush();
        if std::fs::rename(&self.spill_path, &self.previous_path).is_err() {
            return;
        }
        // If no new file can be made, the renamed one is still open: writing goes on there.
        if let Ok(f) = crate::private::create_file(&self.spill_path) {
            inner.spill = BufWriter::new(f);
            inner.spill_bytes = 0;
        }
    }

    /// The last sequence number handed out (0: none yet).
    pub fn last_seq(&self) -> u64 {
        self.inner
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .next_seq
            - 1
    }

    /// Up to `max` events with `seq > since`, oldest first.
    pub fn since(&self, since: u64, max: usize) -> Vec<StreamEvent> {
        let mut inner = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        let ring_start = inner.ring.front().map_or(inner.next_seq, |e| e.seq);
        // `since` comes from the client: u64::MAX asks for nothing newer, not an overflow.
        if since.saturating_add(1) >= ring_start {
            return inner
                .ring
                .iter()
                .filter(|e| e.seq > since)
                .take(max)
                .cloned()
                .collect();
        }
        // Older than the ring: read back from the spill segments, the previous one first. The
        // lock is held so that no rotation moves a segment while it is read.
        let _ = inner.spill.flush();
        let mut out = Vec::new();
        for path in [&self.previous_path, &self.spill_path] {
            let Ok(file) = File::open(path) else {
                continue;
            };
            out.extend(
                BufReader::new(file)
                    .lines()
                    .map_while(Result::ok)
                    .filter_map(|l| serde_json::from_str::<StreamEvent>(&l).ok())
                    .filter(|e| e.seq > since)
                    .take(max - out.len()),
            );
            if out.len() >= max {
                break;
            }
        }
        drop(inner);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use checkup_model::HostSample;

    fn host(ts: f64) -> LiveSample {
        LiveSample::Host(HostSample {
            ts,
            ..HostSample::default()
        })
    }

    #[test]
    fn events_older_than_the_ring_come_back_from_the_spill_file_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let s = SampleStream::new(&dir.path().join("stream.jsonl"), 4).unwrap();
        for i in 0..10 {
            s.push(host(i as f64));
        }
        assert_eq!(s.last_seq(), 10);
        let all = s.since(0, 100);
        assert_eq!(
            all.iter().map(|e| e.seq).collect::<Vec<_>>(),
            (1..=10).collect::<Vec<_>>()
        );
        let recent = s.since(8, 100);
        assert_eq!(
            recent.iter().map(|e| e.seq).collect::<Vec<_>>(),
            vec![9, 10]
        );
        assert_eq!(
            s.since(2, 3).iter().map(|e| e.seq).collect::<Vec<_>>(),
            vec![3, 4, 5]
        );
    }

    #[test]
    fn the_spill_file_keeps_two_segments_and_a_client_behind_them_resumes_at_the_oldest_kept() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("stream.jsonl");
        let line = serde_json::to_string(&StreamEvent {
            seq: 10,
            sample: host(10.0),
        })
        .unwrap()
        .len() as u64
            + 1;
        // Segments of about ten events, a ring of two.
        let s = SampleStream::with_segments(&path, 2, 10 * line).unwrap();
        for i in 0..100 {
            s.push(host(i as f64));
        }
        let kept = s.since(0, 1000);
        let seqs: Vec<u64> = kept.iter().map(|e| e.seq).collect();
        let on_disk = std::fs::metadata(&path).unwrap().len()
            + std::fs::metadata(dir.path().join("stream.jsonl.1"))
                .unwrap()
                .len();
        assert!(on_disk <= 2 * 10 * line, "{on_disk} bytes on disk");
        // The newest, contiguous back to the oldest kept (at least a segment's worth).
        assert_eq!(seqs.last(), Some(&100));
        assert_eq!(seqs, (seqs[0]..=100).collect::<Vec<_>>());
        assert!(seqs.len() >= 8, "{seqs:?}");
        // Read across the two segments, in order.
        assert_eq!(
            s.since(97, 5).iter().map(|e| e.seq).collect::<Vec<_>>(),
            vec![98, 99, 100]
        );
    }

    #[test]
    fn a_client_asking_since_the_largest_sequence_number_gets_nothing_and_no_overflow() {
        let dir = tempfile::tempdir().unwrap();
        let s = SampleStream::new(&dir.path().join("stream.jsonl"), 4).unwrap();
        s.push(host(1.0));
        assert!(s.since(u64::MAX, 100).is_empty());
    }
}
