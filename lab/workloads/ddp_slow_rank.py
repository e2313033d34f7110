"""DDP training where one rank does more work than the others (its batches are longer, as
when a sampler hands one rank the long sequences): every other rank waits for it in each
step's all-reduce. Written as users write it; no probe code.

usage: torchrun ... ddp_slow_rank.py [--backend nccl|gloo] [--slow-rank R[,R...] | --rotate]
                                     [--slow-side S] [--steps N]
The slow rank's images are S times wider and higher (S² times the work; S=2 by default).
--rotate: the large images go to rank (step mod world size), a different rank each step, as
batches of varying length land on different ranks: stragglers that come and go.
With gloo, several ranks may share one GPU (a job simulated on one GPU: two_nodes_on_one_host.sh).
"""
import argparse
import os

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP


def model():
    return nn.Sequential(
        nn.Conv2d(3, 64, 3, padding=1), nn.ReLU(),
        nn.Conv2d(64, 128, 3, padding=1, stride=2), nn.ReLU(),
        nn.Conv2d(128, 128, 3, padding=1), nn.ReLU(),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(128, 100))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--backend", default="nccl")
    ap.add_argument("--slow-rank", default="", help="a rank, or several: 2,3")
    ap.add_argument("--slow-side", type=int, default=2)
    ap.add_argument("--rotate", action="store_true")
    ap.add_argument("--steps", type=int, default=160)
    ap.add_argument("--batch", type=int, default=64)
    args = ap.parse_args()
    dist.init_process_group(args.backend)
    rank = dist.get_rank()
    local = int(os.environ.get("LOCAL_RANK", "0"))
    dev = torch.device("cuda", local % torch.cuda.device_count())
    torch.cuda.set_device(dev)
    net = DDP(model().to(dev), device_ids=[dev.index])
    opt = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
    # The slow rank's samples are larger: the same model, more work per step.
    small = torch.randn(args.batch, 3, 64, 64, device=dev)
    large = torch.randn(args.batch, 3, 64 * args.slow_side, 64 * args.slow_side, device=dev)
    y = torch.randint(0, 100, (args.batch,), device=dev)
    world = dist.get_world_size()
    for step in range(args.steps):
        slow = {step % world} if args.rotate else {int(r) for r in args.slow_rank.split(",") if r}
        x = large if rank in slow else small
        loss = F.cross_entropy(net(x), y)
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
    torch.cuda.synchronize()
    if rank == 0:
        print(f"done: {args.steps} steps on {dist.get_world_size()} ranks", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
