//! The guard between the agent and a training it runs: ends the training's whole process
//! group when the agent ends, however it ends. The kernel tells a process when the thread
//! that started it dies (`PR_SET_PDEATHSIG`), but only that one process: a launcher's
//! ranks, a shell's background jobs and DataLoader workers would run on under PID 1 with the
//! GPU. The guard is that one process (`checkup-agent guard -- COMMAND`): it leads the
//! run's process group, starts the command in it, and when told its agent is gone sends the
//! group SIGTERM, then SIGKILL ten seconds later. Cancelling a run signals the group as
//! before; the guard lets SIGINT pass to the command and exits as the command did.

use std::process::{Command, ExitStatus};
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::time::{Duration, Instant};

/// The hidden subcommand the agent starts a run through.
pub const SUBCOMMAND: &str = "guard";

/// How long the group has to end after SIGTERM before SIGKILL.
pub const TERM_GRACE: Duration = Duration::from_secs(10);

static TERMINATED: AtomicBool = AtomicBool::new(false);
static PARENT: AtomicI32 = AtomicI32::new(0);

extern "C" fn on_term(_: libc::c_int) {
    TERMINATED.store(true, Ordering::Relaxed);
}

extern "C" fn on_interrupt(_: libc::c_int) {}

/// Set in the guard before it is exec'd (a `pre_exec` of the agent's): SIGTERM when the
/// thread that started it ends, and no guard at all if the agent is already gone.
///
/// # Safety
/// Called between fork and exec: only async-signal-safe calls (prctl, getppid).
pub unsafe fn die_with_parent(parent: libc::pid_t) -> std::io::Result<()> {
    // SAFETY: prctl and getppid are async-signal-safe and touch no memory of ours.
    if unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    if unsafe { libc::getppid() } != parent {
        return Err(std::io::Error::other(
            "the agent ended before its run started",
        ));
    }
    Ok(())
}

/// Runs `command` in this process's group and exits as it did; ends the group when
/// SIGTERM comes (the agent gone, or a cancel's second signal).
pub fn run(command: &[String]) -> ! {
    let Some((program, args)) = command.split_first() else {
        eprintln!("checkup-agent guard: no command");
        std::process::exit(2);
    };
    PARENT.store(unsafe { libc::getppid() }, Ordering::Relaxed);
    // SAFETY: handlers that only store to atomics; installed before any thread starts.
    // Handlers, unlike ignored signals, are reset for the command by exec.
    unsafe {
        libc::signal(libc::SIGTERM, on_term as *const () as libc::sighandler_t);
        libc::signal(
            libc::SIGINT,
            on_interrupt as *const () as libc::sighandler_t,
        );
    }
    let mut child = match Command::new(program).args(args).spawn() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("checkup-agent: cannot start `{program}`: {e}");
            std::process::exit(127);
        }
    };
    let mut term_sent: Option<Instant> = None;
    let mut ended: Option<ExitStatus> = None;
    loop {
        if ended.is_none() {
            match child.try_wait() {
                Ok(Some(status)) => ended = Some(status),
                Ok(None) => {}
                Err(_) => std::process::exit(1),
            }
        }
        if let Some(status) = ended {
            // Told to end the group: the command ending is not enough while anything else of
            // the group (a job that ignores SIGTERM) still runs.
            if term_sent.is_none() || !group_has_others() {
                exit_as(status);
            }
        }
        // Orphaned before PR_SET_PDEATHSIG could tell (or it told while busy): the same.
        let orphaned = unsafe { libc::getppid() } != PARENT.load(Ordering::Relaxed);
        if (TERMINATED.load(Ordering::Relaxed) || orphaned) && term_sent.is_none() {
            // SAFETY: kill(2) on our own process group; this process ignores the SIGTERM
            // through its handler.
            unsafe { libc::kill(0, libc::SIGTERM) };
            term_sent = Some(Instant::now());
        }
        if term_sent.is_some_and(|t| t.elapsed() >= TERM_GRACE) {
            // SAFETY: as above; this ends the guard too.
            unsafe { libc::kill(0, libc::SIGKILL) };
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Whether a process other than this one is still in this process group.
fn group_has_others() -> bool {
    let me = std::process::id();
    // SAFETY: getpgrp cannot fail.
    let group = unsafe { libc::getpgrp() } as u32;
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return false;
    };
    entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|&pid| pid != me)
        .filter_map(crate::collect::host::read_proc_stat)
        .any(|p| !p.ended && p.pgrp == group)
}

/// Exits with the command's code, or ends by the signal that ended it.
fn exit_as(status: ExitStatus) -> ! {
    use std::os::unix::process::ExitStatusExt;
    if let Some(sig) = status.signal() {
        // SAFETY: back to the default action, then raise it on ourselves: the agent sees the
        // run ended by the same signal.
        unsafe {
            libc::signal(sig, libc::SIG_DFL);
            libc::raise(sig);
        }
    }
    std::process::exit(status.code().unwrap_or(1))
}
