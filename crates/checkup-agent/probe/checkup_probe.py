"""GPU Checkup's training probe: step timing, data-wait timing and the profiling window.

The bookkeeping here uses no torch, so it is tested with a plain interpreter; `install()`
attaches it to torch (global optimizer-step hooks, DataLoader iteration, torch.profiler).
Everything fails soft: training must run the same whether or not the probe attaches.
"""
import csv
import gzip
import json
import os
import shutil
import sys
import time


class StepTracker:
    """Marks steps from optimizer steps and times how long each step waited for data.

    A step runs from the end of the previous optimizer step to the end of its own; the time
    spent inside DataLoader iteration during it is its data wait. Steps K+1..K+N (counting
    from 1) are the profiling window.
    """

    def __init__(self, skip_steps, profile_steps, clock=time.time):
        self.skip = max(0, int(skip_steps))
        self.count = max(0, int(profile_steps))
        self.clock = clock
        self.step = 0                 # completed steps
        self.t_start = None           # start of the current step
        self.data_wait = 0.0          # seconds waited for data in the current step
        self.rows = []                # [step, t_start, data_wait_ms, launch_ms, gpu_ms]
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

    def end_step(self, gpu_ms=None):
        """Closes the current step; returns what the profiler should do now:
        'start' (before the first window step), 'step', 'stop' or None."""
        now = self.clock()
        if self.t_start is None:
            self.t_start = now
        wall = now - self.t_start
        self.rows.append([self.step, self.t_start, self.data_wait * 1e3, max(0.0, wall - self.data_wait) * 1e3, gpu_ms])
        self.step += 1
        self.t_start = now
        self.data_wait = 0.0
        return self.window_action()

    def window_action(self):
        """Called after `self.step` steps completed."""
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


def write_steps_csv(path, rows):
    tmp = path + ".tmp"
    with open(tmp, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["step", "t_start", "data_wait_ms", "launch_ms", "gpu_ms"])
        for step, t0, wait, launch, gpu in rows:
            w.writerow([step, f"{t0:.6f}", f"{wait:.3f}", f"{launch:.3f}", "" if gpu is None else f"{gpu:.3f}"])
    os.replace(tmp, path)


def rank_dir(out, env=os.environ):
    """Single-process runs write into OUT; torchrun ranks into OUT/rankN."""
    world = int(env.get("WORLD_SIZE", "1") or 1)
    if world > 1 or "RANK" in env and env.get("CHECKUP_FORCE_RANK_DIRS"):
        return os.path.join(out, "rank%d" % int(env.get("RANK", "0") or 0))
    return out


def write_progress(out_dir, step, profiling, trace_written):
    """progress.json: steps done and the profiler window's state, replaced atomically."""
    try:
        os.makedirs(out_dir, exist_ok=True)
        path = os.path.join(out_dir, "progress.json")
        with open(path + ".tmp", "w") as f:
            json.dump({"step": step, "profiling": profiling, "trace_written": trace_written}, f)
        os.replace(path + ".tmp", path)
    except Exception:
        pass


def status(out_dir, **fields):
    try:
        os.makedirs(out_dir, exist_ok=True)
        path = os.path.join(out_dir, "probe_status.json")
        old = {}
        if os.path.exists(path):
            with open(path) as f:
                old = json.load(f)
        old.update(fields)
        with open(path, "w") as f:
            json.dump(old, f, indent=1)
    except Exception:
        pass


