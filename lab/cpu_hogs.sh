#!/usr/bin/env bash
# Start N busy-looping processes that belong to no training job (re-parented to init, so a
# checkup does not count them as the training's), as on a GPU host shared with other users.
# usage: cpu_hogs.sh start N | cpu_hogs.sh stop
set -eu
case "${1:-}" in
  start)
    for _ in $(seq "${2:?how many}"); do
      (python3 -c 'import sys; sys.argv[0] = "lab-cpu-hog"
while True: pass' lab-cpu-hog &)
    done ;;
  stop) pkill -f lab-cpu-hog || true ;;
  *) echo "usage: $0 start N | stop" >&2; exit 2 ;;
esac
