//! What to change for each finding: the change, a snippet, and the effect to expect.

use checkup_model::{DataLoaderSettings, Fix};

fn fix(title: &str, detail: &str, snippet: Option<&str>, effect: &str) -> Fix {
    Fix {
        title: title.into(),
        detail: detail.into(),
        snippet: snippet.map(str::to_owned),
        expected_effect: effect.into(),
    }
}

pub fn data_loading(
    settings: Option<&DataLoaderSettings>,
    host_saturated: bool,
    cores: Option<u32>,
) -> Vec<Fix> {
    let workers_now = settings.and_then(|s| s.num_workers);
    let mut out = Vec::new();
    if host_saturated {
        out.push(fix(
            "Make each sample cheaper to produce (the CPU is already saturated)",
            "Every core is busy, so more DataLoader workers will not help: they would fight for the same cores. Cut the per-sample CPU cost: decode JPEGs on the GPU (torchvision.io.decode_jpeg(device='cuda') or NVIDIA DALI), move augmentation to the GPU, store pre-resized images, or use a faster decoder (pillow-simd).",
            Some("# decode and augment on the GPU instead of in workers\nfrom torchvision.io import decode_jpeg\nimgs = decode_jpeg(list_of_encoded_uint8_tensors, device=\"cuda\")\nimgs = gpu_augment(torch.stack(imgs))  # e.g. torchvision.transforms.v2 on CUDA tensors"),
            "Step time falls toward the GPU's compute time once a batch costs less CPU than a step.",
        ));
        // Workers on every core leave none for the process that launches the kernels.
        if let (Some(w), Some(c)) = (workers_now, cores.filter(|c| *c > 2)) {
            if w + 1 >= c {
                out.push(fix(
                    "Leave two cores to the training loop",
                    &format!("{w} workers on {c} cores compete with the process that runs the training loop: it launches kernels and collates batches late. Two workers fewer give it a core of its own."),
                    Some(&format!(
                        "loader = torch.utils.data.DataLoader(\n    dataset, batch_size=batch_size,\n    num_workers={},          # was {w}: one per core\n    pin_memory=True, persistent_workers=True,\n)",
                        c - 2
                    )),
                    "Kernel launches return to their unloaded speed; batches come at most two workers' share slower until each batch costs less CPU.",
                ));
            }
        }
    } else {
        let suggested = cores
            .map(|c| (c.saturating_sub(2)).clamp(4, 16))
            .unwrap_or(8);
        out.push(fix(
            "Give the DataLoader more worker processes",
            &format!(
                "The host has idle cores{}. Each worker prepares batches in parallel; with enough workers a batch is ready before the GPU asks for it.",
                workers_now.map(|w| format!(" while only {w} worker(s) run")).unwrap_or_default()
            ),
            Some(&format!(
                "loader = torch.utils.data.DataLoader(\n    dataset, batch_size=batch_size, shuffle=True,\n    num_workers={suggested},          # was {}\n    pin_memory=True,\n    persistent_workers=True,\n    prefetch_factor=4,\n)",
                workers_now.map_or("unset".into(), |w| w.to_string())
            )),
            "Data wait per step shrinks roughly in proportion to the worker count until the GPU becomes the limit.",
        ));
    }
    if settings.and_then(|s| s.pin_memory) != Some(true) {
        out.push(fix(
            "Pin host memory and copy asynchronously",
            "pin_memory=True lets batches be copied to the GPU by DMA, overlapped with compute, when moved with non_blocking=True.",
            Some("loader = DataLoader(dataset, ..., pin_memory=True)\nfor x, y in loader:\n    x = x.cuda(non_blocking=True); y = y.cuda(non_blocking=True)"),
            "Removes the synchronous host-to-device copy from the step.",
        ));
    }
    if settings.is_some_and(|s| s.persistent_workers != Some(true)) {
        out.push(fix(
            "Keep workers alive between epochs",
            "persistent_workers=True avoids re-forking workers (and re-opening datasets) every epoch, which shows as a stall at each epoch start.",
            Some("DataLoader(dataset, ..., num_workers=N, persistent_workers=True)"),
            "No stall at epoch boundaries.",
        ));
    }
    out
}

