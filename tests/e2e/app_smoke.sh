#!/usr/bin/env bash
# The built desktop app under Xvfb: first start with a fresh database imports the demo
# checkups, the window lists them, clicking one shows its diagnosis. Screenshots are kept in
# target/app-artifacts for people to look at.
set -euo pipefail
cd "$(dirname "$0")/../.."
target="${CARGO_TARGET_DIR:-target}"
bin="$target/debug/gpu-checkup"
out="$target/app-artifacts"
mkdir -p "$out"
tmp=$(mktemp -d)
db="$tmp/checkups.db"
# Xvfb picks a free display itself and writes its number to fd 3.
Xvfb -displayfd 3 -screen 0 1280x800x24 -nolisten tcp 3>"$tmp/display" >/dev/null 2>&1 &
xvfb=$!
app=""
cleanup() { [ -n "$app" ] && kill "$app" 2>/dev/null; kill "$xvfb" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
for _ in $(seq 1 50); do [ -s "$tmp/display" ] && break; sleep 0.1; done
display=":$(cat "$tmp/display")"
GPU_CHECKUP_DB="$db" DISPLAY=$display WEBKIT_DISABLE_COMPOSITING_MODE=1 "$bin" >"$out/app.log" 2>&1 &
app=$!
# Wait for the demo import (analysis of every bundled run) and the first paint.
for _ in $(seq 1 60); do
  sleep 1
  n=$(python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('select count(*) from checkups where diagnosis is not null').fetchone()[0])" "$db" 2>/dev/null || echo 0)
  [ "$n" -ge 8 ] && break
done
echo "demo checkups stored: $n"
[ "$n" -ge 8 ] || { echo "FAIL: expected the demo checkups in $db"; cat "$out/app.log"; exit 1; }
sleep 8
DISPLAY=$display import -window root "$out/app-history.png"
# The first checkup of the history list.
DISPLAY=$display xdotool mousemove 90 335 click 1
sleep 4
DISPLAY=$display import -window root "$out/app-diagnosis.png"
colors_history=$(convert "$out/app-history.png" -format %k info:)
colors_diag=$(convert "$out/app-diagnosis.png" -format %k info:)
echo "distinct colours: history $colors_history, diagnosis $colors_diag"
# A blank or unrendered window has a handful of colours; text and charts have hundreds.
[ "$colors_history" -gt 50 ] || { echo "FAIL: the window looks blank"; exit 1; }
[ "$colors_diag" -gt $((colors_history + 200)) ] || { echo "FAIL: clicking a checkup showed nothing new"; exit 1; }
# "This computer": the app starts the bundled agent as its child and shows the host.
DISPLAY=$display xdotool mousemove 75 157 click 1
for _ in $(seq 1 20); do pgrep -P "$app" -x checkup-agent >/dev/null && break; sleep 0.5; done
pgrep -P "$app" -x checkup-agent >/dev/null || { echo "FAIL: no agent started by the app"; cat "$out/app.log"; exit 1; }
sleep 2
DISPLAY=$display import -window root "$out/app-host.png"
# A new checkup on this host: the environment check is stored with it.
DISPLAY=$display xdotool mousemove 119 233 click 1
for _ in $(seq 1 40); do
  env=$(python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('select count(*) from checkups where environment is not null').fetchone()[0])" "$db" 2>/dev/null || echo 0)
  [ "$env" -ge 1 ] && break
  sleep 0.5
done
sleep 2
DISPLAY=$display import -window root "$out/app-environment.png"
[ "$env" -ge 1 ] || { echo "FAIL: no checkup with an environment check after 'New checkup'"; cat "$out/app.log"; exit 1; }
echo "live checkup with its environment check stored"
kill -0 "$app" || { echo "FAIL: the app exited"; cat "$out/app.log"; exit 1; }
echo "app smoke: 1 passed, 0 failed"
