"""An fp32 encoder transformer whose batch size was raised until it nearly ran out of
memory, the way it is often found by trial: one small step measures the memory a sample
needs, and the batch fills 90 % of what the card has free. The run is close to OOM and its
batch size is set by memory, not by what trains best."""
import torch
import torch.nn as nn


def step(model, opt, batch):
    x = torch.randn(batch, 512, 768, device="cuda")
    loss = model(x).pow(2).mean()
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)


def main():
    torch.backends.cuda.matmul.allow_tf32 = True
    layer = nn.TransformerEncoderLayer(d_model=768, nhead=12, dim_feedforward=3072, batch_first=True)
    model = nn.TransformerEncoder(layer, num_layers=12, enable_nested_tensor=False).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    step(model, opt, 4)
    torch.cuda.synchronize()
    base = torch.cuda.memory_allocated()
    torch.cuda.reset_peak_memory_stats()
    step(model, opt, 8)
    per_sample = (torch.cuda.max_memory_allocated() - base) / 8
    free, total = torch.cuda.mem_get_info()
    batch = int(free * 0.90 / per_sample)
    print("per sample MiB", round(per_sample / 2**20), "batch", batch, "of total GiB", round(total / 2**30), flush=True)
    for i in range(30):
        step(model, opt, batch)
        if i % 10 == 0:
            print("step", i, "reserved GiB", round(torch.cuda.memory_reserved() / 2**30, 1), flush=True)


if __name__ == "__main__":
    main()
