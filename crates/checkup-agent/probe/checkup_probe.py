"""GPU Checkup's training probe: step timing, data-wait timing, the profiling window and
what the training is (its loaders, optimizers, settings, markers, memory and syncs).

The bookkeeping here uses no torch, so it is tested with a plain interpreter;
`checkup_training` holds the observers that need torch, and `checkup_session` attaches both
to a training process (global optimizer-step hooks, DataLoader iteration, torch.profiler). Everything fails soft: training must
run the same whether or not the probe attaches, and compute the same things.

Cost: after the profiling window the training runs at its bare speed. Each step costs one
Python hook and a list append (about 20 us of host time on an H200 host); a CUDA event
times the GPU side once per span of about 20 ms of steps; files are appended, never
rewritten; memory stays flat however long the run.
"""
import collections
import csv
import json
import linecache
import os
import re
import socket
import sys
import threading
import time

# The process the probe was installed in. Forked children (DataLoader workers) inherit the
# probe's state and open files; they must neither write nor truncate them.
OWNER_PID = os.getpid()


# Set by the first optimizer step: a process that imported the probe but never trains (the
# torchrun launcher, a spawned DataLoader worker) must not create or truncate run files.
TRAINING = False


def start_training():
    global TRAINING
    TRAINING = True


def is_owner():
    return os.getpid() == OWNER_PID


# gpu_ms: GPU time of the span of gpu_steps steps ending at this row, on its last row only.
STEPS_HEADER = ["step", "t_start", "data_wait_ms", "launch_ms", "gpu_ms", "gpu_steps"]
EVENTS_HEADER = ["step", "t", "kind", "detail", "duration_ms"]


def thread_name(name):
    """A thread's name without the number Python gives unnamed threads ("Thread-7
    (_pin_memory_loop)" is "_pin_memory_loop"), so one started anew each epoch stays one."""
    m = re.match(r"^Thread-\d+(?: \((.*)\))?$", name)
    if m:
        return m.group(1) or "Thread"
    return name


def save_detail(name, args, kwargs, thread=None):
    """A checkpoint marker's detail: the writer's name, the bytes it wrote where its target
    is a path or a file object (a write that slows with the same size is the disk's, not the
    state's), and the thread when not the main one (the loop then waits only for what the
    writer has not finished when it saves again). Words without spaces: `key=value`."""
    parts = [name]
    target = args[1] if len(args) > 1 else kwargs.get("f", kwargs.get("filename"))
    try:
        if isinstance(target, (str, bytes, os.PathLike)):
            size = os.stat(target).st_size
        else:
            size = target.tell() if hasattr(target, "tell") else None
    except Exception:
        size = None
    if isinstance(size, int) and size > 0:
        parts.append("bytes=%d" % size)
    thread = thread or threading.current_thread()
    if thread is not threading.main_thread():
        parts.append("thread=" + (re.sub(r"[^A-Za-z0-9_.-]", "_", thread_name(thread.name)) or "Thread"))
    return " ".join(parts)
MEMORY_HEADER = ["step", "t", "allocated_bytes", "reserved_bytes", "peak_allocated_bytes",
                 "peak_reserved_bytes", "inactive_split_bytes", "alloc_retries", "ooms"]


def open_csv(path, header):
    """A new CSV file with its header row: (file, writer). Its folder is made here, when a
    process first has something to write: one that only imported the probe leaves none."""
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    f = open(path, "w", newline="")
    w = csv.writer(f)
    w.writerow(header)
    return f, w


