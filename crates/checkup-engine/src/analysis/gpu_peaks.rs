//! What a GPU model's datasheet says of its arithmetic rates, where a fix's gain depends on
//! them. Only the dense (no structured sparsity) figures NVIDIA publishes, and only for the
//! models they are known for: an unknown model gets no number, so no gain is promised.

/// One model's peak rates, TFLOPS, dense.
struct Peaks {
    /// The words of the model's name that identify it (`["H100", "PCIe"]`), all present.
    words: &'static [&'static str],
    /// fp32 on the CUDA cores (FFMA).
    fp32: f64,
    /// TF32 on the tensor cores.
    tf32: f64,
}

/// Most specific first: `H100 PCIe` before `H100`.
const PEAKS: &[Peaks] = &[
    Peaks {
        words: &["H100", "PCIe"],
        fp32: 51.2,
        tf32: 378.0,
    },
    Peaks {
        words: &["H100", "NVL"],
        fp32: 60.0,
        tf32: 417.0,
    },
    Peaks {
        words: &["H200", "NVL"],
        fp32: 60.0,
        tf32: 417.0,
    },
    Peaks {
        words: &["H100"],
        fp32: 67.0,
        tf32: 494.7,
    },
    Peaks {
        words: &["H200"],
        fp32: 67.0,
        tf32: 494.7,
    },
    Peaks {
        words: &["GH200"],
        fp32: 67.0,
        tf32: 494.7,
    },
    Peaks {
        words: &["A100"],
        fp32: 19.5,
        tf32: 156.0,
    },
    Peaks {
        words: &["A30"],
        fp32: 10.3,
        tf32: 82.0,
    },
    Peaks {
        words: &["A10"],
        fp32: 31.2,
        tf32: 62.5,
    },
    Peaks {
        words: &["L4"],
        fp32: 30.3,
        tf32: 60.0,
    },
    Peaks {
        words: &["L40S"],
        fp32: 91.6,
        tf32: 183.0,
    },
    Peaks {
        words: &["RTX", "4090"],
        fp32: 82.6,
        tf32: 82.6,
    },
];

/// What training-shaped GEMMs reach of the datasheet's TF32-over-fp32 ratio: on an H100
/// (`lab/gemm_tf32_ratio.py`, 2026-12-06, cuBLAS in torch 2.11) square GEMMs of 2048-8192
/// reach 6.8-7.6× against the datasheet's 7.4×, skinny ones (n = 196, or 1024³) 3.1-3.6×;
/// the median of the eight shapes, 6.81×, is 0.92 of the datasheet's.
pub const TF32_RATIO_REACHED: f64 = 0.92;

/// How many times faster this GPU's tensor cores run TF32 matrix multiplies than its CUDA
/// cores run fp32 ones, at peak; None for a model not in the table. Matched by whole words
/// of the name (`NVIDIA A100-SXM4-80GB`, `NVIDIA H100 80GB HBM3`), so `L40S` is not `L4`.
pub fn tf32_over_fp32(gpu_name: &str) -> Option<f64> {
    let words: Vec<&str> = gpu_name
        .split(|c: char| c.is_whitespace() || c == '-')
        .filter(|w| !w.is_empty())
        .collect();
    PEAKS
        .iter()
        .find(|p| {
            p.words
                .iter()
                .all(|w| words.iter().any(|x| x.eq_ignore_ascii_case(w)))
        })
        .map(|p| p.tf32 / p.fp32)
}

#[cfg(test)]
mod tests {
    use super::tf32_over_fp32;

    #[test]
    fn each_model_gets_its_own_datasheets_ratio_and_an_unknown_one_none() {
        let ratio = |name| tf32_over_fp32(name).map(|r| (r * 10.0).round() / 10.0);
        assert_eq!(ratio("NVIDIA H100 80GB HBM3"), Some(7.4));
        assert_eq!(ratio("NVIDIA H200"), Some(7.4));
        assert_eq!(ratio("NVIDIA H100 PCIe"), Some(7.4));
        assert_eq!(ratio("NVIDIA A100-SXM4-80GB"), Some(8.0));
        assert_eq!(ratio("NVIDIA L4"), Some(2.0));
        assert_eq!(ratio("NVIDIA L40S"), Some(2.0));
        assert_eq!(ratio("NVIDIA GeForce RTX 4090"), Some(1.0));
        assert_eq!(ratio("Tesla V100-SXM2-32GB"), None);
        assert_eq!(ratio("NVIDIA A10G"), None);
    }
}
