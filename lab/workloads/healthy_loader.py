"""A ConvNet fed by a DataLoader with 8 persistent, pinned workers and cheap samples: the
loader keeps up; a healthy control for the input pipeline."""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset


class Cheap(Dataset):
    def __len__(self):
        return 256 * 40

    def __getitem__(self, i):
        g = torch.Generator().manual_seed(i)
        return torch.rand(3, 96, 96, generator=g), i % 10


def main():
    torch.backends.cudnn.benchmark = True
    model = nn.Sequential(
        nn.Conv2d(3, 128, 3, padding=1), nn.BatchNorm2d(128), nn.ReLU(),
        nn.Conv2d(128, 256, 3, padding=1, stride=2), nn.BatchNorm2d(256), nn.ReLU(),
        nn.Conv2d(256, 256, 3, padding=1), nn.BatchNorm2d(256), nn.ReLU(),
        nn.Conv2d(256, 512, 3, padding=1, stride=2), nn.BatchNorm2d(512), nn.ReLU(),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(512, 10)).cuda().to(memory_format=torch.channels_last)
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    loader = DataLoader(Cheap(), batch_size=256, shuffle=True, num_workers=8, pin_memory=True,
                        persistent_workers=True, prefetch_factor=4)
    for epoch in range(3):
        for x, y in loader:
            x = x.cuda(non_blocking=True).to(memory_format=torch.channels_last)
            y = y.cuda(non_blocking=True)
            with torch.autocast("cuda", dtype=torch.bfloat16):
                loss = nn.functional.cross_entropy(model(x), y)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
        print("epoch", epoch, flush=True)


if __name__ == "__main__":
    main()
