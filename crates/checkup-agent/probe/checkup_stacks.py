"""The host's hot lines: where the training's threads and its DataLoader workers spend their
CPU, by line of the training's own code.

A daemon thread wakes every `interval_s` (50 ms), reads every thread's Python stack
(`sys._current_frames`) and CPU clock (by its kernel thread id), and credits the CPU a
thread used since the last wake-up to the line it is at now: the innermost frame of the
training's own code (not the standard library's, not an installed package's, not the
probe's), with the innermost library function under it when there is one. A thread that
waits (for the interpreter lock, a queue, the GPU) uses no CPU and so gets no time, which is
what tells a thread that holds the interpreter from the one waiting for it.

In-process, not an external sampler: no attach rights are needed on a shared host, forked
DataLoader workers start their own, and it costs one read of the stacks per wake-up (about
150 us on an H200 host, measured in docs/performance.md), not a ptrace stop of the process.
Counts are kept per line, so memory is bounded by the code's size, not the run's length.

No torch here: it is tested with a plain interpreter.
"""
import collections
import json
import linecache
import os
import site
import sys
import sysconfig
import threading
import time

import checkup_probe as P

# Lines kept per thread role before new ones are counted as "other": a bound on memory for
# code that generates its functions (exec, lambdas in loops) without losing the total.
MAX_LINES = 2048
TOP_LINES = 8
OTHER = ("", 0, "")
# Roles of the threads a sampler sees.
TRAINING = "training"      # the thread that runs the optimizer steps
THREAD = "thread"          # any other thread of the training process
LOADER_WORKER = "loader_worker"  # the main thread of a DataLoader worker process


def library_dirs():
    """Folders whose code is not the training's: the standard library and installed
    packages (the probe's own folder `LineOf` tells apart first)."""
    dirs = set()
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        try:
            p = sysconfig.get_paths().get(key)
            if p:
                dirs.add(os.path.realpath(p))
        except Exception:
            pass
    try:
        dirs.update(os.path.realpath(p) for p in site.getsitepackages())
    except Exception:
        pass
    try:
        dirs.add(os.path.realpath(site.getusersitepackages()))
    except Exception:
        pass
    return tuple(sorted(d.rstrip(os.sep) + os.sep for d in dirs))


# What `LineOf` returns for a stack inside the probe's own code (its step hook writing the
# trace, its profiler): that CPU is the probe's cost, not the training's, and is not credited.
PROBE = object()


class LineOf:
    """Where a stack is: (user file, line, function) and the innermost library function
    under it ("module.py:function"), "" when the innermost frame is the user's own; PROBE
    when the probe's own code runs above the training's line."""

    def __init__(self, skip_dirs, probe_dir=None):
        self.skip_dirs = skip_dirs
        self.is_user_file = {}
        self.probe_dir = (probe_dir or os.path.dirname(os.path.realpath(__file__))).rstrip(os.sep) + os.sep
        self.is_probe_file = {}

    def probe_file(self, path):
        known = self.is_probe_file.get(path)
        if known is None:
            known = os.path.realpath(path).startswith(self.probe_dir)
            self.is_probe_file[path] = known
        return known

    def user_file(self, path):
        known = self.is_user_file.get(path)
        if known is None:
            known = not path.startswith("<") and not os.path.realpath(path).startswith(self.skip_dirs)
            self.is_user_file[path] = known
        return known

    def __call__(self, frame):
        inside = ""
        innermost = frame
        while frame is not None:
            code = frame.f_code
            if self.probe_file(code.co_filename):
                return PROBE, ""
            if self.user_file(code.co_filename):
                if frame is not innermost:
                    leaf = innermost.f_code
                    inside = "%s:%s" % (os.path.basename(leaf.co_filename), leaf.co_name)
                return (code.co_filename, frame.f_lineno, code.co_name), inside
            frame = frame.f_back
        if innermost is None:
            return None, ""
        leaf = innermost.f_code
        # No line of the training's own: the library's innermost frame stands for it.
        return None, "%s:%s" % (os.path.basename(leaf.co_filename), leaf.co_name)


