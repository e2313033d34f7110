"""Launch-heavy: a deep narrow MLP whose steps are made of hundreds of tiny kernels."""
import torch
import torch.nn as nn

import common

model = nn.Sequential(*[nn.Sequential(nn.Linear(128, 128), nn.ReLU()) for _ in range(32)]).cuda()
opt = torch.optim.Adam(model.parameters(), lr=1e-4)
x = torch.randn(32, 128, device="cuda")


def step():
    loss = model(x).square().mean()
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()


common.run(step)
