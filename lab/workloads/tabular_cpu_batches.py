"""An MLP on tabular rows held in host memory: each step slices a batch out of a CPU tensor
and copies it to the GPU with `.cuda()` (pageable memory: the host waits for each copy).
`--pinned`: the fixed twin, the rows pinned once and copied with non_blocking=True."""
import sys

import torch
import torch.nn as nn


def main():
    pinned = "--pinned" in sys.argv
    torch.manual_seed(0)
    rows = torch.randn(65_536, 2048)
    labels = torch.randint(0, 100, (65_536,))
    if pinned:
        rows, labels = rows.pin_memory(), labels.pin_memory()
    model = nn.Sequential(
        nn.Linear(2048, 2048), nn.ReLU(),
        nn.Linear(2048, 2048), nn.ReLU(),
        nn.Linear(2048, 100),
    ).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    batch = 4096
    for step in range(1, 801):
        i = (step * batch) % (rows.shape[0] - batch)
        if pinned:
            x = rows[i:i + batch].cuda(non_blocking=True)
            y = labels[i:i + batch].cuda(non_blocking=True)
        else:
            x = rows[i:i + batch].cuda()
            y = labels[i:i + batch].cuda()
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if step % 200 == 0:
            print("step", step, "loss", float(loss), flush=True)


if __name__ == "__main__":
    main()
