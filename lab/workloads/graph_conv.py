"""A graph network (6 message-passing layers: a linear transform, messages gathered along the
edges and summed into each node with `index_add_`, LayerNorm) classifying the nodes of a
random graph of 20,000 nodes and 200,000 edges kept on the GPU, with AdamW. Run as it is its
kernels keep the GPU busy; run under `CUDA_LAUNCH_BLOCKING=1` (a debugging setting left in the
shell), every launch waits for its kernel."""
import torch
import torch.nn as nn


class MessagePassing(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.message = nn.Linear(width, width)
        self.update = nn.Linear(2 * width, width)
        self.norm = nn.LayerNorm(width)

    def forward(self, h, src, dst, inv_degree):
        messages = self.message(h)[src]
        summed = torch.zeros_like(h).index_add_(0, dst, messages) * inv_degree
        return self.norm(h + nn.functional.relu(self.update(torch.cat([h, summed], dim=1))))


def main():
    torch.manual_seed(0)
    nodes, edges, width, classes = 20_000, 200_000, 256, 40
    src = torch.randint(0, nodes, (edges,), device="cuda")
    dst = torch.randint(0, nodes, (edges,), device="cuda")
    degree = torch.zeros(nodes, device="cuda").index_add_(0, dst, torch.ones(edges, device="cuda"))
    inv_degree = (1.0 / degree.clamp(min=1)).unsqueeze(1)
    features = torch.randn(nodes, 128, device="cuda")
    labels = torch.randint(0, classes, (nodes,), device="cuda")
    embed = nn.Linear(128, width).cuda()
    layers = nn.ModuleList([MessagePassing(width) for _ in range(6)]).cuda()
    head = nn.Linear(width, classes).cuda()
    params = [*embed.parameters(), *layers.parameters(), *head.parameters()]
    opt = torch.optim.AdamW(params, lr=1e-3)
    for step in range(1, 1501):
        h = embed(features)
        for layer in layers:
            h = layer(h, src, dst, inv_degree)
        loss = nn.functional.cross_entropy(head(h), labels)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if step % 250 == 0:
            print("step", step, "loss", float(loss), flush=True)


if __name__ == "__main__":
    main()
