//! The app's history in SQLite: checkups with their diagnoses, where the wizard was left,
//! review notes on findings and the project's baseline. One file in the user's data
//! directory, WAL mode, migrations from the workspace's `migrations/`.
#![warn(missing_docs)]

use std::borrow::Cow;
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use checkup_model::{
    CheckReport, CheckupSummary, Diagnosis, Finding, FindingNote, StoreNotice, WizardStep,
    DIAGNOSIS_FORMAT,
};
use serde::de::DeserializeOwned;
use serde::Serialize;
use sqlx::migrate::{Migration, MigrationType, Migrator};
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteQueryResult, SqliteRow,
};
use sqlx::{Row, SqlSafeStr, SqlitePool};

/// What can go wrong with the checkup database, naming the file or the checkup.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The database file cannot be opened (or created).
    #[error("{path}: cannot open the checkup database: {source}")]
    Open {
        /// The database file.
        path: String,
        /// What SQLite said.
        source: sqlx::Error,
    },
    /// A migration in `migrations/` failed on this database.
    #[error("{path}: cannot bring the checkup database up to date: {source}")]
    Migrate {
        /// The database file.
        path: String,
        /// What the migration said.
        source: sqlx::migrate::MigrateError,
    },
    /// A query failed.
    #[error("database: {0}")]
    Query(#[from] sqlx::Error),
    /// No checkup has this id.
    #[error("checkup {0} does not exist")]
    NoSuchCheckup(i64),
    /// A stored JSON column no longer reads.
    #[error("checkup {id}: its stored {what} is unreadable: {source}")]
    Corrupt {
        /// The checkup.
        id: i64,
        /// Which column (`diagnosis`, `environment check`).
        what: &'static str,
        /// What the JSON reader said.
        source: serde_json::Error,
    },
    /// Stored by an older version in a form this one no longer reads: analyse the
    /// recording again (see [`Store::stale`]).
    #[error("checkup {id}: its diagnosis was stored by an older version (format {format}); analyse its recording again")]
    Stale {
        /// The checkup.
        id: i64,
        /// The format it was stored in.
        format: u32,
    },
}

/// A result whose error is the store's.
pub type Result<T, E = StoreError> = std::result::Result<T, E>;

/// What went wrong opening the database, as far as the way out depends on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Trouble {
    /// Not a database, or a damaged one.
    Damaged,
    /// Cannot be written, or written by a newer version (a migration this build lacks).
    ReadOnly {
        newer_version: bool,
    },
    /// Another program holds a lock on it.
    Locked,
    Other,
}

/// SQLite's primary result code of an error, where it has one.
fn sqlite_code(e: &sqlx::Error) -> Option<i64> {
    match e {
        sqlx::Error::Database(d) => d.code()?.parse::<i64>().ok().map(|c| c & 0xff),
        _ => None,
    }
}

fn trouble_of(e: &sqlx::Error) -> Trouble {
    // SQLITE_CORRUPT 11, SQLITE_NOTADB 26, SQLITE_BUSY 5, SQLITE_LOCKED 6, SQLITE_READONLY 8,
    // SQLITE_CANTOPEN 14, SQLITE_PERM 3.
    match sqlite_code(e) {
        Some(11 | 26) => Trouble::Damaged,
        Some(5 | 6) => Trouble::Locked,
        Some(3 | 8 | 14) => Trouble::ReadOnly {
            newer_version: false,
        },
        _ => match e {
            sqlx::Error::Io(io) if io.kind() == std::io::ErrorKind::PermissionDenied => {
                Trouble::ReadOnly {
                    newer_version: false,
                }
            }
            _ => Trouble::Other,
        },
    }
}

/// SQLite's or the system's own words for an error, without the layers around them
/// ("file is not a database", "database is locked"): the notice quotes them in its sentence.
fn brief(e: &sqlx::Error) -> String {
    match e {
        sqlx::Error::Database(d) => d.message().to_owned(),
        sqlx::Error::Io(io) => io.to_string(),
        other => other.to_string(),
    }
}

impl StoreError {
    fn cause_in_brief(&self) -> String {
        use sqlx::migrate::MigrateError;
        match self {
            StoreError::Open { source, .. } => brief(source),
            StoreError::Migrate { source, .. } => match source {
                MigrateError::Execute(e) | MigrateError::ExecuteMigration(e, _) => brief(e),
                other => other.to_string(),
            },
            other => other.to_string(),
        }
    }

