"""A ResNet-style ConvNet whose loop finds its batch size the way many do by hand: start big,
catch the out-of-memory error, halve and try again until one fits (on an H200, 2048 fails and
1024 fits); the run then trains at the batch memory allowed, with the allocator's cache left by
the failed try."""
import torch
import torch.nn as nn


def block(c_in, c_out):
    return nn.Sequential(
        nn.Conv2d(c_in, c_out, 3, padding=1, bias=False),
        nn.BatchNorm2d(c_out),
        nn.ReLU(inplace=True),
        nn.Conv2d(c_out, c_out, 3, padding=1, bias=False),
        nn.BatchNorm2d(c_out),
        nn.ReLU(inplace=True),
    )


def main():
    model = nn.Sequential(
        block(3, 64), nn.MaxPool2d(2), block(64, 128), nn.MaxPool2d(2),
        block(128, 256), nn.MaxPool2d(2), block(256, 512),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(512, 1000),
    ).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    # Each 224x224 sample needs roughly 0.1 GiB of fp32 activations here: 2048 cannot fit
    # on a 141 GiB card, 1024 just does (117 GiB allocated at the peak on an H200).
    batch = 2048
    while True:
        try:
            x = torch.randn(batch, 3, 224, 224, device="cuda")
            y = torch.randint(0, 1000, (batch,), device="cuda")
            loss_fn(model(x), y).backward()
            opt.step()
            opt.zero_grad(set_to_none=True)
            break
        except torch.OutOfMemoryError:
            print("out of memory at batch", batch, flush=True)
            opt.zero_grad(set_to_none=True)
            x = y = None
            batch //= 2
    print("training at batch", batch, flush=True)
    for i in range(150):
        x = torch.randn(batch, 3, 224, 224, device="cuda")
        y = torch.randint(0, 1000, (batch,), device="cuda")
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        if i % 50 == 0:
            print("step", i, "loss", round(loss.item(), 3), flush=True)


if __name__ == "__main__":
    main()
