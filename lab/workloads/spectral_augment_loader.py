"""A ResNet-18 on 128x128 images made in the DataLoader's workers, each sample filtered in
the frequency domain (`numpy.fft`) by the dataset's `__getitem__`: each sample costs a few
milliseconds of CPU, and 3 workers cannot keep the GPU fed. `--workers N`: the same with N
workers."""
import sys

import numpy as np
import torch
import torch.nn as nn
import torchvision


class SpectralNoiseImages(torch.utils.data.Dataset):
    """Random images low-pass filtered through a 2-D FFT, one per index."""

    def __init__(self, n=4096, size=128):
        self.n = n
        self.size = size
        fy = np.fft.fftfreq(size)[:, None]
        fx = np.fft.fftfreq(size)[None, :]
        self.mask = (np.sqrt(fx * fx + fy * fy) < 0.15).astype(np.float32)

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        rng = np.random.default_rng(i)
        noise = rng.standard_normal((3, self.size, self.size)).astype(np.float32)
        image = np.fft.ifft2(np.fft.fft2(noise) * self.mask).real.astype(np.float32)
        return torch.from_numpy(image), i % 100


def main():
    workers = int(sys.argv[sys.argv.index("--workers") + 1]) if "--workers" in sys.argv else 3
    torch.manual_seed(0)
    model = torchvision.models.resnet18(num_classes=100).cuda().to(memory_format=torch.channels_last)
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    loader = torch.utils.data.DataLoader(SpectralNoiseImages(), batch_size=128, shuffle=True,
                                         num_workers=workers, pin_memory=True,
                                         persistent_workers=True, drop_last=True)
    step = 0
    for epoch in range(100):
        for x, y in loader:
            x = x.cuda(non_blocking=True).to(memory_format=torch.channels_last)
            y = y.cuda(non_blocking=True)
            with torch.autocast("cuda", dtype=torch.bfloat16):
                loss = nn.functional.cross_entropy(model(x), y)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            step += 1
            if step % 20 == 0:
                print("epoch", epoch, "step", step, "loss", round(loss.item(), 4), flush=True)
            if step >= 160:
                return


if __name__ == "__main__":
    main()
