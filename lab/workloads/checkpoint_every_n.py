"""A 350 M-parameter transformer on GPU batches saving a full checkpoint (model and
optimizer) with torch.save every 40 steps.
`--async`: the state copied to host memory and `torch.save` run in a background thread
(the checkup's fix); `--every N`: save every N steps instead of 40; `--steps N`: run N
steps instead of 200."""
import os
import sys
import tempfile
import threading

import torch
import torch.nn as nn


def arg(name, default):
    return int(sys.argv[sys.argv.index(name) + 1]) if name in sys.argv else default


def to_host(state):
    if isinstance(state, torch.Tensor):
        return state.detach().to("cpu")
    if isinstance(state, dict):
        return {k: to_host(v) for k, v in state.items()}
    if isinstance(state, (list, tuple)):
        return type(state)(to_host(v) for v in state)
    return state


def main():
    layer = nn.TransformerEncoderLayer(d_model=1024, nhead=16, dim_feedforward=4096, batch_first=True)
    model = nn.TransformerEncoder(layer, num_layers=24, enable_nested_tensor=False).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    x = torch.randn(8, 256, 1024, device="cuda")
    out = tempfile.mkdtemp(prefix="ckpt_")
    background = "--async" in sys.argv
    every, steps = arg("--every", 40), arg("--steps", 200)
    writer = None
    for step in range(1, steps + 1):
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = model(x).float().pow(2).mean()
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        if step % every == 0:
            path = os.path.join(out, "last.pt")
            if background:
                if writer is not None:
                    writer.join()
                state = to_host({"model": model.state_dict(), "opt": opt.state_dict(), "step": step})
                writer = threading.Thread(target=torch.save, args=(state, path), name="checkpoint")
                writer.start()
            else:
                torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "step": step}, path)
            print("saved", step, flush=True)
    if writer is not None:
        writer.join()


if __name__ == "__main__":
    main()
