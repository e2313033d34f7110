"""A two-layer LSTM language model (about 150 M parameters) on GPU tokens that saves a
full checkpoint (model and AdamW state) with `torch.save` every 40 steps, in the loop.
`--async`: the state copied to host memory and `torch.save` run in a background thread
(the checkup's fix); `--every N`: save every N steps instead of 40."""
import os
import sys
import tempfile
import threading
import time

import torch
import torch.nn as nn


class LstmLm(nn.Module):
    def __init__(self, vocab=32_000, width=1024, hidden=2048):
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        self.lstm = nn.LSTM(width, hidden, num_layers=2, batch_first=True)
        self.head = nn.Linear(hidden, vocab)

    def forward(self, tokens):
        out, _ = self.lstm(self.embed(tokens))
        return self.head(out)


def to_host(state):
    if isinstance(state, torch.Tensor):
        return state.detach().to("cpu")
    if isinstance(state, dict):
        return {k: to_host(v) for k, v in state.items()}
    if isinstance(state, (list, tuple)):
        return type(state)(to_host(v) for v in state)
    return state


def main():
    torch.manual_seed(0)
    model = LstmLm().cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
    tokens = torch.randint(0, 32_000, (16, 129), device="cuda")
    out = tempfile.mkdtemp(prefix="lstm_ckpt_")
    background = "--async" in sys.argv
    every = int(sys.argv[sys.argv.index("--every") + 1]) if "--every" in sys.argv else 40
    writer = None
    end = time.monotonic() + 25
    step = 1
    while time.monotonic() < end or step <= 120:
        with torch.autocast("cuda", dtype=torch.bfloat16):
            logits = model(tokens[:, :-1])
        loss = nn.functional.cross_entropy(logits.float().reshape(-1, 32_000), tokens[:, 1:].reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
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
        step += 1
    if writer is not None:
        writer.join()


if __name__ == "__main__":
    main()
