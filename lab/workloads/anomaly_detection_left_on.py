"""A U-Net-like ConvNet for image-to-image denoising, on GPU batches, with
`torch.autograd.set_detect_anomaly(True)` left at the top of the script from a debugging
session: every forward operation keeps its Python traceback and every backward operation
checks its output for NaN, which reads a flag back from the GPU each time.
`--no-anomaly`: the twin, the line removed."""
import sys

import torch
import torch.nn as nn

if "--no-anomaly" not in sys.argv:
    torch.autograd.set_detect_anomaly(True)


def block(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.SiLU(),
                         nn.Conv2d(cout, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.SiLU())


class TinyUNet(nn.Module):
    def __init__(self, width=32):
        super().__init__()
        self.down1 = block(3, width)
        self.down2 = block(width, 2 * width)
        self.mid = block(2 * width, 2 * width)
        self.up = nn.ConvTranspose2d(2 * width, width, 2, stride=2)
        self.out = nn.Sequential(block(2 * width, width), nn.Conv2d(width, 3, 1))

    def forward(self, x):
        a = self.down1(x)
        b = self.mid(self.down2(nn.functional.max_pool2d(a, 2)))
        return self.out(torch.cat([a, self.up(b)], 1))


def main():
    torch.manual_seed(0)
    model = TinyUNet().cuda()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    clean = torch.rand(32, 3, 96, 96, device="cuda")
    for step in range(400):
        noisy = clean + 0.1 * torch.randn_like(clean)
        loss = nn.functional.mse_loss(model(noisy), clean)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if step % 50 == 0:
            print("step", step, "loss", round(loss.item(), 5), flush=True)


if __name__ == "__main__":
    main()
