"""What the probe's early window leaves behind, measured inside one process.

Each variant runs a benchmark workload (bench/overhead/) in stretches of a fixed number of
steps (common.py's stretch mode) with the probe's window in the middle (watch over steps
S-8..S-1, profiled steps S..S+7), and compares the stretches after the window with those
before it in the same process: the stepping thread's CPU time and the wall time per step,
as stretch totals and as the 10th percentile of single steps (interference only adds time),
with the bare variant, split at the same step, as the control for drift.

On the H200 hosts lent to this project (2026-12-02) even the control drifted: the bare
loop's 10th-percentile CPU time per step moved -7 % to +14 % between the two halves of one
process, so this cannot resolve a residue of a few percent; bench/probe_step_cost.py
measures the probe's cost in microseconds instead.

Variants: bare (no probe), probe (the agent's probe as `checkup-agent run` injects it),
probe without the sync watch, probe without the profiler, probe with sampling's settings
(--profile-steps 0: hooks only).

usage: python3 lab/window_residue.py [--rounds 2] [--stretches 10] [--steps N] [--out DIR]
                                     [--variants a,b] [WORKLOAD...]
"""
import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OVERHEAD = os.path.join(ROOT, "bench", "overhead")
PROBE = os.path.join(ROOT, "crates", "checkup-agent", "probe")
PARTS = os.path.join(ROOT, "lab", "probe_parts")
WARMUP = 60            # common.WARMUP
WINDOW = 8             # the agent's default profiled steps; the watch is as long
VARIANTS = {
    "bare": None,
    "probe": "",
    "no_watch": "watch",
    "no_profiler": "profiler",
    "hooks_only": None,
}
STEPS = {"launch_heavy": 200, "compute_heavy": 60, "data_heavy": 100}


def run_variant(workload, variant, stretches, steps, before, out):
    window_at = WARMUP + before * steps + WINDOW
    env = dict(os.environ, CHECKUP_BENCH_STRETCHES=str(stretches), CHECKUP_BENCH_STRETCH_STEPS=str(steps))
    env.pop("CHECKUP_BENCH_SOCKET", None)
    if variant != "bare":
        rec = tempfile.mkdtemp(prefix="%s_%s_" % (workload, variant), dir=out)
        env.update(CHECKUP_OUT=rec, CHECKUP_SKIP_STEPS=str(window_at),
                   CHECKUP_PROFILE_STEPS="0" if variant == "hooks_only" else str(WINDOW),
                   PYTHONPATH=os.pathsep.join([PARTS, PROBE]), CHECKUP_LAB_OFF=VARIANTS[variant] or "")
    proc = subprocess.run([sys.executable, os.path.join(OVERHEAD, workload + ".py")], env=env,
                          cwd=OVERHEAD, capture_output=True, text=True, timeout=600)
    rows = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    if proc.returncode != 0 or len(rows) != stretches:
        raise SystemExit("%s %s failed (%d):\n%s" % (workload, variant, proc.returncode, proc.stderr[-3000:]))
    # The stretch holding the watch and the window (and the trace's export) is neither.
    first_after = window_at + WINDOW
    pre = [r for r in rows if r["first_step"] + r["steps"] <= window_at - WINDOW]
    post = [r for r in rows if r["first_step"] >= first_after]
    if variant in ("probe", "no_watch"):
        with open(os.path.join(rec, "probe_status.json")) as f:
            if not json.load(f).get("trace"):
                raise SystemExit("%s %s: the probe wrote no trace" % (workload, variant))
    return rows, pre, post


def per_step(rows, key):
    """Median over the stretches of a per-step figure (the p10 keys are per step already)."""
    values = [r[key] / (1 if "_p10_" in key else r["steps"]) for r in rows if r.get(key) is not None]
    return statistics.median(values) if values else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--stretches", type=int, default=10)
    ap.add_argument("--steps", type=int, default=None, help="steps per stretch (default per workload)")
    ap.add_argument("--variants", default=",".join(VARIANTS))
    ap.add_argument("--out", default=None)
    ap.add_argument("workloads", nargs="*", default=["launch_heavy"])
    args = ap.parse_args()
    out = args.out or tempfile.mkdtemp(prefix="window_residue_")
    os.makedirs(out, exist_ok=True)
    variants = args.variants.split(",")
    before = args.stretches // 2 - 1
    results = []
    print("python %s, %s, %d cores" % (platform.python_version(), platform.machine(), os.cpu_count()), flush=True)
    for workload in args.workloads:
        steps = args.steps or STEPS.get(workload, 100)
        for rnd in range(args.rounds):
            order = variants[rnd % len(variants):] + variants[:rnd % len(variants)]
            for variant in order:
                rows, pre, post = run_variant(workload, variant, args.stretches, steps, before, out)
                line = {"workload": workload, "variant": variant, "round": rnd, "stretches": rows}
                for key in ("thread_cpu_s", "process_cpu_s", "wall_s", "step_wall_p10_s", "step_cpu_p10_s"):
                    a, b = per_step(pre, key), per_step(post, key)
                    line[key] = [a, b, None if not a or b is None else b / a]
                line["gc_objects"] = [pre[-1]["gc_objects"], post[-1]["gc_objects"]]
                results.append(line)
                print("%-14s %-12s r%d  %s" % (workload, variant, rnd, "  ".join(
                    "%s %.4g -> %.4g (x%.4f)" % (key, line[key][0], line[key][1], line[key][2])
                    for key in ("step_cpu_p10_s", "step_wall_p10_s", "thread_cpu_s", "wall_s")
                    if line[key][2] is not None)), flush=True)
    with open(os.path.join(out, "window_residue.json"), "w") as f:
        json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
