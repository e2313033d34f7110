//! Words for the `compute_bound` family's findings: each cause's title and summary.

use checkup_model::{ComputeBound, Language};

use crate::{pct, Language::*};

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
