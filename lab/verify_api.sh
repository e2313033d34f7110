#!/usr/bin/env bash
# Verifies, on a GPU machine, the agent's cost with device handles cached and the path the app
# takes through the API: start the agent, check, stream live NVML/GPM samples, profile a real
# training script with progress, download the run. Results go to $OUT.
# usage: OUT=/tmp/out AGENT=checkup-agent SESSION=agent_session bash lab/verify_api.sh
set -u
cd "$(dirname "$0")/.."
AGENT=${AGENT:-target/x86_64-unknown-linux-gnu/release/checkup-agent}
SESSION=${SESSION:-target/release/examples/agent_session}
OUT=${OUT:-/tmp/api-verify}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,utilization.gpu,power.draw,clocks.sm,clocks.max.sm --format=csv > "$OUT/smi.txt" 2>&1
# The sampler's own cost at 10 Hz with GPM and host at 1 Hz, three times (it varies a little).
for i in 1 2 3; do
  $AGENT sample -o /tmp/cost$i --seconds 30 --hz 10 2> "$OUT/agent_cost_$i.json"
done
# Where the time goes (the breakdown's own clock reads add a little).
$AGENT sample -o /tmp/cost-breakdown --seconds 30 --hz 10 --breakdown 2> "$OUT/agent_cost_breakdown.json"
python3 lab/agent_cost.py 20 > "$OUT/peer_cost.txt" 2>&1
[ "${COST_ONLY:-0}" = 1 ] && exit 0
$SESSION "$AGENT" /tmp/session -- python3 lab/plain_train.py launch_bound --seconds 25 > "$OUT/session.txt" 2>&1
echo "session exit=$?" >> "$OUT/session.txt"
cd /tmp && tar czf "$OUT/session.tgz" --exclude='agent-state' --exclude='*.log' session
