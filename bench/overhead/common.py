"""Steady throughput of a benchmark workload, measured in turns.

Standalone (no CHECKUP_BENCH_SOCKET): warm up, then time steps for SECONDS and print one
JSON line. Under `bench/probe_overhead.py` the bare run and the runs under the agent are
alive at once and take turns on the GPU: after its warm-up each connects to the
coordinator's Unix socket, waits for "go SECONDS", runs steps for that long with the GPU
drained at both ends, answers "done STEPS ELAPSED CPU MEDIAN_STEP TOTAL" (TOTAL: steps completed since the start,
warm-up included, the probe's step count), and exits on "stop". While one runs the
others block on the socket, so each turn has the GPU to itself and drift in the machine
(clocks, power, neighbours) falls on every variant alike."""
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


def run(step):
    """Warm up, then serve turns (or time one stretch when run alone)."""
    for _ in range(WARMUP):
        step()
    total = WARMUP
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
