"""A text classifier (embedding, 2 encoder layers of width 256, mean pool, bf16 autocast)
compiled with `dynamic=False`, "for speed", its batches grouped by length as length-grouped
samplers make them: each batch padded to its own length (32 to 512, rounded up to 8). Every
new length is a recompilation until dynamo's recompile limit (8); from then on the model
runs uncompiled. `--dynamic`: the twin, compiled without `dynamic=False` (dynamo makes the
length dynamic at its second value and compiles once more). `--steps N`: steps to run
(default 1500)."""
import sys

import torch
import torch.nn as nn


class Classifier(nn.Module):
    def __init__(self, vocab=32000, width=256, layers=2, classes=20):
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        layer = nn.TransformerEncoderLayer(width, 4, 4 * width, batch_first=True, norm_first=True)
        self.body = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.head = nn.Linear(width, classes)

    def forward(self, tokens):
        return self.head(self.body(self.embed(tokens)).mean(dim=1))


def arg(name, default):
    return int(sys.argv[sys.argv.index(name) + 1]) if name in sys.argv else default


def main():
    torch.manual_seed(0)
    model = Classifier().cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4, fused=True)
    if "--dynamic" in sys.argv:
        compiled = torch.compile(model)
    else:
        compiled = torch.compile(model, dynamic=False)
    steps = arg("--steps", 1500)
    g = torch.Generator().manual_seed(1)
    for step in range(steps):
        length = 8 * int(torch.randint(4, 65, (1,), generator=g))
        tokens = torch.randint(0, 32000, (48, length), device="cuda")
        labels = torch.randint(0, 20, (48,), device="cuda")
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = nn.functional.cross_entropy(compiled(tokens).float(), labels)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if step % 250 == 0:
            print("step", step, "length", length, "loss %.3f" % loss.item(), flush=True)


if __name__ == "__main__":
    main()
