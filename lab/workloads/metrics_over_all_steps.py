"""A ConvNet on GPU batches whose loop keeps every prediction on the host and recomputes
the accuracy over all of them each step: host work that grows with every step, so the run
slows down as it goes. `--constant`: the twin with the checkup's first fix applied as
printed: a running count of correct predictions kept on the GPU, read every 100 steps."""
import sys

import torch
import torch.nn as nn


def main():
    model = nn.Sequential(
        nn.Conv2d(3, 64, 3, padding=1), nn.ReLU(), nn.Conv2d(64, 64, 3, padding=1), nn.ReLU(),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, 100)).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    x = torch.randn(256, 3, 64, 64, device="cuda")
    y = torch.randint(0, 100, (256,), device="cuda")
    seen_preds, seen_labels = [], []
    constant = "--constant" in sys.argv
    correct = torch.zeros((), device="cuda", dtype=torch.long)
    seen = 0
    for step in range(2400):
        out = model(x)
        loss = nn.functional.cross_entropy(out, y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if constant:
            # each step: constant work, no read-back
            correct += (out.argmax(1) == y).sum()
            seen += y.numel()
            if step % 100 == 0:
                print("accuracy", correct.item() / seen, flush=True)
            continue
        # Every prediction so far, as Python ints, and the accuracy over all of them.
        seen_preds.extend(out.argmax(1).tolist())
        seen_labels.extend(y.tolist())
        accuracy = sum(p == t for p, t in zip(seen_preds, seen_labels)) / len(seen_labels)
        if step % 200 == 0:
            print("step", step, "accuracy", round(accuracy, 4), flush=True)


if __name__ == "__main__":
    main()
