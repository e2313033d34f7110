"""The Python side of the probe's step hook, timed with a plain interpreter.

The real `checkup_probe.install()` runs against a stand-in torch whose CUDA calls cost
nothing, so what is left is the probe's own bookkeeping per optimizer step (fastest of five
runs of 40,000 calls). bench/probe_step_cost.py measures the whole hook on a GPU; the
difference is the CUDA work the hook asks for (on an H200, 2026-12-02: mostly the event that
times each step on the GPU).

usage: python3 bench/probe_hook_python.py [--profile]
"""
import cProfile
import os
import pstats
import sys
import tempfile
import time
import types

PROBE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                     "crates", "checkup-agent", "probe")
CALLS = 200_000


class FreeEvent:
    """A CUDA event that is always complete and costs nothing."""

    def __init__(self, enable_timing=False):
        pass

    def record(self, stream=None):
        pass

    def query(self):
        return True

    def elapsed_time(self, other):
        return 1.0


class LoaderIter:
    def __next__(self):
        return 1


class DataLoader:
    def __iter__(self):
        return LoaderIter()


class Module:
    def train(self, mode=True):
        return self


class CUDAGraph:
    def capture_begin(self):
        pass

    def replay(self):
        pass


def module(name, **attrs):
    m = types.ModuleType(name)
    m.__dict__.update(attrs)
    sys.modules[name] = m
    return m


def stand_in_torch(step_hooks):
    """Just what `install()` touches; the optimizer-step hook it registers lands in
    `step_hooks`."""
    cuda = module("torch.cuda", is_initialized=lambda: True, Event=FreeEvent, memory_stats=dict,
                  synchronize=lambda: None, get_sync_debug_mode=lambda: 0,
                  set_sync_debug_mode=lambda mode: None)
    cuda.graphs = module("torch.cuda.graphs", CUDAGraph=CUDAGraph)
    torch = module("torch", __version__="stand-in", __file__="/nonexistent/torch/__init__.py",
                   cuda=cuda, compile=lambda *a, **k: None, save=lambda *a, **k: None,
                   version=types.SimpleNamespace(cuda="13.0"))
    module("torch.optim")
    module("torch.optim.optimizer", register_optimizer_step_post_hook=step_hooks.append)
    module("torch.utils")
    module("torch.utils.data", DataLoader=DataLoader)
    module("torch.utils.data.dataloader", _BaseDataLoaderIter=LoaderIter)
    torch.autograd = module("torch.autograd", backward=lambda *a, **k: None)
    torch.nn = module("torch.nn", Module=Module)


def main():
    step_hooks = []
    stand_in_torch(step_hooks)
    sys.path.insert(0, PROBE)
    os.environ.update(CHECKUP_OUT=tempfile.mkdtemp(), CHECKUP_PROFILE_STEPS="0")
    import checkup_probe
    checkup_probe.install()
    hook, optimizer = step_hooks[0], object()
    for _ in range(1000):
        hook(optimizer, (), {})
    best = float("inf")
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(CALLS // 5):
            hook(optimizer, (), {})
        best = min(best, (time.perf_counter() - t0) / (CALLS // 5))
    print("the probe's step hook, Python side alone: %.2f us per step" % (best * 1e6))
    if "--profile" in sys.argv:
        profile = cProfile.Profile()
        profile.enable()
        for _ in range(50_000):
            hook(optimizer, (), {})
        profile.disable()
        pstats.Stats(profile).sort_stats("tottime").print_stats(14)


if __name__ == "__main__":
    main()
