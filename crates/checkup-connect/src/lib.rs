//! How the app reaches GPU hosts. Three ways, one client:
//! - [`local`]: "This computer": the bundled `checkup-agent` as a child process on loopback;
//! - [`ssh`]: a host reached with the system OpenSSH client (keys, agents, jump hosts and
//!   host-key checking as the user set them up): the agent is uploaded when missing or
//!   different, started, its port forwarded and its token read over the same connection;
//! - an agent the user forwarded already: `localhost:PORT` and its token ([`AgentClient::new`]).
//!
//! [`gather`] copies a job's run folders from its hosts over SSH, each rank's summary in
//! place of its trace; [`slurm`] asks a cluster's login host where a job ran.
//!
//! [`client`] speaks the agent's API with the shared `checkup-model` types; its live stream
//! resumes from the last sequence number after a reconnect, so no sample is lost.
#![warn(missing_docs)]

pub mod client;
pub mod error;
pub mod gather;
pub mod local;
pub mod slurm;
pub mod ssh;

pub use client::{AgentClient, SampleSubscription};
pub use error::{ConnectError, Result};
pub use local::{bundled_agent, LocalAgent};
pub use ssh::{folder_name, SshAgent, SshHost, SshTarget};
