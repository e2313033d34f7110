"""What the agent costs the training it watches.

For each workload (bench/overhead/) three copies run at once: bare, under `checkup-agent run`
(sampling, step hooks and the default profiling window over steps 10-17) and under
`checkup-agent run --profile-steps 0` (sampling and hooks alone). After their warm-up (60
steps, long after the window) they take turns on the GPU, one at a time, for --turn seconds
each, the order rotating every round; a round's ratio is a variant's steps/s over the bare
copy's in the same round. All copies share the same --cpus cores. Each turn also reports the
CPU time its process spent per step, the host cost itself. Turns a few seconds apart see the same clocks, power and
neighbours, which separate runs minutes apart do not (on a shared H200 the same bare script
ran 48 to 60 steps/s from one minute to the next). Prints every turn, then the median ratio
per workload and variant, and writes probe_overhead.json into --out.

With --window-step S the agent copy's window comes late (watch over steps S-8..S-1, profiled
steps S..S+7) so the same two processes are compared before and after it: the change in
the agent/bare ratio across the window is what the window leaves behind, free of what
differs between two processes (placement, memory layout), which a ratio of separate
processes cannot tell from the agent. The sampling copy, which has no window, is split at
the same rounds as a control.

usage: python3 bench/probe_overhead.py --agent PATH [--rounds 15] [--turn 2] [--out DIR]
                                       [--window-step S] [WORKLOAD...]
"""
import argparse
import json
import os
import platform
import socket
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
WORKLOADS = ["launch_heavy", "data_heavy", "compute_heavy"]
VARIANTS = ["bare", "agent", "sampling"]
READY_TIMEOUT_S = 240
# The agent's default profiled steps; the watch window is as long, just before them.
PROFILE_STEPS = 8


def start(variant, workload, agent, out, sock, cpus, window_step):
    script = os.path.join(HERE, "overhead", workload + ".py")
    cmd = [sys.executable, script]
    if variant != "bare":
        rec = tempfile.mkdtemp(prefix="rec_%s_%s_" % (workload, variant), dir=out)
        extra = ["--profile-steps", "0"] if variant == "sampling" else []
        if variant == "agent" and window_step is not None:
            extra = ["--skip-steps", str(window_step)]
        cmd = [agent, "run", "--out", rec, *extra, "--", *cmd]
    env = dict(os.environ, CHECKUP_BENCH_SOCKET=sock, CHECKUP_BENCH_VARIANT=variant)
    log = open(os.path.join(out, "%s_%s.log" % (workload, variant)), "w")
    # All copies on the same cores: only one runs at a time, and a copy scheduled on other
    # cores (another socket, a busier neighbour) would measure the placement, not the agent.
    return subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT,
                            cwd=os.path.join(HERE, "overhead"),
                            preexec_fn=lambda: os.sched_setaffinity(0, cpus))


def measure(workload, agent, out, rounds, turn, cpus, window_step):
    sock = os.path.join(out, workload + ".sock")
    if os.path.exists(sock):
        os.unlink(sock)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(sock)
    server.listen(len(VARIANTS))
    server.settimeout(READY_TIMEOUT_S)
    procs, peers = [], {}
    try:
        procs += [start(v, workload, agent, out, sock, cpus, window_step) for v in VARIANTS]
        while len(peers) < len(VARIANTS):
            conn, _ = server.accept()
            lines = conn.makefile("rw", buffering=1)
            words = lines.readline().split()
            if len(words) != 3 or words[0] != "ready" or words[1] not in VARIANTS:
                raise SystemExit("%s: unexpected greeting %r" % (workload, words))
            peers[words[1]] = lines
        rates = {v: [] for v in VARIANTS}
        cpu_ms = {v: [] for v in VARIANTS}
        median_ms = {v: [] for v in VARIANTS}
        # Per round: the agent copy's [first, last] step count of its turn.
        agent_steps = []
        for r in range(rounds):
            order = VARIANTS[r % 3:] + VARIANTS[:r % 3]
            for v in order:
                peers[v].write("go %.3f\n" % turn)
                peers[v].flush()
                words = peers[v].readline().split()
                if len(words) != 6 or words[0] != "done":
                    raise SystemExit("%s %s: turn failed (%r); see its log in %s" % (workload, v, words, out))
                rates[v].append(int(words[1]) / float(words[2]))
                cpu_ms[v].append(1000 * float(words[3]) / int(words[1]))
                median_ms[v].append(1000 * float(words[4]))
                if v == "agent":
                    agent_steps.append((int(words[5]) - int(words[1]), int(words[5])))
            print("round %2d %-14s %s" % (r + 1, workload, "  ".join(
                "%s %8.2f" % (v, rates[v][-1]) for v in VARIANTS)), flush=True)
        for lines in peers.values():
            lines.write("stop\n")
            lines.flush()
    finally:
        for p in procs:
            try:
                p.wait(timeout=60)
            except subprocess.TimeoutExpired:
                p.kill()
        server.close()
    return rates, cpu_ms, median_ms, agent_steps


def split_at_window(agent_steps, window_step):
    """Round indexes whose agent turn ended before the watch window began, and those whose
    turn began after the trace was handed over; a round that held the window is in neither."""
    if window_step is None:
        return [], list(range(len(agent_steps)))
    before = [i for i, (_, last) in enumerate(agent_steps) if last <= window_step - PROFILE_STEPS]
    after = [i for i, (first, _) in enumerate(agent_steps) if first > window_step + PROFILE_STEPS]
    return before, after


