//! The commands the UI calls. Each is a thin call into the shared crates.

use checkup_model::{CheckupSummary, CheckupView};
use checkup_report::{Language, ReportOptions};
use tauri::State;

use crate::{AppError, AppState};

fn language(lang: &str) -> Language {
    lang.parse().unwrap_or_default()
}

#[tauri::command]
pub async fn list_checkups(state: State<'_, AppState>) -> Result<Vec<CheckupSummary>, AppError> {
    Ok(state.store.list().await?)
}

#[tauri::command]
pub async fn open_checkup(
    state: State<'_, AppState>,
    id: i64,
    lang: String,
) -> Result<CheckupView, AppError> {
    let summary = state
        .store
        .list()
        .await?
        .into_iter()
        .find(|c| c.id == id)
        .ok_or(checkup_store::StoreError::NoSuchCheckup(id))?;
    // The view's texts in the chosen language (findings, evidence, fixes, checks).
    let diagnosis = state
        .store
        .diagnosis(id)
        .await?
        .map(|d| checkup_report::localize(&d, language(&lang)));
    let charts = diagnosis
        .as_ref()
        .map(|d| checkup_report::charts(d, checkup_report::i18n::text(language(&lang))))
        .unwrap_or_default();
    let notes = state.store.notes(id).await?;
    Ok(CheckupView {
        summary,
        diagnosis,
        charts,
        notes,
    })
}

#[tauri::command]
pub async fn set_step(state: State<'_, AppState>, id: i64, step: String) -> Result<(), AppError> {
    Ok(state.store.set_wizard_step(id, &step).await?)
}

/// Writes the report in `format` (pdf, html, md, json) and returns where.
#[tauri::command]
pub async fn export_report(
    state: State<'_, AppState>,
    id: i64,
    format: String,
    lang: String,
) -> Result<String, AppError> {
    let d = state
        .store
        .diagnosis(id)
        .await?
        .ok_or_else(|| AppError::Other(format!("checkup {id} has no diagnosis to export")))?;
    let opts = ReportOptions {
        language: language(&lang),
        baseline: None,
    };
    std::fs::create_dir_all(&state.exports)
        .map_err(|e| AppError::Other(format!("{}: {e}", state.exports.display())))?;
    let path = state.exports.join(format!("checkup-{id}-{lang}.{format}"));
    let write = |bytes: &[u8]| {
        std::fs::write(&path, bytes)
            .map_err(|e| AppError::Other(format!("{}: {e}", path.display())))
    };
    match format.as_str() {
        "pdf" => write(&checkup_report::pdf(&d, &opts)?)?,
        "html" => write(checkup_report::html(&d, &opts).as_bytes())?,
        "json" => write(checkup_report::json(&d)?.as_bytes())?,
        "md" => {
            let (md, charts) = checkup_report::markdown(&d, &opts);
            let dir = state.exports.join("charts");
            std::fs::create_dir_all(&dir)
                .map_err(|e| AppError::Other(format!("{}: {e}", dir.display())))?;
            for c in charts {
                std::fs::write(dir.join(format!("{}.svg", c.name)), c.svg)
                    .map_err(|e| AppError::Other(e.to_string()))?;
            }
            write(md.as_bytes())?
        }
        other => {
            return Err(AppError::Other(format!(
                "unknown export format `{other}`: use pdf, html, md or json"
            )))
        }
    }
    Ok(path.display().to_string())
}
