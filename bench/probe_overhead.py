"""What the agent costs the training it watches: each workload runs bare, under
`checkup-agent run` (sampling, step hooks and the default profiling window, steps 10-17)
and under `checkup-agent run --profile-steps 0` (sampling and hooks alone), in rotating
order, several rounds; each run's steady throughput is taken from step 60 on, long after the
window. Prints every ratio to the bare run of the same round and the median per workload.

usage: python3 bench/probe_overhead.py --agent PATH [--rounds 3] [--out DIR] [WORKLOAD...]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
WORKLOADS = ["launch_heavy", "data_heavy", "compute_heavy"]
VARIANTS = ["bare", "agent", "sampling"]


def run(variant, workload, agent, out):
    script = os.path.join(HERE, "overhead", workload + ".py")
    cmd = [sys.executable, script]
    if variant != "bare":
        rec = tempfile.mkdtemp(prefix="rec_%s_" % workload, dir=out)
        extra = ["--profile-steps", "0"] if variant == "sampling" else []
        cmd = [agent, "run", "--out", rec, *extra, "--", *cmd]
    t0 = time.time()
    p = subprocess.run(cmd, capture_output=True, text=True, cwd=os.path.join(HERE, "overhead"))
    lines = [l for l in p.stdout.splitlines() if l.startswith("{")]
    if p.returncode != 0 or not lines:
        raise SystemExit("%s %s failed (%d): %s" % (variant, workload, p.returncode, p.stderr[-2000:]))
    rate = json.loads(lines[-1])["steady_steps_per_s"]
    return rate, time.time() - t0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--agent", required=True)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--out", default=tempfile.gettempdir())
    ap.add_argument("--variants", default=",".join(VARIANTS), help="bare first: bare,agent,sampling")
    ap.add_argument("workloads", nargs="*", default=WORKLOADS)
    a = ap.parse_args()
    variants = a.variants.split(",")
    if variants[0] != "bare" or any(v not in VARIANTS for v in variants):
        raise SystemExit("--variants: bare first, then any of agent, sampling")
    results = {w: {v: [] for v in variants} for w in a.workloads}
    for r in range(a.rounds):
        for w in a.workloads:
            # Rotate the order so drift in the machine (clocks, caches) falls on all three.
            n = len(variants)
            order = variants[r % n:] + variants[:r % n]
            for v in order:
                rate, wall = run(v, w, a.agent, a.out)
                results[w][v].append(rate)
                print("round %d %-14s %-9s %8.2f steps/s  (%.0f s)" % (r + 1, w, v, rate, wall), flush=True)
    summary = {}
    print("\nworkload        variant    ratios to bare (per round)          median   cost")
    for w in a.workloads:
        bare = results[w]["bare"]
        summary[w] = {"bare_steps_per_s": bare}
        for v in variants[1:]:
            ratios = [x / b for x, b in zip(results[w][v], bare)]
            med = statistics.median(ratios)
            summary[w][v] = {"steps_per_s": results[w][v], "ratios": ratios, "median_ratio": med}
            print("%-15s %-10s %-35s %.4f  %+.2f %%" % (w, v, " ".join("%.4f" % x for x in ratios), med, (1 - med) * 100))
    with open(os.path.join(a.out, "probe_overhead.json"), "w") as f:
        json.dump(summary, f, indent=1)


if __name__ == "__main__":
    main()
