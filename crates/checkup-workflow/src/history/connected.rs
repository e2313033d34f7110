//! The connected host, a fleet of one: connect and leave it, start a checkup there with its
//! environment check, check again in another interpreter, list its GPU processes.

use checkup_connect::AgentClient;
use checkup_model::commands as cmd;
use checkup_model::{CheckQuery, GpuProcessList, HostInfo, WizardStep};
use checkup_store::NewCheckup;

use crate::fleet::Fleet;
use crate::{Result, Workflow, WorkflowError};

impl Workflow {
    /// Connects to a GPU host (replacing the current one) and says what it has.
    pub async fn connect_host(&self, args: cmd::ConnectHost) -> Result<HostInfo> {
        let cmd::ConnectHost { request } = args;
        self.leave_host().await;
        let (host, info) = Fleet::one(request, &self.shared.data).await?;
        *self.shared.host.lock().await = Some(host);
        Ok(info)
    }

    pub async fn disconnect_host(&self, args: cmd::DisconnectHost) -> Result<()> {
        let cmd::DisconnectHost {} = args;
        self.leave_host().await;
        Ok(())
    }

    async fn leave_host(&self) {
        let old = self.shared.host.lock().await.take();
        if let Some(old) = old {
            old.close().await;
        }
    }

    /// The connected host's agent client and name.
    pub(crate) async fn host_client(&self) -> Result<(AgentClient, String)> {
        let host = self.shared.host.lock().await;
        host.as_ref()
            .and_then(Fleet::first)
            .ok_or(WorkflowError::NoHost)
    }

    /// A new checkup on the connected host, starting with its environment check.
    pub async fn new_checkup(&self, args: cmd::NewCheckup) -> Result<i64> {
        let cmd::NewCheckup { title, rerun_of } = args;
        let (client, host) = self.host_client().await?;
        let report = client.check(&CheckQuery::default()).await?;
        let title = match title.trim() {
            "" => format!("{host} checkup"),
            given => given.to_owned(),
        };
        let store = self.store();
        let id = store
            .create(&NewCheckup {
                title,
                host,
                source: None,
                is_demo: false,
                rerun_of,
            })
            .await?;
        store.save_environment(id, &report).await?;
        store.set_wizard_step(id, WizardStep::Environment).await?;
        Ok(id)
    }

    /// The environment check again, in the interpreter the user picked (a venv, a conda env).
    pub async fn recheck_environment(&self, args: cmd::RecheckEnvironment) -> Result<()> {
        let cmd::RecheckEnvironment { id, python } = args;
        let (client, _) = self.host_client().await?;
        let query = CheckQuery {
            python: Some(python.trim().to_owned()).filter(|p| !p.is_empty()),
            cwd: None,
        };
        let report = client.check(&query).await?;
        self.store().save_environment(id, &report).await?;
        Ok(())
    }

    /// The processes using the connected host's GPUs now (the PID picker of the sampling step).
    pub async fn list_gpu_processes(&self, args: cmd::ListGpuProcesses) -> Result<GpuProcessList> {
        let cmd::ListGpuProcesses {} = args;
        let (client, _) = self.host_client().await?;
        Ok(client.gpu_processes().await?)
    }
}
