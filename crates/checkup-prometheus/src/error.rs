//! What can go wrong reading GPU metrics from Prometheus, each said with what to try.

/// Why metrics could not be read.
#[derive(Debug, thiserror::Error)]
pub enum PrometheusError {
    /// An address that is no HTTP URL.
    #[error("`{url}` is not a Prometheus address: give it with its scheme, http://HOST:9090")]
    BadUrl {
        /// What was given.
        url: String,
    },
    /// The server could not be reached or stopped answering.
    #[error("cannot reach Prometheus at {url}: {message}")]
    Unreachable {
        /// The server.
        url: String,
        /// What the connection said.
        message: String,
    },
    /// Something answered that is not Prometheus's HTTP API.
    #[error("{url} did not answer as Prometheus's HTTP API does (HTTP {status}: {excerpt}): is it the Prometheus server's address, with any path it is served under?")]
    NotPrometheus {
        /// The server.
        url: String,
        /// The HTTP status.
        status: u16,
        /// The start of what it answered.
        excerpt: String,
    },
    /// Prometheus refused the query.
    #[error("Prometheus at {url} refused the query ({kind}): {message}")]
    Refused {
        /// The server.
        url: String,
        /// Prometheus's error type (`bad_data`, `timeout`).
        kind: String,
        /// Its message.
        message: String,
    },
    /// A time or duration that does not read.
    #[error("{what}: {message}")]
    BadTime {
        /// Which argument.
        what: &'static str,
        /// What is wrong with it.
        message: String,
    },
    /// A range that ends before it starts, or is empty.
    #[error("the range from {from} to {to} is empty: --from must come before --to")]
    EmptyRange {
        /// Its start, as given.
        from: String,
        /// Its end, as given.
        to: String,
    },
    /// No DCGM-exporter GPU metrics in the range for the selection.
    #[error("Prometheus at {url} has no DCGM-exporter metrics ({metric}) {selection} between {from} and {to} (UTC): check the time range, the host's name (its Hostname or instance label) and that DCGM-exporter is scraped")]
    NoMetrics {
        /// The server.
        url: String,
        /// The metric looked for.
        metric: &'static str,
        /// The host and GPUs asked for, in words.
        selection: String,
        /// The range's start, RFC 3339.
        from: String,
        /// Its end.
        to: String,
    },
    /// Several hosts' GPUs in the range, and none chosen.
    #[error("the range holds GPUs of {} hosts ({}): choose one with --host", hosts.len(), hosts.join(", "))]
    SeveralHosts {
        /// Their names.
        hosts: Vec<String>,
    },
    /// The host asked for has no GPU metrics, while others do.
    #[error("no GPU metrics from host {host} in the range; hosts that have them: {}", known.join(", "))]
    UnknownHost {
        /// The host asked for.
        host: String,
        /// The hosts there are.
        known: Vec<String>,
    },
    /// GPUs asked for that the host does not have in the range.
    #[error("host {host} has no GPU {missing} in the range (its GPUs: {})", have.iter().map(u32::to_string).collect::<Vec<_>>().join(", "))]
    UnknownGpu {
        /// The host.
        host: String,
        /// The GPU asked for.
        missing: u32,
        /// The GPUs it has.
        have: Vec<u32>,
    },
}
