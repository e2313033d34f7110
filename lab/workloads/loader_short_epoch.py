"""ResNet-18 on images made on the CPU, two DataLoader workers without persistent workers,
30-batch epochs: the loader cannot keep up and re-forks its workers at every epoch."""
import numpy as np
import torch
import torch.nn as nn
import torchvision
from torch.utils.data import DataLoader, Dataset


class NoisyImages(Dataset):
    def __len__(self):
        return 30 * 64

    def __getitem__(self, i):
        rng = np.random.default_rng(i)
        img = rng.standard_normal((3, 160, 160), dtype=np.float32)
        for _ in range(3):  # an augmentation's worth of CPU work
            img = np.clip(img * 1.01 + 0.01, -3, 3)
        return torch.from_numpy(img), int(i % 100)


def main():
    torch.backends.cudnn.benchmark = True
    model = torchvision.models.resnet18(num_classes=100).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    loader = DataLoader(NoisyImages(), batch_size=64, shuffle=True, num_workers=2)
    for epoch in range(6):
        for x, y in loader:
            x, y = x.cuda(non_blocking=True), y.cuda(non_blocking=True)
            with torch.autocast("cuda", dtype=torch.bfloat16):
                loss = nn.functional.cross_entropy(model(x), y)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
        print("epoch", epoch, "loss", float(loss), flush=True)


if __name__ == "__main__":
    main()