pub fn h2d_copy(pageable: bool) -> Vec<Fix> {
    let mut out = Vec::new();
    if pageable {
        out.push(fix(
            "Copy from pinned memory, asynchronously",
            "Copies from pageable memory are staged through a driver buffer at a fraction of PCIe bandwidth and block both the host and the stream. Pinned (page-locked) memory is copied by DMA at full speed and can overlap with compute.",
            Some("loader = DataLoader(dataset, ..., pin_memory=True)\n# or for tensors you build yourself:\nx = x.pin_memory()\nx = x.to(\"cuda\", non_blocking=True)"),
            "Copy time drops several-fold (pageable copies here run far below pinned bandwidth) and the rest hides behind compute.",
        ));
    }
    out.push(fix(
        "Overlap the next batch's copy with this step's compute",
        "Prefetch the next batch to the GPU on a side stream while the current step runs.",
        Some("copy_stream = torch.cuda.Stream()\nwith torch.cuda.stream(copy_stream):\n    next_x = next_x_cpu.to(\"cuda\", non_blocking=True)\n# ... run the step on x ...\ntorch.cuda.current_stream().wait_stream(copy_stream)\nx = next_x"),
        "The copy disappears from the critical path when it is shorter than a step's compute.",
    ));
    out.push(fix(
        "Send fewer bytes",
        "Copy uint8 images or bf16 tensors and convert on the GPU instead of copying float32.",
        Some("x = x_uint8.to(\"cuda\", non_blocking=True).float().div_(255)  # 4x fewer bytes over PCIe"),
        "Copy time falls with the byte count (4× for uint8 instead of float32).",
    ));
    out
}

/// The host CPU is saturated by processes outside the training: its loop and its workers
/// get CPU time late.
pub fn cpu_contention() -> Vec<Fix> {
    vec![
        fix(
            "Find what else keeps the CPU busy",
            "Processes outside the training hold the host's cores, so the training loop gets CPU time late and so do its kernel launches. List the processes by CPU use and stop, move or limit the ones that are not yours to run here; on a shared host, ask for cores of your own.",
            Some("ps -eo pid,user,pcpu,etime,comm --sort=-pcpu | head -20"),
            "The training and its workers get their CPU time back: launches and batches stop waiting for it.",
        ),
        fix(
            "Give the training cores of its own",
            "Pin the training (and its DataLoader workers) to cores the other load does not use, or lower the other processes' priority.",
            Some("taskset -c 0-7 python train.py            # the training on cores 0-7\nrenice -n 19 -p PID_OF_THE_OTHER_LOAD      # the other load yields"),
            "The training loop is scheduled at once again, however busy the rest of the host is.",
        ),
    ]
}

pub fn kernel_launch() -> Vec<Fix> {
    vec![
        fix(
            "Compile the model to fuse small kernels",
            "torch.compile fuses chains of small elementwise ops into a few kernels; mode=\"reduce-overhead\" also captures CUDA graphs, launching a whole step with one call.",
            Some("model = torch.compile(model, mode=\"reduce-overhead\")"),
            "Kernels per step drop by several times and launch overhead mostly disappears.",
        ),
        fix(
            "Use fused or foreach optimizers",
            "A per-parameter optimizer launches several kernels per parameter tensor; foreach/fused versions update all parameters in a handful of kernels.",
            Some("opt = torch.optim.AdamW(model.parameters(), lr=lr, fused=True)  # or foreach=True"),
            "Optimizer step goes from hundreds of launches to a few.",
        ),
        fix(
            "Give each kernel more work",
            "A larger batch (or gradient accumulation to keep the effective batch) makes each kernel longer, so launch cost becomes a smaller share.",
            Some("# e.g. 4x the batch, same effective optimisation with lr scaling or accumulation\nbatch_size = 4 * batch_size"),
            "Throughput rises nearly linearly with batch size while launch-bound.",
        ),
    ]
}

pub fn host_sync() -> Vec<Fix> {
    vec![
        fix(
            "Stop reading GPU values back every step",
            "loss.item(), .cpu(), .numpy(), print(tensor) and Python conditions on tensors force the host to wait for the GPU, then the GPU waits for the host to launch more work. Accumulate metrics on the GPU and read them every N steps.",
            Some("running_loss += loss.detach()          # stays on the GPU\nif step % 50 == 0:\n    print(running_loss.item() / 50)   # one sync every 50 steps\n    running_loss.zero_()"),
            "The idle gap after each sync disappears; the GPU stays fed.",
        ),
        fix(
            "Compute metrics on the GPU",
            "Build confusion matrices and accuracies with torch ops on CUDA tensors (e.g. torch.bincount) instead of NumPy loops on copied tensors.",
            Some("conf += torch.bincount(target * n_classes + pred, minlength=n_classes**2).view(n_classes, n_classes)"),
            "No host round-trip per step.",
        ),
        fix(
            "Find hidden syncs",
            "torch.cuda.set_sync_debug_mode(\"warn\") prints a warning with a stack trace at every synchronising call.",
            Some("torch.cuda.set_sync_debug_mode(\"warn\")"),
            "Shows exactly which lines synchronise.",
        ),
    ]
}

