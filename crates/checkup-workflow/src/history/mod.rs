//! The workflow with its history: the [`Workflow`] the app's commands call.

pub mod command_line;
pub mod fleet;
pub mod hosts;
pub mod live;
pub mod recordings;

mod checkups;
mod connected;
mod fleet_job;
mod prometheus_checkup;
mod report;
mod watch;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use checkup_model::{FleetProgress, LiveProgress, StoreNotice};
use checkup_store::Store;

pub use fleet::{Fleet, FleetSlot};
pub use live::LiveSlot;

use crate::Result;

/// Where a workflow's progress goes: the app's window, a test's log.
pub trait Events: Send + Sync + 'static {
    /// A live phase (sampling, profiling) progressed, about ten times a second.
    fn live(&self, progress: &LiveProgress);
    /// A fleet watch progressed, about once a second.
    fn fleet(&self, progress: &FleetProgress);
    /// Checkups were added or renewed in the background.
    fn checkups_changed(&self);
}

/// The checkup's state: the history, the connected host (a fleet of one), the fleet, and
/// the live phases in progress. Cheap to clone: clones share it.
#[derive(Clone)]
pub struct Workflow {
    shared: Arc<Shared>,
}

struct Shared {
    store: Store,
    /// How the history database was opened when not as it was.
    store_notice: Option<StoreNotice>,
    /// The app's data folder: recordings downloaded from hosts, exports, the local agent's
    /// state.
    data: PathBuf,
    events: Arc<dyn Events>,
    /// The connected GPU host: a fleet of one.
    host: FleetSlot,
    /// The sampling or profiling phase in progress on it.
    live: LiveSlot,
    /// The hosts connected together, apart from the one host above.
    fleet: FleetSlot,
    /// The fleet watch in progress.
    fleet_watch: LiveSlot,
}

impl Workflow {
    /// Opens the history at `db` (a damaged, read-only or locked file still opens, and
    /// `store_notice` says how) with `data` as the folder for recordings and exports.
    pub async fn open(data: PathBuf, db: &Path, events: Arc<dyn Events>) -> Result<Workflow> {
        let (store, store_notice) = Store::open_or_recover(db).await?;
        Ok(Workflow {
            shared: Arc::new(Shared {
                store,
                store_notice,
                data,
                events,
                host: FleetSlot::default(),
                live: LiveSlot::default(),
                fleet: FleetSlot::default(),
                fleet_watch: LiveSlot::default(),
            }),
        })
    }

    pub fn store(&self) -> &Store {
        &self.shared.store
    }

    pub fn store_notice(&self) -> Option<&StoreNotice> {
        self.shared.store_notice.as_ref()
    }

    /// Where exported reports are written.
    pub fn exports(&self) -> PathBuf {
        self.shared.data.join("exports")
    }

    /// Where runs downloaded from hosts are kept.
    fn recordings(&self) -> PathBuf {
        self.shared.data.join("recordings")
    }

    fn events(&self) -> &dyn Events {
        self.shared.events.as_ref()
    }
}
