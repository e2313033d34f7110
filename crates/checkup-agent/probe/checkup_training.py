"""What the training is, seen from inside it: its DataLoaders, optimizers, compile and CUDA
graph use, numeric settings, the model's shape, gradient accumulation, CUDA memory, the
markers of periodic work (epoch starts, checkpoints, evaluation, long garbage collections)
and the lines that synchronise with the GPU.

Everything here observes: wrappers call the original and return what it returned, nothing
the training computes changes, and every observer fails soft. Hooks that cost per call run
only in the watch window (the steps before the profiled ones); over the whole run the probe
keeps counters and logs rare events.
"""
import collections
import gc
import importlib
import os
import sys
import threading
import time
import warnings
import weakref

import checkup_probe as P

TRAINING_FORMAT = 1
SYNC_WARNING = "called a synchronizing CUDA operation"
# Garbage collections shorter than this are not periodic work worth a marker.
GC_MARK_MS = 5.0


def _safe(f, default=None):
    try:
        return f()
    except Exception:
        return default


def describe_loader(loader):
    workers = _safe(lambda: int(loader.num_workers))
    return {
        "batch_size": _safe(lambda: loader.batch_size),
        "drop_last": _safe(lambda: bool(loader.drop_last)),
        "num_workers": workers,
        "pin_memory": _safe(lambda: bool(loader.pin_memory)),
        "persistent_workers": _safe(lambda: bool(loader.persistent_workers)),
        # Meaningless without workers (torch keeps a default there).
        "prefetch_factor": _safe(lambda: loader.prefetch_factor) if workers else None,
        "sampler": _safe(lambda: type(loader.sampler).__name__),
        "batch_sampler": _safe(lambda: type(loader.batch_sampler).__name__),
        "dataset": _safe(lambda: type(loader.dataset).__name__),
        "dataset_len": _safe(lambda: len(loader.dataset)),
        "batches_per_epoch": _safe(lambda: len(loader)),
        "epochs_started": 0,
        "batches_fetched": 0,
        "first_epoch_steps": [],
    }


def optimizer_implementation(torch, optimizer):
    """'fused', 'foreach' or 'for_loop': what the step really runs. torch picks foreach by
    default on CUDA when neither flag is set."""
    defaults = getattr(optimizer, "defaults", {}) or {}
    fused, foreach = defaults.get("fused"), defaults.get("foreach")
    if fused:
        return "fused"
    if foreach:
        return "foreach"
    if foreach is None and fused is None:
        try:
            from torch.optim.optimizer import _default_to_fused_or_foreach
            params = [p for g in optimizer.param_groups for p in g["params"]]
            use_fused, use_foreach = _default_to_fused_or_foreach(params, defaults.get("differentiable", False), use_fused=False)
            if use_fused:
                return "fused"
            if use_foreach:
                return "foreach"
        except Exception:
            return None
    return "for_loop"


def describe_optimizer(torch, optimizer):
    defaults = getattr(optimizer, "defaults", {}) or {}
    dtypes = {}
    count = 0
    for group in getattr(optimizer, "param_groups", []):
        for p in group.get("params", []):
            count += _safe(lambda: p.numel(), 0)
            name = str(p.dtype).replace("torch.", "")
            dtypes[name] = dtypes.get(name, 0) + _safe(lambda: p.numel(), 0)
    return {
        "class": type(optimizer).__name__,
        "implementation": optimizer_implementation(torch, optimizer),
        "fused": defaults.get("fused"),
        "foreach": defaults.get("foreach"),
        "param_groups": len(getattr(optimizer, "param_groups", [])),
        "param_count": count,
        "param_dtypes": dtypes,
        "steps": 0,
    }


