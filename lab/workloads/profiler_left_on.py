"""A convolutional autoencoder on 96x96 images kept on the GPU, with Adam, trained inside a
`torch.profiler.profile` block left in from a debugging session: no schedule, so it records
every operator and kernel of every step, and `record_function` ranges around the forward and
backward passes. `--no-profiler`: the twin, the same loop without the profiler."""
import contextlib
import sys

import torch
import torch.nn as nn
from torch.profiler import ProfilerActivity, profile, record_function


def autoencoder():
    def down(i, o):
        return nn.Sequential(nn.Conv2d(i, o, 3, stride=2, padding=1), nn.BatchNorm2d(o), nn.ReLU())

    def up(i, o):
        return nn.Sequential(nn.ConvTranspose2d(i, o, 4, stride=2, padding=1), nn.BatchNorm2d(o), nn.ReLU())

    return nn.Sequential(
        down(3, 32), down(32, 64), down(64, 128), down(128, 256),
        up(256, 128), up(128, 64), up(64, 32), nn.ConvTranspose2d(32, 3, 4, stride=2, padding=1),
    )


def main():
    profiled = "--no-profiler" not in sys.argv
    torch.manual_seed(0)
    model = autoencoder().cuda().to(memory_format=torch.channels_last)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    images = torch.rand(8, 64, 3, 96, 96, device="cuda")
    watch = profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True) if profiled else contextlib.nullcontext()
    with watch:
        for step in range(1, 601):
            x = images[step % 8].contiguous(memory_format=torch.channels_last)
            with record_function("forward"):
                loss = nn.functional.mse_loss(model(x), x)
            opt.zero_grad(set_to_none=True)
            with record_function("backward"):
                loss.backward()
            opt.step()
            if step % 100 == 0:
                print("step", step, "loss", float(loss), flush=True)


if __name__ == "__main__":
    main()
