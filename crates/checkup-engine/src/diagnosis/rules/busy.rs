//! The GPU-busy verdict: compute-bound, or memory-bandwidth-bound when DRAM traffic (GPM) or
//! the kernel mix says the busy time is spent moving bytes.

use checkup_model::{
    Cause, Comparison, ComputeBound, ComputeBoundEvidence, ComputeBoundFix, EvidenceKey as K,
    Finding, FixReach, MemoryBandwidth, MemoryBandwidthEvidence, MemoryBandwidthFix, Severity,
    SharedEvidence, Source, Unit,
};

use crate::diagnosis::{ev, fixes, share_ev, Ctx, Outcome};
use crate::thresholds::confidence;

pub fn rule(cx: &Ctx, _: &[Finding]) -> Outcome {
    finding(cx).into()
}

fn finding(cx: &Ctx) -> Option<Finding> {
    let th = cx.th;
    let (busy, method) = cx.gpu_busy()?;
    // A GPU that hardly works has no compute or bandwidth portrait to give: its idle time is
    // the finding.
    if busy < th.reportable_share {
        return None;
    }
    let compute_share = cx
        .rank
        .and_then(|r| cx.share_of_window(r.gpu.compute_us))
        .unwrap_or(busy);
    let kernels = cx.rank.map(|r| &r.kernels);
    let gemm = kernels.map(|k| k.gemm_conv_time_share);
    let elementwise = kernels.map(|k| k.elementwise_time_share);
    let dram = cx.gpu.and_then(|g| g.dram_bw_mean);
    let tensor = cx.gpu.and_then(|g| g.tensor_active_mean);
    let gemm_dominant = gemm.is_some_and(|s| s >= th.gemm_dominant_share);
    let memory_bound = match dram {
        Some(d) => d >= th.dram_bw_memory_bound_pct,
        None => elementwise.is_some_and(|e| e >= th.elementwise_dominant_share),
    };
    let mut evidence = vec![share_ev(
        K::ComputeBound(ComputeBoundEvidence::StepBusyShare),
        busy,
        Some(th.gpu_busy_high),
        Source::Busy { method },
    )];
    if cx.rank.is_some() {
        evidence.push(share_ev(
            K::ComputeBound(ComputeBoundEvidence::ComputeShare),
            compute_share,
            None,
            cx.rank_source(),
        ));
    }
    if let Some(d) = dram {
        evidence.push(ev(
            K::MemoryBandwidth(MemoryBandwidthEvidence::DramBandwidth),
            d,
            Unit::Percent,
            Some((Comparison::AtLeast, th.dram_bw_memory_bound_pct)),
            Source::GpmSamples,
        ));
    }
    if let Some(t) = tensor {
        evidence.push(ev(
            K::ComputeBound(ComputeBoundEvidence::TensorActive),
            t,
            Unit::Percent,
            None,
            Source::GpmSamples,
        ));
    }
    if let Some(s) = cx.gpu.and_then(|g| g.sm_active_mean) {
        evidence.push(ev(
            K::Shared(SharedEvidence::SmActive),
            s,
            Unit::Percent,
            None,
            Source::GpmSamples,
        ));
    }
    if let Some(g) = gemm {
        evidence.push(share_ev(
            K::ComputeBound(ComputeBoundEvidence::GemmShare),
            g,
            Some(th.gemm_dominant_share),
            cx.rank_source(),
        ));
    }
    if let Some(e) = elementwise {
        evidence.push(share_ev(
            K::MemoryBandwidth(MemoryBandwidthEvidence::ElementwiseShare),
            e,
            Some(th.elementwise_dominant_share),
            cx.rank_source(),
        ));
    }
    let gpu_is_limit = busy >= th.gpu_busy_high;
    let sure = if gpu_is_limit {
        confidence::BUSY_VERDICT
    } else {
        confidence::WEAK_VERDICT
    };
    if memory_bound {
        return Some(Finding {
            gains: Default::default(),
            cause: Cause::MemoryBandwidth(MemoryBandwidth::MemoryTraffic {
                busy_share: busy,
                dram_pct: dram,
                tensor_pct: tensor,
            }),
            severity: if gpu_is_limit {
                Severity::Major
            } else {
                Severity::Minor
            },
            confidence: if dram.is_some() {
                sure
            } else {
                sure * confidence::WITHOUT_GPM_FACTOR
            },
            share: compute_share,
            evidence,
            fixes: fixes::memory_bandwidth(),
        });
    }
    let tensor_cores_idle = gemm_dominant && tensor.is_some_and(|t| t < th.tensor_active_low_pct);
    let conv_heavy =
        kernels.is_some_and(|k| k.top.iter().take(5).any(|t| is_convolution_kernel(&t.name)));
    // Matrix multiplies on the fp32 units: TF32 would move them to the tensor cores.
    let fp32_matmuls = kernels
        .map(|k| compute_share * k.fp32_gemm_time_share)
        .filter(|s| *s >= th.reportable_share)
        .map(|s| {
            let speedup = cx
                .facts
                .gpu_name
                .as_deref()
                .and_then(crate::analysis::gpu_peaks::tf32_over_fp32);
            (s, speedup)
        });
    let fills = deterministic_fills(cx).filter(|f| f.share >= th.setting_fix_share);
    if let Some(f) = &fills {
        evidence.push(ev(
            K::ComputeBound(ComputeBoundEvidence::FillTimePerStep),
            f.ms_per_step,
            Unit::Ms,
            None,
            cx.rank_source(),
        ));
    }
    Some(Finding {
        gains: Default::default(),
        cause: Cause::ComputeBound(ComputeBound::GpuComputes {
            compute_share,
            gpu_is_limit,
            tensor_cores_idle,
        }),
        severity: Severity::Info,
        confidence: sure,
        share: compute_share,
        evidence,
        fixes: fixes::compute_bound(
            fills.map(|f| (f.share, f.per_step)),
            fp32_matmuls,
            tensor_cores_idle,
            conv_heavy,
            &cx.run_settings(),
        ),
    })
}

