//! Decompression on a second thread: a reader that fills buffers there and hands them over
//! a bounded channel, so inflating and parsing a gzip trace overlap.

use std::io::{BufRead, Read};

/// A reader that fills buffers on its own thread and hands them over a bounded channel;
/// emptied buffers go back to be refilled, so no fresh pages are touched per chunk.
pub(super) struct ThreadedReader {
    pub(super) rx: std::sync::mpsc::Receiver<std::io::Result<Vec<u8>>>,
    pub(super) recycle: std::sync::mpsc::Sender<Vec<u8>>,
    pub(super) current: Vec<u8>,
    pub(super) pos: usize,
    pub(super) done: bool,
}

impl ThreadedReader {
    pub(super) fn spawn(mut inner: impl Read + Send + 'static) -> Self {
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
        read_from_buf(self, out)
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

/// `Read::read` for a reader whose own buffer is the data: a copy out of `fill_buf`.
pub(super) fn read_from_buf(r: &mut impl BufRead, out: &mut [u8]) -> std::io::Result<usize> {
    let n = {
        let buf = r.fill_buf()?;
        let n = buf.len().min(out.len());
        out[..n].copy_from_slice(&buf[..n]);
        n
    };
    r.consume(n);
    Ok(n)
}

pub(super) fn read_up_to(r: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..])? {
            0 => break,
            k => n += k,
        }
    }
    Ok(n)
}
