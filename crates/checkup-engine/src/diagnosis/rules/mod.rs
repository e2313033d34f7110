//! One module per cause. Each exports `rule`, of the shape [`super::Rule`].

pub mod allocator;
pub mod busy;
pub mod communication;
pub mod compilation;
pub mod copies;
pub mod data_loading;
pub mod environment;
pub mod host_memory;
pub mod idle;
pub mod launches;
pub mod memory;
pub mod slowdown;
pub mod stalls;
pub mod sync;
pub mod throttling;

#[cfg(test)]
pub mod test_cx;
