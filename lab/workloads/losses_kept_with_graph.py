"""An MLP on GPU batches whose loop keeps each step's loss tensor (not its value) for a
running mean: every kept loss holds its step's autograd graph and saved activations, so
GPU memory creeps up step after step until the card runs out."""
import torch
import torch.nn as nn


def main():
    model = nn.Sequential(nn.Linear(1024, 4096), nn.GELU(), nn.Linear(4096, 4096), nn.GELU(),
                          nn.Linear(4096, 10)).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    x = torch.randn(512, 1024, device="cuda")
    y = torch.randint(0, 10, (512,), device="cuda")
    losses = []
    for step in range(1500):
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward(retain_graph=True)
        opt.step()
        losses.append(loss)  # the tensor, graph and all, not loss.item()
        if step % 100 == 0:
            mean = torch.stack(losses[-100:]).mean()
            print("step", step, "mean loss", float(mean),
                  "allocated GiB", round(torch.cuda.memory_allocated() / 2**30, 1), flush=True)


if __name__ == "__main__":
    main()
