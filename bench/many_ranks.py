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
Prints, per size: the folder's size, the engine's wall time, CPU time and peak RSS
(`/usr/bin/time`), and what it named. The folders go to a temp folder, deleted after (unless --keep).
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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--checkup", default=os.path.join(ROOT, "target", "release", "checkup"))
    ap.add_argument("--ranks", type=int, nargs="+", default=[64, 256])
    ap.add_argument("--keep")
    a = ap.parse_args()
    print(f"machine: {platform.node()}, {os.cpu_count()} cores")
    print("| ranks | traces (gz) | wall | CPU | peak RSS | ranks read | primary | straggler |")
    print("|---|---|---|---|---|---|---|---|")
    for n in a.ranks:
        base = a.keep or tempfile.mkdtemp(prefix="ranks-")
        folder = os.path.join(base, f"ddp_resnet50_x{n}")
        try:
            if not os.path.exists(folder):
                build(folder, n)
            wall, cpu, rss, primary, named, read = run_engine(a.checkup, folder)
            print(f"| {n} | {folder_bytes(folder) / 2**20:.0f} MB | {wall:.1f} s | {cpu:.1f} s | {rss:.0f} MiB "
                  f"| {read} | {primary} | {named} |", flush=True)
        finally:
            if not a.keep:
                shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
