"""A small transformer trained with an auxiliary loss against every feature vector seen
so far: the history is kept on the GPU and extended with torch.cat at every step, so the
GPU's work per step grows as the run goes while the host's stays the same.
`--window`: the twin, the history kept in a fixed window of its last 8192 vectors."""
import sys

import torch
import torch.nn as nn


def main():
    window = "--window" in sys.argv
    layer = nn.TransformerEncoderLayer(256, 8, 1024, batch_first=True)
    model = nn.TransformerEncoder(layer, 4).cuda()
    head = nn.Linear(256, 256).cuda()
    opt = torch.optim.AdamW(list(model.parameters()) + list(head.parameters()), lr=1e-4)
    history = torch.zeros(0, 256, device="cuda")
    for step in range(1800):
        x = torch.randn(32, 128, 256, device="cuda")
        tokens = head(model(x)).flatten(0, 1)
        # Contrast each token against the whole history: its cost grows with the history.
        aux = (tokens @ history.T).logsumexp(1).mean() if len(history) else tokens.sum() * 0
        loss = tokens.pow(2).mean() + 0.1 * aux
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        # 128 more vectors a step: 384,000 by the end (its logits then take about 6 GB).
        history = torch.cat([history, tokens[:128].detach()])
        if window:
            history = history[-8192:]
        if step % 200 == 0:
            print("step", step, "history", len(history), "loss", round(loss.item(), 4), flush=True)


if __name__ == "__main__":
    main()
