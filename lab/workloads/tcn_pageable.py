"""A temporal convolutional network (16 dilated residual Conv1d blocks) classifying windows
of multichannel signals. The signals sit in a CPU tensor; each step gathers a random batch
of windows by index and copies it to the GPU with `.to("cuda")`, from pageable memory: the
call returns only when the copy is done. `--pinned`: the twin with the checkup's copy fix as
printed, the gathered batch pinned where it is made and copied with non_blocking=True."""
import sys

import torch
import torch.nn as nn


class Block(nn.Module):
    def __init__(self, channels, dilation):
        super().__init__()
        self.conv1 = nn.Conv1d(channels, channels, 3, padding=dilation, dilation=dilation)
        self.norm1 = nn.BatchNorm1d(channels)
        self.conv2 = nn.Conv1d(channels, channels, 3, padding=dilation, dilation=dilation)
        self.norm2 = nn.BatchNorm1d(channels)

    def forward(self, x):
        y = torch.relu(self.norm1(self.conv1(x)))
        return torch.relu(x + self.norm2(self.conv2(y)))


class Tcn(nn.Module):
    def __init__(self, inputs, channels, blocks, classes):
        super().__init__()
        self.stem = nn.Conv1d(inputs, channels, 1)
        self.blocks = nn.Sequential(*[Block(channels, 2 ** (i % 6)) for i in range(blocks)])
        self.head = nn.Linear(channels, classes)

    def forward(self, x):
        return self.head(self.blocks(self.stem(x)).mean(dim=2))


def main():
    pinned = "--pinned" in sys.argv
    torch.manual_seed(0)
    windows, inputs, length, classes, batch = 4096, 96, 256, 20, 384
    signals = torch.randn(windows, inputs, length)
    kinds = torch.randint(0, classes, (windows,))
    model = Tcn(inputs, 64, 16, classes).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for step in range(1, 1201):
        idx = torch.randint(0, windows, (batch,))
        x, y = signals[idx], kinds[idx]
        if pinned:
            x, y = x.pin_memory(), y.pin_memory()
            x, y = x.to("cuda", non_blocking=True), y.to("cuda", non_blocking=True)
        else:
            x, y = x.to("cuda"), y.to("cuda")
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if step % 300 == 0:
            print("step", step, "loss", float(loss), flush=True)


if __name__ == "__main__":
    main()
