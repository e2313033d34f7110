"""A small ConvNet on GPU batches beside a "reporter" thread that summarises a large list of
numbers in pure C builtins (`sum`, `sorted`) over and over: each call holds the interpreter
lock for most of a second, so the training thread, which needs the lock between every
operation, waits seconds per step with the GPU idle. `--no-reporter`: the twin without it."""
import sys
import threading

import torch
import torch.nn as nn


def reporter(values, stop):
    # Each builtin call runs in C start to end, holding the interpreter lock throughout.
    while not stop.is_set():
        total = sum(values)
        ranked = sorted(values, reverse=True)
        del total, ranked


def main():
    torch.manual_seed(0)
    model = nn.Sequential(
        nn.Conv2d(3, 32, 3, padding=1), nn.ReLU(), nn.Conv2d(32, 32, 3, padding=1), nn.ReLU(),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(32, 10)).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    x = torch.randn(128, 3, 64, 64, device="cuda")
    y = torch.randint(0, 10, (128,), device="cuda")
    stop = threading.Event()
    if "--no-reporter" not in sys.argv:
        values = [float(i % 9973) for i in range(2_000_000)]
        threading.Thread(target=reporter, args=(values, stop), daemon=True).start()
    steps = 30 if "--no-reporter" not in sys.argv else 600
    for step in range(steps):
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        # The usual logging read-back: it releases the lock while it waits for the GPU.
        if step % 5 == 0:
            print("step", step, "loss", round(loss.item(), 4), flush=True)
    stop.set()


if __name__ == "__main__":
    main()
