//! What a trace is reduced to: steps, classified CPU ranges, runtime calls and GPU work,
//! in compact structs (about 40 bytes per kept event).

use std::path::PathBuf;

/// One rank's trace, reduced to what the analysis reads. Times are microseconds on the
/// trace's own clock.
#[derive(Debug, Clone, Default)]
pub struct Trace {
    /// The file it was read from.
    pub source: PathBuf,
    /// The rank, from `distributedInfo` or the file name.
    pub rank: Option<u32>,
    /// The job's ranks, from `distributedInfo`.
    pub world_size: Option<u32>,
    /// The GPU's name, from `deviceProperties`.
    pub device_name: Option<String>,
    /// Kernel names, indexed by [`GpuOp::name`].
    pub kernel_names: Vec<String>,
    /// CPU-side step ranges, sorted by start: `ProfilerStep#N`, or inferred (`step_marks`).
    pub steps: Vec<StepSpan>,
    /// How step boundaries were found: `ProfilerStep#N`, optimizer steps or the whole trace.
    pub step_marks: checkup_model::StepMarks,
    /// `Optimizer.step#…` ranges: step ends when a trace has no `ProfilerStep#N`.
    pub optimizer_steps: Vec<(f64, f64)>,
    /// The optimizer class of those steps (`Optimizer.step#AdamW.step` → `AdamW`).
    pub optimizer: Option<String>,
    /// CPU ranges the analysis classifies (batch waits, read-backs, checkpoints), sorted by start.
    pub cpu: Vec<CpuSpan>,
    /// CUDA runtime and driver calls, sorted by start.
    pub runtime: Vec<RuntimeCall>,
    /// Kernels, copies and sets, sorted by start.
    pub gpu: Vec<GpuOp>,
    /// CPU operators' names by `External id` (an index into `operator_names`, `u32::MAX`
    /// where no operator had the id): a launch call's `External id` names the operator that
    /// launched it. Kineto numbers operators one after another, so the ids are dense.
    pub operators: Vec<u32>,
    /// Operator names, indexed by [`Trace::operators`].
    pub operator_names: Vec<String>,
    /// `Torch-Compiled Region` ranges.
    pub compiled_regions: u64,
    /// `cudaGraphLaunch` calls.
    pub graph_launches: u64,
}

impl Trace {
    /// The operator that made the launch call `r`, by name.
    pub fn operator_of(&self, r: &RuntimeCall) -> Option<&str> {
        let name = *self.operators.get(r.external? as usize)?;
        self.operator_names.get(name as usize).map(String::as_str)
    }
}

/// One step on the CPU side.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StepSpan {
    /// The step's number (`ProfilerStep#N`, or counted).
    pub number: u64,
    /// Start, µs.
    pub start: f64,
    /// End, µs.
    pub end: f64,
}

/// What a CPU range the analysis reads is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CpuKind {
    /// `enumerate(DataLoader)#...__next__`: the training loop waiting for its batch.
    DataLoader,
    /// `aten::item` / `aten::_local_scalar_dense`: a tensor read back to Python.
    Item,
    /// `torch.save` and friends: a checkpoint being written.
    Checkpoint,
    /// A collective run by the host (`gloo:all_reduce`, `mpi:…`, `ucc:…`): communication
    /// that a CPU backend does while the GPU has nothing of it to show.
    HostCollective,
}

/// A classified CPU range.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CpuSpan {
    /// What it is.
    pub kind: CpuKind,
    /// Start, µs.
    pub start: f64,
    /// End, µs.
    pub end: f64,
}

/// What a CUDA runtime call does, for the host side of the timeline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuntimeKind {
    /// `cudaLaunchKernel` and the like.
    Launch,
    /// A call that blocks the host until GPU work finishes.
    Sync,
    /// `cudaMemcpy*`: blocking when it copies device-to-host into pageable memory.
    Memcpy,
    /// The driver's device memory allocated or freed (`cudaMalloc`, `cudaFree`): what the
    /// caching allocator does when its cache is empty or emptied. `cudaFree` waits for the
    /// whole device first.
    Alloc,
    /// Any other runtime call.
    Other,
}

/// A CUDA runtime or driver call on the host.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RuntimeCall {
    /// What it does.
    pub kind: RuntimeKind,
    /// Start, µs.
    pub start: f64,
    /// End, µs.
    pub end: f64,
    /// Links the call to the GPU work it launched.
    pub correlation: i64,
    /// The `External id` of the CPU operator that made the call.
    pub external: Option<u32>,
}

/// Direction and host memory of a copy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CopyKind {
    /// Host to device from pageable memory (staged, blocking the host).
    HtoDPageable,
    /// Host to device from pinned memory.
    HtoDPinned,
    /// Device to host into pageable memory (`.item()`, `.cpu()`): the host waits for it.
    DtoH,
    /// Device to host into pinned memory (`non_blocking=True`, a CPU collective staging a
    /// GPU tensor): the host goes on while it runs.
    DtoHPinned,
    /// Device to device.
    DtoD,
    /// Peer-to-peer or unrecognised.
    Other,
}

/// What GPU work is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GpuKind {
    /// A kernel that computes.
    Compute,
    /// NCCL kernels (`ncclKernel_*`, `ncclDevKernel_*`).
    Communication,
    /// A copy.
    Memcpy(CopyKind),
    /// A memset.
    Memset,
}

/// One piece of GPU work: a kernel, copy or set.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GpuOp {
    /// What it is.
    pub kind: GpuKind,
    /// Start, µs.
    pub start: f64,
    /// End, µs.
    pub end: f64,
    /// Links it to the runtime call that launched it.
    pub correlation: i64,
    /// Index into [`Trace::kernel_names`]; `u32::MAX` for copies and sets.
    pub name: u32,
    /// Bytes moved, for copies and sets.
    pub bytes: u64,
}

impl GpuOp {
    /// Its duration, µs.
    pub fn dur(&self) -> f64 {
        self.end - self.start
    }
}
