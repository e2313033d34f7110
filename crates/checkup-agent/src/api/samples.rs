//! `GET /v1/samples?since=N`: the live stream over a WebSocket, resumed after `since`.

use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::Query;
use serde::Deserialize;

use super::state::MAX_STREAM_CLIENTS;
use std::sync::Arc;

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;

use super::AgentState;
use crate::reply::error;

#[derive(Debug, Deserialize)]
pub(super) struct SamplesQuery {
    #[serde(default)]
    since: u64,
}

pub(super) async fn stream(
    State(s): State<Arc<AgentState>>,
    Query(q): Query<SamplesQuery>,
    ws: WebSocketUpgrade,
) -> Response {
    // A number this stream never gave is an earlier agent's: told at once, not left to wait
    // for a sequence this stream reaches minutes later, if ever.
    let last = s.stream.last_seq();
    if q.since > last {
        return error(
            StatusCode::CONFLICT,
            format!("since={} is past this stream's last sample ({last}): the agent was started again and numbers its samples anew; what the earlier agent sampled is in its run folder; open the stream with since=0", q.since),
        );
    }
    let Ok(permit) = s.stream_clients.clone().try_acquire_owned() else {
        return error(
            StatusCode::SERVICE_UNAVAILABLE,
            format!("the agent streams samples to at most {MAX_STREAM_CLIENTS} clients at once; close another stream and try again"),
        );
    };
    ws.on_upgrade(move |socket| async move {
        send_samples(socket, s, q.since).await;
        drop(permit);
    })
}

/// Sends every event after `since`, then each new one as it arrives, as JSON text messages
/// `{"seq": N, "kind": "nvml"|"gpm"|"host", "sample": {...}}`.
async fn send_samples(mut socket: WebSocket, s: Arc<AgentState>, since: u64) {
    let mut last = since;
    loop {
        // Register for wake-ups before reading, so an event pushed in between is not missed.
        let notified = s.stream.notify.notified();
        tokio::pin!(notified);
        notified.as_mut().enable();
        let events = s.stream.since(last, 2000);
        if events.is_empty() {
            tokio::select! {
                _ = &mut notified => continue,
                msg = socket.recv() => match msg {
                    Some(Ok(Message::Close(_))) | None | Some(Err(_)) => return,
                    _ => continue,
                },
            }
        }
        for e in events {
            let Ok(text) = serde_json::to_string(&e) else {
                continue;
            };
            if socket.send(Message::Text(text.into())).await.is_err() {
                return;
            }
            last = e.seq;
        }
    }
}
