//! A plain trace read where it lies, through a memory map held under a read lease.
//!
//! Reading through a buffer copies every page out of the page cache first: on the 1 GB
//! trace that copy was a quarter of the reader's time (0.45 of 1.75 s on an AMD EPYC VM). A
//! map reads the pages in place, but has a hazard a buffer has not: a page cut off by another
//! process truncating the file faults (SIGBUS) and ends this process. So a trace is mapped
//! only while this process holds a read lease on it (`F_SETLEASE`): the kernel grants one
//! only when no one has the file open for writing, and holds back whoever then opens it to
//! write or truncates it until the lease is given up (here, when the reader is dropped) or
//! the system's lease-break time runs out (45 s by default). Traces whose read could outlast
//! that, files owned by someone else (a lease needs the owner or `CAP_LEASE`) and filesystems
//! without leases (NFS) are read through the buffer as before.

use std::fs::File;
use std::io::{BufRead, Read};
use std::os::fd::AsRawFd;

/// What the reader hands out at a time: an event across the edge is copied out, as it is
/// at a buffer's edge.
const WINDOW: usize = 4 << 20;
/// Pages read are unmapped every this many bytes, or the whole file would count in the
/// process's memory by the end.
const RELEASE_EVERY: usize = 8 << 20;
/// `F_SETSIG` (the libc crate does not name it): asm-generic's value, the one of x86-64 and
/// aarch64, the only systems this module is built for.
const F_SETSIG: libc::c_int = 10;
/// The slowest the reader is taken to go, for the lease to outlast the read: a tenth of its
/// pace on one core of a slow machine (0.5 GB/s), for a machine busy with other ranks.
const SLOWEST_READ_BYTES_PER_S: u64 = 50 << 20;

/// A file mapped whole, handed out a window at a time, under a read lease that holds off
/// writers until it is dropped.
pub(super) struct LeasedMap {
    // Declared before the file: unmapped before the file's close gives the lease up.
    map: memmap2::Mmap,
    /// Held for its lease, never read.
    _lease: File,
    pos: usize,
    released: usize,
}

impl LeasedMap {
    /// The file mapped under a read lease, or the file back where no lease is granted or
    /// the read could outlast one.
    pub(super) fn new(file: File) -> Result<Self, File> {
        let Some(break_time_s) = lease_break_time_s() else {
            return Err(file);
        };
        if !take_read_lease(&file) {
            return Err(file);
        }
        // Read under the lease: no writer can change the length from here on.
        let fits = file.metadata().is_ok_and(|m| {
            m.len() > 0 && m.len() <= break_time_s.saturating_mul(SLOWEST_READ_BYTES_PER_S)
        });
        if !fits {
            give_up_lease(&file);
            return Err(file);
        }
        // SAFETY: the map is read-only and private, and the read lease held until the map is
        // dropped keeps any other process from truncating or writing the file meanwhile
        // (above); this process holds no writable handle on it.
        match unsafe { memmap2::Mmap::map(&file) } {
            Ok(map) => {
                // Only a hint: the kernel reads ahead further.
                let _ = map.advise(memmap2::Advice::Sequential);
                Ok(Self {
                    map,
                    _lease: file,
                    pos: 0,
                    released: 0,
                })
            }
            Err(_) => {
                give_up_lease(&file);
                Err(file)
            }
        }
    }
}

impl Read for LeasedMap {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        super::threaded_reader::read_from_buf(self, out)
    }
}

impl BufRead for LeasedMap {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        let end = (self.pos / WINDOW + 1) * WINDOW;
        Ok(&self.map[self.pos.min(self.map.len())..end.min(self.map.len())])
    }

    fn consume(&mut self, n: usize) {
        self.pos = (self.pos + n).min(self.map.len());
        if self.pos - self.released >= RELEASE_EVERY {
            let upto = self.pos - self.pos % page_size();
            // SAFETY: nothing borrows the bytes before `pos` (a window borrows the reader, and
            // `consume` takes it mutably), and dropping a private read-only map's pages only
            // makes a later touch read them again from the file.
            let _ = unsafe {
                self.map.unchecked_advise_range(
                    memmap2::UncheckedAdvice::DontNeed,
                    self.released,
                    upto - self.released,
                )
            };
            self.released = upto;
        }
    }
}

fn page_size() -> usize {
    // SAFETY: sysconf reads a constant of the system.
    let size = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    usize::try_from(size).unwrap_or(4096).max(1)
}

