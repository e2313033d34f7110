//! Accepting connections: how many at once, how long a request's head may take, and who may
//! ask at all. axum's own `serve` sets no header timeout (hyper disables it without a timer)
//! and no connection cap, so a few dozen half-sent requests from any local user could make
//! the agent's real clients wait; the accept loop here bounds both.

use std::sync::Arc;
use std::time::Duration;

use axum::extract::{Request, State};
use axum::http::{header, StatusCode};
use axum::middleware::Next;
use axum::response::Response;
use axum::Router;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;

/// Connections served at once; the next ones are answered 503 and closed. The app holds a
/// handful (requests, one sample stream); the cap is far above that and far below the
/// usual 1024 open files.
pub const MAX_CONNECTIONS: usize = 256;
/// A request's head must arrive within this once it has begun. Connections left open are
/// bounded by the cap; the app's client drops pooled ones after 5 s (`checkup-connect`).
pub const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);

/// Serves `app` on `listener` until `shutdown` resolves, then until the connections being
/// served have ended (the caller bounds that wait).
pub async fn serve(
    listener: TcpListener,
    app: Router,
    shutdown: impl std::future::Future<Output = ()>,
) {
    let permits = Arc::new(Semaphore::new(MAX_CONNECTIONS));
    let refusals = Arc::new(Semaphore::new(MAX_REFUSALS));
    tokio::pin!(shutdown);
    loop {
        let stream = tokio::select! {
            _ = &mut shutdown => {
                drop(listener);
                let _ = permits.acquire_many(MAX_CONNECTIONS as u32).await;
                return;
            }
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                // Out of file descriptors and the like: back off instead of spinning.
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
        };
        let Ok(permit) = permits.clone().try_acquire_owned() else {
            refuse_busy(stream, &refusals);
            continue;
        };
        let service = TowerToHyperService::new(app.clone());
        tokio::spawn(async move {
            let _permit = permit;
            let _ = stream.set_nodelay(true);
            let _ = hyper::server::conn::http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(HEADER_READ_TIMEOUT)
                .serve_connection(TokioIo::new(stream), service)
                .with_upgrades()
                .await;
        });
    }
}

/// Refusals answered at once; past this a connection over the cap is closed unanswered.
const MAX_REFUSALS: usize = 32;

/// Answers a connection over the cap with a 503 and closes it. What the client sent is read
/// and dropped for up to a second first: closing a socket with unread bytes resets it, and
/// the client would see "connection reset" instead of the answer.
fn refuse_busy(stream: TcpStream, refusals: &Arc<Semaphore>) {
    let Ok(permit) = refusals.clone().try_acquire_owned() else {
        return;
    };
    tokio::spawn(async move {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let _permit = permit;
        let mut stream = stream;
        let body = format!(
            "{{\"error\":\"the agent serves at most {MAX_CONNECTIONS} connections at once; close some and try again\"}}"
        );
        let response = format!(
            "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\ncontent-length: {}\r\nretry-after: 1\r\nconnection: close\r\n\r\n{body}",
            body.len()
        );
        let answer = async {
            stream.write_all(response.as_bytes()).await?;
            stream.shutdown().await?;
            let mut sink = [0u8; 4096];
            while stream.read(&mut sink).await? > 0 {}
            std::io::Result::Ok(())
        };
        let _ = tokio::time::timeout(Duration::from_secs(1), answer).await;
    });
}

/// Who may send a request at all, checked before the token: no web page (a browser sends
/// `Origin` with every cross-origin fetch and WebSocket, and the app's clients never do), and,
/// unless the agent was told to listen for other hosts, only a loopback `Host` (a page that
/// rebinds its DNS name to 127.0.0.1 still sends its own name).
pub async fn local_clients_only(
    State(allow_remote): State<bool>,
    req: Request,
    next: Next,
) -> Response {
    if req.headers().contains_key(header::ORIGIN) {
        return crate::reply::error(
            StatusCode::FORBIDDEN,
            "requests from web pages are refused (the request carried an Origin header)",
        );
    }
    if !allow_remote {
        let host = req
            .headers()
            .get(header::HOST)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("");
        if !is_loopback_host(host) {
            return crate::reply::error(
                StatusCode::MISDIRECTED_REQUEST,
                format!("Host `{host}` is not this machine's loopback address: the agent answers requests to 127.0.0.1, [::1] or localhost only"),
            );
        }
    }
    next.run(req).await
}

/// `127.0.0.1[:port]`, `localhost[:port]`, `[::1][:port]` (any 127.x address).
pub fn is_loopback_host(host: &str) -> bool {
    let name = match host.strip_prefix('[') {
        Some(rest) => match rest.split_once(']') {
            Some((inside, after)) if after.is_empty() || after.starts_with(':') => inside,
            _ => return false,
        },
        None => host.rsplit_once(':').map_or(host, |(h, _)| h),
    };
    name.eq_ignore_ascii_case("localhost")
        || name
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_hosts_pass_with_or_without_a_port_and_other_names_do_not() {
        for ok in [
            "127.0.0.1:4000",
            "127.0.0.1",
            "localhost:80",
            "LOCALHOST",
            "[::1]:9",
            "[::1]",
            "127.3.2.1:1",
        ] {
            assert!(is_loopback_host(ok), "{ok}");
        }
        for bad in [
            "",
            "evil.example:4000",
            "10.0.0.1:4000",
            "[::1",
            "[::1]x",
            "localhost.evil.example",
            "127.0.0.1.nip.io:80",
            "0.0.0.0:80",
        ] {
            assert!(!is_loopback_host(bad), "{bad}");
        }
    }
}