class ThreadLines:
    """One role's CPU by line: {(file, line, function, inside): [cpu_s, samples]}."""

    def __init__(self, role, name):
        self.role = role
        self.name = name
        self.lines = {}
        self.cpu_s = 0.0
        self.samples = 0

    def add(self, where, inside, cpu_s):
        key = (where or OTHER) + (inside,)
        entry = self.lines.get(key)
        if entry is None:
            if len(self.lines) >= MAX_LINES:
                key = OTHER + ("",)
                entry = self.lines.setdefault(key, [0.0, 0])
            else:
                entry = self.lines[key] = [0.0, 0]
        entry[0] += cpu_s
        entry[1] += 1
        self.cpu_s += cpu_s
        self.samples += 1

    def to_json(self):
        return {"role": self.role, "name": self.name, "cpu_s": round(self.cpu_s, 4),
                "samples": self.samples,
                "lines": [[f, l, fn, inside, round(c, 4), n]
                          for (f, l, fn, inside), (c, n) in self.lines.items()]}


thread_name = P.thread_name


def thread_cpu_s(native_id):
    """A thread's CPU time in seconds from its kernel thread id, or None where it cannot be
    read. The clock id is the one Linux makes for a thread (`MAKE_THREAD_CPUCLOCK(tid,
    CPUCLOCK_SCHED)`), the one glibc's pthread_getcpuclockid returns: built from the kernel's
    id, a thread that ended in between gives EINVAL, where a pthread handle of an ended
    thread would be read after it was freed."""
    if not native_id:
        return None
    try:
        return time.clock_gettime(((~native_id) << 3) | 6)
    except (OSError, OverflowError, ValueError):
        return None


class Sampler:
    """Samples this process's threads every `interval_s` from a daemon thread of its own
    (50 ms by default: each wake-up holds the interpreter about 150 us on an H200 host, so
    sampling takes 0.3 % of a core and of any step; docs/performance.md).

    `role_of(ident, name)` names a thread's role, or None to leave it out; the training
    thread is told by `training_ident`."""

    def __init__(self, interval_s=0.05, skip_dirs=None, process_role=TRAINING,
                 snapshot_folder=None, write_every_s=1.0, probe_dir=None):
        self.interval_s = interval_s
        # Workers write their snapshot here every `write_every_s`: the training process
        # reads them, and a worker ended without warning loses at most that much.
        self.snapshot_folder = snapshot_folder
        self.write_every_s = write_every_s
        self.line_of = LineOf(skip_dirs if skip_dirs is not None else library_dirs(), probe_dir)
        self.process_role = process_role
        self.training_ident = None
        self.by_thread = {}          # (role, name) -> ThreadLines
        self.last_cpu = {}           # (ident, kernel id) -> cpu seconds at the last sample
        self.started_at = None
        self.stopped_at = None
        self.wakeups = 0
        self.own_cpu_s = 0.0
        self.stop_event = threading.Event()
        self.thread = None
        self.lock = threading.Lock()

    def role_of(self, ident, name):
        if name.startswith("checkup-"):
            return None
        if self.process_role == LOADER_WORKER:
            return LOADER_WORKER if ident == self.training_ident else None
        return TRAINING if ident == self.training_ident else THREAD

    def start(self, training_ident=None):
        self.training_ident = training_ident if training_ident is not None else threading.get_ident()
        self.started_at = time.time()
        self.thread = threading.Thread(target=self._run, name="checkup-stacks", daemon=True)
        self.thread.start()

    def stop(self):
        self.stop_event.set()
        self.stopped_at = time.time()

    def _run(self):
        me = threading.get_ident()
        own = threading.get_native_id()
        own0 = thread_cpu_s(own) or 0.0
        written = time.time()
        while not self.stop_event.wait(self.interval_s):
            try:
                self.sample_once(skip=me)
            except Exception:
                pass
            self.own_cpu_s = (thread_cpu_s(own) or 0.0) - own0
            if self.snapshot_folder and time.time() - written >= self.write_every_s:
                written = time.time()
                self.write()

    def write(self):
        """Writes the snapshot file, when this sampler has a folder for it."""
        if not self.snapshot_folder:
            return
        try:
            write_snapshot(self.snapshot_folder, self.snapshot())
        except Exception:
            pass

    def sample_once(self, skip=None):
        # Threads Python started or adopted: a thread unknown to `threading` has no kernel
        # id to read its clock by and is left out.
        known = {t.ident: (t.name, t.native_id) for t in threading.enumerate()}
        frames = sys._current_frames()
        with self.lock:
            self.wakeups += 1
            last_cpu, self.last_cpu = self.last_cpu, {}
            for ident, frame in frames.items():
                if ident == skip:
                    continue
                if ident not in known:
                    continue
                raw_name, native_id = known[ident]
                name = thread_name(raw_name)
                role = self.role_of(ident, name)
                if role is None:
                    continue
                cpu = thread_cpu_s(native_id)
                if cpu is None:
                    continue
                before = last_cpu.get((ident, native_id))
                self.last_cpu[(ident, native_id)] = cpu
                if before is None:
                    continue
                where, inside = self.line_of(frame)
                if where is PROBE:
                    continue
                # Threads of one role but different names stay apart (a reporter thread
                # and the pin-memory thread); the training thread and workers are one.
                key = (role, "" if role in (TRAINING, LOADER_WORKER) else name)
                lines = self.by_thread.get(key)
                if lines is None:
                    lines = self.by_thread[key] = ThreadLines(role, key[1])
                lines.add(where, inside, max(0.0, cpu - before))
        del frames

    def snapshot(self):
        """What was sampled so far, as JSON: its span, its own cost and every role's lines."""
        with self.lock:
            end = self.stopped_at or time.time()
            return {"interval_ms": round(self.interval_s * 1e3, 3),
                    "seconds": round(end - (self.started_at or end), 3),
                    "wakeups": self.wakeups, "sampler_cpu_s": round(self.own_cpu_s, 4),
                    "pid": os.getpid(),
                    "threads": [t.to_json() for t in self.by_thread.values()]}


