"""A small MLP on tabular rows, 1-2 ms steps, four DataLoader workers without persistent
workers over 150-batch epochs: steps too short to time one by one on the GPU (the probe
times them in spans), with a stall at each epoch's start while the workers are re-forked."""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset


class Rows(Dataset):
    def __len__(self):
        return 150 * 256

    def __getitem__(self, i):
        g = torch.Generator().manual_seed(i)
        x = torch.randn(64, generator=g)
        return x, int(x.sum() > 0)


def main():
    model = nn.Sequential(nn.Linear(64, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(),
                          nn.Linear(256, 2)).cuda()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    loader = DataLoader(Rows(), batch_size=256, shuffle=True, num_workers=4)
    for epoch in range(12):
        for x, y in loader:
            x, y = x.cuda(non_blocking=True), y.cuda(non_blocking=True)
            loss = nn.functional.cross_entropy(model(x), y)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
        print("epoch", epoch, "loss", float(loss), flush=True)


if __name__ == "__main__":
    main()
