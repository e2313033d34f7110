"""A small decoder language model (3 layers, width 384, causal attention, bf16 autocast)
compiled with `dynamic=False`, trained with a sequence-length curriculum: the context grows
from 64 to 384 tokens by 64 every `--phase N` steps (default 250), as curriculum schedules
do. Each new length is one recompilation, spread over the run; the six lengths stay under
dynamo's recompile limit (8), so the model stays compiled. `--dynamic`: the twin, compiled
without `dynamic=False` (dynamo makes the length dynamic at its second value and compiles
once more). `--mark-dynamic`: the twin's own fix, the length marked dynamic on the input
before every call, so the first compilation already serves every length and none follows.
`--steps N`: steps to run (default 1500)."""
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self, width, heads):
        super().__init__()
        self.heads = heads
        self.norm1 = nn.LayerNorm(width)
        self.qkv = nn.Linear(width, 3 * width)
        self.proj = nn.Linear(width, width)
        self.norm2 = nn.LayerNorm(width)
        self.mlp = nn.Sequential(nn.Linear(width, 4 * width), nn.GELU(), nn.Linear(4 * width, width))

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.qkv(self.norm1(x)).view(b, t, 3, self.heads, c // self.heads).unbind(2)
        y = F.scaled_dot_product_attention(
            q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), is_causal=True
        )
        x = x + self.proj(y.transpose(1, 2).reshape(b, t, c))
        return x + self.mlp(self.norm2(x))


class LanguageModel(nn.Module):
    def __init__(self, vocab=16384, width=384, layers=3, heads=6, context=512):
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        self.position = nn.Embedding(context, width)
        self.blocks = nn.Sequential(*[Block(width, heads) for _ in range(layers)])
        self.norm = nn.LayerNorm(width)
        self.head = nn.Linear(width, vocab, bias=False)

    def forward(self, tokens):
        positions = torch.arange(tokens.shape[1], device=tokens.device)
        return self.head(self.norm(self.blocks(self.embed(tokens) + self.position(positions))))


def arg(name, default):
    return int(sys.argv[sys.argv.index(name) + 1]) if name in sys.argv else default


def main():
    torch.manual_seed(0)
    model = LanguageModel().cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4, fused=True)
    mark_dynamic = "--mark-dynamic" in sys.argv
    if "--dynamic" in sys.argv or mark_dynamic:
        compiled = torch.compile(model)
    else:
        compiled = torch.compile(model, dynamic=False)
    steps = arg("--steps", 1500)
    phase = arg("--phase", 250)
    for step in range(steps):
        length = min(64 * (1 + step // phase), 384)
        tokens = torch.randint(0, 16384, (32, length + 1), device="cuda")
        inputs = tokens[:, :-1]
        if mark_dynamic:
            torch._dynamo.mark_dynamic(inputs, 1)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            logits = compiled(inputs)
            loss = F.cross_entropy(logits.flatten(0, 1).float(), tokens[:, 1:].flatten())
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if step % 250 == 0:
            print("step", step, "length", length, "loss %.3f" % loss.item(), flush=True)


if __name__ == "__main__":
    main()
