"""A two-layer GRU classifying windows of multichannel sensor readings. The readings sit in a
NumPy array in host memory; each step gathers a random batch of windows with NumPy indexing
and copies it to the GPU with `.cuda()`, from pageable memory: the host waits for each copy,
and the copy waits for the step before it. `--pinned`: the twin with the checkup's fix applied
as written, the gathered batch pinned where it is made and copied with non_blocking=True."""
import sys

import numpy as np
import torch
import torch.nn as nn


class SensorGru(nn.Module):
    def __init__(self, channels, hidden, classes):
        super().__init__()
        self.gru = nn.GRU(channels, hidden, num_layers=2, batch_first=True)
        self.head = nn.Linear(hidden, classes)

    def forward(self, x):
        out, _ = self.gru(x)
        return self.head(out[:, -1])


def main():
    pinned = "--pinned" in sys.argv
    rng = np.random.default_rng(0)
    torch.manual_seed(0)
    windows, length, channels, classes, batch = 6000, 128, 48, 12, 1024
    readings = rng.standard_normal((windows, length, channels), dtype=np.float32)
    activity = rng.integers(0, classes, windows)
    model = SensorGru(channels, 256, classes).cuda()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    for step in range(1, 1001):
        idx = rng.integers(0, windows, batch)
        x = torch.from_numpy(readings[idx])
        y = torch.from_numpy(activity[idx])
        if pinned:
            x, y = x.pin_memory(), y.pin_memory()
            x, y = x.cuda(non_blocking=True), y.cuda(non_blocking=True)
        else:
            x, y = x.cuda(), y.cuda()
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if step % 200 == 0:
            print("step", step, "loss", float(loss), flush=True)


if __name__ == "__main__":
    main()