    fn trouble(&self) -> Trouble {
        use sqlx::migrate::MigrateError;
        match self {
            StoreError::Open { source, .. } => trouble_of(source),
            StoreError::Migrate { source, .. } => match source {
                MigrateError::Execute(e) | MigrateError::ExecuteMigration(e, _) => trouble_of(e),
                MigrateError::VersionMissing(_) => Trouble::ReadOnly {
                    newer_version: true,
                },
                MigrateError::VersionMismatch(_) => Trouble::ReadOnly {
                    newer_version: false,
                },
                _ => Trouble::Other,
            },
            _ => Trouble::Other,
        }
    }
}

/// Renames a damaged database (and its `-wal` and `-shm` files) to `<name>.damaged-<time>`
/// beside it, and answers the new name.
fn keep_aside(path: &Path) -> std::io::Result<std::path::PathBuf> {
    let stamp = now() as u64;
    let with = |suffix: &str| {
        let mut p = path.as_os_str().to_owned();
        p.push(suffix);
        std::path::PathBuf::from(p)
    };
    let kept = with(&format!(".damaged-{stamp}"));
    std::fs::rename(path, &kept)?;
    for side in ["-wal", "-shm"] {
        if with(side).exists() {
            let _ = std::fs::rename(with(side), with(&format!(".damaged-{stamp}{side}")));
        }
    }
    Ok(kept)
}

/// What a new checkup starts from.
#[derive(Debug, Clone, Default)]
pub struct NewCheckup {
    /// What the list shows it as.
    pub title: String,
    /// Where it was measured: "this computer", an SSH alias, "recording".
    pub host: String,
    /// The recording or trace it was opened from, if any.
    pub source: Option<String>,
    /// One of the demo checkups made from the bundled recordings.
    pub is_demo: bool,
    /// The earlier checkup this one re-runs to check a fix.
    pub rerun_of: Option<i64>,
}

/// The history row's columns, for the list and for one checkup (a macro: sqlx takes only
/// static SQL, which `concat!` keeps).
macro_rules! summary_select {
    () => {
        "SELECT c.id, c.created_at, c.title, c.host, c.source, c.is_demo, c.wizard_step, c.primary_id, c.lead_finding,
                EXISTS (SELECT 1 FROM baseline b WHERE b.checkup_id = c.id) AS is_baseline, c.rerun_of
         FROM checkups c"
    };
}

fn summary_from_row(r: &SqliteRow) -> CheckupSummary {
    CheckupSummary {
        id: r.get(0),
        created_at: r.get(1),
        title: r.get(2),
        host: r.get(3),
        source: r.get(4),
        is_demo: r.get(5),
        // A step name this version does not know (a newer one wrote it) starts over.
        wizard_step: WizardStep::from_key(r.get::<&str, _>(6)).unwrap_or_default(),
        primary: r.get(7),
        // A lead written by another version that this one cannot read is left out of the
        // list's line; the checkup itself says why when opened.
        lead: r
            .get::<Option<String>, _>(8)
            .and_then(|j| serde_json::from_str::<Finding>(&j).ok()),
        is_baseline: r.get(9),
        rerun_of: r.get(10),
    }
}

/// The checkups columns that hold JSON (names are fixed here, never taken from input).
#[derive(Clone, Copy)]
enum JsonColumn {
    Diagnosis,
    Environment,
}

impl JsonColumn {
    fn select(self) -> &'static str {
        match self {
            JsonColumn::Diagnosis => "SELECT diagnosis FROM checkups WHERE id = ?",
            JsonColumn::Environment => "SELECT environment FROM checkups WHERE id = ?",
        }
    }

    fn what(self) -> &'static str {
        match self {
            JsonColumn::Diagnosis => "diagnosis",
            JsonColumn::Environment => "environment check",
        }
    }
}

fn to_json(id: i64, what: &'static str, value: &impl Serialize) -> Result<String> {
    serde_json::to_string(value).map_err(|e| StoreError::Corrupt {
        id,
        what,
        source: e,
    })
}

