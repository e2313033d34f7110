#!/usr/bin/env bash
# Verifies, on a GPU machine, an agent started as the app starts one on an SSH host (its state
# in hosts/<host name>/ of the agent's folder): health, the environment check (NVML's GPUs
# and driver) and five seconds of sampling through the API. Results go to $OUT.
# usage: OUT=/tmp/out AGENT=/tmp/agent bash lab/verify_host_state.sh
set -u
AGENT=${AGENT:-target/x86_64-unknown-linux-gnu/release/checkup-agent}
OUT=${OUT:-/tmp/host-state-verify}
mkdir -p "$OUT"
d=$(mktemp -d)
h="$d/hosts/$(uname -n)"
mkdir -p "$h" && cp "$AGENT" "$d/checkup-agent"
"$d/checkup-agent" serve --listen 127.0.0.1:0 --state-file "$h/agent.json" \
  --token-file "$h/token" --runs "$h/runs" > "$h/agent.log" 2>&1 &
pid=$!
for _ in $(seq 50); do [ -s "$h/agent.json" ] && break; sleep 0.1; done
STATE="$h/agent.json" python3 - > "$OUT/api.txt" 2>&1 <<'PY'
import json, os, time, urllib.request
info = json.load(open(os.environ["STATE"]))
token = open(info["token_file"]).read().strip()
base = "http://" + info["listening"]
def call(method, path, body=None):
    req = urllib.request.Request(base + path, method=method,
        data=None if body is None else json.dumps(body).encode(),
        headers={"Authorization": "Bearer " + token, "Content-Type": "application/json"})
    t = time.perf_counter()
    with urllib.request.urlopen(req, timeout=60) as r:
        return json.loads(r.read() or b"null"), time.perf_counter() - t
health, s = call("GET", "/v1/health")
print("health", json.dumps(health), f"{s*1000:.0f} ms")
check, s = call("GET", "/v1/check")
f = check["facts"]
print("check", f"{s:.1f} s", "driver", f.get("driver_version"), "gpus", len(f["gpus"]),
      "recorded_in", check.get("gpus_recorded_in"))
for c in check["checks"]:
    print("  ", c["id"], c.get("gpu"), c["status"])
started, _ = call("POST", "/v1/sampling", {"max_s": 30})
time.sleep(5)
stopped, _ = call("DELETE", "/v1/sampling")
print("sampling", started, json.dumps(stopped)[:600])
PY
kill "$pid"
ls -R "$d/hosts" > "$OUT/state.txt"
