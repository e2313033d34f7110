#!/usr/bin/env python3
"""Builds run folders of many ranks from a real 2-GPU recording and times the engine on them.

The H200 recording `ddp_resnet50` has two ranks' traces (about 1.5 MB gz each): rank 1's host
is slow (its GPU idles 16 % of the step waiting for work) and rank 0 waits for it in NCCL
(8.6 % exposed communication against rank 1's 0.9 %). A run of N ranks is rank 1's trace once,
as rank 2N/3 (the slow one), and rank 0's for every other rank, each with its
`distributedInfo` saying its rank and the world size, in `rankK/trace.json.gz`. The engine
should read all N, name rank 2N/3 as the one the others wait for, and hold a bounded amount
of memory however many ranks there are.

usage: bench/many_ranks.py [--checkup PATH] [--ranks 64 256] [--keep DIR]
                           [--hta PYTHON] [--pairs N] [--hta-limit-s S] [--hta-limit-gib G]
Prints, per size: the folder's size, the engine's wall time, CPU time and peak RSS
(`/usr/bin/time`), and what it named. The folders go to a temp folder, deleted after (unless --keep).

--hta PYTHON: also runs Holistic Trace Analysis (`pip install HolisticTraceAnalysis` into that
interpreter's environment) on the same traces: TraceAnalysis over the folder, then its temporal
breakdown and its communication/computation overlap (what the checkup's per-rank table
shows), N pairs in turns (checkup, HTA, checkup, HTA, ...), medians. HTA parses ranks in worker
processes; GNU time's peak RSS is the largest single process (the parent, which gathers every
rank's frames), so HTA's figure is a lower bound. A run past the time or memory limit is
reported as such.
"""
import argparse, gzip, json, os, platform, re, shutil, subprocess, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RUN = os.path.join(ROOT, "tests", "corpus", "ddp_resnet50")
DIST = re.compile(rb'"distributedInfo": \{"backend": "nccl", "rank": \d+, "world_size": \d+')


def build(dest, ranks):
    """rankK/trace.json.gz for K < ranks: rank 2N/3 the slow one, every other one waiting."""
    sources = {}
    for r in (0, 1):
        with gzip.open(os.path.join(RUN, f"rank{r}", "trace.json.gz"), "rb") as f:
            text = f.read()
        if len(DIST.findall(text)) != 1:
            raise SystemExit(f"rank{r}'s trace has no single distributedInfo to rewrite")
        sources[r] = text
    for k in range(ranks):
        text = DIST.sub(
            b'"distributedInfo": {"backend": "nccl", "rank": %d, "world_size": %d' % (k, ranks),
            sources[1 if k == slow_rank(ranks) else 0],
        )
        d = os.path.join(dest, f"rank{k}")
        os.makedirs(d)
        with gzip.open(os.path.join(d, "trace.json.gz"), "wb", compresslevel=6) as f:
            f.write(text)


def slow_rank(ranks):
    return ranks * 2 // 3


def folder_bytes(path):
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(path) for f in fs)


def run_engine(checkup, folder):
    out = subprocess.run(
        ["/usr/bin/time", "-f", "%e %U %S %M", checkup, "analyze", folder, "--json"],
        capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"checkup failed on {folder}: {out.stderr}")
    wall, user, system, rss_kb = out.stderr.strip().splitlines()[-1].split()
    d = json.loads(out.stdout)
    straggler = [f for f in d["findings"] if f["id"] == "communication/straggler"]
    named = (f"rank {straggler[0]['cause']['slow_rank']} slow, rank {straggler[0]['cause']['waiting_rank']} waits"
             if straggler else "no straggler named")
    cpu = float(user) + float(system)
    return float(wall), cpu, int(rss_kb) / 1024, d["primary"], named, len(d["ranks"])


HTA_SCRIPT = """
import sys
from hta.trace_analysis import TraceAnalysis
a = TraceAnalysis(trace_dir=sys.argv[1])
tb = a.get_temporal_breakdown(visualize=False)
ov = a.get_comm_comp_overlap(visualize=False)
print(len(tb), "ranks")
"""


def flat_for_hta(folder):
    """HTA reads one folder of trace files: rankK/trace.json.gz linked as rankK.json.gz."""
    flat = folder + "_hta"
    if not os.path.exists(flat):
        os.makedirs(flat)
        for name in os.listdir(folder):
            src = os.path.join(folder, name, "trace.json.gz")
            if os.path.exists(src):
                os.symlink(src, os.path.join(flat, name + ".json.gz"))
    return flat


