"""How much faster TF32 matrix multiplies run than fp32 ones on this GPU, measured: cuBLAS
GEMMs of training-like shapes timed with CUDA events, TF32 off (the fp32 units) and on
(the tensor cores). The checkup prices "allow TF32" with the GPU's datasheet ratio scaled
by what large GEMMs reach of it here. Prints one JSON line per shape and a summary."""
import json

import torch


def tflops(m, n, k, allow_tf32, reps=20):
    torch.backends.cuda.matmul.allow_tf32 = allow_tf32
    a = torch.randn(m, k, device="cuda")
    b = torch.randn(k, n, device="cuda")
    for _ in range(3):
        a @ b
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(reps):
        a @ b
    end.record()
    end.synchronize()
    seconds = start.elapsed_time(end) / 1e3 / reps
    return 2 * m * n * k / seconds / 1e12


def main():
    shapes = [(4096, 4096, 4096), (8192, 8192, 8192), (12544, 3072, 768), (12544, 768, 3072),
              (49152, 196, 784), (8192, 4096, 1024), (2048, 2048, 2048), (1024, 1024, 1024)]
    ratios = []
    for m, n, k in shapes:
        fp32 = tflops(m, n, k, False)
        tf32 = tflops(m, n, k, True)
        ratios.append(tf32 / fp32)
        print(json.dumps({"m": m, "n": n, "k": k, "fp32_tflops": round(fp32, 1),
                          "tf32_tflops": round(tf32, 1), "ratio": round(tf32 / fp32, 2)}))
    print(json.dumps({"gpu": torch.cuda.get_device_name(), "torch": torch.__version__,
                      "median_ratio": round(sorted(ratios)[len(ratios) // 2], 2)}))


if __name__ == "__main__":
    main()