/// An UPDATE of one checkup found it.
fn updated(id: i64, done: SqliteQueryResult) -> Result<()> {
    if done.rows_affected() == 0 {
        return Err(StoreError::NoSuchCheckup(id));
    }
    Ok(())
}

/// The checkup database: one SQLite file, migrated on open, shared by the app's commands.
#[derive(Clone)]
pub struct Store {
    pool: SqlitePool,
}

fn now() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

/// `(version, description, SQL)` of each migration in `migrations/`, in order (build.rs).
const MIGRATIONS: &[(i64, &str, &str)] = include!(concat!(env!("OUT_DIR"), "/migrations.rs"));

/// The schema's migrations. `Migration::new` checksums each file's SQL as `sqlx::migrate!`
/// did, so a database an earlier build migrated is recognised, and one a newer build
/// migrated further is told apart.
fn migrator() -> Migrator {
    Migrator {
        migrations: MIGRATIONS
            .iter()
            .map(|&(version, description, sql)| {
                Migration::new(
                    version,
                    Cow::Borrowed(description),
                    MigrationType::Simple,
                    sql.into_sql_str(),
                    // sqlx's opt-out of the migration's transaction, kept as it read it.
                    sql.starts_with("-- no-transaction"),
                )
            })
            .collect(),
        ..Migrator::DEFAULT
    }
}

