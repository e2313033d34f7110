"""A ConvNet on GPU batches whose loop keeps every step's predictions on the host for a
metric it means to compute at the end: `logits.detach().cpu()` appended to a list that is
never cleared. The GPU and its memory stay flat; the training process's host memory grows
by the logits of every batch (16 MiB a step here) until the host kills it."""
import torch
import torch.nn as nn


def main():
    torch.backends.cudnn.benchmark = True
    model = nn.Sequential(
        nn.Conv2d(3, 128, 3, padding=1), nn.ReLU(),
        nn.Conv2d(128, 256, 3, padding=1, stride=2), nn.ReLU(),
        nn.Conv2d(256, 512, 3, padding=1, stride=2), nn.ReLU(),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(512, 1000),
    ).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    x = torch.randn(4096, 3, 64, 64, device="cuda")
    y = torch.randint(0, 1000, (4096,), device="cuda")
    predictions = []
    for step in range(900):
        with torch.autocast("cuda", dtype=torch.bfloat16):
            logits = model(x)
            loss = loss_fn(logits, y)
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        predictions.append(logits.detach().float().cpu())
        if step % 100 == 0:
            print("step", step, "kept", len(predictions), "batches of predictions", flush=True)


if __name__ == "__main__":
    main()
