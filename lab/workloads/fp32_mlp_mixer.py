"""An MLP-Mixer image classifier trained in plain fp32 on GPU images, TF32 left off for
matrix multiplies (PyTorch's default): nearly all its time is Linear layers that run on
the GPU's fp32 units while the tensor cores idle. `--tf32`: the twin with TF32 allowed."""
import sys
import time

import torch
import torch.nn as nn


class MixerBlock(nn.Module):
    def __init__(self, tokens, width):
        super().__init__()
        self.norm1 = nn.LayerNorm(width)
        self.tokens = nn.Sequential(nn.Linear(tokens, 4 * tokens), nn.GELU(), nn.Linear(4 * tokens, tokens))
        self.norm2 = nn.LayerNorm(width)
        self.channels = nn.Sequential(nn.Linear(width, 4 * width), nn.GELU(), nn.Linear(4 * width, width))

    def forward(self, x):
        x = x + self.tokens(self.norm1(x).transpose(1, 2)).transpose(1, 2)
        return x + self.channels(self.norm2(x))


class Mixer(nn.Module):
    def __init__(self, classes=1000, patch=16, width=768, depth=12):
        super().__init__()
        self.patches = nn.Conv2d(3, width, patch, stride=patch)
        self.blocks = nn.Sequential(*[MixerBlock((224 // patch) ** 2, width) for _ in range(depth)])
        self.norm = nn.LayerNorm(width)
        self.head = nn.Linear(width, classes)

    def forward(self, images):
        x = self.patches(images).flatten(2).transpose(1, 2)
        return self.head(self.norm(self.blocks(x)).mean(dim=1))


def main():
    if "--tf32" in sys.argv:
        torch.backends.cuda.matmul.allow_tf32 = True
        torch.backends.cudnn.allow_tf32 = True
    torch.manual_seed(0)
    model = Mixer().cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    images = torch.randn(64, 3, 224, 224, device="cuda")
    labels = torch.randint(0, 1000, (64,), device="cuda")
    end = time.monotonic() + 20
    step = 0
    while time.monotonic() < end or step < 60:
        loss = nn.functional.cross_entropy(model(images), labels)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if step % 50 == 0:
            print("step", step, "loss", round(loss.item(), 4), flush=True)
        step += 1


if __name__ == "__main__":
    main()
