"""A plain DDP training loop (no profiling code) for `checkup-agent run -- torchrun ...`.

usage: torchrun --nproc-per-node N plain_ddp.py [--seconds S]
"""
import argparse
import os

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=20)
    args = ap.parse_args()
    dist.init_process_group("nccl")
    dev = torch.device("cuda", int(os.environ["LOCAL_RANK"]))
    torch.cuda.set_device(dev)
    width = 8192
    model = DDP(nn.Sequential(*[nn.Sequential(nn.Linear(width, width), nn.ReLU()) for _ in range(8)], nn.Linear(width, 10)).to(dev), device_ids=[dev.index])
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    x = torch.randn(16, width, device=dev)
    y = torch.randint(0, 10, (16,), device=dev)
    deadline = torch.tensor([0.0], dtype=torch.float64, device=dev)
    if dist.get_rank() == 0:
        import time
        deadline[0] = time.time() + args.seconds
    dist.broadcast(deadline, 0)
    import time
    k = 0
    while True:
        if k % 20 == 0:
            flag = torch.tensor([1.0 if time.time() < deadline.item() else 0.0], device=dev)
            dist.all_reduce(flag, op=dist.ReduceOp.MIN)
            if flag.item() == 0.0:
                break
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        k += 1
    torch.cuda.synchronize()
    if dist.get_rank() == 0:
        print(f"done: {k} steps", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
