"""`loader_short_epoch.py` with the checkup's first fix applied: 14 pinned, persistent
workers. What is left of the data wait is each epoch's first batch, which no worker had
begun before the epoch's iterator was created."""
import torch
import torch.nn as nn
import torchvision
from torch.utils.data import DataLoader

from loader_short_epoch import NoisyImages


def main():
    torch.backends.cudnn.benchmark = True
    model = torchvision.models.resnet18(num_classes=100).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    loader = DataLoader(NoisyImages(), batch_size=64, shuffle=True, num_workers=14,
                        pin_memory=True, persistent_workers=True)
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
