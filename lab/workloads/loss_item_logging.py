"""A ResNet-18 (torchvision, bf16 autocast, channels_last) on 64x64 images kept on the GPU,
with SGD and momentum, that adds every step's loss to a Python float with `.item()` for its
progress line: the host waits for each step's forward and backward before it launches the
next. `--on-gpu`: the twin with the checkup's fix as printed, the loss kept on the GPU and
turned into a number only on the steps it logs."""
import sys

import torch
import torch.nn as nn
import torchvision


def main():
    on_gpu = "--on-gpu" in sys.argv
    torch.manual_seed(0)
    model = torchvision.models.resnet18(num_classes=100).cuda().to(memory_format=torch.channels_last)
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    images = [torch.randn(192, 3, 64, 64, device="cuda").to(memory_format=torch.channels_last)
              for _ in range(8)]
    labels = torch.randint(0, 100, (8, 192), device="cuda")
    running_loss = torch.zeros((), device="cuda") if on_gpu else 0.0
    for step in range(1, 1501):
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = nn.functional.cross_entropy(model(images[step % 8]), labels[step % 8])
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if on_gpu:
            running_loss += loss.detach()
        else:
            running_loss += loss.item()
        if step % 250 == 0:
            print("step", step, "mean loss", float(running_loss) / 250, flush=True)
            running_loss = torch.zeros((), device="cuda") if on_gpu else 0.0


if __name__ == "__main__":
    main()
