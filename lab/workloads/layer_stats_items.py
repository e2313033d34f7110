"""An encoder transformer (16 layers, d=1024, bf16) with an activation monitor: a forward
hook on every leaf module reads the output's RMS back with .item(), about 110 host
synchronisations spread through each forward pass. The kernels are large; the GPU idles
only because each read-back drains its queue. `--no-readback`: the twin with the checkup's
fix applied as printed: the hook keeps the value on the GPU (`.detach()`) and the loop turns
the values into numbers only every 50th step."""
import sys

import torch
import torch.nn as nn

activation_rms = {}
KEEP_ON_GPU = "--no-readback" in sys.argv


def monitor(name):
    def hook(module, inputs, output):
        if isinstance(output, tuple):
            output = output[0]
        rms = output.float().pow(2).mean().sqrt()
        activation_rms[name] = rms.detach() if KEEP_ON_GPU else rms.item()
    return hook


def main():
    torch.manual_seed(0)
    layer = nn.TransformerEncoderLayer(1024, 16, dim_feedforward=4096, batch_first=True)
    model = nn.TransformerEncoder(layer, num_layers=16, enable_nested_tensor=False).cuda()
    for name, module in model.named_modules():
        if name and not list(module.children()):
            module.register_forward_hook(monitor(name))
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    x = torch.randn(32, 512, 1024, device="cuda")
    for step in range(200):
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = model(x).float().pow(2).mean()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if step % 50 == 0:
            if KEEP_ON_GPU:
                values = torch.stack(list(activation_rms.values())).tolist()
            else:
                values = list(activation_rms.values())
            print("step", step, "layers monitored", len(values), "max rms", max(values), flush=True)


if __name__ == "__main__":
    main()
