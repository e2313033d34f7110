"""Another user's process on the same GPU: it holds GIB GiB of GPU memory (default 40) and
sleeps, the way a forgotten notebook kernel does. Not a training script: started beside one
to record a GPU that is shared."""
import os
import time

import torch

gib = float(os.environ.get("GIB", "40"))
held = torch.empty(int(gib * 2**30), dtype=torch.uint8, device="cuda")
held.fill_(1)
print("holding", gib, "GiB on", torch.cuda.get_device_name(), flush=True)
time.sleep(float(os.environ.get("SECONDS_HELD", "600")))