class CompileWatch:
    """Each compilation dynamo makes once the training has called `torch.compile`: an
    `events.csv` row with its step and length, and, for a recompilation, the function and
    the guard that failed (from dynamo's `recompiles` log, enabled for the probe's handler
    only); and whether a function hit its recompile limit, after which it runs uncompiled.
    Each costs the probe one Python call per compilation, which takes seconds."""

    RECOMPILES_KEPT = 64

    def __init__(self, observer):
        self.observer = observer
        self.compilations = 0
        self.compile_ms = 0.0
        self.started = {}                  # thread -> (step, t0, detail)
        self.recompiles = []               # (step, function, file, line, reason)
        self.recompile_count = 0
        self.limit = None

    def install(self):
        import logging
        from torch._dynamo.callback import callback_handler
        callback_handler.register_start_callback(self.on_start)
        callback_handler.register_end_callback(self.on_end)
        watch = self

        from torch._logging._internal import log_state
        users_own = log_state.is_artifact_enabled("recompiles")

        class Recompiles(logging.Handler):
            def emit(self, record):
                _safe(lambda: watch.on_recompile_log(record.getMessage()))
                if not users_own:
                    # torch's own handlers, further up, print what the artifact logs once
                    # it is on: the record stops here unless the user asked for it.
                    logger = logging.getLogger(record.name)
                    logger.propagate = False

        class Limit(logging.Handler):
            def emit(self, record):
                _safe(lambda: watch.on_limit_log(record.getMessage()))

        # Dynamo words a recompilation's failed guards only with its `recompiles` artifact
        # on; it logs them at DEBUG to its own logger, where our handler hears them first.
        log_state.enable_artifact("recompiles")
        for name in list(logging.Logger.manager.loggerDict):
            if name.endswith(".__recompiles"):
                log = logging.getLogger(name)
                log.addHandler(Recompiles(logging.DEBUG))
                if not log.isEnabledFor(logging.DEBUG):
                    log.setLevel(logging.DEBUG)
        logging.getLogger("torch._dynamo").addHandler(Limit(logging.WARNING))

    @staticmethod
    def detail(args):
        a = args[0] if args else None
        words = []
        trigger = getattr(getattr(a, "callback_trigger", None), "name", None)
        if trigger:
            words.append("trigger=" + str(trigger).lower())
        cid = getattr(a, "compile_id", None)
        if cid is not None:
            words.append("id=" + "".join(str(cid).split()))
        return " ".join(words)

    def on_start(self, *args):
        key = threading.get_ident()
        if key not in self.started:
            self.started[key] = (self.observer.tracker.step, time.time(), self.detail(args))

    def on_end(self, *args):
        s = self.started.pop(threading.get_ident(), None)
        if s is None:
            return
        step, t0, detail = s
        ms = (time.time() - t0) * 1e3
        self.compilations += 1
        self.compile_ms += ms
        self.observer.events.write([step, "%.6f" % t0, "compile", detail, "%.3f" % ms])

    def on_recompile_log(self, message):
        r = P.recompile_of(message)
        if r is None:
            return
        self.recompile_count += 1
        if len(self.recompiles) < self.RECOMPILES_KEPT:
            self.recompiles.append((self.observer.tracker.step,) + r)

    def on_limit_log(self, message):
        r = P.recompile_limit_of(message)
        if r is None or self.limit is not None:
            return
        name, value, function, file, line, reason = r
        self.limit = {"setting": name, "value": value, "function": function, "file": file,
                      "line": line, "reason": reason, "step": self.observer.tracker.step}

    def summary(self):
        by_function = collections.OrderedDict()
        for step, function, file, line, reason in self.recompiles:
            r = by_function.setdefault((function, file, line), {
                "function": function, "file": file, "line": line, "count": 0,
                "steps": [step, step], "reasons": []})
            r["count"] += 1
            r["steps"][1] = step
            if reason and reason not in r["reasons"] and len(r["reasons"]) < 3:
                r["reasons"].append(reason)
        return {"compilations": self.compilations, "compile_ms": round(self.compile_ms, 3),
                "recompilations": self.recompile_count, "recompiles": list(by_function.values()),
                "recompile_limit": self.limit}


