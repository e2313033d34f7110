"""A 1-D ConvNet classifying short waveforms (16 residual blocks of Conv1d, GroupNorm and
SiLU) on synthetic audio kept on the GPU, with SGD and momentum. Run as it is, its steps are
kept busy by mid-sized kernels; run under `CUDA_LAUNCH_BLOCKING=1` (a debugging setting left
in the shell), every launch waits for its kernel and the host and GPU take turns."""
import torch
import torch.nn as nn


class Block(nn.Module):
    def __init__(self, ch):
        super().__init__()
        self.conv = nn.Conv1d(ch, ch, kernel_size=9, padding=4)
        self.norm = nn.GroupNorm(8, ch)
        self.act = nn.SiLU()

    def forward(self, x):
        return x + self.act(self.norm(self.conv(x)))


def main():
    torch.manual_seed(0)
    ch = 128
    model = nn.Sequential(
        nn.Conv1d(1, ch, kernel_size=16, stride=4),
        *[Block(ch) for _ in range(16)],
        nn.AdaptiveAvgPool1d(1),
        nn.Flatten(),
        nn.Linear(ch, 35),
    ).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    waves = torch.randn(32, 64, 1, 8000, device="cuda")
    labels = torch.randint(0, 35, (32, 64), device="cuda")
    for step in range(1, 601):
        i = step % 32
        loss = nn.functional.cross_entropy(model(waves[i]), labels[i])
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if step % 100 == 0:
            print("step", step, "loss", float(loss), flush=True)


if __name__ == "__main__":
    main()
