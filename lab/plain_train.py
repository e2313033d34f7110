"""A plain training loop with no profiling code: what a user would hand to
`checkup-agent run -- python lab/plain_train.py SCENARIO`. Uses the lab scenarios' models.

usage: python plain_train.py SCENARIO [--seconds S] [--compile-model | --fused-optimizer]

`--compile-model`: the model compiled with mode="reduce-overhead"; `--fused-optimizer`: the
optimizer with fused=True; nothing else changed (the scenarios that support them:
launch_bound), to record the twin of a printed fix.
"""
import argparse
import os
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(__file__))
import scenarios as SC  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("scenario")
    ap.add_argument("--seconds", type=float, default=20)
    ap.add_argument("--compile-model", action="store_true")
    ap.add_argument("--fused-optimizer", action="store_true")
    args = ap.parse_args()
    args.tmp = os.path.join("/tmp", "plain_" + args.scenario)
    os.makedirs(args.tmp, exist_ok=True)
    torch.manual_seed(0)
    torch.backends.cudnn.benchmark = True
    model, opt, it, step, info = SC.SCENARIOS[args.scenario](args)
    t_end = time.time() + args.seconds
    k = 0
    while time.time() < t_end:
        step(next(it))
        k += 1
        if k % 100 == 0:
            print(f"step {k}", flush=True)
    torch.cuda.synchronize()
    print(f"done: {k} steps", flush=True)


if __name__ == "__main__":
    main()
