"""Data-heavy: four DataLoader workers make every sample on the CPU for a small ConvNet; the
loader sets the pace."""
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

import common


class Made(Dataset):
    def __len__(self):
        return 10 ** 6

    def __getitem__(self, i):
        img = np.random.default_rng(i).standard_normal((3, 64, 64), dtype=np.float32)
        return torch.from_numpy(np.tanh(img)), i % 10


model = nn.Sequential(nn.Conv2d(3, 64, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
                      nn.Flatten(), nn.Linear(64, 10)).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.01)
loader = DataLoader(Made(), batch_size=128, num_workers=4, pin_memory=True, persistent_workers=True)
batches = iter(loader)


def step():
    global batches
    try:
        x, y = next(batches)
    except StopIteration:
        batches = iter(loader)
        x, y = next(batches)
    x, y = x.cuda(non_blocking=True), y.cuda(non_blocking=True)
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()


common.run(step)
