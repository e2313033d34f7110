//! Words for the `compute_bound` family's findings: each cause's title and summary, what its
//! evidence rows measure, and its fixes.

use checkup_model::{ComputeBound, ComputeBoundEvidence, ComputeBoundFix, Language};

use crate::fix_words::{pick, t, FixText};
use crate::{fixed, pct, Language::*};

/// A `compute_bound` finding's title.
pub fn title(c: &ComputeBound, l: Language) -> String {
    let (en, zh) = match c {
        ComputeBound::GpuComputes { .. } => (
            "Compute-bound: the GPU is the limit",
            "计算瓶颈：GPU 本身是限制",
        ),
    };
    match l {
        En => en.into(),
        Zh => zh.into(),
    }
}

/// A `compute_bound` finding's summary: what was measured, in a sentence or two.
pub fn summary(c: &ComputeBound, l: Language) -> String {
    match (c, l) {
        (
            ComputeBound::GpuComputes {
                compute_share,
                gpu_is_limit,
                tensor_cores_idle,
            },
            En,
        ) => format!(
            "The GPU computes {}% of each step{}.{}",
            pct(*compute_share),
            if *gpu_is_limit {
                "; the GPU itself is the limit"
            } else {
                ""
            },
            if *tensor_cores_idle {
                " Matrix multiplies do not use the tensor cores, though."
            } else {
                ""
            }
        ),
        (
            ComputeBound::GpuComputes {
                compute_share,
                gpu_is_limit,
                tensor_cores_idle,
            },
            Zh,
        ) => format!(
            "GPU 在每个步骤中有 {}% 的时间在计算{}。{}",
            pct(*compute_share),
            if *gpu_is_limit {
                "；GPU 本身就是限制"
            } else {
                ""
            },
            if *tensor_cores_idle {
                "不过矩阵乘法没有用上张量核。"
            } else {
                ""
            }
        ),
    }
}

/// What a `compute_bound` evidence row measures.
pub fn evidence(k: &ComputeBoundEvidence, l: Language) -> String {
    let (en, zh) = match k {
        ComputeBoundEvidence::StepBusyShare => ("GPU busy share of a step", "GPU 忙碌占步骤比例"),
        ComputeBoundEvidence::ComputeShare => {
            ("compute kernels, share of step", "计算内核占步骤比例")
        }
        ComputeBoundEvidence::TensorActive => ("tensor-core activity (GPM)", "张量核活跃度（GPM）"),
        ComputeBoundEvidence::GemmShare => (
            "matmul/convolution share of kernel time",
            "矩阵乘/卷积占内核时间比例",
        ),
        ComputeBoundEvidence::FillTimePerStep => (
            "fill kernels per step (deterministic algorithms fill new tensors)",
            "每步填充内核时间（确定性算法会填充新张量）",
        ),
    };
    match l {
        En => en.into(),
        Zh => zh.into(),
    }
}