class StepTracker:
    """Marks steps from optimizer steps and times how long each step waited for data.

    A step runs from the end of the previous optimizer step to the end of its own; the time
    spent inside DataLoader iteration during it is its data wait. Steps K+1..K+N (counting
    from 1) are the profiling window; the N steps before it (never step 0) are the watch
    window, where synchronising calls are traced to their lines and the model's forward is
    looked at once.
    """

    def __init__(self, skip_steps, profile_steps, clock=time.time):
        self.skip = max(0, int(skip_steps))
        self.count = max(0, int(profile_steps))
        self.clock = clock
        self.step = 0                 # completed steps; also the index of the running step
        self.t_start = None           # start of the current step
        self.data_wait = 0.0          # seconds waited for data in the current step
        self.first_optimizer = None

    def begin_if_needed(self):
        if self.t_start is None:
            self.t_start = self.clock()

    def add_data_wait(self, seconds):
        self.begin_if_needed()
        self.data_wait += seconds

    def is_step_boundary(self, optimizer_id):
        """With several optimizers (GANs), only the first one seen ends a step."""
        if self.first_optimizer is None:
            self.first_optimizer = optimizer_id
        return optimizer_id == self.first_optimizer

    def end_step(self):
        """Closes the current step and returns its row [step, t_start, data_wait_ms,
        launch_ms, gpu_ms] (gpu_ms None until its GPU time is known)."""
        now = self.clock()
        if self.t_start is None:
            self.t_start = now
        wall = now - self.t_start
        row = [self.step, self.t_start, self.data_wait * 1e3, max(0.0, wall - self.data_wait) * 1e3, None]
        self.step += 1
        self.t_start = now
        self.data_wait = 0.0
        return row

    def window_action(self):
        """What the profiler should do after `self.step` steps completed: 'start' (before
        the first window step), 'step', 'stop' or None."""
        if self.count == 0:
            return None
        if self.step == self.skip:
            return "start"
        if self.skip < self.step < self.skip + self.count:
            return "step"
        if self.step == self.skip + self.count:
            return "stop"
        return None

    def in_window(self, step_index):
        return self.skip <= step_index < self.skip + self.count

    def watch_steps(self):
        """[first, end) of the watch window: the `count` steps before the profiled ones,
        from step 1 on (step 0 is set-up). Empty when profiling is off or there is no room."""
        if self.count == 0:
            return (0, 0)
        return (max(1, self.skip - self.count), self.skip)

    def watch_action(self):
        """'start' or 'stop' of the watch window after `self.step` completed steps."""
        first, end = self.watch_steps()
        if first >= end:
            return None
        if self.step == first:
            return "start"
        if self.step == end:
            return "stop"
        return None


class MarkSchedule:
    """When to record the CUDA event that ends a span of steps on the GPU's clock.

    Recording an event inside a launch-bound stream costs 10-30 us of host time, several
    per cent of a 1 ms step. So a step is marked only when `span_s` of wall time or
    `max_steps` steps passed since the last mark: steps longer than `span_s` are each timed
    on the GPU, shorter ones in spans, and the marks cost a small fixed share of any run.
    `force(n)` marks the next n steps whatever their length (an epoch's first steps, whose
    GPU idle the engine wants step by step)."""

    def __init__(self, span_s=0.02, max_steps=200):
        self.span_s = span_s
        self.max_steps = max_steps
        self.last_t = None
        self.unmarked = 0
        self.forced = 0

    def force(self, steps):
        self.forced = max(self.forced, steps)

    def mark_if_due(self, now, make_mark):
        """The mark ending a span at `now`, made by `make_mark`, when one is due; else None."""
        due = (self.forced > 0 or self.last_t is None or now - self.last_t >= self.span_s
               or self.unmarked + 1 >= self.max_steps)
        if not due:
            self.unmarked += 1
            return None
        self.last_t = now
        self.unmarked = 0
        if self.forced > 0:
            self.forced -= 1
        return make_mark()


