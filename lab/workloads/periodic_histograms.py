"""ResNet-50 bf16 on GPU batches; every 12 steps (one of them inside the default profiled
window, steps 10-17) the loop copies every weight to the host and
computes histograms for a dashboard: a stall that also synchronises."""
import numpy as np
import torch
import torch.nn as nn
import torchvision


def main():
    torch.backends.cudnn.benchmark = True
    model = torchvision.models.resnet50().cuda().to(memory_format=torch.channels_last)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    x = torch.randn(128, 3, 224, 224, device="cuda").to(memory_format=torch.channels_last)
    y = torch.randint(0, 1000, (128,), device="cuda")
    hist = {}
    for step in range(240):
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if step % 12 == 0:
            for name, p in model.named_parameters():
                w = p.detach().float().cpu().numpy().astype(np.float64)
                lo, hi = float(w.min()), float(w.max())
                # BatchNorm weights start all equal: give a flat tensor a unit range.
                hist[name] = np.histogram(w, bins=256, range=(lo, hi if hi > lo else lo + 1.0))
                hist[name + ".pct"] = np.percentile(w, [1, 50, 99])
            print("step", step, "histograms", len(hist), flush=True)


if __name__ == "__main__":
    main()
