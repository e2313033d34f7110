"""A small transformer language model on GPU tokens beside a metrics thread that serialises
its whole history of logged values with `json.dumps` over and over (to "upload" it): the C
encoder holds the interpreter lock for each whole call, so the training thread waits for it
between its operations. `--no-logger`: the twin without the thread."""
import json
import sys
import threading

import torch
import torch.nn as nn


def publish_forever(history, stop):
    while not stop.is_set():
        payload = json.dumps(history)  # the whole history, every time
        del payload


def main():
    torch.manual_seed(0)
    vocab, width = 4096, 384
    embed = nn.Embedding(vocab, width).cuda()
    layer = nn.TransformerEncoderLayer(width, 6, 4 * width, batch_first=True, norm_first=True)
    body = nn.TransformerEncoder(layer, 4).cuda()
    head = nn.Linear(width, vocab).cuda()
    params = list(embed.parameters()) + list(body.parameters()) + list(head.parameters())
    opt = torch.optim.AdamW(params, lr=3e-4)
    tokens = torch.randint(0, vocab, (32, 128), device="cuda")
    logger = "--no-logger" not in sys.argv
    history = {"run": "lm", "steps": [{"step": i, "loss": 8.0 - i * 1e-4, "lr": 3e-4,
                                       "tags": ["train", "gpu0"]} for i in range(5_000)]}
    stop = threading.Event()
    if logger:
        threading.Thread(target=publish_forever, args=(history, stop), name="metrics-upload",
                         daemon=True).start()
    for step in range(12 if logger else 600):
        logits = head(body(embed(tokens[:, :-1])))
        loss = nn.functional.cross_entropy(logits.reshape(-1, vocab), tokens[:, 1:].reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if step % 10 == 0:
            print("step", step, "loss", round(loss.item(), 4), flush=True)
    stop.set()


if __name__ == "__main__":
    main()
