//! The agent's API from the client side: the same `checkup-model` types the agent serves.

use std::path::{Component, Path, PathBuf};
use std::time::Duration;

use checkup_model::{
    AgentHealth, CheckQuery, CheckReport, GpuProcessList, RunInfo, RunRequest, SamplingRequest,
    StreamEvent,
};
use futures_util::StreamExt;
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::error::{ConnectError, Result};

/// An authenticated client of one agent (reached on loopback, directly or through a tunnel).
#[derive(Clone)]
pub struct AgentClient {
    addr: String,
    token: String,
    http: reqwest::Client,
}

impl std::fmt::Debug for AgentClient {
    // The token stays out of logs.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AgentClient")
            .field("addr", &self.addr)
            .finish_non_exhaustive()
    }
}

#[derive(serde::Deserialize)]
struct Created {
    id: String,
}

impl AgentClient {
    /// `addr` is `host:port` (e.g. `127.0.0.1:7780`).
    pub fn new(addr: &str, token: &str) -> Result<Self> {
        let token = token.trim();
        if token.is_empty() || !token.bytes().all(|b| b.is_ascii_graphic()) {
            return Err(ConnectError::Invalid("the token is empty or has spaces or control characters: paste the agent's token file content".into()));
        }
        let http = reqwest::Client::builder()
            // Loopback only: an HTTP(S)_PROXY in the environment must not capture it.
            .no_proxy()
            .connect_timeout(Duration::from_secs(5))
            // Pooled connections count against the agent's connection cap and its 10 s
            // header timeout: keep them only briefly.
            .pool_idle_timeout(Duration::from_secs(5))
            .build()
            .map_err(|e| ConnectError::Invalid(format!("cannot create an HTTP client: {e}")))?;
        Ok(Self {
            addr: addr.to_owned(),
            token: token.to_owned(),
            http,
        })
    }

    /// The agent's address (`127.0.0.1:PORT`).
    pub fn addr(&self) -> &str {
        &self.addr
    }

    fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    async fn send(&self, req: reqwest::RequestBuilder) -> Result<reqwest::Response> {
        let resp = req.bearer_auth(&self.token).send().await.map_err(|e| {
            ConnectError::AgentUnreachable {
                addr: self.addr.clone(),
                detail: root_cause(&e),
            }
        })?;
        let status = resp.status();
        if status == reqwest::StatusCode::UNAUTHORIZED {
            return Err(ConnectError::Unauthorized);
        }
        if !status.is_success() {
            let body = resp.text().await.unwrap_or_default();
            let message = serde_json::from_str::<serde_json::Value>(&body)
                .ok()
                .and_then(|v| v.get("error").and_then(|m| m.as_str()).map(str::to_owned))
                .unwrap_or(body);
            return Err(ConnectError::Agent {
                status: status.as_u16(),
                message,
            });
        }
        Ok(resp)
    }

    async fn json<T: DeserializeOwned>(
        &self,
        what: &str,
        req: reqwest::RequestBuilder,
    ) -> Result<T> {
        let resp = self.send(req).await?;
        resp.json().await.map_err(|e| ConnectError::Protocol {
            what: what.into(),
            detail: e.to_string(),
        })
    }

    /// The agent's health: its version, its GPUs, and why it has no GPU readings if so.
    pub async fn health(&self) -> Result<AgentHealth> {
        self.json(
            "health",
            self.http
                .get(self.url("/v1/health"))
                .timeout(Duration::from_secs(10)),
        )
        .await
    }

    /// The static environment check (seconds: it asks the training Python for versions), in
    /// `query.python` when given, else the environment the agent finds (in `query.cwd`).
    pub async fn check(&self, query: &CheckQuery) -> Result<CheckReport> {
        self.json(
            "check",
            self.http
                .get(self.url("/v1/check"))
                .query(query)
                .timeout(Duration::from_secs(120)),
        )
        .await
    }

    /// The processes using the host's GPUs now (the recording's, when it plays one back).
    pub async fn gpu_processes(&self) -> Result<GpuProcessList> {
        self.json(
            "gpu processes",
            self.http
                .get(self.url("/v1/gpu-processes"))
                .timeout(Duration::from_secs(20)),
        )
        .await
    }

    /// Starts sampling; returns the sampling run's id.
    pub async fn start_sampling(&self, req: &SamplingRequest) -> Result<String> {
        Ok(self
            .json::<Created>("start sampling", self.post("/v1/sampling", req))
            .await?
            .id)
    }

    /// Stops sampling; returns the run id that was sampled into.
    pub async fn stop_sampling(&self) -> Result<String> {
        let stopped: Created = self
            .json(
                "stop sampling",
                self.http
                    .delete(self.url("/v1/sampling"))
                    .timeout(Duration::from_secs(30)),
            )
            .await?;
        Ok(stopped.id)
    }

    /// Starts a profiled training run; returns its id.
    pub async fn start_run(&self, req: &RunRequest) -> Result<String> {
        Ok(self
            .json::<Created>("start run", self.post("/v1/runs", req))
            .await?
            .id)
    }

    /// Asks the agent to stop the run `id` (its whole process tree); it ends `cancelled`
    /// with what it recorded so far.
    pub async fn cancel_run(&self, id: &str) -> Result<()> {
        let _: Created = self
            .json(
                "cancel run",
                self.http
                    .delete(self.url(&format!("/v1/runs/{id}")))
                    .timeout(Duration::from_secs(10)),
            )
            .await?;
        Ok(())
    }

