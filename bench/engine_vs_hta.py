#!/usr/bin/env python3
"""Times GPU Checkup's engine against Holistic Trace Analysis (HTA) on the same traces, in one
run, and prints the ratio table; then builds a ~1 GB trace (a corpus trace's steps repeated
with shifted timestamps, written to a temp folder and deleted after) and measures the engine's
time and peak RSS on it.

usage: bench/engine_vs_hta.py [--checkup target/release/checkup] [--big-gb 1.0]
                              [--pairs 3] [--all] [--traces PATTERN]
HTA: pip install traceinsight (its package since 0.6; before, HolisticTraceAnalysis), and run
this with the Python that has it. Each trace is timed in pairs, checkup then HTA, and the
ratios are the medians of the pairs'; `--all` takes every trace of tests/corpus, `--traces`
those whose path holds PATTERN.

HTA is timed inside its process (its load and the two breakdowns; its import beside, Python's
start left out). checkup is timed twice each pair: the whole `checkup analyze --json`
process, and inside its process (`analyze_in_process`, an example that makes the CLI's two
calls and prints their time: `cargo build --release -p checkup-cli --example
analyze_in_process`), the like-for-like figure to HTA's.
"""
import argparse, gzip, json, os, platform, resource, shutil, statistics, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "tests", "corpus")
TRACES = ["healthy/trace.json.gz", "dataloader_starved/trace.json.gz", "launch_bound/trace.json.gz",
          "memory_bound/trace.json.gz", "h2d_pageable/trace.json.gz", "ddp_comm_bound/rank0/trace.json.gz",
          "ddp_resnet50/rank0/trace.json.gz", "wide_mlp_1gpu/rank0/trace.json.gz"]

HTA_SNIPPET = r"""
import sys, time, warnings, logging
warnings.filterwarnings("ignore"); logging.disable(logging.CRITICAL)
t0 = time.perf_counter()
from hta.trace_analysis import TraceAnalysis
t1 = time.perf_counter()
status = "ok"
try:
    ta = TraceAnalysis(trace_dir=sys.argv[1])
    ta.get_temporal_breakdown(visualize=False)
    ta.get_idle_time_breakdown(visualize=False)
except Exception as e:  # HTA fails on some real traces; record it
    status = type(e).__name__
t2 = time.perf_counter()
print(f"{t1-t0:.4f} {t2-t1:.4f} {status}")
"""


def all_traces():
    """Every trace of the corpus, relative to it."""
    found = []
    for top, _, files in os.walk(CORPUS):
        found += [os.path.relpath(os.path.join(top, f), CORPUS) for f in files if f == "trace.json.gz"]
    return sorted(found)


def hta_version():
    from importlib import metadata
    for name in ("traceinsight", "HolisticTraceAnalysis"):
        try:
            return f"{name} {metadata.version(name)}"
        except metadata.PackageNotFoundError:
            pass
    return "not installed"


def time_engine(checkup, path):
    """The wall time of one `checkup analyze PATH --json`, spawned as lightly as Python can
    (posix_spawn, output to /dev/null): a fork of this interpreter and a pipe read cost a
    millisecond or more, which is not checkup's."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        t0 = time.perf_counter()
        pid = os.posix_spawn(checkup, [checkup, "analyze", path, "--json"], os.environ,
                             file_actions=[(os.POSIX_SPAWN_DUP2, devnull, 1)])
        _, status = os.waitpid(pid, 0)
        dt = time.perf_counter() - t0
    finally:
        os.close(devnull)
    if status != 0:
        raise SystemExit(f"checkup failed on {path}: status {status}")
    return dt


def time_engine_in_process(example, path):
    """checkup's analysis and JSON of PATH timed inside a fresh process of its own."""
    out = subprocess.run([example, path], capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"analyze_in_process failed on {path}: {out.stderr}")
    return float(out.stdout)


def run_engine(checkup, path):
    t0 = time.perf_counter()
    out = subprocess.run([checkup, "analyze", path, "--json"], capture_output=True, text=True)
    dt = time.perf_counter() - t0
    if out.returncode != 0:
        raise SystemExit(f"checkup failed on {path}: {out.stderr}")
    return dt, json.loads(out.stdout)["primary"]


def run_hta(path):
    d = tempfile.mkdtemp(prefix="hta-")
    try:
        shutil.copy(path, os.path.join(d, "rank0.pt.trace.json.gz"))
        out = subprocess.run([sys.executable, "-c", HTA_SNIPPET, d], capture_output=True, text=True)
        parts = out.stdout.strip().split()
        if len(parts) != 3:
            return None, None, f"crashed: {out.stderr.strip().splitlines()[-1] if out.stderr.strip() else out.returncode}"
        return float(parts[0]), float(parts[1]), parts[2]
    finally:
        shutil.rmtree(d, ignore_errors=True)


