"""Steady throughput of a benchmark workload, measured in turns.

Standalone (no CHECKUP_BENCH_SOCKET): warm up, then time steps for SECONDS and print one
JSON line. With CHECKUP_BENCH_STRETCHES=K (and CHECKUP_BENCH_STRETCH_STEPS=N) it runs K
stretches of N steps instead and prints one JSON line per stretch: its first step, wall
time, CPU time of the stepping thread and of the process, the 10th percentile of its steps'
wall and thread CPU time, and the objects the garbage collector tracks, so one process can
be compared with itself before and after something happens at a known step
(`lab/window_residue.py`). Under `bench/probe_overhead.py` the bare run and the runs under the agent are
alive at once and take turns on the GPU: after its warm-up each connects to the
coordinator's Unix socket, waits for "go SECONDS", runs steps for that long with the GPU
drained at both ends, answers "done STEPS ELAPSED CPU MEDIAN_STEP TOTAL" (TOTAL: steps completed since the start,
warm-up included, the probe's step count), and exits on "stop". While one runs the
others block on the socket, so each turn has the GPU to itself and drift in the machine
(clocks, power, neighbours) falls on every variant alike."""
import gc
import json
import os
import socket
import time

import torch

WARMUP = 60
SECONDS = 10.0


def timed_turn(step, seconds):
    """Steps run for `seconds` of host time, GPU drained at both ends: (steps, elapsed s,
    CPU s of this process's threads, median step interval s). The median interval between
    step returns is the step time in steady state (host-bound or, with a full launch queue,
    GPU-bound) and ignores the stretches a busy neighbour or a stolen core adds to a few."""
    torch.cuda.synchronize()
    t0, cpu0 = time.perf_counter(), time.process_time()
    n, last, intervals = 0, t0, []
    while True:
        step()
        n += 1
        now = time.perf_counter()
        intervals.append(now - last)
        last = now
        if now - t0 >= seconds:
            break
    torch.cuda.synchronize()
    intervals.sort()
    return n, time.perf_counter() - t0, time.process_time() - cpu0, intervals[len(intervals) // 2]


def stretches(step, first_step, count, steps_each):
    """`count` stretches of `steps_each` steps, one JSON line each."""
    total = first_step
    for _ in range(count):
        torch.cuda.synchronize()
        t0, th0, cpu0 = time.perf_counter(), time.thread_time(), time.process_time()
        walls, cpus, last, last_cpu = [], [], t0, th0
        for _ in range(steps_each):
            step()
            now, now_cpu = time.perf_counter(), time.thread_time()
            walls.append(now - last)
            cpus.append(now_cpu - last_cpu)
            last, last_cpu = now, now_cpu
        torch.cuda.synchronize()
        t1, th1, cpu1 = time.perf_counter(), time.thread_time(), time.process_time()
        walls.sort()
        cpus.sort()
        # Interference (a neighbour, a stolen core) only adds time to a step: the fast tail
        # is the step's own cost.
        print(json.dumps({"first_step": total, "steps": steps_each, "wall_s": t1 - t0,
                          "step_wall_p10_s": walls[len(walls) // 10], "step_cpu_p10_s": cpus[len(cpus) // 10],
                          "thread_cpu_s": th1 - th0, "process_cpu_s": cpu1 - cpu0,
                          "gc_objects": len(gc.get_objects())}),
              flush=True)
        total += steps_each


def run(step):
    """Warm up, then serve turns (or time one stretch, or several, when run alone)."""
    for _ in range(WARMUP):
        step()
    total = WARMUP
    if os.environ.get("CHECKUP_BENCH_STRETCHES"):
        stretches(step, total, int(os.environ["CHECKUP_BENCH_STRETCHES"]),
                  int(os.environ.get("CHECKUP_BENCH_STRETCH_STEPS", "200")))
        return
    path = os.environ.get("CHECKUP_BENCH_SOCKET")
    if not path:
        n, elapsed, _, _ = timed_turn(step, SECONDS)
        print(json.dumps({"steady_steps_per_s": n / elapsed, "warmup": WARMUP}), flush=True)
        return
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    conn.connect(path)
    lines = conn.makefile("rw", buffering=1)
    lines.write("ready %s %d\n" % (os.environ["CHECKUP_BENCH_VARIANT"], os.getpid()))
    lines.flush()
    for line in lines:
        words = line.split()
        if words[0] == "stop":
            break
        n, elapsed, cpu, median = timed_turn(step, float(words[1]))
        total += n
        lines.write("done %d %.6f %.6f %.9f %d\n" % (n, elapsed, cpu, median, total))
        lines.flush()
    conn.close()