def install():
    out = os.environ.get("CHECKUP_OUT")
    if not out:
        return
    # torchrun's launcher imports this too; only processes that train get steps.
    out_dir = rank_dir(out)
    try:
        import torch
    except Exception as e:  # torch missing: training (if any) runs untouched
        status(out_dir, ok=False, error="torch could not be imported: %r" % (e,))
        return
    tracker = StepTracker(os.environ.get("CHECKUP_SKIP_STEPS", "10"), os.environ.get("CHECKUP_PROFILE_STEPS", "8"))
    # Step 0 runs from here (imports, model set-up, first iteration): the engine treats it
    # as warm-up, as it does in recorded runs.
    tracker.t_start = time.time()
    state = {"prof": None, "events": [], "written": 0, "progress_t": 0.0}

    def gpu_event():
        try:
            if torch.cuda.is_available() and torch.cuda.is_initialized():
                e = torch.cuda.Event(enable_timing=True)
                e.record()
                return e
        except Exception:
            pass
        return None

    def flush(final=False):
        try:
            events = state["events"]
            if final and events:
                torch.cuda.synchronize()
            # GPU time of step k: between the events recorded at the ends of steps k-1 and k.
            for i in range(1, len(events)):
                a, b = events[i - 1], events[i]
                row = tracker.rows[i] if i < len(tracker.rows) else None
                if row is not None and row[4] is None and a is not None and b is not None and b.query():
                    row[4] = a.elapsed_time(b)
            # Completed pairs need their events no longer: keep memory flat on long runs.
            for j in range(len(events) - 1):
                if j + 1 < len(tracker.rows) and tracker.rows[j + 1][4] is not None:
                    events[j] = None
            os.makedirs(out_dir, exist_ok=True)
            write_steps_csv(os.path.join(out_dir, "steps.csv"), tracker.rows)
        except Exception as e:
            status(out_dir, flush_error=repr(e))

    def export_trace(prof):
        if state.get("exported"):
            return
        state["exported"] = True
        try:
            os.makedirs(out_dir, exist_ok=True)
            raw = os.path.join(out_dir, "trace.json")
            prof.export_chrome_trace(raw)
            with open(raw, "rb") as fi, gzip.open(raw + ".gz", "wb", 6) as fo:
                shutil.copyfileobj(fi, fo)
            os.remove(raw)
            status(out_dir, trace=True, profiled_steps=[tracker.skip, tracker.skip + tracker.count - 1])
        except Exception as e:
            status(out_dir, trace=False, trace_error=repr(e))

    def on_optimizer_step(optimizer, args, kwargs):
        try:
            if not tracker.is_step_boundary(id(optimizer)):
                return
            state["events"].append(gpu_event())
            action = tracker.end_step()
            if action == "start":
                # A schedule makes the profiler annotate each step as ProfilerStep#N; the
                # trace is handed over after the last active step.
                prof = torch.profiler.profile(
                    activities=[torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA],
                    schedule=torch.profiler.schedule(wait=0, warmup=0, active=tracker.count, repeat=1),
                    on_trace_ready=export_trace)
                prof.start()
                state["prof"] = prof
            elif action in ("step", "stop") and state["prof"] is not None:
                state["prof"].step()
                if action == "stop":
                    state["prof"].stop()
                    state["prof"] = None
            if tracker.step % 50 == 0:
                flush()
            now = time.time()
            if now - state["progress_t"] >= 0.5:
                # Cheap progress for the agent's clients (steps done, profiler window state).
                state["progress_t"] = now
                write_progress(out_dir, tracker.step, state["prof"] is not None, bool(state.get("exported")))
        except Exception as e:
            status(out_dir, hook_error=repr(e))

    try:
        from torch.optim.optimizer import register_optimizer_step_post_hook
        register_optimizer_step_post_hook(on_optimizer_step)
    except Exception as e:
        status(out_dir, ok=False, error="cannot hook optimizer steps: %r" % (e,))
        return
    try:
        from torch.utils.data import dataloader as _dl
        original_next = _dl._BaseDataLoaderIter.__next__

        def timed_next(self):
            t0 = time.time()
            try:
                return original_next(self)
            finally:
                tracker.add_data_wait(time.time() - t0)

        _dl._BaseDataLoaderIter.__next__ = timed_next
    except Exception as e:
        status(out_dir, dataloader_hook=False, dataloader_error=repr(e))

    import atexit

    def at_exit():
        if state["prof"] is not None:
            # Training ended inside the window: keep what was recorded.
            try:
                state["prof"].stop()
                export_trace(state["prof"])
            except Exception:
                pass
        if tracker.rows:
            flush(final=True)

    atexit.register(at_exit)
    status(out_dir, ok=True, torch=torch.__version__, rank=int(os.environ.get("RANK", "0") or 0),
           skip_steps=tracker.skip, profile_steps=tracker.count)