/// A `compute_bound` fix in words.
pub fn fix(f: &ComputeBoundFix, l: Language) -> FixText {
    match (f, l) {
        (
            ComputeBoundFix::AllowTf32 {
                fp32_matmul_share,
                tf32_speedup,
            },
            _,
        ) => t(
            pick(l, "Allow TF32 for fp32 matrix multiplies", "为 fp32 矩阵乘开启 TF32"),
            &match (l, tf32_speedup) {
                (En, Some(x)) => format!("{}% of the step is matrix multiplies on the GPU's fp32 units: TF32 is off for them, PyTorch's default. With TF32 they run on the tensor cores, {}× the fp32 rate on this GPU's datasheet. TF32 keeps fp32's range with a 10-bit mantissa, which training tolerates in most models.", pct(*fp32_matmul_share), fixed(*x, 1)),
                (En, None) => format!("{}% of the step is matrix multiplies on the GPU's fp32 units: TF32 is off for them, PyTorch's default. With TF32 they run on the tensor cores (several times the fp32 rate on data-centre GPUs, about the same on GeForce cards). TF32 keeps fp32's range with a 10-bit mantissa, which training tolerates in most models.", pct(*fp32_matmul_share)),
                (Zh, Some(x)) => format!("步骤中 {}% 的时间是在 GPU 的 fp32 单元上运行的矩阵乘：它们没有开启 TF32（PyTorch 的默认设置）。开启 TF32 后它们在张量核上运行，按该 GPU 规格书是 fp32 速率的 {}×。TF32 保留 fp32 的数值范围、尾数为 10 位，大多数模型的训练都能接受。", pct(*fp32_matmul_share), fixed(*x, 1)),
                (Zh, None) => format!("步骤中 {}% 的时间是在 GPU 的 fp32 单元上运行的矩阵乘：它们没有开启 TF32（PyTorch 的默认设置）。开启 TF32 后它们在张量核上运行（数据中心 GPU 上快数倍，GeForce 显卡上相差不大）。TF32 保留 fp32 的数值范围、尾数为 10 位，大多数模型的训练都能接受。", pct(*fp32_matmul_share)),
            },
            Some(&format!(
                "torch.backends.cuda.matmul.allow_tf32 = True   # {}\ntorch.backends.cudnn.allow_tf32 = True",
                pick(l, "or: torch.set_float32_matmul_precision(\"high\")", "或者：torch.set_float32_matmul_precision(\"high\")")
            )),
            pick(l, "The matrix multiplies' time shrinks by up to the tensor cores' TF32 rate over the fp32 rate.", "矩阵乘的时间最多按张量核 TF32 速率与 fp32 速率之比缩短。"),
        ),
        (
            ComputeBoundFix::SkipUninitializedFill {
                fill_share,
                fills_per_step,
            },
            _,
        ) => t(
            pick(l, "Keep deterministic algorithms, stop filling new tensors", "保留确定性算法，不再填充新张量"),
            &match l {
                En => format!("Deterministic algorithms are on, and with them torch fills every tensor torch.empty hands out (NaN for floats, the largest value for integers), so that code reading memory before writing it gets the same result each run: {} fill kernels a step take {}% of it. Turning the fill off keeps the deterministic algorithms; only a tensor read before it is written would differ between runs, which is a bug the fill makes repeatable, not a result.", fixed(*fills_per_step, 0), pct(*fill_share)),
                Zh => format!("确定性算法已开启，随之 torch 会填充 torch.empty 交出的每个张量（浮点数填 NaN，整数填最大值），使先读后写的代码每次运行结果相同：每步 {} 个填充内核，占步骤的 {}%。关闭填充后确定性算法仍然有效；只有在写入前就被读取的张量会在不同运行间不同，那是填充让其可复现的 bug，而不是结果。", fixed(*fills_per_step, 0), pct(*fill_share)),
            },
            Some("torch.use_deterministic_algorithms(True)\ntorch.utils.deterministic.fill_uninitialized_memory = False"),
            pick(l, "The fill kernels' time leaves the step, less the code's own fills (zero_(), torch.zeros).", "填充内核的时间从步骤中去掉，代码自身的填充（zero_()、torch.zeros）除外。"),
        ),
        (ComputeBoundFix::TensorCores, _) => t(
            pick(l, "Use tensor cores: bf16 autocast or TF32", "使用张量核：bf16 autocast 或 TF32"),
            pick(l, "Matrix multiplies run in plain fp32 and the tensor cores sit idle. bf16 autocast (or at least TF32) runs them on tensor cores at many times the fp32 rate.", "矩阵乘以普通 fp32 运行，张量核闲置。bf16 autocast（至少 TF32）让它们在张量核上以数倍于 fp32 的速度运行。"),
            Some("torch.backends.cuda.matmul.allow_tf32 = True\ntorch.backends.cudnn.allow_tf32 = True\nwith torch.autocast(\"cuda\", dtype=torch.bfloat16):\n    loss = loss_fn(model(x), y)"),
            pick(l, "Matmul-heavy steps get several times faster.", "以矩阵乘为主的步骤快数倍。"),
        ),
        (ComputeBoundFix::Compile, _) => t(
            pick(l, "Compile the model", "编译模型"),
            pick(l, "The GPU is the limit, so the next gains come from doing less work per step: torch.compile fuses elementwise ops into the surrounding kernels.", "GPU 已是瓶颈，下一步的收益来自每步少做工作：torch.compile 把逐元素操作融合进相邻内核。"),
            Some("model = torch.compile(model)"),
            pick(l, "Typically 1.2–2× on training steps.", "训练步骤通常提速 1.2–2 倍。"),
        ),
        (ComputeBoundFix::ChannelsLast, _) => t(
            pick(l, "Use channels_last for convolutions", "卷积使用 channels_last"),
            pick(l, "cuDNN's fastest tensor-core convolutions want NHWC.", "cuDNN 最快的张量核卷积需要 NHWC 布局。"),
            Some("model = model.to(memory_format=torch.channels_last)\nx = x.to(memory_format=torch.channels_last)"),
            pick(l, "10–30 % faster convolutions in mixed precision.", "混合精度下卷积快 10–30%。"),
        ),
        (ComputeBoundFix::FusedOptimizer { class }, _) => t(
            pick(l, "Use fused optimizers", "使用 fused 优化器"),
            pick(l, "Fused optimizer kernels cut the optimizer's share of the step.", "融合的优化器内核降低优化器在步骤中的占比。"),
            Some(&match class.as_deref() {
                Some(c) => format!("opt = torch.optim.{c}(model.parameters(), lr=lr, fused=True)"),
                None => format!(
                    "opt = torch.optim.AdamW(model.parameters(), lr=lr, fused=True)  # {}",
                    pick(l, "keep your optimizer's class", "保留你原来的优化器类")
                ),
            }),
            pick(l, "Smaller optimizer share of the step.", "优化器占比下降。"),
        ),
    }
}
