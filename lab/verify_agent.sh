#!/usr/bin/env bash
# Verifies checkup-agent on a GPU machine: the environment check against nvidia-smi, the
# sampler's cost next to nvidia-smi and pynvml loops, and zero-code-change profiling of plain
# training scripts (single GPU, and torchrun when 2+ GPUs are present). Results go to $OUT.
# usage: OUT=/tmp/out AGENT=path/to/checkup-agent bash lab/verify_agent.sh
set -u
cd "$(dirname "$0")/.."
AGENT=${AGENT:-target/release/checkup-agent}
OUT=${OUT:-/tmp/agent-verify}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1
R=/tmp/agent-runs; rm -rf $R; mkdir -p $R
{
  echo "== checkup-agent check"; $AGENT check --python python3 --workers 8
  echo; echo "== nvidia-smi for comparison"
  nvidia-smi --query-gpu=name,driver_version,persistence_mode,pcie.link.gen.current,pcie.link.gen.max,pcie.link.width.current,pcie.link.width.max,power.limit,clocks.max.sm,mig.mode.current,ecc.mode.current --format=csv
  nvidia-smi | head -4 | tail -1
} > "$OUT/check.txt" 2>&1
# Sampler cost: the agent alone at 10 Hz with GPM, then the two usual loops.
$AGENT sample -o $R/idle --seconds 20 --hz 10 2> "$OUT/agent_cost.json"
python3 lab/agent_cost.py 20 > "$OUT/peer_cost.txt" 2>&1
nvidia-smi --query-gpu=utilization.gpu,power.draw,clocks.sm,temperature.gpu --format=csv,noheader > "$OUT/smi_now.txt"
# Zero-code-change profiling of plain training loops.
for s in launch_bound dataloader_starved; do
  timeout 150 $AGENT run -o $R/$s --skip-steps 10 --profile-steps 8 -- python3 lab/plain_train.py $s --seconds 20 > $R/$s.log 2>&1
  echo "$s exit=$?" >> "$OUT/runs.txt"; tail -3 $R/$s.log >> "$OUT/runs.txt"
done
N=$(nvidia-smi -L | wc -l)
if [ "$N" -ge 2 ]; then
  timeout 200 $AGENT run -o $R/ddp --skip-steps 20 --profile-steps 6 -- python3 -m torch.distributed.run --nproc-per-node 2 lab/plain_ddp.py --seconds 20 > $R/ddp.log 2>&1
  echo "ddp exit=$?" >> "$OUT/runs.txt"; tail -3 $R/ddp.log >> "$OUT/runs.txt"
fi
cd /tmp && tar czf "$OUT/agent-runs.tgz" --exclude='*.log' agent-runs
ls -la "$OUT"
