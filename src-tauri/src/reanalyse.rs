//! Diagnoses an older version stored (English texts, before typed facts) are replaced by
//! analysing their recording again; the old JSON stays in the database until then, so a
//! checkup whose recording is gone loses nothing and says why it cannot be shown.

use std::path::PathBuf;

use checkup_model::Diagnosis;
use checkup_store::{Store, StoreError};

use crate::AppError;

/// The checkup's diagnosis, analysed again from its recording when an older version stored
/// it.
pub async fn diagnosis(store: &Store, id: i64) -> Result<Option<Diagnosis>, AppError> {
    match store.diagnosis(id).await {
        Err(StoreError::Stale { .. }) => {
            let source = store.summary(id).await?.source.unwrap_or_default();
            renew(store, id, &source).await.map(Some)
        }
        other => Ok(other?),
    }
}

async fn renew(store: &Store, id: i64, source: &str) -> Result<Diagnosis, AppError> {
    let path = PathBuf::from(source);
    if source.is_empty() || !path.exists() {
        return Err(AppError::StaleWithoutRecording {
            id,
            recording: source.to_owned(),
        });
    }
    let d = crate::analyse(path).await?;
    store.save_diagnosis(id, &d).await?;
    Ok(d)
}

/// Renews every stale checkup whose recording is still there; returns how many.
pub async fn stale_checkups(store: &Store) -> usize {
    let stale = match store.stale().await {
        Ok(s) => s,
        Err(e) => {
            eprintln!("the stored checkups could not be listed: {e}");
            return 0;
        }
    };
    let mut renewed = 0;
    for (id, source) in stale {
        match renew(store, id, source.as_deref().unwrap_or_default()).await {
            Ok(_) => renewed += 1,
            // Kept as it is: opening it says why.
            Err(e) => eprintln!("checkup {id}: {e}"),
        }
    }
    renewed
}
