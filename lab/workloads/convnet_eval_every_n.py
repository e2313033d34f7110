"""A small ConvNet on 64x64 images, GPU-bound steps, with a full pass over a 48-batch
validation set every 25 steps (`model.eval()`, `torch.no_grad()`, the accuracy summed on the
GPU and read once): evaluation takes about as long as the training between two passes.
`--every N`: evaluate every N steps instead; `--steps N`: train N steps (600)."""
import sys

import torch
import torch.nn as nn


def arg(name, default):
    return int(sys.argv[sys.argv.index(name) + 1]) if name in sys.argv else default


def block(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(),
                         nn.Conv2d(cout, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(),
                         nn.MaxPool2d(2))


def main():
    every, steps = arg("--every", 25), arg("--steps", 600)
    torch.manual_seed(0)
    model = nn.Sequential(block(3, 64), block(64, 128), block(128, 256), nn.AdaptiveAvgPool2d(1),
                          nn.Flatten(), nn.Linear(256, 100)).cuda().to(memory_format=torch.channels_last)
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    x = torch.randn(128, 3, 64, 64, device="cuda").to(memory_format=torch.channels_last)
    y = torch.randint(0, 100, (128,), device="cuda")
    val = [(torch.randn(256, 3, 64, 64, device="cuda").to(memory_format=torch.channels_last),
            torch.randint(0, 100, (256,), device="cuda")) for _ in range(48)]
    for step in range(1, steps + 1):
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if step % every == 0:
            model.eval()
            correct = torch.zeros((), device="cuda")
            with torch.no_grad(), torch.autocast("cuda", dtype=torch.bfloat16):
                for vx, vy in val:
                    correct += (model(vx).argmax(1) == vy).sum()
            model.train()
            print("step", step, "val", int(correct), flush=True)


if __name__ == "__main__":
    main()
