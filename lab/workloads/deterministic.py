"""Runs another lab workload with deterministic algorithms on, as a reproducibility-minded
script sets them before it trains: `python3 deterministic.py [--no-fill] SCRIPT [ARGS...]`.
`torch.use_deterministic_algorithms(True, warn_only=True)` (warn only: an operation without
a deterministic kernel warns instead of stopping the run, as most scripts that set it
choose), the cuBLAS workspace setting it asks for; `--no-fill` also keeps torch from filling
the memory `torch.empty` hands out (`torch.utils.deterministic.fill_uninitialized_memory`)."""
import os
import runpy
import sys

os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")

import torch
import torch.utils.deterministic


def main():
    args = sys.argv[1:]
    no_fill = args[:1] == ["--no-fill"]
    if no_fill:
        args = args[1:]
    if not args:
        sys.exit("usage: deterministic.py [--no-fill] SCRIPT [ARGS...]")
    torch.use_deterministic_algorithms(True, warn_only=True)
    if no_fill:
        torch.utils.deterministic.fill_uninitialized_memory = False
    sys.argv = args
    runpy.run_path(args[0], run_name="__main__")


if __name__ == "__main__":
    main()