class StepsFile:
    """steps.csv, appended in step order. Steps are timed on the GPU in spans: the CUDA
    event ending a span is recorded at the end of its last step, and the span's rows are
    written once that event has completed, the GPU time between the previous span's event
    and its own on the last row (`gpu_ms`) with the number of steps it covers
    (`gpu_steps`). Only spans still waiting are held.

    `elapsed_ms(a, b)` gives the GPU time between two marks (CUDA events); a mark has
    `query()`. Spans whose marks do not complete while more than `max_pending` rows wait
    are written without their GPU time rather than held.
    """

    def __init__(self, path, elapsed_ms=lambda a, b: a.elapsed_time(b), max_pending=1024):
        self.path = path
        self.elapsed_ms = elapsed_ms
        self.max_pending = max_pending
        self.open_rows = []                 # steps after the last mark
        self.pending = collections.deque()  # (rows, start mark, end mark) of closed spans
        self.pending_rows = 0
        self.prev_mark = None
        self.file = None
        self.writer = None
        self.written = 0
        self.closed = False

    def add(self, row, mark):
        """`mark`: the GPU mark recorded at the end of this row's step, which ends a span;
        None: the span goes on (or there is no GPU)."""
        self.open_rows.append(row)
        self.pending_rows += 1
        if mark is not None:
            self._close_span(mark)

    def end_span(self, make_mark):
        """Ends the open span at the last step added, with a mark made now (the training
        starts something whose GPU time belongs to the next steps: an epoch's workers)."""
        if self.open_rows:
            mark = make_mark()
            if mark is not None:
                self._close_span(mark)

    def _close_span(self, mark):
        self.pending.append((self.open_rows, self.prev_mark, mark))
        self.open_rows = []
        self.prev_mark = mark

    def pump(self, final=False):
        """Writes every span whose GPU time is known (all rows when `final`, after the
        caller synchronised the GPU)."""
        if not is_owner() or not TRAINING or self.closed:
            return
        if self.file is None:
            self.file, self.writer = open_csv(self.path, STEPS_HEADER)
        while self.pending:
            rows, a, b = self.pending[0]
            gpu = None
            if a is not None:
                if final or b.query():
                    gpu = self.elapsed_ms(a, b)
                elif self.pending_rows <= self.max_pending:
                    break
            self.pending.popleft()
            self._write(rows, gpu)
        if final:
            self._write(self.open_rows, None)
            self.open_rows = []
        self.file.flush()

    def _write(self, rows, gpu):
        last = len(rows) - 1
        for i, (step, t0, wait, launch, _) in enumerate(rows):
            timed = i == last and gpu is not None
            self.writer.writerow([step, "%.6f" % t0, "%.3f" % wait, "%.3f" % launch,
                                  "%.3f" % gpu if timed else "", len(rows) if timed else ""])
        self.written += len(rows)
        self.pending_rows -= len(rows)

    def close(self):
        self.closed = True
        if self.file is not None:
            self.file.close()
            self.file = None


class CsvLog:
    """An appended CSV (events.csv, memory.csv): its header on the first row, flushed
    after each row so a run killed mid-way keeps what it logged. Rows logged before the
    process trains (the first epoch's start) wait in memory until it does."""

    EARLY_ROWS = 100

    def __init__(self, path, header):
        self.path = path
        self.header = header
        self.file = None
        self.writer = None
        self.rows = 0
        self.early = []
        self.closed = False

    def write(self, row):
        if not is_owner() or self.closed:
            # Closed at exit: a collection during interpreter shutdown must not reopen
            # (and truncate) the file.
            return
        if not TRAINING:
            if len(self.early) < self.EARLY_ROWS:
                self.early.append(row)
            return
        self.write_early()
        self.writer.writerow(row)
        self.file.flush()
        self.rows += 1

    def write_early(self):
        """Opens the file if need be and writes the rows that waited for the first step."""
        if self.file is None:
            self.file, self.writer = open_csv(self.path, self.header)
        for early in self.early:
            self.writer.writerow(early)
            self.rows += 1
        self.early = []
        self.file.flush()

    def close(self):
        # A run whose only rows came before its first step (one compilation, with
        # mark_dynamic, and nothing after) trained all the same: its rows are kept.
        if not self.closed and self.early and TRAINING and is_owner():
            self.write_early()
        self.closed = True
        if self.file is not None:
            self.file.close()
            self.file = None


class SyncSites:
    """Synchronising calls seen in the watch window, by the line of training code that made
    them: how many per step and which lines make most."""

    def __init__(self, first_step, end_step, top=10):
        self.first_step = first_step
        self.end_step = end_step
        self.top = top
        self.by_site = collections.Counter()
        self.kinds = collections.defaultdict(collections.Counter)
        self.total = 0

    def record(self, site, kind):
        """`site`: (file, line, function) of the training's own frame."""
        self.by_site[site] += 1
        self.kinds[site][kind] += 1
        self.total += 1

    def summary(self, steps_seen, code_of=linecache.getline):
        steps = max(0, steps_seen)
        sites = []
        for (file, line, function), n in self.by_site.most_common(self.top):
            sites.append({
                "file": file, "line": line, "function": function,
                "code": (code_of(file, line) or "").strip()[:200],
                "kinds": dict(self.kinds[(file, line, function)]),
                "count": n,
            })
        return {
            "steps": [self.first_step, self.first_step + steps - 1] if steps else None,
            "total": self.total,
            "per_step": round(self.total / steps, 2) if steps else None,
            "sites": sites,
        }


