# The agent's probe with some of its parts switched off, for lab/window_residue.py: put this
# folder first on PYTHONPATH, the probe's folder after it. CHECKUP_LAB_OFF lists the parts to
# leave out: "watch" (the sync watch and the look at the forward before the window),
# "profiler" (the profiled window itself), "marks" (the CUDA event that times each step on
# the GPU). CHECKUP_LAB_SPAN_S sets how long a span of steps timed by one event lasts
# (the probe's default is 0.02 s). Never used by the agent.
import os

import checkup_probe
import checkup_training

off = set(filter(None, os.environ.get("CHECKUP_LAB_OFF", "").split(",")))

if "watch" in off:
    def start_watch(self):
        self.watching = True
        self.watch_started_step = self.tracker.step

    checkup_training.Observer.start_watch = start_watch

if "profiler" in off:
    import torch

    class NoProfiler:
        def __init__(self, *args, **kwargs):
            pass

        def start(self):
            pass

        def step(self):
            pass

        def stop(self):
            pass

    torch.profiler.profile = NoProfiler

if "marks" in off:
    import torch

    class NoMark:
        def __init__(self, *args, **kwargs):
            pass

        def record(self, stream=None):
            pass

        def query(self):
            return True

        def elapsed_time(self, other):
            return 0.0

    torch.cuda.Event = NoMark

span_s = os.environ.get("CHECKUP_LAB_SPAN_S")
if span_s:
    default_init = checkup_probe.MarkSchedule.__init__

    def init(self, span_s=float(span_s), max_steps=1 << 30):
        default_init(self, span_s, max_steps)

    checkup_probe.MarkSchedule.__init__ = init

checkup_probe.install()
