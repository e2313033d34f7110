"""A deep narrow MLP (launch-bound steps) with an evaluation pass every 40 steps; the
profiled steps (10-17) hold no evaluation. `--every N`: evaluate every N steps instead;
`--steps N`: train N steps (400)."""
import sys

import torch
import torch.nn as nn


def block():
    return nn.Sequential(nn.Linear(256, 256), nn.LayerNorm(256), nn.GELU())


def arg(name, default):
    return int(sys.argv[sys.argv.index(name) + 1]) if name in sys.argv else default


def main():
    every, steps = arg("--every", 40), arg("--steps", 400)
    model = nn.Sequential(*[block() for _ in range(48)], nn.Linear(256, 10)).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    x = torch.randn(64, 256, device="cuda")
    y = torch.randint(0, 10, (64,), device="cuda")
    val = [torch.randn(64, 256, device="cuda") for _ in range(120)]
    for step in range(1, steps + 1):
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if step % every == 0:
            model.eval()
            correct = 0
            with torch.no_grad():
                for v in val:
                    correct += int((model(v).argmax(1) == 0).sum())
            model.train()
            print("step", step, "val", correct, flush=True)


if __name__ == "__main__":
    main()
