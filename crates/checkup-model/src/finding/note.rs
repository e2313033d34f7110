//! Notes: caveats about the inputs or the method a diagnosis carries.

use serde::{Deserialize, Serialize};

/// A caveat about the inputs or the method.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "note")]
pub enum Note {
    /// Every rank of one host of a job is slower than every rank of the others: the host is
    /// the difference (its GPUs, its network, its data), not one rank.
    SlowNode {
        /// The host, as the views name it.
        node: String,
        /// Its ranks.
        ranks: Vec<u32>,
    },
    /// The recording is one job of several hosts, merged from each host's run folder: GPUs
    /// numbered across the job, every time moved onto the clock of rank 0's host.
    JobOnNodes {
        /// The hosts, in node order.
        nodes: Vec<crate::NodeFacts>,
        /// The host whose CPU readings the merged recording keeps.
        host_readings_of: String,
    },
    /// Some ranks' traces stayed on their hosts: what was read of them is what each host
    /// measured (`trace_summary.json`, by this same version).
    TracesSummarisedOnHosts {
        /// The ranks read from summaries.
        ranks: Vec<u32>,
        /// The size of their traces, left on the hosts.
        trace_bytes: u64,
    },
    /// The profiled steps show launch waits the unprofiled steps do not: profiler overhead.
    ProfilerOverheadLaunches {
        /// Launch waits' share of the profiled steps.
        launch_share: f64,
        /// The GPU's busy share at unprofiled speed.
        busy_share: f64,
    },
    /// Files of the run folder that were created but hold nothing yet: the run was stopped
    /// (or is still starting) before anything was written there. Read as no rows.
    EmptyFiles {
        /// The files, relative to the run folder.
        files: Vec<String>,
    },
    /// A rank's trace holds too few whole steps for its shares to mean much.
    FewTraceSteps {
        /// The rank.
        rank: u32,
        /// Whole steps in its trace.
        steps: u32,
    },
    /// GPU samples came from an nvidia-smi query log (no samples_nvml.csv).
    SamplesFromQueryLog {
        /// The log.
        path: String,
    },
    /// GPU samples came from nvidia-smi dmon output, 1 s apart from the run's start.
    SamplesFromDmon {
        /// The output file.
        path: String,
    },
    /// GPU samples came from DCGM-exporter's metrics in Prometheus, scraped `interval_s`
    /// apart: no step timings, no trace, no host samples.
    SamplesFromPrometheus {
        /// The server.
        url: String,
        /// The host read.
        host: String,
        /// The median time between scrapes, seconds.
        interval_s: Option<f64>,
    },
    /// A trace without `ProfilerStep#N` marks: its steps were inferred as `from` says.
    StepsInferred {
        /// The rank.
        rank: u32,
        /// What marked the steps instead.
        from: crate::StepMarks,
    },
}