def gpu_name():
    try:
        return subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                              capture_output=True, text=True, timeout=20).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--agent", required=True)
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--turn", type=float, default=2.0, help="seconds per turn")
    ap.add_argument("--out", default=tempfile.mkdtemp(prefix="probe_overhead_"))
    ap.add_argument("--cpus", type=int, default=8, help="how many of the allowed cores all copies share")
    ap.add_argument("--window-step", type=int, default=None,
                    help="put the agent copy's profiled window at this step (default: step 10, before the turns)")
    ap.add_argument("workloads", nargs="*", default=WORKLOADS)
    a = ap.parse_args()
    if a.rounds < 1 or a.turn <= 0:
        raise SystemExit("--rounds must be at least 1 and --turn positive")
    if a.window_step is not None and a.window_step <= 60 + PROFILE_STEPS:
        raise SystemExit("--window-step must come after the 60 warm-up steps and the watch window (> %d)"
                         % (60 + PROFILE_STEPS))
    unknown = [w for w in a.workloads if w not in WORKLOADS]
    if unknown:
        raise SystemExit("unknown workload %s (known: %s)" % (", ".join(unknown), ", ".join(WORKLOADS)))
    # The workloads run in bench/overhead/: both paths must not depend on this cwd.
    a.agent, a.out = os.path.abspath(a.agent), os.path.abspath(a.out)
    os.makedirs(a.out, exist_ok=True)
    cpus = sorted(os.sched_getaffinity(0))[:max(1, a.cpus)]
    summary = {"date": time.strftime("%Y-%m-%d"), "host": platform.node(), "gpu": gpu_name(),
               "rounds": a.rounds, "turn_s": a.turn, "cpus": cpus, "window_step": a.window_step,
               "workloads": {}}
    for w in a.workloads:
        t0 = time.time()
        rates, cpu_ms, median_ms, agent_steps = measure(w, a.agent, a.out, a.rounds, a.turn, cpus,
                                                        a.window_step)
        before, after = split_at_window(agent_steps, a.window_step)
        entry = {"steps_per_s": rates, "cpu_ms_per_step": cpu_ms, "median_step_ms": median_ms,
                 "agent_turn_steps": agent_steps, "rounds_before_window": before,
                 "rounds_after_window": after, "wall_s": round(time.time() - t0, 1)}
        for v in VARIANTS[1:]:
            ratios = [x / b for x, b in zip(rates[v], rates["bare"])]
            cpu_ratios = [x / b for x, b in zip(cpu_ms[v], cpu_ms["bare"])]
            # Throughput from the median step: bare's median step over the variant's.
            median_ratios = [b / x for x, b in zip(median_ms[v], median_ms["bare"])]
            q = statistics.quantiles(ratios, n=4) if len(ratios) > 1 else [ratios[0]] * 3
            entry[v] = {"ratios": ratios, "median_ratio": statistics.median(ratios),
                        "quartiles": [q[0], q[2]], "cpu_per_step_ratios": cpu_ratios,
                        "median_cpu_per_step_ratio": statistics.median(cpu_ratios),
                        "median_step_ratios": median_ratios,
                        "median_of_median_step_ratio": statistics.median(median_ratios)}
            if before and after:
                entry[v]["across_window"] = {
                    "before": statistics.median([ratios[i] for i in before]),
                    "after": statistics.median([ratios[i] for i in after]),
                    "cpu_before": statistics.median([cpu_ratios[i] for i in before]),
                    "cpu_after": statistics.median([cpu_ratios[i] for i in after]),
                }
        summary["workloads"][w] = entry
    print("\n%s, %s, %d rounds of %.1f s turns" % (summary["date"], summary["gpu"], a.rounds, a.turn))
    print("median ratio to bare (quartiles); slower is the median's cost")
    print("workload        bare steps/s   agent/bare                 slower    sampling/bare              slower")
    for w, e in summary["workloads"].items():
        cells = []
        for v in VARIANTS[1:]:
            m, (q1, q3) = e[v]["median_ratio"], e[v]["quartiles"]
            cells.append("%.4f (%.4f-%.4f)  %+6.2f %%" % (m, q1, q3, (1 - m) * 100))
        print("%-15s %12.2f   %s   %s" % (w, statistics.median(e["steps_per_s"]["bare"]), *cells))
    print("throughput from each turn's median step, median ratio to bare:  " + "  ".join(
        "%s agent %.4f sampling %.4f" % (w, e["agent"]["median_of_median_step_ratio"],
                                         e["sampling"]["median_of_median_step_ratio"])
        for w, e in summary["workloads"].items()))
    print("host CPU per step, median ratio to bare:  " + "  ".join("%s agent %.4f sampling %.4f" % (
        w, e["agent"]["median_cpu_per_step_ratio"], e["sampling"]["median_cpu_per_step_ratio"])
        for w, e in summary["workloads"].items()))
    for w, e in summary["workloads"].items():
        if "across_window" not in e["agent"]:
            continue
        print("%s across the window at step %d (%d rounds before, %d after), ratio to bare before -> after:"
              % (w, a.window_step, len(e["rounds_before_window"]), len(e["rounds_after_window"])))
        for v in VARIANTS[1:]:
            x = e[v]["across_window"]
            print("  %-8s steps/s %.4f -> %.4f (x %.4f)   CPU per step %.4f -> %.4f (x %.4f)" % (
                v, x["before"], x["after"], x["after"] / x["before"],
                x["cpu_before"], x["cpu_after"], x["cpu_after"] / x["cpu_before"]))
    with open(os.path.join(a.out, "probe_overhead.json"), "w") as f:
        json.dump(summary, f, indent=1)


if __name__ == "__main__":
    main()
