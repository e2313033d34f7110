"""The probe attached to one training process: a `Session` holds the step bookkeeping
(`checkup_probe`), the observers of the training (`checkup_training`) and the profiler
window, and its methods are the hooks torch calls. It sits above both modules, which never
import it: `install()` is the probe's one entry point, called by its `sitecustomize`.

Everything fails soft: a hook that raises records why in the run's status and returns, and
the training runs the same whether or not the probe attached.
"""
import atexit
import gzip
import os
import shutil
import threading
import time
import warnings

import checkup_probe as P
import checkup_stacks
import checkup_training

# Where DataLoader workers leave their hot-line snapshots, inside the run folder; the
# training process merges them into training.json and removes the folder at exit.
WORKER_LINES = ".hot_lines"


def _profiler_recording(torch):
    """Whether a profiler of the training's own records this process now."""
    try:
        return bool(torch.autograd.profiler._is_profiler_enabled)
    except Exception:
        return False


class Session:
    """One training process's probe: its files, its step tracker and the profiler window."""

    def __init__(self, torch, out_dir, env=os.environ):
        self.torch = torch
        self.out_dir = out_dir
        self.env = env
        self.tracker = P.StepTracker(env.get("CHECKUP_SKIP_STEPS", "10"), env.get("CHECKUP_PROFILE_STEPS", "8"))
        # Step 0 runs from here (imports, model set-up, first iteration): the engine treats it
        # as warm-up, as it does in recorded runs.
        self.tracker.t_start = time.time()
        self.steps_file = P.StepsFile(os.path.join(out_dir, "steps.csv"))
        self.marks = P.MarkSchedule()
        self.events = P.CsvLog(os.path.join(out_dir, "events.csv"), P.EVENTS_HEADER)
        self.memory = P.CsvLog(os.path.join(out_dir, "memory.csv"), P.MEMORY_HEADER)
        self.training = checkup_training.Observer(torch, self.tracker, self.events, self.memory, out_dir)
        self.training.before_epoch = self.before_epoch
        self.training.hot_lines = self.hot_lines
        self.stacks = None
        self.worker_lines_dir = os.path.join(out_dir, WORKER_LINES)
        self.stacks_interval = checkup_stacks.interval_from(env)
        self.prof = None
        self.progress_t = 0.0
        self.exported = False
        self.announced = False

    def status(self, **fields):
        P.status(self.out_dir, **fields)

    def gpu_mark(self):
        """A CUDA event recorded now, or None before CUDA is up."""
        try:
            if self.torch.cuda.is_initialized():
                e = self.torch.cuda.Event(enable_timing=True)
                e.record()
                return e
        except Exception:
            pass
        return None

    def before_epoch(self):
        # An epoch's start (worker start-up, the first batches) is timed on the GPU step by
        # step: the span before it ends here, the start's two steps are marked.
        self.steps_file.end_span(self.gpu_mark)
        self.marks.force(2)

    def start_stacks(self):
        """Samples the host's hot lines from the first step on, on the thread that steps."""
        if self.stacks_interval is None:
            return
        try:
            self.stacks = checkup_stacks.Sampler(self.stacks_interval)
            self.stacks.start(threading.get_ident())
        except Exception as e:
            self.stacks = None
            self.status(hot_lines_error=repr(e))

    def hot_lines(self):
        """The hot lines of the training process and its workers so far, or None when not
        sampled."""
        if self.stacks is None:
            return None
        return checkup_stacks.merge([self.stacks.snapshot()]
                                    + checkup_stacks.read_snapshots(self.worker_lines_dir))

    def pump(self, final=False):
        try:
            if final and self.steps_file.pending and self.torch.cuda.is_initialized():
                self.torch.cuda.synchronize()
            self.steps_file.pump(final=final)
        except Exception as e:
            self.status(flush_error=repr(e))

    def export_trace(self, prof):
        if self.exported:
            return
        self.exported = True
        try:
            raw = os.path.join(self.out_dir, "trace.json")
            prof.export_chrome_trace(raw)
            with open(raw, "rb") as fi, gzip.open(raw + ".gz", "wb", 6) as fo:
                shutil.copyfileobj(fi, fo)
            os.remove(raw)
            t = self.tracker
            self.status(trace=True, profiled_steps=[t.skip, t.skip + t.count - 1])
        except Exception as e:
            self.status(trace=False, trace_error=repr(e))

    def start_profiler(self):
        torch = self.torch
        if _profiler_recording(torch):
            # One profiler at a time per process: starting the probe's would fail or cut the
            # training's own short. The run is read without a trace, and says why.
            self.training.model_notes.append("trace_skipped_training_profiler")
            self.status(trace=False, trace_skipped="training_profiler")
            return
        teardown = P.teardown_cupti_after_window(os.environ, torch.version.cuda, self.training.graphs_captured())
        if teardown is not None:
            os.environ["TEARDOWN_CUPTI"] = teardown
        self.status(teardown_cupti=os.environ.get("TEARDOWN_CUPTI"))
        # A schedule makes the profiler annotate each step as ProfilerStep#N; the trace is
        # handed over after the last active step.
        with warnings.catch_warnings():
            # "won't be using warmup": the steps before the window warmed it up; the
            # training's own output stays free of the probe's warnings.
            warnings.simplefilter("ignore")
            prof = torch.profiler.profile(
                activities=[torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA],
                schedule=torch.profiler.schedule(wait=0, warmup=0, active=self.tracker.count, repeat=1),
                on_trace_ready=self.export_trace)
            prof.start()
        self.prof = prof

    def stop_profiler(self):
        prof, self.prof = self.prof, None
        prof.stop()
        # The recorded events are Python objects by the hundred thousand: drop them now so
        # the collector does not walk them for the rest of the run.
        try:
            prof.profiler = None
        except Exception:
            pass

    def announce(self):
        """Only a process that trains says it attached: the torchrun launcher and spawned
        DataLoader workers import the probe too."""
        self.announced = True
        P.start_training()
        me = P.identity()
        self.status(ok=True, torch=self.torch.__version__, skip_steps=self.tracker.skip,
                    profile_steps=self.tracker.count, **me)
        P.start_clock_exchange(self.torch, self.out_dir, me)
        self.start_stacks()

    def on_optimizer_step(self, optimizer, args, kwargs):
        """torch's global optimizer-step hook: a step ends at the main optimizer's step."""
        try:
            tracker, training = self.tracker, self.training
            if tracker.step == 0 and not self.announced:
                self.announce()
            if not tracker.is_step_boundary(id(optimizer)):
                training.other_optimizer(optimizer)
                return
            row = tracker.end_step()
            now = tracker.t_start
            self.steps_file.add(row, self.marks.mark_if_due(now, self.gpu_mark))
            training.after_step(optimizer)
            watch = tracker.watch_action()
            if watch == "start":
                training.start_watch()
            elif watch == "stop":
                training.stop_watch()
            action = tracker.window_action()
            if action == "start":
                if training.watching:
                    training.stop_watch()
                training.write_context()
                self.start_profiler()
            elif action in ("step", "stop") and self.prof is not None:
                self.prof.step()
                if action == "stop":
                    self.stop_profiler()
                    training.write_context()
            if tracker.step % 50 == 0:
                self.pump()
                training.lazy_hooks()
            if now - self.progress_t >= 0.5:
                # Cheap progress for the agent's clients, and the CUDA memory of this step.
                self.progress_t = now
                P.write_progress(self.out_dir, tracker.step, self.prof is not None, self.exported)
                training.sample_memory()
        except Exception as e:
            self.status(hook_error=repr(e))

    def time_batches(self, loader_iter_class):
        """Wraps DataLoader iteration: the wait for each batch, and the batch counted."""
        original_next = loader_iter_class.__next__
        tracker, count_batch = self.tracker, self.training.count_batch

        def timed_next(it):
            t0 = time.time()
            try:
                return original_next(it)
            finally:
                tracker.add_data_wait(time.time() - t0)
                count_batch(it)

        loader_iter_class.__next__ = timed_next

    def at_exit(self):
        if not P.TRAINING or not P.is_owner():
            return
        if self.prof is not None:
            # Training ended inside the window: keep what was recorded (stopping a recording
            # profiler hands its trace over).
            prof, self.prof = self.prof, None
            try:
                prof.stop()
                self.export_trace(prof)
            except Exception:
                pass
        if self.training.watching:
            self.training.stop_watch()
        self.steps_file.end_span(self.gpu_mark)
        self.pump(final=True)
        self.training.sample_memory()
        if self.stacks is not None:
            self.stacks.stop()
        self.training.write_context()
        if self.stacks is not None:
            shutil.rmtree(self.worker_lines_dir, ignore_errors=True)
        for log in (self.steps_file, self.events, self.memory):
            try:
                log.close()
            except Exception:
                pass


