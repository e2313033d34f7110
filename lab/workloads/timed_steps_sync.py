"""A small decoder language model (6 layers, width 512, bf16 autocast) whose loop times
each step with `torch.cuda.synchronize()` and `time.perf_counter()`, as many scripts do to
print a step time: every step the host waits for the GPU to drain, then the GPU waits for
the host's first launches of the next step. `--no-sync`: the twin, timed with CUDA events
read every 50 steps instead."""
import sys
import time

import torch
import torch.nn as nn


def main():
    torch.manual_seed(0)
    vocab, width = 8192, 512
    embed = nn.Embedding(vocab, width).cuda()
    layer = nn.TransformerEncoderLayer(width, 8, 4 * width, batch_first=True, norm_first=True)
    body = nn.TransformerEncoder(layer, 6, enable_nested_tensor=False).cuda()
    head = nn.Linear(width, vocab).cuda()
    params = list(embed.parameters()) + list(body.parameters()) + list(head.parameters())
    opt = torch.optim.AdamW(params, lr=3e-4)
    tokens = torch.randint(0, vocab, (24, 257), device="cuda")
    mask = nn.Transformer.generate_square_subsequent_mask(256, device="cuda")
    sync = "--no-sync" not in sys.argv
    start_event = torch.cuda.Event(enable_timing=True)
    end_event = torch.cuda.Event(enable_timing=True)
    end = time.monotonic() + 20
    step = 0
    times = []
    while time.monotonic() < end or step < 200:
        t0 = time.perf_counter()
        if not sync and step % 50 == 0:
            start_event.record()
        with torch.autocast("cuda", dtype=torch.bfloat16):
            logits = head(body(embed(tokens[:, :-1]), mask=mask, is_causal=True))
            loss = nn.functional.cross_entropy(logits.reshape(-1, vocab).float(), tokens[:, 1:].reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if sync:
            torch.cuda.synchronize()  # to time the step
            times.append(time.perf_counter() - t0)
        elif step % 50 == 49:
            end_event.record()
            end_event.synchronize()
            times.append(start_event.elapsed_time(end_event) / 50e3)
        if step % 100 == 0 and times:
            print("step", step, "step time %.2f ms" % (1e3 * sum(times) / len(times)), flush=True)
        step += 1


if __name__ == "__main__":
    main()
