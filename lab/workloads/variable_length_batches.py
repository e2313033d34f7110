"""A GPT-style decoder on token batches whose sequence length changes every step (bucketed
text of any length, no padding to a fixed size): each step allocates activations of a
different size, the caching allocator splits and keeps blocks of every size, and the memory
it reserves grows far above what the tensors use (fragmentation)."""
import random

import torch
import torch.nn as nn


def main():
    random.seed(0)
    layer = nn.TransformerEncoderLayer(d_model=1024, nhead=16, dim_feedforward=4096, batch_first=True, norm_first=True)
    model = nn.TransformerEncoder(layer, num_layers=8, enable_nested_tensor=False).cuda()
    embed = nn.Embedding(32000, 1024).cuda()
    opt = torch.optim.AdamW(list(model.parameters()) + list(embed.parameters()), lr=1e-4, fused=True)
    tokens_per_batch = 64 * 1024
    for step in range(400):
        length = random.choice([96, 160, 272, 480, 736, 1000, 1504, 2048, 3000, 4096])
        batch = max(1, tokens_per_batch // length)
        ids = torch.randint(0, 32000, (batch, length), device="cuda")
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = model(embed(ids), is_causal=True,
                         mask=nn.Transformer.generate_square_subsequent_mask(length, device="cuda")).float().pow(2).mean()
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        if step % 50 == 0:
            print("step", step, "allocated GiB", round(torch.cuda.memory_allocated() / 2**30, 1),
                  "reserved GiB", round(torch.cuda.memory_reserved() / 2**30, 1), flush=True)


if __name__ == "__main__":
    main()
