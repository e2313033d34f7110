#!/usr/bin/env bash
# Records each named workload under the agent into $DEST/NAME (log beside it).
# usage: AGENT=path/to/checkup-agent DEST=/tmp/rec lab/workloads/record_all.sh NAME...
set -u
cd "$(dirname "$0")"
export PYTHONUNBUFFERED=1
DEST=${DEST:-/tmp/rec}
mkdir -p "$DEST"
for w in "$@"; do
  start=$(date +%s)
  timeout "${LIMIT:-150}" "$AGENT" run --out "$DEST/$w" -- python3 "$w.py" > "$DEST/$w.log" 2>&1
  echo "=== $w: exit $? in $(( $(date +%s) - start )) s; $(tail -n 1 "$DEST/$w.log")"
done
