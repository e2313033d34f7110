"""A character-level review classifier whose batches are encoded in the training loop: each
step maps 256 raw reviews of about 300 characters to ids through a Python dict, pads them and
builds the tensor, a few milliseconds of Python that launches nothing while the GPU, whose
share of the step is small, waits. `--in-workers`: the twin with the checkup's fix applied
(the host's work taken out of the step), the same encoding in a DataLoader's collate
function, four persistent workers, pinned batches; `--workers N`: N workers instead (14, the
fix the checkup prints for four); `--batch N`: N reviews a batch instead of 256."""
import random
import string
import sys
import time

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

ALPHABET = string.ascii_letters + string.digits + string.punctuation + " "
IDS = {c: i + 1 for i, c in enumerate(ALPHABET)}  # 0 pads
LENGTH = 320
BATCH = int(sys.argv[sys.argv.index("--batch") + 1]) if "--batch" in sys.argv else 256


def make_reviews(n):
    rng = random.Random(0)
    words = ["".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(2, 9))) for _ in range(5000)]
    reviews = []
    for _ in range(n):
        text = " ".join(rng.choice(words) for _ in range(rng.randint(30, 60)))
        reviews.append((text[:LENGTH].capitalize() + rng.choice(".!?"), rng.randint(0, 4)))
    return reviews


def encode(batch):
    """Characters to ids, padded to the longest review: per character, a dict lookup."""
    width = max(len(text) for text, _ in batch)
    ids = [[IDS.get(c, 0) for c in text] + [0] * (width - len(text)) for text, _ in batch]
    return torch.tensor(ids), torch.tensor([label for _, label in batch])


class Reviews(Dataset):
    def __init__(self, reviews):
        self.reviews = reviews

    def __len__(self):
        return len(self.reviews)

    def __getitem__(self, i):
        return self.reviews[i]


def model():
    return nn.Sequential(
        nn.Embedding(len(ALPHABET) + 1, 128, padding_idx=0),
        Transpose(),
        nn.Conv1d(128, 256, 5, padding=2), nn.ReLU(),
        nn.Conv1d(256, 256, 5, padding=2), nn.ReLU(),
        nn.AdaptiveMaxPool1d(1), nn.Flatten(),
        nn.Linear(256, 5),
    ).cuda()


class Transpose(nn.Module):
    def forward(self, x):
        return x.transpose(1, 2)


def batches_in_loop(reviews, rng):
    while True:
        yield encode(rng.sample(reviews, BATCH))


def batches_from_workers(reviews, workers):
    loader = DataLoader(Reviews(reviews), batch_size=BATCH, shuffle=True, drop_last=True,
                        collate_fn=encode, num_workers=workers, pin_memory=True,
                        persistent_workers=True)
    while True:
        yield from loader


def main():
    torch.manual_seed(0)
    rng = random.Random(1)
    reviews = make_reviews(50_000)
    net = model()
    opt = torch.optim.AdamW(net.parameters(), lr=1e-3)
    workers = int(sys.argv[sys.argv.index("--workers") + 1]) if "--workers" in sys.argv else 4
    batches = batches_from_workers(reviews, workers) if "--in-workers" in sys.argv else batches_in_loop(reviews, rng)
    end = time.monotonic() + 20
    step = 0
    for x, y in batches:
        x, y = x.cuda(non_blocking=True), y.cuda(non_blocking=True)
        loss = nn.functional.cross_entropy(net(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if step % 200 == 0:
            print("step", step, "loss", round(loss.item(), 4), flush=True)
        step += 1
        if time.monotonic() > end and step >= 200:
            break


if __name__ == "__main__":
    main()
