"""A bag-of-words text classifier whose tokenised corpus lives in the main process as
three million Python lists, batches collated from it every step, and `gc.collect()` called
every 50 steps "to keep memory down": each full collection walks every list the run holds
while the GPU waits. `--freeze`: the twin with the checkup's fix, `gc.freeze()` once the
corpus is built (and the collector's thresholds raised); `--default-thresholds` with it:
frozen, the thresholds left as Python's; `--no-collect`: without the `gc.collect()`
calls."""
import gc
import random
import sys
import time

import torch
import torch.nn as nn


def main():
    random.seed(0)
    torch.manual_seed(0)
    vocab = 50_000
    corpus = torch.randint(0, vocab, (3_000_000, 12)).tolist()  # as a tokenizer's output
    labels = torch.randint(0, 20, (len(corpus),)).tolist()
    if "--freeze" in sys.argv:
        gc.freeze()
        if "--default-thresholds" not in sys.argv:
            gc.set_threshold(50_000, 50, 1000)
    model = nn.ModuleDict({
        "bag": nn.EmbeddingBag(vocab, 512, mode="mean"),
        "mlp": nn.Sequential(nn.Linear(512, 2048), nn.ReLU(), nn.Linear(2048, 2048), nn.ReLU(), nn.Linear(2048, 20)),
    }).cuda()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    end = time.monotonic() + 20
    step = 0
    while time.monotonic() < end or step < 100:
        picks = random.sample(range(len(corpus)), 512)
        tokens = torch.tensor([corpus[i] for i in picks]).cuda(non_blocking=True)
        target = torch.tensor([labels[i] for i in picks]).cuda(non_blocking=True)
        logits = model["mlp"](model["bag"](tokens))
        loss = nn.functional.cross_entropy(logits, target)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if step % 50 == 0 and "--no-collect" not in sys.argv:
            gc.collect()
        if step % 100 == 0:
            print("step", step, "loss", round(loss.item(), 4), flush=True)
        step += 1


if __name__ == "__main__":
    main()
