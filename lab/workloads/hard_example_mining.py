"""A residual MLP (12 blocks, width 2048, bf16 autocast) on tabular features kept on the GPU,
trained with online hard-example mining: each step computes every sample's loss, sorts the
losses in NumPy to pick the hardest half, and backpropagates through those. The sort needs the
losses on the host, so every step waits for its forward pass to finish before it can go on.
`--on-gpu`: the twin, the same selection made with `torch.argsort` on the GPU."""
import sys

import numpy as np
import torch
import torch.nn as nn


class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.up = nn.Linear(width, width)
        self.down = nn.Linear(width, width)

    def forward(self, x):
        return x + self.down(nn.functional.gelu(self.up(self.norm(x))))


def main():
    on_gpu = "--on-gpu" in sys.argv
    torch.manual_seed(0)
    width, classes, batch = 2048, 200, 4096
    model = nn.Sequential(
        nn.Linear(256, width), *[Block(width) for _ in range(12)],
        nn.LayerNorm(width), nn.Linear(width, classes),
    ).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    features = torch.randn(16, batch, 256, device="cuda")
    labels = torch.randint(0, classes, (16, batch), device="cuda")
    keep = batch // 2
    for step in range(1, 1201):
        x, y = features[step % 16], labels[step % 16]
        with torch.autocast("cuda", dtype=torch.bfloat16):
            per_sample = nn.functional.cross_entropy(model(x), y, reduction="none")
        if on_gpu:
            hardest = torch.argsort(per_sample.detach(), descending=True)[:keep]
        else:
            hardest = np.argsort(-per_sample.detach().float().cpu().numpy())[:keep]
            hardest = torch.from_numpy(hardest).cuda()
        loss = per_sample[hardest].mean()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if step % 200 == 0:
            print("step", step, "loss", float(loss), flush=True)


if __name__ == "__main__":
    main()
