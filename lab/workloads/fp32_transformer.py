"""An encoder transformer trained in plain fp32 with TF32 left off (PyTorch's default for
matrix multiplies), as a first training script often is: the GPU is busy, but its tensor
cores mostly idle."""
import torch
import torch.nn as nn


def main():
    layer = nn.TransformerEncoderLayer(d_model=1024, nhead=16, dim_feedforward=4096, batch_first=True)
    model = nn.TransformerEncoder(layer, num_layers=8, enable_nested_tensor=False).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    x = torch.randn(16, 512, 1024, device="cuda")
    target = torch.randn(16, 512, 1024, device="cuda")
    for step in range(120):
        loss = nn.functional.mse_loss(model(x), target)
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        if step % 40 == 0:
            print("step", step, flush=True)


if __name__ == "__main__":
    main()
