"""Writes a Kineto trace of a given size by repeating the profiled steps of a real one.

    python3 bench/big_trace.py tests/corpus/healthy/trace.json.gz /var/tmp/big.json 10

Each copy of the steps is shifted in time by the source's span, its `ProfilerStep#N`
numbers continue where the last copy ended, and its correlation, external and flow ids are
offset, so the result reads as one long profile of the same training (10 GB of ResNet-50:
about 1,100 profiled steps, 50 million events). Used to measure what reading a large trace
costs (README, "Large traces")."""
import gzip
import json
import re
import sys


def main():
    source, out, gigabytes = sys.argv[1], sys.argv[2], float(sys.argv[3])
    opener = gzip.open if source.endswith(".gz") else open
    with opener(source, "rt") as f:
        trace = json.load(f)
    events = trace.pop("traceEvents")
    meta = [e for e in events if e.get("ph") == "M"]
    timed = [e for e in events if e.get("ph") != "M" and "ts" in e]
    start = min(e["ts"] for e in timed)
    end = max(e["ts"] + e.get("dur", 0) for e in timed)
    span = end - start + 1000.0
    step = re.compile(r"^ProfilerStep#(\d+)$")
    numbers = [int(m.group(1)) for e in timed if (m := step.match(e.get("name", "")))]
    first_step, steps = min(numbers), max(numbers) - min(numbers) + 1

    def biggest(key):
        return max([e.get("args", {}).get(key, 0) for e in timed if isinstance(e.get("args", {}).get(key, 0), int)] + [0])

    corr_span = biggest("correlation") + 1
    ext_span = biggest("External id") + 1
    flow_span = max([e["id"] for e in timed if isinstance(e.get("id"), int)] + [0]) + 1

    limit = int(gigabytes * 1e9)
    written = 0
    copies = 0
    with open(out, "w") as f:
        head = json.dumps(trace)[:-1] + ', "traceEvents": ['
        f.write(head)
        written += len(head)
        first = True
        for e in meta:
            f.write(("" if first else ",\n") + json.dumps(e))
            first = False
        while written < limit:
            shift = copies * span
            for e in timed:
                c = dict(e)
                c["ts"] = e["ts"] + shift
                m = step.match(c.get("name", ""))
                if m:
                    c["name"] = f"ProfilerStep#{int(m.group(1)) + copies * steps}"
                if isinstance(c.get("id"), int):
                    c["id"] = c["id"] + copies * flow_span
                args = c.get("args")
                if args:
                    args = dict(args)
                    if isinstance(args.get("correlation"), int):
                        args["correlation"] += copies * corr_span
                    if isinstance(args.get("External id"), int):
                        args["External id"] += copies * ext_span
                    c["args"] = args
                line = ",\n" + json.dumps(c)
                f.write(line)
                written += len(line)
            copies += 1
        f.write("\n]}\n")
    print(
        f"{out}: {written / 1e9:.2f} GB, {copies} copies of {steps} steps "
        f"(ProfilerStep#{first_step} to #{first_step + copies * steps - 1}), "
        f"{copies * len(timed):,} events",
        flush=True,
    )


if __name__ == "__main__":
    main()
