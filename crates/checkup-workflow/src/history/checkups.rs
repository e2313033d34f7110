//! The history's commands: list, open, move through the wizard, notes, the baseline,
//! comparisons, a chart zoomed, and recordings opened from disk.

use std::path::{Path, PathBuf};

use checkup_model::commands as cmd;
use checkup_model::{ChartSvg, CheckupSummary, CheckupView, CompareView, StoreNotice};

use crate::recordings::{self, give_back_freed_heap};
use crate::{Result, Workflow, WorkflowError};

impl Workflow {
    /// How the history database was opened when not as it was (the UI says so).
    pub fn store_status(&self, args: cmd::StoreStatus) -> Result<Option<StoreNotice>> {
        let cmd::StoreStatus {} = args;
        Ok(self.store_notice().cloned())
    }

    pub async fn list_checkups(&self, args: cmd::ListCheckups) -> Result<Vec<CheckupSummary>> {
        let cmd::ListCheckups {} = args;
        Ok(self.store().list().await?)
    }

    /// A checkup as the UI shows it: the findings as facts the UI words itself, the charts
    /// drawn here in `lang`.
    pub async fn open_checkup(&self, args: cmd::OpenCheckup) -> Result<CheckupView> {
        let cmd::OpenCheckup { id, lang } = args;
        let store = self.store();
        let diagnosis = recordings::diagnosis(store, id).await?;
        let summary = store.summary(id).await?;
        let charts = diagnosis
            .as_ref()
            .map(|d| checkup_report::charts(d, checkup_text::report::text(lang)))
            .unwrap_or_default();
        // The UI shows the charts drawn above, not their series: a 30-minute run's series are
        // megabytes the web view would only hold on to.
        let diagnosis = diagnosis.map(|mut d| {
            d.charts = Default::default();
            d
        });
        let view = CheckupView {
            summary,
            diagnosis,
            charts,
            notes: store.notes(id).await?,
            environment: store.environment(id).await?,
        };
        // The stored run's series were read back and charted: megabytes for a long run.
        give_back_freed_heap();
        Ok(view)
    }

    pub async fn set_step(&self, args: cmd::SetStep) -> Result<()> {
        Ok(self.store().set_wizard_step(args.id, args.step).await?)
    }

    /// A checkup's chart over time, drawn again for the seconds the user dragged across.
    pub async fn zoom_chart(&self, args: cmd::ZoomChart) -> Result<Option<ChartSvg>> {
        let cmd::ZoomChart {
            id,
            name,
            from,
            to,
            lang,
        } = args;
        let diagnosis = recordings::diagnosis(self.store(), id).await?;
        Ok(diagnosis.and_then(|d| {
            checkup_report::time_chart_window(&d, checkup_text::report::text(lang), name, from, to)
        }))
    }

    pub async fn add_note(&self, args: cmd::AddNote) -> Result<i64> {
        let cmd::AddNote {
            id,
            finding_id,
            author,
            body,
        } = args;
        if body.trim().is_empty() {
            return Err(WorkflowError::Invalid("the note is empty".into()));
        }
        Ok(self
            .store()
            .add_note(id, &finding_id, author.trim(), body.trim())
            .await?)
    }

    pub async fn set_baseline(&self, args: cmd::SetBaseline) -> Result<()> {
        Ok(self.store().set_baseline(args.id).await?)
    }

    /// `before` and `after` side by side: the later run compared with the earlier one's card.
    pub async fn compare_checkups(&self, args: cmd::CompareCheckups) -> Result<CompareView> {
        let cmd::CompareCheckups { before, after } = args;
        let (b, bd) = self.diagnosed(before).await?;
        let (a, ad) = self.diagnosed(after).await?;
        let comparison = checkup_report::compare(
            &checkup_report::BaselineCard::from_diagnosis(&ad),
            &checkup_report::BaselineCard::from_diagnosis(&bd),
        );
        Ok(CompareView {
            before: b,
            after: a,
            comparison,
        })
    }

    /// Checkup `id` with its diagnosis; an error saying so when it has none yet.
    pub(crate) async fn diagnosed(
        &self,
        id: i64,
    ) -> Result<(CheckupSummary, checkup_model::Diagnosis)> {
        let d = recordings::diagnosis(self.store(), id)
            .await?
            .ok_or_else(|| {
                WorkflowError::Invalid(format!(
                    "checkup {id} has no diagnosis yet: sample or profile first, or open a recording"
                ))
            })?;
        Ok((self.store().summary(id).await?, d))
    }

    /// Analyses a run folder, a trace file or a tensorboard_trace_handler folder and keeps
    /// it as a checkup.
    pub async fn open_recording(&self, args: cmd::OpenRecording) -> Result<i64> {
        let path = PathBuf::from(args.path.trim());
        if !path.exists() {
            return Err(WorkflowError::Invalid(format!(
                "{} does not exist",
                path.display()
            )));
        }
        let d = recordings::analyse(path.clone()).await?;
        recordings::store_recording(self.store(), recording_title(&path), &path, &d, false).await
    }
}

/// A recording's name in the history: a file with its folder, since "trace.json.gz" alone
/// says nothing there.
fn recording_title(path: &Path) -> String {
    let name = |p: &Path| p.file_name().map(|n| n.to_string_lossy().into_owned());
    let folder = path
        .is_file()
        .then(|| path.parent().and_then(name))
        .flatten();
    match (name(path), folder) {
        (Some(file), Some(folder)) => format!("{folder}/{file}"),
        (Some(file), None) => file,
        _ => path.display().to_string(),
    }
}
