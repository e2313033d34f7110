"""A small 2-D ConvNet classifying log-mel spectrograms (1 x 128 x 256). The spectrograms sit
in a CPU tensor; each step gathers a random batch by index and copies it with `.to("cuda")`
from pageable memory (PyTorch then synchronises the stream), and the loop sums its loss on
the host with `loss.item()` every step, a read-back of its own. Two waits on two lines, each
with its own fix:
`--pinned`: the batch pinned where it is gathered and copied with non_blocking=True;
`--no-item`: the loss summed on the GPU and read every 100 steps."""
import sys

import torch
import torch.nn as nn


def block(cin, cout, stride):
    return nn.Sequential(
        nn.Conv2d(cin, cout, 3, stride=stride, padding=1, bias=False),
        nn.BatchNorm2d(cout),
        nn.ReLU(inplace=True),
        nn.Conv2d(cout, cout, 3, padding=1, bias=False),
        nn.BatchNorm2d(cout),
        nn.ReLU(inplace=True),
    )


class SpectrogramNet(nn.Module):
    def __init__(self, classes):
        super().__init__()
        self.features = nn.Sequential(
            block(1, 32, 2), block(32, 64, 2), block(64, 128, 2), block(128, 128, 2)
        )
        self.head = nn.Linear(128, classes)

    def forward(self, x):
        return self.head(self.features(x).mean(dim=(2, 3)))


def main():
    pinned = "--pinned" in sys.argv
    item_every_step = "--no-item" not in sys.argv
    torch.manual_seed(0)
    clips, mels, frames, classes, batch = 2048, 128, 256, 35, 128
    spectrograms = torch.randn(clips, 1, mels, frames)
    labels = torch.randint(0, classes, (clips,))
    model = SpectrogramNet(classes).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    total = 0.0
    total_gpu = torch.zeros((), device="cuda")
    for step in range(1, 801):
        idx = torch.randint(0, clips, (batch,))
        x, y = spectrograms[idx], labels[idx]
        if pinned:
            x, y = x.pin_memory(), y.pin_memory()
            x, y = x.to("cuda", non_blocking=True), y.to("cuda", non_blocking=True)
        else:
            x, y = x.to("cuda"), y.to("cuda")
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if item_every_step:
            total += loss.item()
        else:
            total_gpu += loss.detach()
            if step % 100 == 0:
                total = float(total_gpu)
        if step % 200 == 0:
            print("step", step, "mean loss", round(total / step, 4), flush=True)


if __name__ == "__main__":
    main()
