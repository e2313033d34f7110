"""A 350 M-parameter transformer on GPU batches saving a full checkpoint (model and
optimizer) with torch.save every 40 steps."""
import os
import tempfile

import torch
import torch.nn as nn


def main():
    layer = nn.TransformerEncoderLayer(d_model=1024, nhead=16, dim_feedforward=4096, batch_first=True)
    model = nn.TransformerEncoder(layer, num_layers=24, enable_nested_tensor=False).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    x = torch.randn(8, 256, 1024, device="cuda")
    out = tempfile.mkdtemp(prefix="ckpt_")
    for step in range(1, 201):
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = model(x).float().pow(2).mean()
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        if step % 40 == 0:
            torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "step": step},
                       os.path.join(out, "last.pt"))
            print("saved", step, flush=True)


if __name__ == "__main__":
    main()