def build_big_trace(src, dst, target_bytes):
    """Repeats the source trace's events with shifted timestamps, step numbers and correlation
    ids until the file reaches target_bytes. Streams: never holds the output in memory."""
    d = json.load(gzip.open(src))
    events = d.pop("traceEvents")
    steps = [e for e in events if e.get("cat") == "user_annotation" and e["name"].startswith("ProfilerStep#")]
    t0 = min(e["ts"] for e in events if isinstance(e.get("ts"), (int, float)))
    t1 = max(e["ts"] + e.get("dur", 0) for e in events if isinstance(e.get("ts"), (int, float)))
    span = t1 - t0 + 1000.0
    n_steps = len(steps)
    max_corr = max((e.get("args", {}).get("correlation", 0) for e in events if isinstance(e.get("args"), dict)), default=0) + 1
    written = 0
    with open(dst, "w") as f:
        head = json.dumps(d)[:-1]
        f.write(head + ', "traceEvents": [\n')
        rep = 0
        first = True
        while written < target_bytes:
            chunk = []
            for e in events:
                if e.get("ph") == "M" and rep > 0:
                    continue
                e2 = dict(e)
                if isinstance(e2.get("ts"), (int, float)):
                    e2["ts"] = e2["ts"] + rep * span
                if e2.get("cat") == "user_annotation" and e2["name"].startswith("ProfilerStep#"):
                    e2["name"] = "ProfilerStep#%d" % (int(e2["name"][13:]) + rep * n_steps)
                if isinstance(e2.get("args"), dict) and "correlation" in e2["args"]:
                    e2["args"] = dict(e2["args"], correlation=e2["args"]["correlation"] + rep * max_corr)
                if e2.get("cat") == "ac2g" and "id" in e2:
                    e2["id"] = e2["id"] + rep * max_corr
                chunk.append(json.dumps(e2))
            text = ("" if first else ",\n") + ",\n".join(chunk)
            first = False
            f.write(text)
            written += len(text)
            rep += 1
        f.write("\n]}\n")
    return os.path.getsize(dst), rep * n_steps


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--checkup", default=os.path.join(ROOT, "target", "release", "checkup"))
    ap.add_argument("--big-gb", type=float, default=1.0)
    ap.add_argument("--pairs", type=int, default=3)
    ap.add_argument("--all", action="store_true", help="every trace of tests/corpus")
    ap.add_argument("--traces", help="only the corpus traces whose path holds this")
    args = ap.parse_args()
    in_process = os.path.join(os.path.dirname(args.checkup), "examples", "analyze_in_process")
    if not os.path.isfile(in_process):
        raise SystemExit(f"no {in_process}: cargo build --release -p checkup-cli --example analyze_in_process")
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), platform.machine())
    print(f"# {time.strftime('%Y-%m-%d')} · {cpu} · {os.cpu_count()} cores · {platform.system()} · python {platform.python_version()} · HTA {hta_version()} · {args.pairs} pairs a trace, medians")
    print("| trace | size (gz) | checkup (whole process) | checkup (in process) | HTA import | HTA load + temporal + idle | ratio end to end | ratio without HTA's import | ratio, both in process | HTA status |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    traces = all_traces() if args.all or args.traces else TRACES
    if args.traces:
        traces = [t for t in traces if args.traces in t]
    without_import_ratios, in_process_ratios = [], []
    for rel in traces:
        path = os.path.join(CORPUS, rel)
        engine, engine_inside, imports, analyses, status = [], [], [], [], "ok"
        end_to_end, without_import, both_inside = [], [], []
        run_engine(args.checkup, path)  # once for its answer (and a warm cache)
        for _ in range(args.pairs):
            e = time_engine(args.checkup, path)
            inside = time_engine_in_process(in_process, path)
            imp, hta, status = run_hta(path)
            engine.append(e)
            engine_inside.append(inside)
            if hta is None:
                break
            imports.append(imp)
            analyses.append(hta)
            end_to_end.append((imp + hta) / e)
            without_import.append(hta / e)
            both_inside.append(hta / inside)
        med = statistics.median
        if without_import:
            without_import_ratios.append((med(without_import), rel))
            in_process_ratios.append((med(both_inside), rel))
        fmt_ms = lambda xs: f"{med(xs) * 1e3:.0f} ms" if xs else "–"
        fmt_ratio = lambda xs: f"{med(xs):.0f}×" if xs else "–"
        fmt_ms1 = lambda xs: f"{med(xs) * 1e3:.1f} ms" if xs else "–"
        print(f"| {rel} | {os.path.getsize(path) / 1e6:.2f} MB | {fmt_ms(engine)} | {fmt_ms1(engine_inside)} | "
              f"{fmt_ms(imports)} | {fmt_ms(analyses)} | {fmt_ratio(end_to_end)} | {fmt_ratio(without_import)} | "
              f"{fmt_ratio(both_inside)} | {status} |", flush=True)
    for name, ratios in (("without HTA's import", without_import_ratios), ("both in process", in_process_ratios)):
        if ratios:
            lowest = min(ratios)
            print(f"\n{name}: lowest {lowest[0]:.0f}× ({lowest[1]}), median "
                  f"{statistics.median(r for r, _ in ratios):.0f}×, {sum(r >= 50 for r, _ in ratios)} of "
                  f"{len(ratios)} traces HTA read at 50× or more")
    if args.big_gb > 0:
        d = tempfile.mkdtemp(prefix="big-trace-")
        try:
            big = os.path.join(d, "big.pt.trace.json")
            t0 = time.perf_counter()
            size, steps = build_big_trace(os.path.join(CORPUS, "healthy/trace.json.gz"), big, int(args.big_gb * 1e9))
            print(f"\nbuilt {size / 1e9:.2f} GB trace with {steps} steps in {time.perf_counter() - t0:.0f} s")
            # A fresh parent process, so its children's peak RSS is the engine's alone.
            probe = ("import json,resource,subprocess,sys,time;t=time.perf_counter();"
                     "o=subprocess.run(sys.argv[1:],capture_output=True,text=True);"
                     "print(time.perf_counter()-t, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, json.loads(o.stdout)['primary'])")
            out = subprocess.run([sys.executable, "-c", probe, args.checkup, "analyze", big, "--json"], capture_output=True, text=True)
            dt, peak_kib, primary = out.stdout.split()
            print(f"| {size / 1e9:.2f} GB trace ({steps} steps) | checkup {float(dt):.1f} s | peak RSS {int(peak_kib) / 1024:.0f} MiB | primary {primary} |")
        finally:
            shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    main()
