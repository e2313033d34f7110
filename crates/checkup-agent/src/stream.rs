//! The live sample stream: every sample gets a sequence number; a client that reconnects with
//! the last number it saw gets everything after it. Memory stays bounded: recent events live
//! in a ring, every event is also appended to a JSON-lines spill file that older requests
//! are served from.

use std::collections::VecDeque;
use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

pub use checkup_model::{LiveSample, StreamEvent};

struct Inner {
    next_seq: u64,
    ring: VecDeque<StreamEvent>,
    spill: BufWriter<File>,
}

pub struct SampleStream {
    inner: Mutex<Inner>,
    spill_path: PathBuf,
    ring_capacity: usize,
    /// Wakes clients waiting for new events.
    pub notify: tokio::sync::Notify,
}

impl SampleStream {
    pub fn new(spill_path: &Path, ring_capacity: usize) -> std::io::Result<Self> {
        if let Some(dir) = spill_path.parent() {
            crate::private::create_dir(dir)?;
        }
        let spill = BufWriter::new(crate::private::create_file(spill_path)?);
        Ok(Self {
            inner: Mutex::new(Inner {
                next_seq: 1,
                ring: VecDeque::with_capacity(ring_capacity),
                spill,
            }),
            spill_path: spill_path.to_path_buf(),
            ring_capacity: ring_capacity.max(1),
            notify: tokio::sync::Notify::new(),
        })
    }

    pub fn push(&self, sample: LiveSample) {
        {
            let mut inner = self.inner.lock().unwrap_or_else(|p| p.into_inner());
            let event = StreamEvent {
                seq: inner.next_seq,
                sample,
            };
            inner.next_seq += 1;
            if let Ok(line) = serde_json::to_string(&event) {
                let _ = writeln!(inner.spill, "{line}");
            }
            if inner.ring.len() == self.ring_capacity {
                inner.ring.pop_front();
            }
            inner.ring.push_back(event);
        }
        self.notify.notify_waiters();
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
        // Older than the ring: read back from the spill file.
        let _ = inner.spill.flush();
        drop(inner);
        let Ok(file) = File::open(&self.spill_path) else {
            return Vec::new();
        };
        BufReader::new(file)
            .lines()
            .map_while(Result::ok)
            .filter_map(|l| serde_json::from_str::<StreamEvent>(&l).ok())
            .filter(|e| e.seq > since)
            .take(max)
            .collect()
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
    fn a_client_asking_since_the_largest_sequence_number_gets_nothing_and_no_overflow() {
        let dir = tempfile::tempdir().unwrap();
        let s = SampleStream::new(&dir.path().join("stream.jsonl"), 4).unwrap();
        s.push(host(1.0));
        assert!(s.since(u64::MAX, 100).is_empty());
    }
}
