//! A host's GPU metrics from Prometheus kept as a checkup of that host.

use checkup_model::commands as cmd;
use checkup_prometheus::diagnose::TypedRange;
use checkup_prometheus::PrometheusError;
use checkup_store::NewCheckup;

use crate::prometheus::Range;
use crate::recordings::{self, give_back_freed_heap};
use crate::{Result, Workflow, WorkflowError};

impl Workflow {
    /// A host's GPU metrics from Prometheus, diagnosed and kept as a checkup of that host.
    pub async fn open_prometheus(&self, args: cmd::OpenPrometheus) -> Result<i64> {
        let cmd::OpenPrometheus {
            url,
            host,
            gpus,
            from,
            to,
            last,
        } = args;
        let chosen = Some(host.trim().to_owned()).filter(|h| !h.is_empty());
        let (d, start) = tokio::task::spawn_blocking(move || {
            let range = Range {
                url: url.trim(),
                host: chosen,
                gpus,
                times: TypedRange {
                    from: Some(&from),
                    to: Some(&to),
                    last: Some(&last),
                },
                names: ["from", "to", "last"],
            };
            let selection = range.selection()?;
            let d =
                checkup_prometheus::diagnose::diagnose(range.url, &selection, &Default::default())?;
            Ok::<_, PrometheusError>((d, selection.start))
        })
        .await
        .map_err(|e| WorkflowError::Other(format!("reading Prometheus stopped: {e}")))??;
        give_back_freed_heap();
        // The host as the metrics' labels name it (the one chosen, or the only one there).
        let read_from = d.notes.iter().find_map(|n| match n {
            checkup_model::Note::SamplesFromPrometheus { host, .. } => Some(host.clone()),
            _ => None,
        });
        let host = read_from.unwrap_or(host);
        let checkup = NewCheckup {
            title: format!(
                "{host} from Prometheus, {}",
                checkup_prometheus::rfc3339(start)
            ),
            host,
            source: None,
            is_demo: false,
            rerun_of: None,
        };
        recordings::store_diagnosed(self.store(), &checkup, &d).await
    }
}
