//! What can go wrong in a checkup's work, and how it reaches the UI: a `UiError` whose known
//! kinds the UI words itself.

use checkup_model::ErrorKind;

#[derive(Debug, thiserror::Error)]
pub enum WorkflowError {
    #[cfg(feature = "history")]
    #[error(transparent)]
    Store(#[from] checkup_store::StoreError),
    #[error(transparent)]
    Engine(#[from] checkup_engine::EngineError),
    #[cfg(feature = "history")]
    #[error(transparent)]
    Report(#[from] checkup_report::ReportError),
    #[error(transparent)]
    Connect(#[from] checkup_connect::ConnectError),
    #[error(transparent)]
    Prometheus(#[from] checkup_prometheus::PrometheusError),
    #[error("no GPU host connected: pick this computer, an SSH host or a forwarded agent first")]
    NoHost,
    #[error("no hosts connected together: give several SSH hosts or a Slurm job first")]
    NoFleet,
    /// An older version stored this checkup's diagnosis and its recording is gone.
    #[error("checkup {id} was stored by an older version and its recording {recording} is no longer there: open the recording again")]
    StaleWithoutRecording { id: i64, recording: String },
    /// A live phase (sampling, profiling, a fleet watch) holds the slot.
    #[error("a live phase is already running: stop it first")]
    LiveBusy,
    /// What the user typed or picked does not make sense; the message says what is wrong.
    #[error("{0}")]
    Invalid(String),
    /// A file could not be written or a task stopped; the message names which.
    #[error("{0}")]
    Other(String),
}

pub type Result<T, E = WorkflowError> = std::result::Result<T, E>;

impl From<&WorkflowError> for checkup_model::UiError {
    fn from(e: &WorkflowError) -> Self {
        let parts = match e {
            WorkflowError::Connect(c) => c.parts(),
            WorkflowError::NoHost => Some((ErrorKind::NoHost, String::new(), String::new())),
            WorkflowError::NoFleet => Some((ErrorKind::NoFleet, String::new(), String::new())),
            WorkflowError::StaleWithoutRecording { recording, .. } => {
                Some((ErrorKind::StaleDiagnosis, recording.clone(), String::new()))
            }
            WorkflowError::Prometheus(p) => Some(prometheus_parts(p)),
            WorkflowError::Engine(checkup_engine::EngineError::NoGpuData { path }) => Some((
                ErrorKind::NoGpuData,
                path.display().to_string(),
                String::new(),
            )),
            _ => None,
        };
        match parts {
            Some((code, subject, detail)) => checkup_model::UiError {
                code: Some(code),
                subject,
                detail,
                message: e.to_string(),
            },
            None => checkup_model::UiError::plain(e.to_string()),
        }
    }
}

/// Every Prometheus error by kind, worded by the UI in its language without the CLI's option
/// names; what the server said goes in the detail.
fn prometheus_parts(e: &checkup_prometheus::PrometheusError) -> (ErrorKind, String, String) {
    use checkup_prometheus::PrometheusError as P;
    match e {
        P::SeveralHosts { hosts } => (ErrorKind::PromSeveralHosts, hosts.join(", "), String::new()),
        P::UnknownHost { host, known } => {
            (ErrorKind::PromUnknownHost, host.clone(), known.join(", "))
        }
        P::Unreachable { url, message } => {
            (ErrorKind::PromUnreachable, url.clone(), message.clone())
        }
        P::NoMetrics { url, .. } => (ErrorKind::PromNoMetrics, url.clone(), e.to_string()),
        P::BadTime { what, message } => {
            (ErrorKind::PromBadTime, (*what).to_owned(), message.clone())
        }
        P::EmptyRange { .. } => (ErrorKind::PromEmptyRange, String::new(), e.to_string()),
        P::BadUrl { url } => (ErrorKind::PromBadUrl, url.clone(), String::new()),
        P::NotPrometheus {
            url,
            status,
            excerpt,
        } => (
            ErrorKind::PromNotPrometheus,
            url.clone(),
            format!("HTTP {status}: {excerpt}"),
        ),
        P::Refused { url, kind, message } => (
            ErrorKind::PromRefused,
            url.clone(),
            format!("{kind}: {message}"),
        ),
        P::UnknownGpu { missing, have, .. } => (
            ErrorKind::PromUnknownGpu,
            missing.to_string(),
            have.iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join(", "),
        ),
    }
}

// The app's commands return errors to the UI serialised as a UiError.
impl serde::Serialize for WorkflowError {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        checkup_model::UiError::from(self).serialize(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_prometheus_host_the_server_lacks_reaches_the_ui_as_a_worded_kind_with_the_hosts_it_has() {
        let e = WorkflowError::from(checkup_prometheus::PrometheusError::UnknownHost {
            host: "gpu-box-9".into(),
            known: vec!["gpu-box-7".into(), "gpu-box-8".into()],
        });
        // As a command's error reaches the UI: serialised.
        let ui: checkup_model::UiError =
            serde_json::from_value(serde_json::to_value(&e).unwrap()).unwrap();
        assert_eq!(ui.code, Some(ErrorKind::PromUnknownHost));
        assert_eq!(
            (ui.subject.as_str(), ui.detail.as_str()),
            ("gpu-box-9", "gpu-box-7, gpu-box-8")
        );
        assert_eq!(
            checkup_text::ui::error_words(checkup_model::Language::Zh, &ui).words,
            "Prometheus 在该时间范围内没有 gpu-box-9 的 GPU 指标；有指标的主机：gpu-box-7, gpu-box-8。"
        );
    }
}