class Observer:
    def __init__(self, torch, tracker, events, memory, out_dir):
        self.torch = torch
        self.tracker = tracker
        self.events = events
        self.memory = memory
        self.out_dir = out_dir
        self.loaders = []                  # descriptions, in the order first iterated
        self.loader_index = weakref.WeakKeyDictionary()
        self.optimizers = {}               # id -> description
        self.compile_calls = []
        self.compile_watch = None          # dynamo's compilations, from the first torch.compile
        self.graph_captures = 0
        self.graph_replays = 0
        self.backward_calls = 0
        self.backward_at_first_step = None
        self.checkpoints = 0
        self.eval_passes = 0
        self.eval_started = None           # (step, t) of model.eval() on the top module
        self.train_depth = 0
        self.gc_started = None
        self.gc_long = 0
        self.gc_collects = None            # gc.collect() calls by line, the whole run
        self.model = None                  # what the watch window saw of the forward
        self.model_notes = []
        self.syncs = None
        self.sync_note = None
        self.cache_empties = None          # torch.cuda.empty_cache calls from the watch on
        self.cache_empties_from = None
        self.watching = False
        self.watch_undo = []
        self.lazy_patched = set()
        self.peak_memory = None
        self.before_epoch = None           # the probe's: called before an epoch's iterator is made
        self.hot_lines = lambda: None      # the probe's: the host's hot lines so far
        # Debugging settings seen on at any write: a `with detect_anomaly():` around the loop
        # has ended by the write at exit, which must not forget it.
        self.debug_seen = {}
        self.lock = threading.Lock()
        here = os.path.dirname(os.path.abspath(__file__))
        torch_dir = os.path.dirname(os.path.abspath(torch.__file__))
        # Frames to skip when naming the training's line: torch, the probe, warnings.
        self.skip_dirs = (torch_dir, here, os.path.dirname(warnings.__file__) + os.sep + "warnings")

    # ---- whole-run hooks: each costs one Python call where it fires ----

    def install_hooks(self):
        for name, install in [("dataloader_epochs", self._hook_loader_iter),
                              ("backward", self._hook_backward),
                              ("compile", self._hook_compile),
                              ("cuda_graphs", self._hook_graphs),
                              ("checkpoints", self._hook_save),
                              ("eval", self._hook_train_mode),
                              ("gc", self._hook_gc)]:
            try:
                install()
            except Exception as e:
                P.status(self.out_dir, **{name + "_hook_error": repr(e)})

    def _hook_loader_iter(self):
        from torch.utils.data import DataLoader
        original = DataLoader.__iter__
        observer = self

        def iter_and_mark(loader):
            if observer.before_epoch is not None:
                try:
                    observer.before_epoch()
                except Exception:
                    pass
            it = original(loader)
            try:
                observer.epoch_started(loader, it)
            except Exception:
                pass
            return it

        DataLoader.__iter__ = iter_and_mark

    def epoch_started(self, loader, it):
        index = self.loader_index.get(loader)
        if index is None:
            index = len(self.loaders)
            self.loader_index[loader] = index
            self.loaders.append(describe_loader(loader))
        d = self.loaders[index]
        first = d["epochs_started"] == 0
        d["epochs_started"] += 1
        if len(d["first_epoch_steps"]) < 64:
            d["first_epoch_steps"].append(self.tracker.step)
        try:
            it._checkup_loader = index
        except Exception:
            pass
        workers = d["num_workers"] or 0
        forked = workers > 0 and (first or not d["persistent_workers"])
        detail = "loader%d workers=%d%s" % (index, workers, " forked" if forked else "")
        self.events.write([self.tracker.step, "%.6f" % time.time(), "epoch_start", detail, ""])

    def count_batch(self, it):
        index = getattr(it, "_checkup_loader", None)
        if index is not None:
            self.loaders[index]["batches_fetched"] += 1

    def _hook_backward(self):
        import torch.autograd
        original = torch.autograd.backward
        observer = self

        def backward(*args, **kwargs):
            observer.backward_calls += 1
            return original(*args, **kwargs)

        backward.__wrapped__ = original
        torch.autograd.backward = backward

    def _hook_compile(self):
        torch = self.torch
        original = torch.compile
        observer = self

        def compile(*args, **kwargs):
            if observer.compile_watch is None:
                observer.compile_watch = CompileWatch(observer)
                _safe(observer.compile_watch.install)
            try:
                observer.compile_calls.append({
                    "mode": kwargs.get("mode"),
                    "backend": kwargs.get("backend") if isinstance(kwargs.get("backend"), str) else
                    (None if kwargs.get("backend") is None else type(kwargs.get("backend")).__name__),
                    "fullgraph": kwargs.get("fullgraph"),
                    "dynamic": kwargs.get("dynamic"),
                    "step": observer.tracker.step,
                })
            except Exception:
                pass
            return original(*args, **kwargs)

        compile.__wrapped__ = original
        compile.__doc__ = original.__doc__
        torch.compile = compile

    def _hook_graphs(self):
        from torch.cuda import graphs
        cls = graphs.CUDAGraph
        begin, replay = cls.capture_begin, cls.replay
        observer = self

        def capture_begin(g, *args, **kwargs):
            observer.graph_captures += 1
            return begin(g, *args, **kwargs)

        def replay_counted(g, *args, **kwargs):
            observer.graph_replays += 1
            return replay(g, *args, **kwargs)

        cls.capture_begin = capture_begin
        cls.replay = replay_counted

    def graphs_captured(self):
        return self.graph_captures > 0

    def _hook_save(self):
        torch = self.torch
        torch.save = self._timed_save(torch.save, "torch.save")

    def lazy_hooks(self):
        """Checkpoint writers of libraries imported after start-up, patched when they
        appear (checked every 50 steps)."""
        for module_name, attrs in (("torch.distributed.checkpoint", ("save", "async_save", "save_state_dict")),
                                   ("safetensors.torch", ("save_file",))):
            if module_name in self.lazy_patched:
                continue
            module = sys.modules.get(module_name)
            if module is None:
                continue
            self.lazy_patched.add(module_name)
            for attr in attrs:
                f = getattr(module, attr, None)
                if callable(f):
                    _safe(lambda: setattr(module, attr, self._timed_save(f, module_name + "." + attr)))

    def _timed_save(self, original, name):
        observer = self

        def save(*args, **kwargs):
            # The step it began in: a writer thread finishes steps later.
            step, t0 = observer.tracker.step, time.time()
            try:
                return original(*args, **kwargs)
            finally:
                try:
                    observer.checkpoints += 1
                    observer.events.write([step, "%.6f" % t0, "checkpoint",
                                           P.save_detail(name, args, kwargs),
                                           "%.3f" % ((time.time() - t0) * 1e3)])
                except Exception:
                    pass

        save.__wrapped__ = original
        save.__doc__ = original.__doc__
        return save

    def _hook_train_mode(self):
        from torch import nn
        original = nn.Module.train
        observer = self

        def train(module, mode=True):
            # Module.train recurses into children: only the outermost call is the loop's.
            observer.train_depth += 1
            try:
                return original(module, mode)
            finally:
                observer.train_depth -= 1
                if observer.train_depth == 0:
                    try:
                        observer.mode_changed(bool(mode))
                    except Exception:
                        pass

        nn.Module.train = train

    def mode_changed(self, training):
        if not training and self.eval_started is None:
            self.eval_started = (self.tracker.step, time.time())
        elif training and self.eval_started is not None:
            step, t0 = self.eval_started
            self.eval_started = None
            self.eval_passes += 1
            self.events.write([step, "%.6f" % t0, "eval", "", "%.3f" % ((time.time() - t0) * 1e3)])

    def _hook_gc(self):
        observer = self

        def on_gc(phase, info):
            if info.get("generation") != 2:
                return
            if phase == "start":
                observer.gc_started = time.time()
            elif observer.gc_started is not None:
                ms = (time.time() - observer.gc_started) * 1e3
                observer.gc_started = None
                if ms >= GC_MARK_MS:
                    observer.gc_long += 1
                    observer.events.write([observer.tracker.step, "%.6f" % (time.time() - ms / 1e3), "gc",
                                           "collected=%s" % info.get("collected"), "%.3f" % ms])

        gc.callbacks.append(on_gc)

        # A full collection the loop asks for is removed by not asking; one Python's
        # thresholds start is not. Counted by line, a call costing microseconds beside the
        # milliseconds the collection takes.
        self.gc_collects = P.SyncSites(0, None)
        gc.collect = P.counted_by_line(gc.collect, self.gc_collects, "gc_collect", self.skip_dirs)

    # ---- per step ----

    def after_step(self, optimizer):
        d = self.optimizers.get(id(optimizer))
        if d is None:
            d = describe_optimizer(self.torch, optimizer)
            self.optimizers[id(optimizer)] = d
            if self.backward_at_first_step is None:
                self.backward_at_first_step = self.backward_calls
        d["steps"] += 1

    def other_optimizer(self, optimizer):
        self.after_step(optimizer)

    def sample_memory(self):
        torch = self.torch
        try:
            if not torch.cuda.is_initialized():
                return
            s = torch.cuda.memory_stats()
        except Exception:
            return
        row = [self.tracker.step, "%.6f" % time.time(),
               s.get("allocated_bytes.all.current", ""), s.get("reserved_bytes.all.current", ""),
               s.get("allocated_bytes.all.peak", ""), s.get("reserved_bytes.all.peak", ""),
               s.get("inactive_split_bytes.all.current", ""), s.get("num_alloc_retries", ""),
               s.get("num_ooms", "")]
        self.peak_memory = {
            "peak_allocated_bytes": s.get("allocated_bytes.all.peak"),
            "peak_reserved_bytes": s.get("reserved_bytes.all.peak"),
            "reserved_bytes": s.get("reserved_bytes.all.current"),
            "inactive_split_bytes": s.get("inactive_split_bytes.all.current"),
            "alloc_retries": s.get("num_alloc_retries"),
            "ooms": s.get("num_ooms"),
        }
        try:
            self.memory.write(row)
        except Exception:
            pass

    # ---- the watch window: syncs traced to their lines, one look at the forward ----

    def start_watch(self):
        self.watching = True
        first, end = self.tracker.watch_steps()
        self.syncs = P.SyncSites(first, end)
        self.watch_started_step = self.tracker.step
        self._watch_syncs()
        _safe(self._watch_empty_cache)
        if self.compile_calls:
            # Global module hooks on a compiled model can make dynamo recompile.
            self.model_notes.append("model_hooks_skipped_compiled")
        else:
            _safe(self._watch_forward)

    def stop_watch(self):
        self.watching = False
        self.watch_steps_seen = self.tracker.step - getattr(self, "watch_started_step", self.tracker.step)
        while self.watch_undo:
            undo = self.watch_undo.pop()
            _safe(undo)

    def _watch_syncs(self):
        torch = self.torch
        if not _safe(lambda: torch.cuda.is_initialized(), False):
            self.sync_note = "syncs_not_watched_no_cuda"
            return
        if any(f[0] == "error" for f in warnings.filters):
            # A warning would be raised in the training's code: do not watch.
            self.sync_note = "syncs_not_watched_warnings_are_errors"
            return
        previous_mode = torch.cuda.get_sync_debug_mode()
        if previous_mode != 0:
            self.sync_note = "syncs_not_watched_debug_mode_set"
            return
        observer = self
        original_show = warnings.showwarning
        explicit = {"depth": 0}

        def show(message, category, filename, lineno, file=None, line=None):
            if SYNC_WARNING in str(message):
                if explicit["depth"] == 0:
                    site = P.user_frame(sys._getframe(1), observer.skip_dirs)
                    if site is not None:
                        observer.syncs.record(site, "implicit")
                return
            return original_show(message, category, filename, lineno, file, line)

        original_sync = torch.cuda.synchronize

        def synchronize(*args, **kwargs):
            site = P.user_frame(sys._getframe(1), observer.skip_dirs)
            if site is not None:
                observer.syncs.record(site, "synchronize")
            explicit["depth"] += 1
            try:
                return original_sync(*args, **kwargs)
            finally:
                explicit["depth"] -= 1

        warnings.filterwarnings("always", message=SYNC_WARNING)
        added_filter = warnings.filters[0]
        warnings.showwarning = show
        torch.cuda.synchronize = synchronize
        with warnings.catch_warnings():
            # "a prototype feature": the probe's business, not the training's output.
            warnings.simplefilter("ignore")
            torch.cuda.set_sync_debug_mode(1)

        def undo():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                torch.cuda.set_sync_debug_mode(previous_mode)
            if torch.cuda.synchronize is synchronize:
                torch.cuda.synchronize = original_sync
            if warnings.showwarning is show:
                warnings.showwarning = original_show
            try:
                warnings.filters.remove(added_filter)
                warnings._filters_mutated()
            except Exception:
                pass

        self.watch_undo.append(undo)

    def _watch_empty_cache(self):
        """Counts `torch.cuda.empty_cache()` calls by line from the watch window to the end
        of the run (not undone with the window: a call every N steps would be missed by 8
        steps, and a wrapper on a call that itself takes milliseconds costs nothing)."""
        torch = self.torch
        if self.cache_empties is not None:
            return
        self.cache_empties = P.SyncSites(self.tracker.step, None)
        self.cache_empties_from = self.tracker.step
        original = torch.cuda.empty_cache
        empty_cache = P.counted_by_line(original, self.cache_empties, "empty_cache", self.skip_dirs)
        torch.cuda.empty_cache = empty_cache
        memory_module = getattr(torch.cuda, "memory", None)
        if memory_module is not None and getattr(memory_module, "empty_cache", None) is original:
            memory_module.empty_cache = empty_cache

    def _watch_forward(self):
        from torch import nn
        from torch.nn.modules import module as module_mod
        torch = self.torch
        seen = {"top": None, "depth": 0, "calls": 0, "convs": 0, "conv_inputs": 0,
                "channels_last_inputs": 0, "classes": set(), "autocast": None, "forwards": 0}

        def pre(module, args):
            seen["calls"] += 1
            if seen["depth"] == 0:
                seen["forwards"] += 1
                if seen["top"] is None:
                    seen["top"] = module
                    seen["autocast"] = _safe(lambda: str(torch.get_autocast_dtype("cuda")).replace("torch.", "")
                                             if torch.is_autocast_enabled("cuda") else None)
            seen["depth"] += 1
            if len(seen["classes"]) < 200:
                seen["classes"].add(type(module).__name__)
            if isinstance(module, nn.modules.conv._ConvNd):
                seen["convs"] += 1
                x = args[0] if args else None
                if isinstance(x, torch.Tensor) and x.dim() == 4:
                    seen["conv_inputs"] += 1
                    if x.is_contiguous(memory_format=torch.channels_last) and not x.is_contiguous():
                        seen["channels_last_inputs"] += 1

        def post(module, args, output):
            seen["depth"] = max(0, seen["depth"] - 1)

        h1 = module_mod.register_module_forward_pre_hook(pre)
        h2 = module_mod.register_module_forward_hook(post)
        observer = self

        def undo():
            h1.remove()
            h2.remove()
            observer.model = observer._describe_model(seen)

        self.watch_undo.append(undo)

    def _describe_model(self, seen):
        torch = self.torch
        top = seen["top"]
        if top is None:
            return None
        wrapper, ddp, inner = None, None, top
        names = [c.__name__ for c in type(top).__mro__]
        if "DistributedDataParallel" in names:
            wrapper = "DistributedDataParallel"
            inner = getattr(top, "module", top)
            ddp = {
                "bucket_cap_mb": _safe(lambda: round(top.bucket_bytes_cap / 2 ** 20, 3)),
                "find_unused_parameters": _safe(lambda: bool(top.find_unused_parameters)),
                "gradient_as_bucket_view": _safe(lambda: bool(top.gradient_as_bucket_view)),
                "static_graph": _safe(lambda: bool(top.static_graph)),
            }
        elif "FullyShardedDataParallel" in names or "FSDPModule" in names:
            wrapper = "FullyShardedDataParallel"
            inner = getattr(top, "module", top)
        steps = max(1, getattr(self, "watch_steps_seen", 1) or 1)
        return {
            "class": type(inner).__name__,
            "wrapper": wrapper,
            "ddp": ddp,
            "param_count": _safe(lambda: sum(p.numel() for p in top.parameters())),
            "autocast": seen["autocast"],
            "conv_layers_called": seen["convs"],
            "conv_4d_inputs": seen["conv_inputs"],
            "channels_last_inputs": seen["channels_last_inputs"],
            "watched_steps": steps,
            "module_calls_per_step": round(seen["calls"] / steps, 1),
            "forwards_per_step": round(seen["forwards"] / steps, 2),
            "module_classes": sorted(seen["classes"])[:60],
        }

    # ---- the account ----

    def context(self):
        torch = self.torch
        backends = torch.backends
        settings = {
            "tf32_matmul": _safe(lambda: bool(backends.cuda.matmul.allow_tf32)),
            "tf32_cudnn": _safe(lambda: bool(backends.cudnn.allow_tf32)),
            "float32_matmul_precision": _safe(torch.get_float32_matmul_precision),
            "cudnn_benchmark": _safe(lambda: bool(backends.cudnn.benchmark)),
            "cudnn_deterministic": _safe(lambda: bool(backends.cudnn.deterministic)),
            "deterministic_algorithms": _safe(torch.are_deterministic_algorithms_enabled),
            # With deterministic algorithms on, torch fills what torch.empty hands out
            # unless this is off: a fill kernel per new tensor.
            "fill_uninitialized_memory": _safe(
                lambda: bool(importlib.import_module("torch.utils.deterministic").fill_uninitialized_memory)
            ),
            "alloc_conf": os.environ.get("PYTORCH_CUDA_ALLOC_CONF") or os.environ.get("PYTORCH_ALLOC_CONF"),
            "cuda_launch_blocking": os.environ.get("CUDA_LAUNCH_BLOCKING"),
            # Objects gc.freeze() moved out of the collector's reach: a run that froze its
            # start-up state is not told to freeze it.
            "gc_frozen_objects": _safe(gc.get_freeze_count),
            # Debugging settings left on cost every step; read here, between the probe's
            # own watch and profiler windows, they are the training's.
            **self.debug_settings(),
        }
        graphs = None
        try:
            from torch._dynamo.utils import counters
            graphs = int(counters["stats"]["unique_graphs"])
        except Exception:
            pass
        steps = self.tracker.step
        backward_steps = None
        if self.backward_at_first_step is not None and steps > 1:
            # Backward passes per optimizer step, counted after the first step (set-up may
            # run extra ones).
            backward_steps = round((self.backward_calls - self.backward_at_first_step) / (steps - 1), 2)
        notes = list(self.model_notes)
        if self.sync_note:
            notes.append(self.sync_note)
        syncs = None
        if self.syncs is not None:
            syncs = self.syncs.summary(getattr(self, "watch_steps_seen", 0) or 0)
        cache_empties = None
        if self.cache_empties is not None:
            cache_empties = self.cache_empties.summary(steps - self.cache_empties_from)
        gc_collects = None
        if self.gc_collects is not None:
            gc_collects = self.gc_collects.summary(steps)
        return {
            "format": TRAINING_FORMAT,
            "torch": torch.__version__,
            "cuda_runtime": torch.version.cuda,
            "loaders": self.loaders,
            "optimizers": list(self.optimizers.values()),
            "compile": {"calls": self.compile_calls, "graphs": graphs,
                        **(self.compile_watch.summary() if self.compile_watch else {})},
            "cuda_graphs": {"captures": self.graph_captures, "replays": self.graph_replays},
            "model": self.model,
            "settings": settings,
            "steps": {"optimizer_steps": steps, "backward_calls": self.backward_calls,
                      "backward_per_step": backward_steps},
            "markers": {"checkpoints": self.checkpoints, "eval_passes": self.eval_passes,
                        "long_gc": self.gc_long},
            "memory": self.peak_memory,
            "syncs": syncs,
            "empty_cache": cache_empties,
            "gc_collect": gc_collects,
            "not_recorded": notes,
            "hot_lines": _safe(self.hot_lines),
        }

    def debug_settings(self):
        """Debugging settings that slow every step, each the most it was at any write."""
        torch = self.torch
        now = {
            "anomaly_detection": _safe(torch.is_anomaly_enabled),
            "anomaly_check_nan": _safe(lambda: torch.is_anomaly_enabled() and torch.is_anomaly_check_nan_enabled()),
            "sync_debug_mode": _safe(torch.cuda.get_sync_debug_mode),
            "profiler_enabled": _safe(lambda: bool(torch.autograd.profiler._is_profiler_enabled)),
        }
        for key, value in now.items():
            seen = self.debug_seen.get(key)
            if value is not None and (seen is None or value > seen):
                self.debug_seen[key] = value
        return dict(self.debug_seen)

    def write_context(self):
        try:
            P.write_json(os.path.join(self.out_dir, "training.json"), self.context())
        except Exception as e:
            P.status(self.out_dir, training_error=repr(e))