pub fn communication(p2p_disabled: bool) -> Vec<Fix> {
    let mut out = Vec::new();
    if p2p_disabled {
        out.push(fix(
            "Re-enable NCCL peer-to-peer",
            "NCCL_P2P_DISABLE=1 forces GPU-to-GPU traffic through host memory even though NVLink is present.",
            Some("unset NCCL_P2P_DISABLE\n# check: NCCL_DEBUG=INFO torchrun ... | grep -i 'via P2P'"),
            "All-reduce runs at NVLink speed again, several times faster.",
        ));
    }
    out.extend([
        fix(
            "Communicate less often: accumulate gradients",
            "With gradient accumulation, DDP all-reduces once per N micro-batches; no_sync() skips the all-reduce on the others.",
            Some("for i, (x, y) in enumerate(loader):\n    ctx = model.no_sync() if (i + 1) % accum != 0 else contextlib.nullcontext()\n    with ctx:\n        (loss_fn(model(x), y) / accum).backward()\n    if (i + 1) % accum == 0:\n        opt.step(); opt.zero_grad(set_to_none=True)"),
            "Communication per sample falls by the accumulation factor.",
        ),
        fix(
            "Make each GPU do more work per all-reduce",
            "A larger per-GPU batch keeps the gradient size the same while compute grows, so the all-reduce hides behind more backward work.",
            Some("batch_size_per_gpu = 4 * batch_size_per_gpu"),
            "Exposed communication share drops as compute per step grows.",
        ),
        fix(
            "Send fewer bytes per all-reduce",
            "Compress gradients to bf16 with a DDP communication hook, and let buckets start earlier.",
            Some("from torch.distributed.algorithms.ddp_comm_hooks import default_hooks\nmodel = DDP(model, device_ids=[rank], bucket_cap_mb=50, gradient_as_bucket_view=True)\nmodel.register_comm_hook(None, default_hooks.bf16_compress_hook)"),
            "All-reduce bytes halve (fp32 → bf16); more overlap with backward.",
        ),
    ]);
    out
}

pub fn periodic_stall(checkpoint_seen: bool) -> Vec<Fix> {
    let mut out = vec![fix(
        "Write checkpoints asynchronously",
        if checkpoint_seen {
            "Checkpoint writes were seen while the GPU waited. Save in the background so training continues."
        } else {
            "A stall every N steps is usually a checkpoint, an evaluation pass, logging or an epoch boundary. If it is a checkpoint, save it in the background."
        },
        Some("import torch.distributed.checkpoint as dcp\nfuture = dcp.async_save(model.state_dict(), checkpoint_id=f\"ckpt/step{step}\")\n# or: copy the state_dict to CPU, then torch.save in a thread"),
        "The stall shrinks to the device-to-host copy of the weights.",
    )];
    out.push(fix(
        "Do periodic work less often or off the critical path",
        "Evaluate and log less often, keep DataLoader workers persistent across epochs, and avoid re-creating iterators.",
        Some("DataLoader(..., persistent_workers=True)\nif step % 1000 == 0: evaluate()"),
        "Fewer stalls, each shorter.",
    ));
    out
}

/// For an idle GPU whose cause was not recorded; `tree_cpu` is the training process tree's
/// CPU use (100 = one core).
pub fn gpu_idle(tree_cpu: Option<f64>) -> Vec<Fix> {
    let mut out = vec![fix(
        "Profile a few training steps",
        "A trace and step timings tell waiting for data, launch overhead and synchronisation apart. The agent records both without code changes.",
        Some("checkup-agent run --profile-steps 8 -- python train.py"),
        "The next checkup names the cause and its fix.",
    )];
    // One core's worth of CPU in the training processes (and not much more) is the Python
    // main thread running flat out: launches or per-step work in the main process.
    if tree_cpu.is_some_and(|t| (80.0..150.0).contains(&t)) {
        out.push(fix(
            "Look at the training loop's own CPU work",
            "The training processes keep about one CPU core busy: the main Python thread is running flat out. Data preparation in the main process (num_workers=0), per-step Python work or many small kernel launches are the usual suspects.",
            Some("DataLoader(dataset, num_workers=8, pin_memory=True, persistent_workers=True)"),
            "The GPU gets work as fast as it can take it.",
        ));
    }
    out
}