def user_frame(frame, skip_dirs):
    """The first frame, walking out from `frame`, whose file is the training's own (not
    torch's, the standard library's warnings machinery, or the probe's)."""
    while frame is not None:
        path = frame.f_code.co_filename
        if not path.startswith("<") and not any(path.startswith(d) for d in skip_dirs):
            return (path, frame.f_lineno, frame.f_code.co_name)
        frame = frame.f_back
    return None


def counted_by_line(original, sites, kind, skip_dirs):
    """`original`, each call first counted in `sites` (as `kind`) under the training's line
    that made it, the first frame out of `skip_dirs`: for calls such as `gc.collect()` and
    `torch.cuda.empty_cache()`, whose milliseconds dwarf the count's microseconds."""
    def counted(*args, **kwargs):
        site = user_frame(sys._getframe(1), skip_dirs)
        if site is not None:
            sites.record(site, kind)
        return original(*args, **kwargs)

    return counted


RECOMPILING = re.compile(r"Recompiling function (\S+) in (.+):(\d+)")
LIMIT_HIT = re.compile(r"hit config\.(\w+) \((\d+)\)")
LIMIT_FUNCTION = re.compile(r"function: '([^']+)' \((.+):(\d+)\)")
LIMIT_REASON = re.compile(r"last reason: (.*)")
GUARD_PREFIX = re.compile(r"^-?\s*(\[?\d+/\d+\]?:\s*)?")


def recompile_of(message):
    """(function, file, line, reason) of dynamo's "Recompiling function …" log message,
    the reason its first failed guard (`tensor 'x' size mismatch at index 1. expected 64,
    actual 72`); None for another message."""
    m = RECOMPILING.search(message)
    if m is None:
        return None
    reason = None
    for line in message[m.end():].splitlines():
        line = line.strip()
        if line.startswith("- "):
            reason = GUARD_PREFIX.sub("", line)[:200]
            break
    return m.group(1), m.group(2), int(m.group(3)), reason


def recompile_limit_of(message):
    """(limit's name, its value, function, file, line, last reason) of dynamo's warning that
    a function hit its recompile limit and runs uncompiled from then on; None for another
    message."""
    m = LIMIT_HIT.search(message)
    if m is None:
        return None
    f = LIMIT_FUNCTION.search(message)
    r = LIMIT_REASON.search(message)
    reason = GUARD_PREFIX.sub("", r.group(1).strip())[:200] if r else None
    if f is None:
        return m.group(1), int(m.group(2)), None, None, None, reason
    return m.group(1), int(m.group(2)), f.group(1), f.group(2), int(f.group(3)), reason


def write_json(path, value):
    """Replaces `path` atomically (a reader never sees half a file)."""
    with open(path + ".tmp", "w") as f:
        json.dump(value, f, indent=1, sort_keys=True, default=str)
    os.replace(path + ".tmp", path)


def env_int(env, *names):
    """The first of `names` set to an integer, else None."""
    for name in names:
        try:
            return int(env[name])
        except (KeyError, ValueError):
            pass
    return None


def identity(env=os.environ):
    """Where this process sits in the job, as its launcher said: torchrun's variables
    first, then Slurm's (`srun` starting one task per rank). The node is torchrun's
    GROUP_RANK or Slurm's node index."""
    rank = env_int(env, "RANK", "SLURM_PROCID")
    world = env_int(env, "WORLD_SIZE", "SLURM_NTASKS")
    return {
        "rank": rank if rank is not None else 0,
        "world_size": world if world is not None else 1,
        "local_rank": env_int(env, "LOCAL_RANK", "SLURM_LOCALID"),
        "local_world_size": env_int(env, "LOCAL_WORLD_SIZE", "SLURM_NTASKS_PER_NODE"),
        "node_rank": env_int(env, "GROUP_RANK", "SLURM_NODEID"),
        "hostname": socket.gethostname(),
    }


