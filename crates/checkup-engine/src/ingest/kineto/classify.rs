//! What a kernel, copy, runtime call or CPU range is, by its name.

use super::types::{CopyKind, CpuKind, RuntimeKind};

/// Whether a kernel name is an NCCL kernel.
pub fn is_nccl_kernel(name: &str) -> bool {
    // One search for what all three share: most kernels are not NCCL's.
    name.contains("nccl")
        && (name.starts_with("nccl")
            || name.contains("ncclKernel")
            || name.contains("ncclDevKernel"))
}

pub(super) fn copy_kind(name: &str) -> CopyKind {
    if name.contains("HtoD") {
        if name.contains("Pageable") {
            CopyKind::HtoDPageable
        } else {
            CopyKind::HtoDPinned
        }
    } else if name.contains("DtoH") {
        if name.contains("Pinned") {
            CopyKind::DtoHPinned
        } else {
            CopyKind::DtoH
        }
    } else if name.contains("DtoD") || name.contains("PtoP") {
        CopyKind::DtoD
    } else {
        CopyKind::Other
    }
}

pub(super) fn runtime_kind(name: &str) -> RuntimeKind {
    // Most runtime calls are these launches: named before any search.
    if matches!(
        name,
        "cudaLaunchKernel" | "cuLaunchKernel" | "cudaLaunchKernelExC" | "cuLaunchKernelEx"
    ) {
        return RuntimeKind::Launch;
    }
    if name.contains("Synchronize")
        || name == "cudaMemcpy"
        || name == "cuMemcpyDtoH_v2"
        || name == "cudaMemcpy2D"
    {
        RuntimeKind::Sync
    } else if matches!(
        name,
        "cudaMalloc" | "cudaFree" | "cuMemAlloc_v2" | "cuMemFree_v2"
    ) {
        RuntimeKind::Alloc
    } else if name.contains("Launch") {
        RuntimeKind::Launch
    } else if name.contains("Memcpy") {
        RuntimeKind::Memcpy
    } else {
        RuntimeKind::Other
    }
}

/// How torch.compile names the ranges of code it runs (`Torch-Compiled Region: 0/0`).
pub(super) const COMPILED_REGION: &str = "Torch-Compiled Region";

/// How the CPU backends of torch.distributed name their collectives (`gloo:all_reduce`).
pub(super) const HOST_COLLECTIVES: [&str; 3] = ["gloo:", "mpi:", "ucc:"];

pub(super) fn cpu_kind(name: &str) -> Option<CpuKind> {
    if name.starts_with("enumerate(DataLoader)") {
        Some(CpuKind::DataLoader)
    } else if name == "aten::item" || name == "aten::_local_scalar_dense" {
        Some(CpuKind::Item)
    } else if name == "torch.save"
        || name.contains("serialization.py") && name.contains("save")
        || name.contains("save_checkpoint")
        || name.contains("distributed/checkpoint") && name.contains("save")
    {
        Some(CpuKind::Checkpoint)
    } else if HOST_COLLECTIVES.iter().any(|p| name.starts_with(p)) {
        Some(CpuKind::HostCollective)
    } else {
        None
    }
}
