#!/usr/bin/env python3
"""Builds the workspace's binaries and tests once, then runs the test binaries several at a time.

    scripts/run-tests.py [--jobs N] [--only PKG | --except PKG] [--also 'LABEL=COMMAND']...
                         CARGO_ARGS [-- TEST_ARGS]

`cargo test` runs one test binary after another. Many of ours spend most of their time
waiting on real agents, sshd, Xvfb and WebDriver, so a 2-core machine sat half idle while a
CPU-bound one (the reports, the corpus) waited its turn. Here every binary still runs every
test, started as `cargo test` starts it (its package's folder as working directory, cargo's
runtime variables set), but N binaries run at once, the longest first (by the durations
kept from the run before, in $CARGO_TARGET_DIR/test-binary-timings.json). `--also` adds a
command to the same pool (the short fuzz run). Each binary's output is printed whole when it
ends, so outputs never interleave; a failure prints its output and fails the run once the
others are done.

The build is `cargo build --bins --tests CARGO_ARGS`: with `--workspace --exclude
checkup-app`, the one set of features that the tests, the binaries they start
(checkup_testkit::workspace_binary builds the same) and the app's end-to-end tests share, so
nothing is compiled twice (those tests drive the packages' release build of the app). `--only` and
`--except` choose which package's test binaries run from it (the end-to-end tests run after
the packages are built). Doc tests run first through `cargo test --doc`, unless `--only`.
"""
import json
import os
import shlex
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import NoReturn


def usage(message: str) -> NoReturn:
    print(f"run-tests.py: {message}", file=sys.stderr)
    print("\n".join(__doc__.strip().splitlines()[2:4]), file=sys.stderr)
    sys.exit(2)


def parse(argv):
    jobs, also, cargo_args, test_args, only, exclude = 2, [], [], [], None, None
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--":
            test_args = argv[i + 1 :]
            break
        if arg in ("--jobs", "--also", "--only", "--except"):
            if i + 1 == len(argv):
                usage(f"{arg} needs a value")
            value = argv[i + 1]
            if arg == "--jobs":
                if not value.isdigit() or int(value) < 1:
                    usage(f"--jobs takes a whole number of at least 1, not {value!r}")
                jobs = int(value)
            elif arg == "--only":
                only = value
            elif arg == "--except":
                exclude = value
            else:
                label, sep, command = value.partition("=")
                if not sep or not label or not command:
                    usage(f"--also takes LABEL=COMMAND, not {value!r}")
                also.append((label, shlex.split(command)))
            i += 2
            continue
        cargo_args.append(arg)
        i += 1
    if only and exclude:
        usage("give --only or --except, not both")
    return jobs, also, cargo_args, test_args, only, exclude


def package_name(package_id: str) -> str:
    """The name in a cargo package id: `path+file:///w/tests/e2e#checkup-e2e@0.1.0`, or
    `path+file:///w/crates/checkup-agent#0.1.0` when the folder has the package's name."""
    url, _, fragment = package_id.partition("#")
    if "@" in fragment:
        return fragment.split("@")[0]
    return url.rstrip("/").rsplit("/", 1)[-1]


def test_binaries(cargo, cargo_args):
    """Builds the binaries and tests and returns (label, executable, package folder,
    package name) for each test binary, in cargo's order."""
    build = subprocess.run(
        [cargo, "build", "--bins", "--tests", "--message-format=json-render-diagnostics",
         *cargo_args],
        stdout=subprocess.PIPE,
        text=True,
    )
    if build.returncode != 0:
        sys.exit(build.returncode)
    binaries = []
    for line in build.stdout.splitlines():
        try:
            message = json.loads(line)
        except json.JSONDecodeError:
            continue
        if message.get("reason") != "compiler-artifact" or not message.get("executable"):
            continue
        if not message.get("profile", {}).get("test"):
            continue
        target = message["target"]
        folder = Path(message["manifest_path"]).parent
        kind = "unittests" if target["kind"] != ["test"] else "tests"
        src = Path(target["src_path"])
        try:
            src = src.relative_to(folder)
        except ValueError:
            pass
        label = f"{folder.name} {src}" if kind == "tests" else f"{folder.name} {src} (unit)"
        binaries.append((label, message["executable"], folder,
                         package_name(message["package_id"])))
    return binaries


def main() -> int:
    jobs, also, cargo_args, test_args, only, exclude = parse(sys.argv[1:])
    cargo = os.environ.get("CARGO", "cargo")
    target = Path(os.environ.get("CARGO_TARGET_DIR", "target")).resolve()
    history_path = target / "test-binary-timings.json"
    try:
        history = json.loads(history_path.read_text())
    except (OSError, ValueError):
        history = {}

    work = []
    for label, exe, folder, package in test_binaries(cargo, cargo_args):
        if (only and package != only) or (exclude and package == exclude):
            continue
        env = dict(os.environ)
        env.update(CARGO=cargo, CARGO_MANIFEST_DIR=str(folder))
        work.append((label, [exe, *test_args], folder, env))
    for label, command in also:
        work.append((label, command, Path.cwd(), dict(os.environ)))
    if not work:
        usage(f"no test binary to run (--only {only}?): check the arguments")

    # Doc tests are compiled by rustdoc when they run: cargo runs them, alone, first.
    if not only:
        t0 = time.monotonic()
        doc = subprocess.run([cargo, "test", "--doc", "-q", *cargo_args], text=True,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        if doc.returncode != 0:
            print(doc.stdout)
            print("run-tests.py: the doc tests failed", file=sys.stderr)
            return 1
        print(f"{time.monotonic() - t0:7.1f} s  ok       doc tests", flush=True)

    # Longest first, by the last run's durations; new binaries first of all (unknown cost).
    work.sort(key=lambda w: -history.get(w[0], float("inf")))
    lock = threading.Lock()
    queue = list(work)
    failed, durations = [], {}
    started = time.monotonic()

    def worker():
        while True:
            with lock:
                if not queue:
                    return
                label, command, cwd, env = queue.pop(0)
            t0 = time.monotonic()
            try:
                run = subprocess.run(command, cwd=cwd, env=env, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, text=True, errors="replace")
                code, output = run.returncode, run.stdout
            except OSError as e:
                code, output = 127, f"could not start {command[0]}: {e}\n"
            took = time.monotonic() - t0
            with lock:
                durations[label] = round(took, 1)
                verdict = "ok" if code == 0 else f"FAILED (exit {code})"
                summary = [l for l in output.splitlines() if l.startswith("test result:")]
                tail = f": {summary[-1][len('test result: '):]}" if summary else ""
                print(f"{took:7.1f} s  {verdict:8} {label}{tail}", flush=True)
                if code != 0:
                    failed.append(label)
                    print(output, flush=True)

    threads = [threading.Thread(target=worker) for _ in range(min(jobs, len(work)))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()

    history.update(durations)
    try:
        history_path.parent.mkdir(parents=True, exist_ok=True)
        history_path.write_text(json.dumps(history, indent=1, sort_keys=True) + "\n")
    except OSError as e:
        print(f"run-tests.py: could not keep the durations in {history_path}: {e}", file=sys.stderr)
    wall = time.monotonic() - started
    total = sum(durations.values())
    print(f"{len(work)} test binaries and commands, {jobs} at a time: {wall:.0f} s "
          f"(one after another: {total:.0f} s)", flush=True)
    if failed:
        print("failed: " + ", ".join(failed), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
