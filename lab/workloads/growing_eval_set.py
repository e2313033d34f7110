"""An MLP classifier that evaluates every 50 steps on "everything seen so far": each
training batch is appended to the validation list, so every evaluation pass is longer than
the one before while the training steps stay the same. `--fixed-eval`: the twin, evaluated
on one fixed set of 40 batches."""
import sys

import torch
import torch.nn as nn


def evaluate(model, batches):
    model.eval()
    correct = torch.zeros((), device="cuda", dtype=torch.long)
    with torch.no_grad():
        for x, y in batches:
            correct += (model(x).argmax(1) == y).sum()
    model.train()
    return correct.item()


def main():
    fixed_eval = "--fixed-eval" in sys.argv
    model = nn.Sequential(
        nn.Linear(512, 2048), nn.GELU(), nn.Linear(2048, 2048), nn.GELU(),
        nn.Linear(2048, 100)).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    seen = []
    fixed = [(torch.randn(256, 512, device="cuda"), torch.randint(0, 100, (256,), device="cuda"))
             for _ in range(40)]
    for step in range(1, 1601):
        x = torch.randn(256, 512, device="cuda")
        y = torch.randint(0, 100, (256,), device="cuda")
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        # Kept to evaluate on later: the validation set grows with every step.
        seen.append((x, y))
        if step % 50 == 0:
            # Each pass runs over what was seen so far, so it grows every time.
            print("step", step, "correct", evaluate(model, fixed if fixed_eval else seen), flush=True)


if __name__ == "__main__":
    main()
