"""A ConvNet fed by a DataLoader whose dataset lists its folder for every sample, and the
loop writes a small file into that folder at every step (a cache of seen batches): the
listing grows as the run goes, so the input pipeline gets slower epoch after epoch while
the model does not change. `--list-once`: the twin, the folder listed once per epoch."""
import os
import sys
import tempfile

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset


class FolderSamples(Dataset):
    def __init__(self, folder, list_once):
        self.folder, self.list_once, self.names = folder, list_once, None

    def __len__(self):
        return 4096

    def __getitem__(self, i):
        # The folder listed per sample to pick up new files: slower as the folder grows.
        names = self.names if self.list_once and self.names is not None else os.listdir(self.folder)
        if self.list_once:
            self.names = names
        g = torch.Generator().manual_seed(i + len(names))
        return torch.randn(3, 32, 32, generator=g), i % 10


def main():
    list_once = "--list-once" in sys.argv
    folder = tempfile.mkdtemp(prefix="growing-")
    model = nn.Sequential(
        nn.Conv2d(3, 64, 3, padding=1), nn.ReLU(), nn.Conv2d(64, 64, 3, padding=1), nn.ReLU(),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, 10)).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    loader = DataLoader(FolderSamples(folder, list_once), batch_size=64, shuffle=True,
                        num_workers=4, persistent_workers=False)
    step = 0
    for epoch in range(8):
        for x, y in loader:
            x, y = x.cuda(non_blocking=True), y.cuda(non_blocking=True)
            loss = nn.functional.cross_entropy(model(x), y)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            # A small file per step: the cache the dataset lists.
            for k in range(40):
                open(os.path.join(folder, f"seen-{step}-{k}.txt"), "w").close()
            step += 1
        print("epoch", epoch, "step", step, "loss", round(loss.item(), 4), flush=True)


if __name__ == "__main__":
    main()