/// The fill kernels deterministic algorithms add to each step (`torch.empty`'s memory filled
/// before use), as the diagnosed rank's trace timed them.
pub struct DeterministicFills {
    /// Their GPU time per step, ms.
    pub ms_per_step: f64,
    /// That time's share of the unprofiled step: the GPU does this work in every step.
    pub share: f64,
    /// Fill kernels per step.
    pub per_step: f64,
}

/// The fills of a run with deterministic algorithms on that still fills uninitialised
/// memory (torch's default then). Every fill kernel of the steps counts: the trace cannot
/// tell the code's own `zero_()` from the fills of `torch.empty`, so this is the most that
/// turning the fill off removes. None when the setting is off or unknown, or nothing filled.
pub fn deterministic_fills(cx: &Ctx) -> Option<DeterministicFills> {
    let settings = &cx.training?.settings;
    if settings.deterministic_algorithms != Some(true)
        || settings.fill_uninitialized_memory == Some(false)
    {
        return None;
    }
    let kernels = &cx.rank?.kernels;
    let ms_per_step = kernels.us_per_step(kernels.fill_time_share) / 1e3;
    let step_ms = cx
        .timing
        .map(|t| t.mean_step_ms)
        .filter(|ms| *ms > 0.0)
        .or_else(|| cx.rank.map(|r| r.profiled_step_us / 1e3))
        .filter(|ms| *ms > 0.0)?;
    (ms_per_step > 0.0).then(|| DeterministicFills {
        ms_per_step,
        share: (ms_per_step / step_ms).min(1.0),
        per_step: kernels.fills_per_step,
    })
}

/// A convolution's kernel by its name: cuDNN's and CUTLASS's convolution kernels say `conv`,
/// or name the pass of an implicit GEMM (`fprop`, `dgrad`, `wgrad`). cuDNN also runs
/// attention (`sdpa`, `flash`) and normalisation: `cudnn` alone says nothing.
pub fn is_convolution_kernel(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    let attention = n.contains("sdpa") || n.contains("flash") || n.contains("attn");
    !attention
        && (n.contains("conv")
            || n.contains("implicit_gemm")
            || n.contains("dgrad")
            || n.contains("wgrad")
            || n.contains("fprop"))
}

/// What part of `finding`'s lost time a compute fix removes: the GPU's own work is not lost
/// time, but on a GPU that is the limit, TF32 runs the fp32 matrix multiplies at the tensor
/// cores' rate (this GPU's datasheet ratio, as far as training's shapes reach it); the
/// other fixes support the run.
pub fn compute_reach(fix: &ComputeBoundFix, finding: &Finding) -> FixReach {
    let gpu_is_limit = matches!(
        finding.cause,
        Cause::ComputeBound(ComputeBound::GpuComputes {
            gpu_is_limit: true,
            ..
        })
    );
    match fix {
        ComputeBoundFix::AllowTf32 {
            fp32_matmul_share,
            tf32_speedup: Some(speedup),
        } if gpu_is_limit && *speedup > 1.0 => FixReach::FasterMatmuls {
            share: *fp32_matmul_share,
            speedup: (*speedup * crate::analysis::gpu_peaks::TF32_RATIO_REACHED).max(1.0),
        },
        // The fills are GPU work: gone, they shorten a step the GPU sets.
        ComputeBoundFix::SkipUninitializedFill { fill_share, .. } if gpu_is_limit => {
            FixReach::LessGpuWork(*fill_share)
        }
        ComputeBoundFix::AllowTf32 { .. }
        | ComputeBoundFix::SkipUninitializedFill { .. }
        | ComputeBoundFix::TensorCores
        | ComputeBoundFix::Compile
        | ComputeBoundFix::ChannelsLast
        | ComputeBoundFix::FusedOptimizer { .. } => FixReach::Supporting,
    }
}

/// What part of `finding`'s lost time a memory-bandwidth fix removes: each supports the run.
pub fn bandwidth_reach(fix: &MemoryBandwidthFix, _finding: &Finding) -> FixReach {
    match fix {
        MemoryBandwidthFix::FuseElementwise
        | MemoryBandwidthFix::Bf16Activations
        | MemoryBandwidthFix::FusedKernels => FixReach::Supporting,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn convolution_kernels_are_told_from_cudnn_attention() {
        assert!(is_convolution_kernel(
            "sm90_xmma_fprop_implicit_gemm_bf16bf16_bf16f32_f32_nhwckrsc_nhwc_tilesize128x128x64"
        ));
        assert!(is_convolution_kernel(
            "void cudnn::cnn::conv2d_grouped_direct_kernel<float>"
        ));
        assert!(!is_convolution_kernel(
            "cudnn_generated_fort_native_sdpa_sm90_flash_bprop_wgmma_f16_knob_26_64x64x64_1x4x1"
        ));
        assert!(!is_convolution_kernel(
            "nvjet_sm90_tst_192x128_64x5_1x2_h_bz_coopB_NNT"
        ));
    }
}