    /// The runs the agent has recorded or is recording.
    pub async fn runs(&self) -> Result<Vec<RunInfo>> {
        self.json(
            "runs",
            self.http
                .get(self.url("/v1/runs"))
                .timeout(Duration::from_secs(10)),
        )
        .await
    }

    /// One run by id.
    pub async fn run(&self, id: &str) -> Result<RunInfo> {
        self.runs()
            .await?
            .into_iter()
            .find(|r| r.id == id)
            .ok_or_else(|| ConnectError::Agent {
                status: 404,
                message: format!("no run {id} (the agent may have restarted)"),
            })
    }

    /// The files of a run folder, as paths relative to it.
    pub async fn run_files(&self, id: &str) -> Result<Vec<String>> {
        self.json(
            "run files",
            self.http
                .get(self.url(&format!("/v1/runs/{id}/files")))
                .timeout(Duration::from_secs(10)),
        )
        .await
    }

    /// Copies a run folder from the agent into `dest` (created), file by file.
    pub async fn download_run(&self, id: &str, dest: &Path) -> Result<PathBuf> {
        tokio::fs::create_dir_all(dest)
            .await
            .map_err(|e| ConnectError::io(dest, e))?;
        for rel in self.run_files(id).await? {
            let rel_path = Path::new(&rel);
            // The agent lists relative paths; anything else is refused rather than written.
            if rel_path
                .components()
                .any(|c| !matches!(c, Component::Normal(_)))
            {
                return Err(ConnectError::Protocol {
                    what: "run files".into(),
                    detail: format!("unsafe path {rel}"),
                });
            }
            let resp = self
                .send(
                    self.http
                        .get(self.url(&format!("/v1/runs/{id}/files/{rel}")))
                        .timeout(Duration::from_secs(600)),
                )
                .await?;
            let bytes = resp
                .bytes()
                .await
                .map_err(|e| ConnectError::AgentUnreachable {
                    addr: self.addr.clone(),
                    detail: root_cause(&e),
                })?;
            let path = dest.join(rel_path);
            if let Some(dir) = path.parent() {
                tokio::fs::create_dir_all(dir)
                    .await
                    .map_err(|e| ConnectError::io(dir, e))?;
            }
            tokio::fs::write(&path, &bytes)
                .await
                .map_err(|e| ConnectError::io(&path, e))?;
        }
        Ok(dest.to_path_buf())
    }

    fn post(&self, path: &str, body: &impl Serialize) -> reqwest::RequestBuilder {
        self.http
            .post(self.url(path))
            .json(body)
            .timeout(Duration::from_secs(30))
    }

    /// Opens the live sample stream with every event after `since`.
    pub async fn samples(&self, since: u64) -> Result<SampleSubscription> {
        use tokio_tungstenite::tungstenite::client::IntoClientRequest;
        let mut req = format!("ws://{}/v1/samples?since={since}", self.addr)
            .into_client_request()
            .map_err(|e| ConnectError::Invalid(e.to_string()))?;
        let auth = format!("Bearer {}", self.token)
            .parse()
            .map_err(|_| ConnectError::Unauthorized)?;
        req.headers_mut().insert("authorization", auth);
        match tokio_tungstenite::connect_async(req).await {
            Ok((ws, _)) => Ok(SampleSubscription {
                ws,
                last_seq: since,
            }),
            Err(tokio_tungstenite::tungstenite::Error::Http(resp)) if resp.status() == 401 => {
                Err(ConnectError::Unauthorized)
            }
            // The agent answering is not the one that numbered the samples up to `since`.
            Err(tokio_tungstenite::tungstenite::Error::Http(resp)) if resp.status() == 409 => {
                Err(ConnectError::AgentGone(format!(
                    " and was started again: its stream numbers samples anew, so those after {since} are not in it (what the earlier agent sampled is in its run folder)"
                )))
            }
            Err(e) => Err(ConnectError::AgentUnreachable {
                addr: self.addr.clone(),
                detail: e.to_string(),
            }),
        }
    }
}

/// The innermost error message (reqwest wraps the one that says what happened).
fn root_cause(e: &(dyn std::error::Error + 'static)) -> String {
    let mut cur = e;
    while let Some(next) = cur.source() {
        cur = next;
    }
    cur.to_string()
}

type Ws =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// The live sample stream of one connection. When it ends, open a new one with
/// [`SampleSubscription::last_seq`] and nothing is lost.
pub struct SampleSubscription {
    ws: Ws,
    last_seq: u64,
}

impl SampleSubscription {
    /// The next event; `Ok(None)` when the agent closed the stream.
    pub async fn next(&mut self) -> Result<Option<StreamEvent>> {
        use tokio_tungstenite::tungstenite::Message;
        loop {
            match self.ws.next().await {
                None | Some(Ok(Message::Close(_))) => return Ok(None),
                Some(Err(e)) => return Err(ConnectError::AgentGone(format!(" (stream: {e})"))),
                Some(Ok(Message::Text(text))) => {
                    let event: StreamEvent =
                        serde_json::from_str(&text).map_err(|e| ConnectError::Protocol {
                            what: "sample stream".into(),
                            detail: e.to_string(),
                        })?;
                    self.last_seq = event.seq;
                    return Ok(Some(event));
                }
                Some(Ok(_)) => continue,
            }
        }
    }

    /// The sequence number of the last event received.
    pub fn last_seq(&self) -> u64 {
        self.last_seq
    }
}