def merge(snapshots, top=TOP_LINES, code_of=linecache.getline):
    """One summary of several processes' snapshots (the training's and its workers'): per
    (role, name), its CPU, the processes it ran in and its top lines by CPU, each with its
    source text and share of that thread's CPU. Roles stay in the training's order."""
    roles = collections.OrderedDict()
    seconds = 0.0
    wakeups = 0
    sampler_cpu = 0.0
    interval = None
    for snap in snapshots:
        seconds = max(seconds, snap.get("seconds", 0.0))
        wakeups += snap.get("wakeups", 0)
        sampler_cpu += snap.get("sampler_cpu_s", 0.0)
        interval = interval or snap.get("interval_ms")
        for t in snap.get("threads", []):
            key = (t["role"], t["name"])
            into = roles.setdefault(key, {"cpu_s": 0.0, "samples": 0, "processes": 0,
                                          "lines": collections.defaultdict(lambda: [0.0, 0])})
            into["cpu_s"] += t["cpu_s"]
            into["samples"] += t["samples"]
            into["processes"] += 1
            for f, l, fn, inside, c, n in t["lines"]:
                entry = into["lines"][(f, l, fn, inside)]
                entry[0] += c
                entry[1] += n
    order = {TRAINING: 0, THREAD: 1, LOADER_WORKER: 2}
    threads = []
    for (role, name), t in sorted(roles.items(), key=lambda kv: (order.get(kv[0][0], 3), -kv[1]["cpu_s"])):
        ranked = sorted(t["lines"].items(), key=lambda kv: (-kv[1][0], -kv[1][1]))[:top]
        lines = []
        for (f, l, fn, inside), (c, n) in ranked:
            lines.append({"file": f, "line": l, "function": fn, "inside": inside,
                          "code": ((code_of(f, l) if f else "") or "").strip()[:200],
                          "cpu_s": round(c, 4), "samples": n})
        threads.append({"role": role, "name": name, "processes": t["processes"],
                        "cpu_s": round(t["cpu_s"], 4), "samples": t["samples"], "lines": lines})
    return {"interval_ms": interval, "seconds": round(seconds, 3), "wakeups": wakeups,
            "sampler_cpu_s": round(sampler_cpu, 4), "threads": threads}


def write_snapshot(folder, snapshot):
    """Replaces this process's snapshot file in `folder` atomically."""
    os.makedirs(folder, exist_ok=True)
    P.write_json(os.path.join(folder, "%d.json" % os.getpid()), snapshot)


def read_snapshots(folder):
    """Every worker's last snapshot in `folder` (files half-written or unreadable skipped)."""
    out = []
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return out
    for name in names:
        if not name.endswith(".json"):
            continue
        try:
            with open(os.path.join(folder, name)) as f:
                out.append(json.load(f))
        except (OSError, ValueError):
            pass
    return out


def interval_from(env):
    """The sampling interval in seconds from CHECKUP_HOT_LINES_MS (default 50 ms); None
    when it is 0 (sampling off) or not a number."""
    raw = env.get("CHECKUP_HOT_LINES_MS", "50")
    try:
        ms = float(raw)
    except ValueError:
        return None
    if ms <= 0:
        return None
    return max(ms, 1.0) / 1e3
