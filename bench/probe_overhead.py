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

usage: python3 bench/probe_overhead.py --agent PATH [--rounds 15] [--turn 2] [--out DIR] [WORKLOAD...]
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


def start(variant, workload, agent, out, sock, cpus):
    script = os.path.join(HERE, "overhead", workload + ".py")
    cmd = [sys.executable, script]
    if variant != "bare":
        rec = tempfile.mkdtemp(prefix="rec_%s_%s_" % (workload, variant), dir=out)
        extra = ["--profile-steps", "0"] if variant == "sampling" else []
        cmd = [agent, "run", "--out", rec, *extra, "--", *cmd]
    env = dict(os.environ, CHECKUP_BENCH_SOCKET=sock, CHECKUP_BENCH_VARIANT=variant)
    log = open(os.path.join(out, "%s_%s.log" % (workload, variant)), "w")
    # All copies on the same cores: only one runs at a time, and a copy scheduled on other
    # cores (another socket, a busier neighbour) would measure the placement, not the agent.
    return subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT,
                            cwd=os.path.join(HERE, "overhead"),
                            preexec_fn=lambda: os.sched_setaffinity(0, cpus))


def measure(workload, agent, out, rounds, turn, cpus):
    sock = os.path.join(out, workload + ".sock")
    if os.path.exists(sock):
        os.unlink(sock)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(sock)
    server.listen(len(VARIANTS))
    server.settimeout(READY_TIMEOUT_S)
    procs, peers = [], {}
    try:
        procs += [start(v, workload, agent, out, sock, cpus) for v in VARIANTS]
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
        for r in range(rounds):
            order = VARIANTS[r % 3:] + VARIANTS[:r % 3]
            for v in order:
                peers[v].write("go %.3f\n" % turn)
                peers[v].flush()
                words = peers[v].readline().split()
                if len(words) != 5 or words[0] != "done":
                    raise SystemExit("%s %s: turn failed (%r); see its log in %s" % (workload, v, words, out))
                rates[v].append(int(words[1]) / float(words[2]))
                cpu_ms[v].append(1000 * float(words[3]) / int(words[1]))
                median_ms[v].append(1000 * float(words[4]))
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
    return rates, cpu_ms, median_ms


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
    ap.add_argument("workloads", nargs="*", default=WORKLOADS)
    a = ap.parse_args()
    if a.rounds < 1 or a.turn <= 0:
        raise SystemExit("--rounds must be at least 1 and --turn positive")
    unknown = [w for w in a.workloads if w not in WORKLOADS]
    if unknown:
        raise SystemExit("unknown workload %s (known: %s)" % (", ".join(unknown), ", ".join(WORKLOADS)))
    # The workloads run in bench/overhead/: both paths must not depend on this cwd.
    a.agent, a.out = os.path.abspath(a.agent), os.path.abspath(a.out)
    os.makedirs(a.out, exist_ok=True)
    cpus = sorted(os.sched_getaffinity(0))[:max(1, a.cpus)]
    summary = {"date": time.strftime("%Y-%m-%d"), "host": platform.node(), "gpu": gpu_name(),
               "rounds": a.rounds, "turn_s": a.turn, "cpus": cpus, "workloads": {}}
    for w in a.workloads:
        t0 = time.time()
        rates, cpu_ms, median_ms = measure(w, a.agent, a.out, a.rounds, a.turn, cpus)
        entry = {"steps_per_s": rates, "cpu_ms_per_step": cpu_ms, "median_step_ms": median_ms,
                 "wall_s": round(time.time() - t0, 1)}
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
    with open(os.path.join(a.out, "probe_overhead.json"), "w") as f:
        json.dump(summary, f, indent=1)


if __name__ == "__main__":
    main()
