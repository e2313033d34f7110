"""What the probe costs per training step, in microseconds, and what its window leaves behind.

The turn-taking benchmark (probe_overhead.py) compares whole workloads, and on the shared
GPU hosts lent to this project their step times drift by ±10 % within one process, so a
0.5 % effect is out of its reach. This one measures the probe's cost directly: a step made
of LAUNCHES tiny kernels and an optimizer step on one parameter (about 0.3 ms, most of it
the launches), timed in blocks of BLOCK steps; the fastest block of a process is its own
cost, since interference only ever adds time. Variants, each its own process, in rotating
order:

  bare        no probe
  hooks       the probe as `checkup-agent run --profile-steps 0` injects it (step hooks and
              the hot-line sampler)
  window      the probe with its default window (watch steps 2-9, profiled steps 10-17),
              measured after it: anything the window leaves on the launch path (CUPTI
              callbacks, module hooks, patched functions) shows as window - hooks
  no_marks    hooks, with the CUDA events that time steps on the GPU switched off
              (lab/probe_parts): how much of the hooks' cost those events are
  long_spans  hooks, with one such event per second instead of one per 20 ms span
  no_hot_lines  hooks without the hot-line sampler (CHECKUP_HOT_LINES_MS=0): hooks -
              no_hot_lines is what sampling the host's stacks costs

Prints the fastest block per step of each run, the per-step cost of hooks and of the window
in microseconds, and an audit of the window variant's process after the blocks: threads that
used CPU during them, whether a profiler is still enabled, and the functions, hooks and
warning filters the probe patches, each compared with what it was at start-up.

usage: python3 bench/probe_step_cost.py [--rounds 3] [--blocks 30] [--block 1000]
                                        [--launches 40] [--variants bare,hooks,...] [--out DIR]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
PROBE = os.path.join(os.path.dirname(HERE), "crates", "checkup-agent", "probe")
PARTS = os.path.join(os.path.dirname(HERE), "lab", "probe_parts")
VARIANTS = ["bare", "hooks", "window", "no_marks", "long_spans", "no_hot_lines"]
LAB_PARTS = {"no_marks": {"CHECKUP_LAB_OFF": "marks"}, "long_spans": {"CHECKUP_LAB_SPAN_S": "1"}}
# Variants of the agent's own probe set by its environment alone.
PROBE_SETTINGS = {"no_hot_lines": {"CHECKUP_HOT_LINES_MS": "0"}}


def thread_cpu_ticks():
    """{tid: (name, utime + stime ticks)} of this process's threads."""
    out = {}
    for tid in os.listdir("/proc/self/task"):
        try:
            with open("/proc/self/task/%s/stat" % tid) as f:
                stat = f.read()
            name = stat[stat.index("(") + 1:stat.rindex(")")]
            fields = stat[stat.rindex(")") + 2:].split()
            out[int(tid)] = (name, int(fields[11]) + int(fields[12]))
        except (OSError, ValueError):
            pass
    return out


def process_state(torch):
    """What the probe's window touches, in a comparable form."""
    import gc
    import warnings
    from torch.nn.modules import module as module_mod
    return {
        "profiler_enabled": bool(torch.autograd.profiler._is_profiler_enabled)
        if hasattr(torch.autograd.profiler, "_is_profiler_enabled") else None,
        "kineto_profiler_enabled": bool(torch._C._autograd._profiler_enabled())
        if hasattr(torch._C._autograd, "_profiler_enabled") else None,
        "sync_debug_mode": torch.cuda.get_sync_debug_mode(),
        "synchronize": "%s.%s" % (torch.cuda.synchronize.__module__, torch.cuda.synchronize.__qualname__),
        "showwarning": "%s.%s" % (warnings.showwarning.__module__, warnings.showwarning.__qualname__),
        "warning_filters": len(warnings.filters),
        "global_forward_hooks": len(module_mod._global_forward_hooks),
        "global_forward_pre_hooks": len(module_mod._global_forward_pre_hooks),
        "gc_callbacks": len(gc.callbacks),
        "sys_profile": repr(sys.getprofile()),
        "sys_trace": repr(sys.gettrace()),
        "threads": len(os.listdir("/proc/self/task")),
    }


def child(blocks, block, launches):
    import time
    import torch
    x = torch.zeros(1, device="cuda")
    p = torch.nn.Parameter(torch.zeros(1, device="cuda"))
    opt = torch.optim.SGD([p], lr=0.0)
    # After CUDA's start-up (its threads) and before the first step (the probe's window).
    state_at_start = process_state(torch)

    def step():
        for _ in range(launches):
            x.add_(1.0)
        p.grad = x
        opt.step()

    for _ in range(200):          # past the probe's window (steps 2-17)
        step()
    torch.cuda.synchronize()
    ticks0 = thread_cpu_ticks()
    per_step = []
    for _ in range(blocks):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(block):
            step()
        torch.cuda.synchronize()
        per_step.append((time.perf_counter() - t0) / block)
    ticks1 = thread_cpu_ticks()
    main = os.getpid()
    busy = sorted(((ticks1[t][1] - ticks0[t][1], ticks1[t][0]) for t in ticks1
                   if t in ticks0 and t != main and ticks1[t][1] > ticks0[t][1]), reverse=True)
    print(json.dumps({"per_step_s": per_step, "state_at_start": state_at_start,
                      "state_after": process_state(torch),
                      "other_threads_busy": [{"thread": n, "ticks": d} for d, n in busy],
                      "clock_ticks_per_s": os.sysconf("SC_CLK_TCK")}), flush=True)