/// The seconds a writer is held off by a lease before the kernel breaks it; None where
/// leases are off or the setting cannot be read.
fn lease_break_time_s() -> Option<u64> {
    let enabled = std::fs::read_to_string("/proc/sys/fs/leases-enable").ok()?;
    if enabled.trim() != "1" {
        return None;
    }
    let seconds = std::fs::read_to_string("/proc/sys/fs/lease-break-time").ok()?;
    seconds.trim().parse().ok().filter(|s| *s > 0)
}

/// A read lease on `file`, told to signal no one when a writer breaks it: the kernel makes
/// this process the lease's owner, to be sent SIGIO, whose default is to end the process.
/// The lease's signal is set first to SIGURG (ignored by default), so that a break in the
/// moment before the owner is cleared ends nothing either.
fn take_read_lease(file: &File) -> bool {
    let fd = file.as_raw_fd();
    // SAFETY: fcntl on a descriptor this File owns, with integer arguments only.
    unsafe {
        if libc::fcntl(fd, F_SETSIG, libc::SIGURG) != 0 {
            return false;
        }
        if libc::fcntl(fd, libc::F_SETLEASE, libc::F_RDLCK) != 0 {
            return false;
        }
        if libc::fcntl(fd, libc::F_SETOWN, 0) != 0 {
            libc::fcntl(fd, libc::F_SETLEASE, libc::F_UNLCK);
            return false;
        }
    }
    true
}

fn give_up_lease(file: &File) {
    // SAFETY: as above.
    unsafe {
        libc::fcntl(file.as_raw_fd(), libc::F_SETLEASE, libc::F_UNLCK);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;

    /// Bytes that differ from window to window, so a window handed out twice or skipped
    /// shows.
    fn numbered_bytes(len: usize) -> Vec<u8> {
        (0..len).map(|i| (i * 7 + i / 4099) as u8).collect()
    }

    /// A file holding `bytes`, closed (a handle open for writing would refuse the lease).
    fn file_of(bytes: &[u8]) -> tempfile::TempPath {
        let mut file = tempfile::NamedTempFile::new().unwrap();
        file.write_all(bytes).unwrap();
        file.into_temp_path()
    }

    #[test]
    fn hands_out_the_file_as_a_buffer_would_across_windows_and_releases() {
        let bytes = numbered_bytes(3 * RELEASE_EVERY + 12_345);
        let file = file_of(&bytes);
        let mut map = LeasedMap::new(File::open(&*file).unwrap())
            .unwrap_or_else(|_| panic!("no lease on a file of our own in {:?}", &*file));
        let mut read = Vec::new();
        loop {
            // Odd consumes, so windows are left partway.
            let window = map.fill_buf().unwrap();
            if window.is_empty() {
                break;
            }
            assert!(window.len() <= WINDOW);
            let n = window.len().min(1_000_003);
            read.extend_from_slice(&window[..n]);
            map.consume(n);
        }
        assert_eq!(read.len(), bytes.len());
        assert!(read == bytes, "the bytes read differ from the file's");
        assert!(
            map.released >= 3 * RELEASE_EVERY - WINDOW,
            "{}",
            map.released
        );
    }

    #[test]
    fn holds_off_a_writer_until_dropped() {
        let file = file_of(b"{\"traceEvents\":[]}");
        let map = LeasedMap::new(File::open(&*file).unwrap())
            .unwrap_or_else(|_| panic!("no lease on a file of our own in {:?}", &*file));
        // A writer that will not wait is told it would have to.
        let writer = std::fs::OpenOptions::new()
            .write(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(&*file);
        assert_eq!(
            writer.map_err(|e| e.kind()).err(),
            Some(std::io::ErrorKind::WouldBlock)
        );
        drop(map);
        std::fs::OpenOptions::new()
            .write(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(&*file)
            .expect("the writer gets the file once the reader is done");
    }

    #[test]
    fn a_file_open_for_writing_is_read_through_the_buffer() {
        let file = file_of(b"{\"traceEvents\":[]}");
        let _writer = std::fs::OpenOptions::new()
            .append(true)
            .open(&*file)
            .unwrap();
        assert!(LeasedMap::new(File::open(&*file).unwrap()).is_err());
    }

    #[test]
    fn an_empty_file_is_not_mapped() {
        let file = file_of(b"");
        assert!(LeasedMap::new(File::open(&*file).unwrap()).is_err());
    }
}