# The DataLoader's worker function before the probe wrapped it, and what the wrapper needs:
# module globals, so a worker started by spawn or forkserver finds them when it unpickles
# the wrapper (its own probe install sets them again).
_ORIGINAL_WORKER_LOOP = None
_WORKER_LINES_FOLDER = None
_WORKER_LINES_INTERVAL = None


def sampled_worker_loop(*args, **kwargs):
    """A DataLoader worker's loop with its hot lines sampled; the loop runs the same if
    sampling fails."""
    original = _ORIGINAL_WORKER_LOOP
    if original is None:
        from torch.utils.data._utils import worker
        original = worker._worker_loop
        if original is sampled_worker_loop:
            raise RuntimeError("the DataLoader worker loop is not known")
    sampler = None
    if _WORKER_LINES_FOLDER and _WORKER_LINES_INTERVAL:
        try:
            sampler = checkup_stacks.Sampler(_WORKER_LINES_INTERVAL, process_role=checkup_stacks.LOADER_WORKER,
                                             snapshot_folder=_WORKER_LINES_FOLDER)
            sampler.start(threading.get_ident())
        except Exception:
            sampler = None
    try:
        return original(*args, **kwargs)
    finally:
        if sampler is not None:
            sampler.stop()
            sampler.write()


def sample_workers(session):
    """Wraps the DataLoader's worker function so each worker samples its own hot lines."""
    global _ORIGINAL_WORKER_LOOP, _WORKER_LINES_FOLDER, _WORKER_LINES_INTERVAL
    if session.stacks_interval is None:
        return
    from torch.utils.data._utils import worker
    if worker._worker_loop is not sampled_worker_loop:
        _ORIGINAL_WORKER_LOOP = worker._worker_loop
        worker._worker_loop = sampled_worker_loop
    _WORKER_LINES_FOLDER = session.worker_lines_dir
    _WORKER_LINES_INTERVAL = session.stacks_interval


def install(env=os.environ):
    """Attaches the probe to this process when the agent asked for it (`CHECKUP_OUT`)."""
    out = env.get("CHECKUP_OUT")
    if not out:
        return None
    P.OWNER_PID = os.getpid()
    # torchrun's launcher imports this too; only processes that train get steps.
    out_dir = P.rank_dir(out)
    try:
        import torch
    except Exception as e:  # torch missing: training (if any) runs untouched
        P.status(out_dir, ok=False, error="torch could not be imported: %r" % (e,))
        return None
    session = Session(torch, out_dir, env)
    try:
        from torch.optim.optimizer import register_optimizer_step_post_hook
        register_optimizer_step_post_hook(session.on_optimizer_step)
    except Exception as e:
        session.status(ok=False, error="cannot hook optimizer steps: %r" % (e,))
        return None
    try:
        from torch.utils.data import dataloader as _dl
        session.time_batches(_dl._BaseDataLoaderIter)
    except Exception as e:
        session.status(dataloader_hook=False, dataloader_error=repr(e))
    try:
        sample_workers(session)
    except Exception as e:
        session.status(worker_lines=False, worker_lines_error=repr(e))
    session.training.install_hooks()
    atexit.register(session.at_exit)
    return session
