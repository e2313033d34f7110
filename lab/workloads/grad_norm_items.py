"""A 96-layer MLP whose loop logs every parameter's gradient norm with .item(), on one line:
about 190 host synchronisations per step, each draining the GPU's queue. `--compile`: the
twin with the checkup's first fix applied as printed, `torch.compile(model,
mode="reduce-overhead")`, the read-backs left as they are."""
import sys

import torch
import torch.nn as nn


def main():
    layers = []
    for _ in range(96):
        layers += [nn.Linear(512, 512), nn.ReLU()]
    model = nn.Sequential(*layers).cuda()
    if "--compile" in sys.argv:
        model = torch.compile(model, mode="reduce-overhead")
    opt = torch.optim.Adam(model.parameters(), lr=1e-4)
    x = torch.randn(256, 512, device="cuda")
    y = torch.randn(256, 512, device="cuda")
    history = []
    for step in range(300):
        loss = nn.functional.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        norms = {name: p.grad.norm().item() for name, p in model.named_parameters()}
        history.append(max(norms.values()))
        opt.step()
        if step % 100 == 0:
            print("step", step, "max grad norm", history[-1], flush=True)


if __name__ == "__main__":
    main()
