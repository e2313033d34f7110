//! The words of each family's findings, one module per family as in `checkup-model`'s
//! `finding/`: a new cause's title and summary, its evidence rows and its fixes go in its
//! family's module (`shared` words what several families quote).

pub mod communication;
pub mod compilation;
pub mod compute_bound;
pub mod data_loading;
pub mod environment;
pub mod gpu_idle;
pub mod h2d_copy;
pub mod host_sync;
pub mod kernel_launch;
pub mod memory;
pub mod memory_bandwidth;
pub mod periodic_stall;
pub mod shared;
pub mod slowdown;
pub mod throttling;
