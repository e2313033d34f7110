//! Fixes: the change to make, why it applies, the code to paste, the effect to expect. Code
//! is the same in every language; its comments are in the reader's.

use checkup_model::{Fix, Language};

use crate::causes;
pub use crate::fix_words::FixText;

/// A fix in words.
pub fn text(f: &Fix, l: Language) -> FixText {
    match f {
        Fix::DataLoading(f) => causes::data_loading::fix(f, l),
        Fix::KernelLaunch(f) => causes::kernel_launch::fix(f, l),
        Fix::HostSync(f) => causes::host_sync::fix(f, l),
        Fix::H2dCopy(f) => causes::h2d_copy::fix(f, l),
        Fix::Communication(f) => causes::communication::fix(f, l),
        Fix::PeriodicStall(f) => causes::periodic_stall::fix(f, l),
        Fix::Throttling(f) => causes::throttling::fix(f, l),
        Fix::ComputeBound(f) => causes::compute_bound::fix(f, l),
        Fix::MemoryBandwidth(f) => causes::memory_bandwidth::fix(f, l),
        Fix::Slowdown(f) => causes::slowdown::fix(f, l),
        Fix::Memory(f) => causes::memory::fix(f, l),
        Fix::Environment(f) => causes::environment::fix(f, l),
        Fix::Compilation(f) => causes::compilation::fix(f, l),
        Fix::Shared(f) => causes::shared::fix(f, l),
    }
}
