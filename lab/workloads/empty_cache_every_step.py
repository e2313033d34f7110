"""A decoder-only transformer on batches of varying length, with `torch.cuda.empty_cache()`
after every optimizer step (what people add after one out-of-memory error): the caching
allocator hands its blocks back each step and asks the driver for them again in the next."""
import sys

import torch
import torch.nn as nn


def main():
    torch.manual_seed(0)
    layer = nn.TransformerEncoderLayer(d_model=768, nhead=12, dim_feedforward=3072, batch_first=True, norm_first=True)
    model = nn.TransformerEncoder(layer, num_layers=8, enable_nested_tensor=False).cuda()
    head = nn.Linear(768, 8192).cuda()
    embed = nn.Embedding(8192, 768).cuda()
    params = list(model.parameters()) + list(head.parameters()) + list(embed.parameters())
    opt = torch.optim.AdamW(params, lr=1e-4)
    lengths = [256, 384, 512, 320, 448]
    for step in range(200):
        n = lengths[step % len(lengths)]
        tokens = torch.randint(0, 8192, (24, n), device="cuda")
        with torch.autocast("cuda", dtype=torch.bfloat16):
            h = model(embed(tokens), is_causal=True, mask=nn.Transformer.generate_square_subsequent_mask(n, device="cuda"))
            loss = nn.functional.cross_entropy(head(h).flatten(0, 1).float(), tokens.roll(-1, 1).flatten())
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        if "--keep-cache" not in sys.argv:  # the control: the same loop without it
            torch.cuda.empty_cache()
        if step % 40 == 0:
            print("step", step, flush=True)


if __name__ == "__main__":
    main()
