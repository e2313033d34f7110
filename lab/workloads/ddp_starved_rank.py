"""DDP training where one rank's input pipeline cannot keep up: every rank reads its batches
through a DataLoader, and the starved rank's samples need far more CPU work (a heavier
augmentation) than the others'. That rank waits for data in each step; the others wait for
it in the all-reduce. Written as users write it; no probe code.

usage: torchrun ... ddp_starved_rank.py [--backend nccl|gloo] [--starved-rank R]
                                        [--heavy N] [--workers W] [--steps N]
The starved rank's augmentation repeats N times (N=24 by default); W workers per rank.
With gloo, several ranks may share one GPU (a job simulated on one GPU: two_nodes_on_one_host.sh).
"""
import argparse
import os

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, Dataset


class Images(Dataset):
    """Random 64×64 images, each blurred `passes` times on the CPU (the augmentation)."""

    def __init__(self, n, passes):
        self.n, self.passes = n, passes
        self.kernel = torch.full((3, 1, 3, 3), 1.0 / 9)

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        g = torch.Generator().manual_seed(i)
        x = torch.randn(1, 3, 64, 64, generator=g)
        for _ in range(self.passes):
            x = F.conv2d(x, self.kernel, padding=1, groups=3)
        return x[0], i % 100


def model():
    return nn.Sequential(
        nn.Conv2d(3, 64, 3, padding=1), nn.ReLU(),
        nn.Conv2d(64, 128, 3, padding=1, stride=2), nn.ReLU(),
        nn.Conv2d(128, 128, 3, padding=1), nn.ReLU(),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(128, 100))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--backend", default="nccl")
    ap.add_argument("--starved-rank", type=int, default=-1)
    ap.add_argument("--heavy", type=int, default=24)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--steps", type=int, default=120)
    ap.add_argument("--batch", type=int, default=64)
    args = ap.parse_args()
    dist.init_process_group(args.backend)
    rank = dist.get_rank()
    local = int(os.environ.get("LOCAL_RANK", "0"))
    dev = torch.device("cuda", local % torch.cuda.device_count())
    torch.cuda.set_device(dev)
    torch.set_num_threads(1)
    net = DDP(model().to(dev), device_ids=[dev.index])
    opt = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
    passes = args.heavy if rank == args.starved_rank else 1
    data = Images(args.steps * args.batch, passes)
    loader = DataLoader(data, batch_size=args.batch, num_workers=args.workers,
                        pin_memory=True, persistent_workers=args.workers > 0)
    for step, (x, y) in enumerate(loader):
        if step >= args.steps:
            break
        x, y = x.to(dev, non_blocking=True), y.to(dev, non_blocking=True)
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