def rank_dir(out, env=os.environ):
    """Single-process runs write into OUT; the ranks of a job into OUT/rankN (N global)."""
    me = identity(env)
    if me["world_size"] > 1 or "RANK" in env and env.get("CHECKUP_FORCE_RANK_DIRS"):
        return os.path.join(out, "rank%d" % me["rank"])
    return out


CLOCK_ROUNDS = 8


def clock_exchange(store, rank, world, prefix, rounds=CLOCK_ROUNDS, clock=time.time):
    """Measures this rank's clock against rank 0's through the job's key-value store (the
    one torchrun or init_process_group serves): rank 0 answers each other rank in the
    order they arrive, a ping with its time; the peer keeps the answer of the shortest
    round trip, whose middle is when rank 0 read its clock (NTP's estimate, off by at most
    half that round trip). Returns {clock_offset_s, clock_rtt_s}: rank 0's clock is this
    rank's plus the offset."""
    if rank == 0:
        for n in range(1, world):
            peer = int(store.get(prefix + "ticket/%d" % n))
            for i in range(rounds):
                store.get(prefix + "%d/%d/ping" % (peer, i))
                store.set(prefix + "%d/%d/pong" % (peer, i), repr(clock()))
        return {"clock_offset_s": 0.0, "clock_rtt_s": 0.0}
    ticket = store.add(prefix + "tickets", 1)
    store.set(prefix + "ticket/%d" % ticket, str(rank))
    best = None
    for i in range(rounds):
        t1 = clock()
        store.set(prefix + "%d/%d/ping" % (rank, i), "1")
        reference = float(store.get(prefix + "%d/%d/pong" % (rank, i)))
        t2 = clock()
        if best is None or t2 - t1 < best[0]:
            best = (t2 - t1, reference - (t1 + t2) / 2)
    return {"clock_offset_s": best[1], "clock_rtt_s": best[0]}


def start_clock_exchange(torch, out_dir, me, env=os.environ):
    """Runs [`clock_exchange`] in a daemon thread with its own connection to the job's
    store (MASTER_ADDR:MASTER_PORT), so the training's process group is never touched;
    the result goes to probe_status.json. Keys are per restart of an elastic job."""
    addr, port = env.get("MASTER_ADDR"), env_int(env, "MASTER_PORT")
    if me["world_size"] < 2 or not addr or port is None:
        return

    def exchange():
        try:
            import datetime
            store = torch.distributed.TCPStore(addr, port, is_master=False,
                                               timeout=datetime.timedelta(seconds=300))
            prefix = "checkup/clock/%s/" % env.get("TORCHELASTIC_RESTART_COUNT", "0")
            status(out_dir, **clock_exchange(store, me["rank"], me["world_size"], prefix))
        except Exception as e:
            status(out_dir, clock_error=repr(e))

    import threading
    threading.Thread(target=exchange, name="checkup-clock", daemon=True).start()


def write_progress(out_dir, step, profiling, trace_written):
    """progress.json: steps done and the profiler window's state, replaced atomically."""
    try:
        os.makedirs(out_dir, exist_ok=True)
        write_json(os.path.join(out_dir, "progress.json"),
                   {"step": step, "profiling": profiling, "trace_written": trace_written})
    except Exception:
        pass


def status(out_dir, **fields):
    if not is_owner():
        return
    try:
        os.makedirs(out_dir, exist_ok=True)
        path = os.path.join(out_dir, "probe_status.json")
        old = {}
        if os.path.exists(path):
            with open(path) as f:
                old = json.load(f)
        old.update(fields)
        write_json(path, old)
    except Exception:
        pass


def teardown_cupti_after_window(env, cuda_version, graphs_captured):
    """Whether to ask Kineto to finalise CUPTI when the profiler stops. Without it CUPTI
    stays subscribed after the window and every kernel launch keeps paying for it (4-9 %
    of a ResNet-50's throughput on an H200). Teardown crashed CUDA graphs before CUDA 12.6,
    so it is left off there; a value the user set is kept."""
    if "TEARDOWN_CUPTI" in env:
        return None
    try:
        major, minor = (int(x) for x in (cuda_version or "0.0").split(".")[:2])
    except ValueError:
        major, minor = 0, 0
    if graphs_captured and (major, minor) < (12, 6):
        return None
    return "1"
