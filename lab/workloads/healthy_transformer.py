"""An encoder transformer in bf16 on GPU batches with fused AdamW: the GPU is busy with
large matrix multiplies; a healthy control without convolutions."""
import torch
import torch.nn as nn


def main():
    torch.backends.cuda.matmul.allow_tf32 = True
    layer = nn.TransformerEncoderLayer(d_model=1024, nhead=16, dim_feedforward=4096, batch_first=True, norm_first=True)
    model = nn.TransformerEncoder(layer, num_layers=12, enable_nested_tensor=False).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    x = torch.randn(32, 512, 1024, device="cuda")
    for step in range(160):
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = model(x).float().pow(2).mean()
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        if step % 40 == 0:
            print("step", step, flush=True)


if __name__ == "__main__":
    main()