impl Store {
    /// Opens (creating if needed) the database at `path` and applies pending migrations.
    pub async fn open(path: &Path) -> Result<Self> {
        let shown = path.display().to_string();
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| StoreError::Open {
                path: shown.clone(),
                source: sqlx::Error::Io(e),
            })?;
        }
        // The path as a file name, not inside a URL: `?`, `%` and `#` are valid in paths.
        let options = SqliteConnectOptions::new()
            .filename(path)
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            // Another connection's write in progress is waited for, not an error.
            .busy_timeout(std::time::Duration::from_secs(5))
            .foreign_keys(true);
        let pool = SqlitePoolOptions::new()
            .max_connections(4)
            .connect_with(options)
            .await
            .map_err(|e| StoreError::Open {
                path: shown.clone(),
                source: e,
            })?;
        migrator()
            .run(&pool)
            .await
            .map_err(|e| StoreError::Migrate {
                path: shown,
                source: e,
            })?;
        Ok(Self { pool })
    }

    /// [`Store::open`], and where the file cannot be opened as it is, the way out that loses
    /// nothing, said in the notice: a damaged file is kept aside under a new name and a new
    /// history started; a file that cannot be written, or that a newer version wrote, is
    /// opened read-only; a file another program holds locked is left alone and this session
    /// uses a temporary file.
    pub async fn open_or_recover(path: &Path) -> Result<(Self, Option<StoreNotice>)> {
        let err = match Self::open(path).await {
            Ok(store) => return Ok((store, None)),
            Err(e) => e,
        };
        let shown = path.display().to_string();
        let detail = err.cause_in_brief();
        match err.trouble() {
            Trouble::Damaged => {
                let kept = keep_aside(path).map_err(|e| StoreError::Open {
                    path: shown.clone(),
                    source: sqlx::Error::Io(e),
                })?;
                let store = Self::open(path).await?;
                let notice = StoreNotice::StartedAfresh {
                    path: shown,
                    kept_as: kept.display().to_string(),
                    detail,
                };
                Ok((store, Some(notice)))
            }
            Trouble::ReadOnly { newer_version } => match Self::open_read_only(path).await {
                Ok(store) => Ok((
                    store,
                    Some(StoreNotice::ReadOnly {
                        path: shown,
                        newer_version,
                        detail,
                    }),
                )),
                Err(_) => Self::open_temporary(shown, detail).await,
            },
            Trouble::Locked => Self::open_temporary(shown, detail).await,
            Trouble::Other => Err(err),
        }
    }

    /// The database as it is, for reading only: no migrations, nothing written.
    async fn open_read_only(path: &Path) -> Result<Self> {
        let options = SqliteConnectOptions::new().filename(path).read_only(true);
        let pool = SqlitePoolOptions::new()
            .max_connections(2)
            .connect_with(options)
            .await
            .map_err(|e| StoreError::Open {
                path: path.display().to_string(),
                source: e,
            })?;
        // Reading the history is what it is opened for: fail now, not at the first list.
        sqlx::query("SELECT COUNT(*) FROM checkups")
            .fetch_one(&pool)
            .await
            .map_err(|e| StoreError::Open {
                path: path.display().to_string(),
                source: e,
            })?;
        Ok(Self { pool })
    }

    async fn open_temporary(path: String, detail: String) -> Result<(Self, Option<StoreNotice>)> {
        let temporary = std::env::temp_dir().join(format!(
            "gpu-checkup-{}-{}.db",
            std::process::id(),
            now() as u64
        ));
        let store = Self::open(&temporary).await?;
        let notice = StoreNotice::Temporary {
            path,
            temporary: temporary.display().to_string(),
            detail,
        };
        Ok((store, Some(notice)))
    }

    /// SQLite's journal mode (`wal` once opened).
    pub async fn journal_mode(&self) -> Result<String> {
        Ok(sqlx::query("PRAGMA journal_mode")
            .fetch_one(&self.pool)
            .await?
            .get::<String, _>(0))
    }

    /// Stores a new checkup and returns its id.
    pub async fn create(&self, new: &NewCheckup) -> Result<i64> {
        let id = sqlx::query("INSERT INTO checkups (created_at, title, host, source, is_demo, rerun_of) VALUES (?, ?, ?, ?, ?, ?)")
            .bind(now())
            .bind(&new.title)
            .bind(&new.host)
            .bind(&new.source)
            .bind(new.is_demo)
            .bind(new.rerun_of)
            .execute(&self.pool)
            .await?
            .last_insert_rowid();
        Ok(id)
    }

    /// Stores (or replaces) a checkup's diagnosis.
    pub async fn save_diagnosis(&self, id: i64, d: &Diagnosis) -> Result<()> {
        let json = to_json(id, JsonColumn::Diagnosis.what(), d)?;
        let lead = d
            .findings
            .first()
            .map(|f| to_json(id, JsonColumn::Diagnosis.what(), f))
            .transpose()?;
        let done = sqlx::query(
            "UPDATE checkups SET diagnosis = ?, diagnosis_format = ?, primary_id = ?, lead_finding = ?, verdict = NULL WHERE id = ?",
        )
        .bind(json)
        .bind(d.format)
        .bind(&d.primary)
        .bind(lead)
        .bind(id)
        .execute(&self.pool)
        .await?;
        updated(id, done)
    }

    /// The checkup's diagnosis; [`StoreError::Stale`] when an older version stored it.
    pub async fn diagnosis(&self, id: i64) -> Result<Option<Diagnosis>> {
        let format: Option<u32> = sqlx::query(
            "SELECT diagnosis_format FROM checkups WHERE id = ? AND diagnosis IS NOT NULL",
        )
        .bind(id)
        .fetch_optional(&self.pool)
        .await?
        .map(|r| r.get(0));
        match format {
            Some(f) if f < DIAGNOSIS_FORMAT => Err(StoreError::Stale { id, format: f }),
            _ => self.json_column(id, JsonColumn::Diagnosis).await,
        }
    }

    /// Checkups whose diagnosis an older version stored, with the recording each came from:
    /// analysing it again replaces the old diagnosis (whose JSON stays until then).
    pub async fn stale(&self) -> Result<Vec<(i64, Option<String>)>> {
        let rows = sqlx::query(
            "SELECT id, source FROM checkups WHERE diagnosis IS NOT NULL AND diagnosis_format < ? ORDER BY id",
        )
        .bind(DIAGNOSIS_FORMAT)
        .fetch_all(&self.pool)
        .await?;
        Ok(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
    }

    /// Stores (or replaces) a live host's environment check.
    pub async fn save_environment(&self, id: i64, report: &CheckReport) -> Result<()> {
        let json = to_json(id, JsonColumn::Environment.what(), report)?;
        let done = sqlx::query("UPDATE checkups SET environment = ? WHERE id = ?")
            .bind(json)
            .bind(id)
            .execute(&self.pool)
            .await?;
        updated(id, done)
    }

    /// The environment check stored with a checkup, if one ran.
    pub async fn environment(&self, id: i64) -> Result<Option<CheckReport>> {
        self.json_column(id, JsonColumn::Environment).await
    }

    /// A JSON column of one checkup: `None` while empty, an error when unreadable.
    async fn json_column<T: DeserializeOwned>(
        &self,
        id: i64,
        column: JsonColumn,
    ) -> Result<Option<T>> {
        let row = sqlx::query(column.select())
            .bind(id)
            .fetch_optional(&self.pool)
            .await?
            .ok_or(StoreError::NoSuchCheckup(id))?;
        row.get::<Option<String>, _>(0)
            .map(|text| {
                serde_json::from_str(&text).map_err(|e| StoreError::Corrupt {
                    id,
                    what: column.what(),
                    source: e,
                })
            })
            .transpose()
    }

    /// One checkup's history row.
    pub async fn summary(&self, id: i64) -> Result<CheckupSummary> {
        let row = sqlx::query(concat!(summary_select!(), " WHERE c.id = ?"))
            .bind(id)
            .fetch_optional(&self.pool)
            .await?
            .ok_or(StoreError::NoSuchCheckup(id))?;
        Ok(summary_from_row(&row))
    }

    async fn ensure_exists(&self, id: i64) -> Result<()> {
        let exists = sqlx::query("SELECT 1 FROM checkups WHERE id = ?")
            .bind(id)
            .fetch_optional(&self.pool)
            .await?;
        exists.map(|_| ()).ok_or(StoreError::NoSuchCheckup(id))
    }

    /// Where the wizard was left, so the checkup resumes there.
    pub async fn set_wizard_step(&self, id: i64, step: WizardStep) -> Result<()> {
        let done = sqlx::query("UPDATE checkups SET wizard_step = ? WHERE id = ?")
            .bind(step.key())
            .bind(id)
            .execute(&self.pool)
            .await?;
        updated(id, done)
    }

    /// Newest first.
    pub async fn list(&self) -> Result<Vec<CheckupSummary>> {
        let rows = sqlx::query(concat!(
            summary_select!(),
            " ORDER BY c.created_at DESC, c.id DESC"
        ))
        .fetch_all(&self.pool)
        .await?;
        Ok(rows.iter().map(summary_from_row).collect())
    }

    /// Deletes a checkup with its notes; a re-run of it keeps its data and loses the link.
    pub async fn delete(&self, id: i64) -> Result<()> {
        sqlx::query("DELETE FROM checkups WHERE id = ?")
            .bind(id)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Adds a note to a finding of a checkup and returns the note's id.
    pub async fn add_note(
        &self,
        id: i64,
        finding_id: &str,
        author: &str,
        body: &str,
    ) -> Result<i64> {
        self.ensure_exists(id).await?;
        Ok(sqlx::query("INSERT INTO finding_notes (checkup_id, finding_id, author, body, created_at) VALUES (?, ?, ?, ?, ?)")
            .bind(id)
            .bind(finding_id)
            .bind(author)
            .bind(body)
            .bind(now())
            .execute(&self.pool)
            .await?
            .last_insert_rowid())
    }

    /// A checkup's notes, oldest first.
    pub async fn notes(&self, id: i64) -> Result<Vec<FindingNote>> {
        let rows = sqlx::query("SELECT id, finding_id, author, body, created_at FROM finding_notes WHERE checkup_id = ? ORDER BY created_at, id")
            .bind(id)
            .fetch_all(&self.pool)
            .await?;
        Ok(rows
            .into_iter()
            .map(|r| FindingNote {
                id: r.get(0),
                finding_id: r.get(1),
                author: r.get(2),
                body: r.get(3),
                created_at: r.get(4),
            })
            .collect())
    }

    /// Makes a checkup the project's baseline (there is one at most).
    pub async fn set_baseline(&self, id: i64) -> Result<()> {
        self.ensure_exists(id).await?;
        sqlx::query("INSERT INTO baseline (only, checkup_id) VALUES (1, ?) ON CONFLICT (only) DO UPDATE SET checkup_id = excluded.checkup_id")
            .bind(id)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// The project's baseline checkup, if one was set.
    pub async fn baseline(&self) -> Result<Option<i64>> {
        Ok(sqlx::query("SELECT checkup_id FROM baseline")
            .fetch_optional(&self.pool)
            .await?
            .map(|r| r.get(0)))
    }

    /// Closes the database's connections.
    pub async fn close(self) {
        self.pool.close().await;
    }
}