def run_hta(python, folder, limit_s, limit_gib):
    """(wall s, CPU s, peak RSS MiB) or the limit it ran past."""
    cmd = (f"ulimit -v {int(limit_gib * 2**20)}; exec timeout {limit_s} /usr/bin/time -f '%e %U %S %M' "
           f"{python} -c '{HTA_SCRIPT}' {flat_for_hta(folder)}")
    out = subprocess.run(["bash", "-c", cmd], capture_output=True, text=True)
    if out.returncode == 124:
        return f"over {limit_s} s"
    last = out.stderr.strip().splitlines()[-1] if out.stderr.strip() else ""
    if out.returncode != 0 or "ranks" not in out.stdout:
        if "MemoryError" in out.stderr or "Cannot allocate" in out.stderr:
            return f"over {limit_gib:.0f} GiB"
        return "failed: " + last[-200:]
    wall, user, system, rss_kb = last.split()
    return float(wall), float(user) + float(system), int(rss_kb) / 1024


def median(v):
    v = sorted(v)
    return v[len(v) // 2] if len(v) % 2 else (v[len(v) // 2 - 1] + v[len(v) // 2]) / 2


def compare(a, n, folder):
    """Pairs in turns; prints one row per tool with the medians."""
    ours, theirs = [], []
    for _ in range(a.pairs):
        ours.append(run_engine(a.checkup, folder))
        theirs.append(run_hta(a.hta, folder, a.hta_limit_s, a.hta_limit_gib))
    size = folder_bytes(folder) / 2**20
    w, c, r = (median([x[i] for x in ours]) for i in range(3))
    print(f"| {n} | {size:.0f} MB | checkup | {w:.1f} s | {c:.1f} s | {r:.0f} MiB | {ours[0][4]} |", flush=True)
    done = [t for t in theirs if isinstance(t, tuple)]
    if len(done) == len(theirs):
        w2, c2, r2 = (median([x[i] for x in done]) for i in range(3))
        print(f"| {n} | {size:.0f} MB | HTA 0.5 | {w2:.1f} s | {c2:.1f} s | ≥ {r2:.0f} MiB | "
              f"{w2 / w:.1f}× the time, ≥ {r2 / r:.1f}× the memory |", flush=True)
    else:
        failed = next(t for t in theirs if not isinstance(t, tuple))
        print(f"| {n} | {size:.0f} MB | HTA 0.5 | {failed} | | | |", flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--checkup", default=os.path.join(ROOT, "target", "release", "checkup"))
    ap.add_argument("--ranks", type=int, nargs="+", default=[64, 256])
    ap.add_argument("--keep")
    ap.add_argument("--hta", help="a Python with HolisticTraceAnalysis installed")
    ap.add_argument("--pairs", type=int, default=3)
    ap.add_argument("--hta-limit-s", type=int, default=1800)
    ap.add_argument("--hta-limit-gib", type=float, default=20)
    a = ap.parse_args()
    print(f"machine: {platform.node()}, {os.cpu_count()} cores")
    if a.hta:
        print("| ranks | traces (gz) | tool | wall | CPU | peak RSS | named / ratio |")
        print("|---|---|---|---|---|---|---|")
    else:
        print("| ranks | traces (gz) | wall | CPU | peak RSS | ranks read | primary | straggler |")
        print("|---|---|---|---|---|---|---|---|")
    for n in a.ranks:
        base = a.keep or tempfile.mkdtemp(prefix="ranks-")
        folder = os.path.join(base, f"ddp_resnet50_x{n}")
        try:
            if not os.path.exists(folder):
                build(folder, n)
            if a.hta:
                compare(a, n, folder)
                continue
            wall, cpu, rss, primary, named, read = run_engine(a.checkup, folder)
            print(f"| {n} | {folder_bytes(folder) / 2**20:.0f} MB | {wall:.1f} s | {cpu:.1f} s | {rss:.0f} MiB "
                  f"| {read} | {primary} | {named} |", flush=True)
        finally:
            if not a.keep:
                shutil.rmtree(base, ignore_errors=True)

if __name__ == "__main__":
    main()