def run(variant, args, out):
    env = dict(os.environ)
    if variant != "bare":
        rec = tempfile.mkdtemp(prefix="step_cost_%s_" % variant, dir=out)
        path = [PARTS, PROBE] if variant in LAB_PARTS else [PROBE]
        env.update(PYTHONPATH=os.pathsep.join(path + [env.get("PYTHONPATH", "")]), CHECKUP_OUT=rec,
                   CHECKUP_SKIP_STEPS="10", CHECKUP_PROFILE_STEPS="8" if variant == "window" else "0",
                   **LAB_PARTS.get(variant, {}), **PROBE_SETTINGS.get(variant, {}))
    proc = subprocess.run([sys.executable, __file__, "--child", str(args.blocks), str(args.block),
                           str(args.launches)], env=env, capture_output=True, text=True, timeout=600)
    lines = [line for line in proc.stdout.splitlines() if line.startswith("{")]
    if proc.returncode != 0 or not lines:
        raise SystemExit("%s failed (%d):\n%s" % (variant, proc.returncode, proc.stderr[-3000:]))
    result = json.loads(lines[-1])
    if variant == "window":
        with open(os.path.join(rec, "probe_status.json")) as f:
            status = json.load(f)
        if not status.get("trace"):
            raise SystemExit("window: the probe wrote no trace: %s" % status)
        result["teardown_cupti"] = status.get("teardown_cupti")
    if variant != "bare":
        # The hot-line sampler's own account of its cost: its CPU over the seconds sampled.
        try:
            with open(os.path.join(rec, "training.json")) as f:
                hot = json.load(f).get("hot_lines")
            if hot:
                result["sampler"] = {k: hot.get(k) for k in ("seconds", "wakeups", "sampler_cpu_s")}
        except (OSError, ValueError):
            pass
    return result


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child(*(int(a) for a in sys.argv[2:5]))
        return
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--blocks", type=int, default=30)
    ap.add_argument("--block", type=int, default=1000)
    ap.add_argument("--launches", type=int, default=40)
    ap.add_argument("--out", default=None)
    ap.add_argument("--variants", default=",".join(VARIANTS))
    args = ap.parse_args()
    variants = args.variants.split(",")
    out = args.out or tempfile.mkdtemp(prefix="probe_step_cost_")
    os.makedirs(out, exist_ok=True)
    fastest = {v: [] for v in variants}
    runs = []
    for rnd in range(args.rounds):
        k = rnd % len(variants)
        for variant in variants[k:] + variants[:k]:
            r = run(variant, args, out)
            best = min(r["per_step_s"])
            fastest[variant].append(best)
            runs.append(dict(r, variant=variant, round=rnd))
            sampler = r.get("sampler")
            print("round %d %-12s fastest block %.2f us/step, median block %.2f%s" % (
                rnd, variant, 1e6 * best, 1e6 * statistics.median(r["per_step_s"]),
                "; sampler %.1f ms CPU in %.1f s (%d wake-ups)" % (
                    1e3 * sampler["sampler_cpu_s"], sampler["seconds"], sampler["wakeups"]) if sampler else ""),
                  flush=True)
    med = {v: statistics.median(fastest[v]) for v in variants}
    over = {v: 1e6 * (med[v] - med["bare"]) for v in variants if "bare" in med}
    print("step of %d launches + one optimizer step, fastest block per step, median of %d rounds: %s" % (
        args.launches, args.rounds, "; ".join("%s %.2f us (%+.2f)" % (v, 1e6 * med[v], over.get(v, 0.0))
                                              for v in variants)), flush=True)
    hooks_us = over.get("hooks")
    window_us = 1e6 * (med["window"] - med["hooks"]) if {"window", "hooks"} <= set(med) else None
    with open(os.path.join(out, "probe_step_cost.json"), "w") as f:
        json.dump({"args": vars(args), "median_fastest_s": med, "hooks_us": hooks_us,
                   "window_us": window_us, "runs": runs}, f, indent=1)
    windows = [r for r in runs if r["variant"] == "window"]
    if not windows:
        return
    last = windows[-1]
    changed = {k: (last["state_at_start"][k], v) for k, v in last["state_after"].items()
               if last["state_at_start"][k] != v}
    print("window variant after the blocks: state changed since start-up: %s; other threads "
          "busy during the blocks: %s; TEARDOWN_CUPTI=%s" % (
              changed or "none", last["other_threads_busy"] or "none", last.get("teardown_cupti")))


if __name__ == "__main__":
    main()
