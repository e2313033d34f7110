#!/usr/bin/env bash
# A job of two "nodes" on one machine: two agents, each wrapping its own
# `torchrun --nnodes 2 --node-rank N`, meeting on loopback. Each agent writes its node's run
# folder, $DEST/node0 and $DEST/node1; `checkup analyze $DEST` reads them as one job.
# usage: AGENT=path/to/checkup-agent DEST=/tmp/job [PER_NODE=2] [GPUS_0=0 GPUS_1=0]
#        lab/two_nodes_on_one_host.sh SCRIPT.py [ARGS...]
# GPUS_N is node N's CUDA_VISIBLE_DEVICES (on one GPU both nodes share it: use --backend gloo).
set -u
DEST=${DEST:-/tmp/job}
PER_NODE=${PER_NODE:-2}
PORT=${PORT:-29533}
mkdir -p "$DEST"
pids=()
for node in 0 1; do
  gpus_var="GPUS_$node"
  CUDA_VISIBLE_DEVICES=${!gpus_var:-0} PYTHONUNBUFFERED=1 timeout "${LIMIT:-300}" \
    "$AGENT" run --out "$DEST/node$node" -- \
    torchrun --nnodes 2 --node-rank "$node" --nproc-per-node "$PER_NODE" \
      --master-addr 127.0.0.1 --master-port "$PORT" "$@" > "$DEST/node$node.log" 2>&1 &
  pids+=($!)
done
status=0
for p in "${pids[@]}"; do wait "$p" || status=$?; done
for node in 0 1; do echo "=== node$node: $(tail -n 2 "$DEST/node$node.log" | tr '\n' ' ')"; done
exit $status