pub fn throttling(reasons: &[String]) -> Vec<Fix> {
    let thermal = reasons.iter().any(|r| r.contains("thermal"));
    let power = reasons.iter().any(|r| r.contains("power"));
    let mut out = Vec::new();
    if thermal {
        out.push(fix(
            "Cool the GPU",
            "The GPU lowered its clocks to stay within temperature limits: check airflow, fan curves, dust and the datacentre inlet temperature.",
            None,
            "Clocks return to their maximum under load.",
        ));
    }
    if power || !thermal {
        out.push(fix(
            "Check the power limit and power delivery",
            "The GPU held its clocks down to stay within its power limit. Compare the enforced limit to the default (nvidia-smi -q -d POWER); on shared hosts ask the admin. Lower-precision math (bf16) does the same work with less power.",
            Some("nvidia-smi -q -d POWER,PERFORMANCE"),
            "Clocks and throughput return to the card's rating.",
        ));
    }
    out
}

pub fn compute_bound(tensor_cores_idle: bool, conv_heavy: bool) -> Vec<Fix> {
    let mut out = Vec::new();
    if tensor_cores_idle {
        out.push(fix(
            "Use tensor cores: bf16 autocast or TF32",
            "Matrix multiplies run in plain fp32 and the tensor cores sit idle. bf16 autocast (or at least TF32) runs them on tensor cores at many times the fp32 rate.",
            Some("torch.backends.cuda.matmul.allow_tf32 = True\ntorch.backends.cudnn.allow_tf32 = True\nwith torch.autocast(\"cuda\", dtype=torch.bfloat16):\n    loss = loss_fn(model(x), y)"),
            "Matmul-heavy steps get several times faster.",
        ));
    }
    out.push(fix(
        "Compile the model",
        "The GPU is the limit, so the next gains come from doing less work per step: torch.compile fuses elementwise ops into the surrounding kernels.",
        Some("model = torch.compile(model)"),
        "Typically 1.2–2× on training steps.",
    ));
    if conv_heavy {
        out.push(fix(
            "Use channels_last for convolutions",
            "cuDNN's fastest tensor-core convolutions want NHWC.",
            Some("model = model.to(memory_format=torch.channels_last)\nx = x.to(memory_format=torch.channels_last)"),
            "10–30 % faster convolutions in mixed precision.",
        ));
    }
    out.push(fix(
        "Use fused optimizers",
        "Fused optimizer kernels cut the optimizer's share of the step.",
        Some("opt = torch.optim.AdamW(model.parameters(), lr=lr, fused=True)"),
        "Smaller optimizer share of the step.",
    ));
    out
}

pub fn memory_bandwidth() -> Vec<Fix> {
    vec![
        fix(
            "Fuse elementwise chains",
            "Norm, activation and dropout each read and write the whole tensor; torch.compile fuses them so the tensor passes through memory once.",
            Some("model = torch.compile(model)"),
            "Bytes moved per step drop by the fusion factor; often 1.5–3× on such blocks.",
        ),
        fix(
            "Halve the bytes: bf16 activations",
            "Under autocast, activations are stored in bf16: half the DRAM traffic of fp32.",
            Some("with torch.autocast(\"cuda\", dtype=torch.bfloat16):\n    loss = loss_fn(model(x), y)"),
            "Up to 2× on bandwidth-bound kernels.",
        ),
        fix(
            "Use fused kernels for the hot blocks",
            "Fused LayerNorm/RMSNorm, fused bias-GELU, scaled_dot_product_attention (flash attention) avoid materialising intermediates.",
            Some("torch.nn.functional.scaled_dot_product_attention(q, k, v)  # instead of softmax(q @ k.T) @ v"),
            "Fewer passes over memory per layer.",
        ),
    ]
}

pub fn environment(check_fix: Option<&str>) -> Vec<Fix> {
    check_fix
        .map(|f| {
            vec![fix(
                "Fix the environment",
                f,
                None,
                "Removes a slowdown that no code change can fix.",
            )]
        })
        .unwrap_or_default()
}
