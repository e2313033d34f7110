"""A float32 ConvNet on 96x96 images with a token embedding beside it (its backward adds
rows by index), as a reproducibility-minded script runs it: `--deterministic` turns on
`torch.use_deterministic_algorithms(True)` and `cudnn.deterministic` (with the cuBLAS
workspace setting they ask for), `--no-fill` then keeps them but stops torch filling the
memory `torch.empty` hands out (`torch.utils.deterministic.fill_uninitialized_memory`),
`--benchmark` turns on `cudnn.benchmark`; none, the defaults. `--steps N`: train N steps
(500)."""
import os
import sys

if "--deterministic" in sys.argv:
    os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")

import torch
import torch.nn as nn
import torch.utils.deterministic


def arg(name, default):
    return int(sys.argv[sys.argv.index(name) + 1]) if name in sys.argv else default


def block(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(),
                         nn.Conv2d(cout, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(),
                         nn.MaxPool2d(2))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.convs = nn.Sequential(block(3, 64), block(64, 128), block(128, 256),
                                   nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.tokens = nn.Embedding(50000, 256)
        self.head = nn.Linear(512, 100)

    def forward(self, x, t):
        return self.head(torch.cat([self.convs(x), self.tokens(t).mean(1)], 1))


def main():
    steps = arg("--steps", 500)
    if "--deterministic" in sys.argv:
        torch.use_deterministic_algorithms(True)
        torch.backends.cudnn.deterministic = True
        if "--no-fill" in sys.argv:
            torch.utils.deterministic.fill_uninitialized_memory = False
    torch.backends.cudnn.benchmark = "--benchmark" in sys.argv
    torch.manual_seed(0)
    model = Net().cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    x = torch.randn(64, 3, 96, 96, device="cuda")
    t = torch.randint(0, 50000, (64, 512), device="cuda")
    y = torch.randint(0, 100, (64,), device="cuda")
    for step in range(1, steps + 1):
        loss = nn.functional.cross_entropy(model(x, t), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if step % 100 == 0:
            print("step", step, "loss", float(loss), flush=True)


if __name__ == "__main__":
    main()
