"""Launch-heavy: a deep narrow MLP whose steps are made of hundreds of tiny kernels."""
import torch
import torch.nn as nn

from common import Throughput

STEPS = 1500
model = nn.Sequential(*[nn.Sequential(nn.Linear(128, 128), nn.ReLU()) for _ in range(32)]).cuda()
opt = torch.optim.Adam(model.parameters(), lr=1e-4)
x = torch.randn(32, 128, device="cuda")
meter = Throughput(STEPS)
for k in range(STEPS):
    loss = model(x).square().mean()
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    meter.step(k)
