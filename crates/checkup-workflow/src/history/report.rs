//! A checkup's report: previewed as HTML, exported as PDF, HTML, Markdown or JSON.

use std::path::{Path, PathBuf};

use checkup_model::commands as cmd;
use checkup_model::{Diagnosis, ExportFormat, Language};
use checkup_report::ReportOptions;

use crate::recordings::give_back_freed_heap;
use crate::{Result, Workflow, WorkflowError};

impl Workflow {
    /// The report's content as HTML, for the report step's preview.
    pub async fn report_preview(&self, args: cmd::ReportPreview) -> Result<String> {
        let (_, d) = self.diagnosed(args.id).await?;
        let html = checkup_report::html_body(&d, &options(args.lang));
        drop(d);
        give_back_freed_heap();
        Ok(html)
    }

    /// Writes the report in `format` into the exports folder and answers where.
    pub async fn export_report(&self, args: cmd::ExportReport) -> Result<String> {
        let cmd::ExportReport { id, format, lang } = args;
        let (_, d) = self.diagnosed(id).await?;
        let path = self.exports().join(format!(
            "checkup-{id}-{}.{}",
            lang.code(),
            format.extension()
        ));
        // Typesetting a report of thousands of ranks takes seconds of CPU: off the async
        // runtime, which keeps serving the UI's other commands meanwhile.
        let written = path.clone();
        tokio::task::spawn_blocking(move || write_report(&written, format, &d, &options(lang)))
            .await
            .map_err(|e| WorkflowError::Other(format!("the report export stopped: {e}")))??;
        Ok(path.display().to_string())
    }
}

fn options(language: Language) -> ReportOptions {
    ReportOptions {
        language,
        baseline: None,
    }
}

/// Writes `d`'s report at `path`; Markdown's charts go to `charts/` beside it.
pub fn write_report(
    path: &Path,
    format: ExportFormat,
    d: &Diagnosis,
    opts: &ReportOptions,
) -> Result<()> {
    let folder = path.parent().map_or_else(PathBuf::new, Path::to_path_buf);
    let write = |at: &Path, bytes: &[u8]| {
        std::fs::write(at, bytes)
            .map_err(|e| WorkflowError::Other(format!("{}: {e}", at.display())))
    };
    let make = |dir: &Path| {
        std::fs::create_dir_all(dir)
            .map_err(|e| WorkflowError::Other(format!("{}: {e}", dir.display())))
    };
    make(&folder)?;
    match format {
        ExportFormat::Pdf => write(path, &checkup_report::pdf(d, opts)?),
        ExportFormat::Html => write(path, checkup_report::html(d, opts).as_bytes()),
        ExportFormat::Json => write(path, checkup_report::json(d)?.as_bytes()),
        ExportFormat::Md => {
            let (md, charts) = checkup_report::markdown(d, opts);
            let dir = folder.join("charts");
            make(&dir)?;
            for c in charts {
                write(&dir.join(format!("{}.svg", c.name)), c.svg.as_bytes())?;
            }
            write(path, md.as_bytes())
        }
    }
}
