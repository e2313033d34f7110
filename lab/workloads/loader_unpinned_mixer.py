"""An MLP-Mixer on 64×64 images, fed by a DataLoader of six persistent workers that slice
images out of a tensor held in memory (cheap: the workers keep up), without pinned memory:
each batch reaches the training as a pageable tensor, and its `.to("cuda")` returns only when
the copy is done. `--pinned`: the twin with the checkup's copy fix as printed,
`pin_memory=True` and non_blocking=True."""
import sys

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset


class Images(Dataset):
    def __init__(self, count, classes):
        g = torch.Generator().manual_seed(0)
        self.images = torch.randn(count, 3, 64, 64, generator=g)
        self.labels = torch.randint(0, classes, (count,), generator=g)

    def __len__(self):
        return 1_000_000

    def __getitem__(self, i):
        i %= len(self.images)
        return self.images[i], self.labels[i]


class MixerBlock(nn.Module):
    def __init__(self, tokens, width):
        super().__init__()
        self.norm1 = nn.LayerNorm(width)
        self.tokens = nn.Sequential(nn.Linear(tokens, 2 * tokens), nn.GELU(), nn.Linear(2 * tokens, tokens))
        self.norm2 = nn.LayerNorm(width)
        self.channels = nn.Sequential(nn.Linear(width, 2 * width), nn.GELU(), nn.Linear(2 * width, width))

    def forward(self, x):
        x = x + self.tokens(self.norm1(x).transpose(1, 2)).transpose(1, 2)
        return x + self.channels(self.norm2(x))


class Mixer(nn.Module):
    def __init__(self, classes, patch=8, width=192, depth=8):
        super().__init__()
        self.patch = nn.Conv2d(3, width, patch, stride=patch)
        tokens = (64 // patch) ** 2
        self.blocks = nn.Sequential(*[MixerBlock(tokens, width) for _ in range(depth)])
        self.head = nn.Linear(width, classes)

    def forward(self, x):
        x = self.patch(x).flatten(2).transpose(1, 2)
        return self.head(self.blocks(x).mean(dim=1))


def main():
    pinned = "--pinned" in sys.argv
    torch.manual_seed(0)
    loader = DataLoader(Images(4096, 100), batch_size=512, shuffle=True, num_workers=6,
                        persistent_workers=True, pin_memory=pinned)
    model = Mixer(100).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for step, (x, y) in enumerate(loader, start=1):
        x, y = x.to("cuda", non_blocking=pinned), y.to("cuda", non_blocking=pinned)
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if step % 300 == 0:
            print("step", step, "loss", float(loss), flush=True)
        if step == 1200:
            break


if __name__ == "__main__":
    main()
