//! Accepting connections: how many at once, how long a request's head may take, who may
//! ask at all, and who keeps a place when others flood the port. axum's own `serve` sets no
//! header timeout (hyper disables it without a timer) and no connection cap; a cap alone
//! lets any local user who opens and reopens enough idle connections lock every real client
//! out. Here a connection is *unproven* until one of its requests carries the token: at most
//! [`MAX_UNPROVEN`] of them are held, and a new connection takes the place of the oldest
//! unproven one of the peer that holds the most, so a flood of idle or slow connections
//! only ever displaces itself, and connections that showed the token keep theirs. Over
//! loopback every address is 127.0.0.1 (an SSH tunnel and another local user alike), so
//! there a peer is the local user that owns the other end ([`crate::peer_user`]): one
//! user's flood displaces that user's own connections, never another's.

use std::collections::VecDeque;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::{Request, State};
use axum::http::{header, StatusCode};
use axum::middleware::Next;
use axum::response::Response;
use axum::Router;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Notify, Semaphore};

/// Connections served at once; past it a new one takes an unproven one's place, or is
/// answered 503 when every one has shown the token. The app holds a handful (requests, one
/// sample stream); the cap is far above that and far below the usual 1024 open files.
pub const MAX_CONNECTIONS: usize = 256;
/// Connections held that have not yet shown the token: half the cap, so that those that
/// have always keep the other half.
pub const MAX_UNPROVEN: usize = MAX_CONNECTIONS / 2;
/// A request's head must arrive within this once it has begun. Connections left open are
/// bounded by the cap; the app's client drops pooled ones after 5 s (`checkup-connect`).
pub const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);

/// Where a connection stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Standing {
    /// No request of its has carried the token yet.
    Unproven,
    /// One of its requests carried the token: it keeps its place.
    Proven,
    /// Its place went to a newer connection; it is being closed.
    Displaced,
}

/// Who is at the other end of a connection, as far as this host can tell: the address, and
/// over loopback the local user that owns the other socket.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Peer {
    ip: IpAddr,
    uid: Option<u32>,
}

impl Peer {
    /// The peer of a connection accepted on `local` from `remote`.
    pub fn of(local: Option<SocketAddr>, remote: SocketAddr) -> Peer {
        let uid = local
            .filter(|_| remote.ip().is_loopback())
            .and_then(|local| crate::peer_user::peer_uid(local, remote));
        Peer {
            ip: remote.ip(),
            uid,
        }
    }
}

/// One held connection's place.
struct Place {
    id: u64,
    peer: Peer,
    standing: Standing,
    /// Told when the place is taken from it.
    displaced: Arc<Notify>,
}

/// The connections held, under one lock: every change of standing happens here.
#[derive(Default)]
struct Places {
    next_id: u64,
    /// Every held connection, unproven ones oldest first among them.
    held: VecDeque<Place>,
}

impl Places {
    fn count(&self, standing: Standing) -> usize {
        self.held.iter().filter(|p| p.standing == standing).count()
    }

    /// A place for a connection from `peer`, taking the oldest unproven connection's place
    /// of the peer holding the most unproven ones when the unproven or all places are
    /// full; None when every place is proven.
    fn admit(&mut self, peer: Peer) -> Option<(u64, Arc<Notify>)> {
        let unproven = self.count(Standing::Unproven);
        if unproven >= MAX_UNPROVEN || self.held.len() >= MAX_CONNECTIONS {
            let greediest = self
                .held
                .iter()
                .filter(|p| p.standing == Standing::Unproven)
                .map(|p| p.peer)
                .max_by_key(|peer| {
                    self.held
                        .iter()
                        .filter(|p| p.standing == Standing::Unproven && p.peer == *peer)
                        .count()
                })?;
            let i = self
                .held
                .iter()
                .position(|p| p.standing == Standing::Unproven && p.peer == greediest)?;
            let mut gone = self.held.remove(i)?;
            gone.standing = Standing::Displaced;
            gone.displaced.notify_one();
        }
        self.next_id += 1;
        let displaced = Arc::new(Notify::new());
        self.held.push_back(Place {
            id: self.next_id,
            peer,
            standing: Standing::Unproven,
            displaced: displaced.clone(),
        });
        Some((self.next_id, displaced))
    }

    /// The connection showed the token: it keeps its place from now on.
    fn prove(&mut self, id: u64) {
        if let Some(p) = self.held.iter_mut().find(|p| p.id == id) {
            p.standing = Standing::Proven;
        }
    }

    /// The connection ended: its place is free (a displaced one's already is).
    fn leave(&mut self, id: u64) {
        self.held.retain(|p| p.id != id);
    }
}

/// Locks `places`; a panic elsewhere while holding it leaves nothing half-changed that
/// matters more than serving on.
fn lock(places: &Mutex<Places>) -> std::sync::MutexGuard<'_, Places> {
    places.lock().unwrap_or_else(|e| e.into_inner())
}

/// Serves `app` on `listener` until `shutdown` resolves, then until the connections being
/// served have ended (the caller bounds that wait). `token` is the bearer token that proves
/// a connection.
pub async fn serve(
    listener: TcpListener,
    app: Router,
    token: Arc<str>,
    shutdown: impl std::future::Future<Output = ()>,
) {
    let places = Arc::new(Mutex::new(Places::default()));
    let refusals = Arc::new(Semaphore::new(MAX_REFUSALS));
    tokio::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            _ = &mut shutdown => {
                drop(listener);
                while !lock(&places).held.is_empty() {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
                return;
            }
            accepted = listener.accept() => match accepted {
                Ok((stream, remote)) => {
                    let peer = Peer::of(stream.local_addr().ok(), remote);
                    (stream, peer)
                }
                // Out of file descriptors and the like: back off instead of spinning.
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
        };
        let Some((id, displaced)) = lock(&places).admit(peer) else {
            refuse_busy(stream, &refusals);
            continue;
        };
        let inner = TowerToHyperService::new(app.clone());
        let (places, token) = (places.clone(), token.clone());
        tokio::spawn(async move {
            let proving = places.clone();
            let service = hyper::service::service_fn(move |req: Request<hyper::body::Incoming>| {
                if crate::api::carries_token(req.headers(), &token) {
                    lock(&proving).prove(id);
                }
                hyper::service::Service::call(&inner, req)
            });
            let _ = stream.set_nodelay(true);
            let connection = hyper::server::conn::http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(HEADER_READ_TIMEOUT)
                .serve_connection(TokioIo::new(stream), service)
                .with_upgrades();
            tokio::select! {
                _ = connection => {}
                // Dropping the connection closes it: it had not sent a whole request with the
                // token, so no answer is owed.
                _ = displaced.notified() => {}
            }
            lock(&places).leave(id);
        });
    }
}

/// Refusals answered while the client's request is drained; past this many at once the
/// answer is written and the connection closed at once.
const MAX_REFUSALS: usize = 1024;

/// Answers a connection over the cap with a 503 in the API's error JSON and closes it. What
/// the client sent is read and dropped for up to a second first: closing a socket with
/// unread bytes resets it, and the client could see "connection reset" instead of the
/// answer. Past [`MAX_REFUSALS`] at once the answer is still written, without the drain.
fn refuse_busy(stream: TcpStream, refusals: &Arc<Semaphore>) {
    let body = serde_json::json!({
        "error": format!("the agent serves at most {MAX_CONNECTIONS} connections at once and each holds a client that showed the token; close some and try again")
    })
    .to_string();
    let response = format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\ncontent-length: {}\r\nretry-after: 1\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    let Ok(permit) = refusals.clone().try_acquire_owned() else {
        // A fresh socket's send buffer takes the whole answer at once.
        let _ = stream.try_write(response.as_bytes());
        return;
    };
    tokio::spawn(async move {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let _permit = permit;
        let mut stream = stream;
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

    fn ip(last: u8) -> Peer {
        Peer {
            ip: IpAddr::from([10, 0, 0, last]),
            uid: None,
        }
    }

    fn user(uid: u32) -> Peer {
        Peer {
            ip: IpAddr::from([127, 0, 0, 1]),
            uid: Some(uid),
        }
    }

    #[test]
    fn on_loopback_one_users_flood_displaces_only_its_own_connections() {
        let mut places = Places::default();
        // Another user's client connected first and has not sent its request yet; then
        // user 1001 floods the unproven half and keeps going.
        let (waiting, _) = places.admit(user(1000)).unwrap();
        for _ in 0..3 * MAX_UNPROVEN {
            places.admit(user(1001)).unwrap();
        }
        assert!(places.held.iter().any(|p| p.id == waiting));
        assert_eq!(places.count(Standing::Unproven), MAX_UNPROVEN);
    }

    #[test]
    fn a_loopback_connection_is_told_apart_by_its_owner() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let local = listener.local_addr().unwrap();
        let _client = std::net::TcpStream::connect(local).unwrap();
        let (_served, remote) = listener.accept().unwrap();
        // SAFETY: getuid never fails.
        let me = unsafe { libc::getuid() };
        assert_eq!(Peer::of(Some(local), remote), user(me));
        // Off loopback, the address alone.
        let far: SocketAddr = "10.0.0.7:5000".parse().unwrap();
        assert_eq!(Peer::of(Some(local), far), ip(7));
    }

    #[test]
    fn a_newcomer_takes_the_oldest_unproven_place_of_the_peer_holding_the_most() {
        let mut places = Places::default();
        // One client that showed the token, then a flood from one peer filling the unproven
        // half, and one connection from another peer.
        let (client, _) = places.admit(ip(1)).unwrap();
        places.prove(client);
        let (other, _) = places.admit(ip(3)).unwrap();
        let flood: Vec<_> = (0..MAX_UNPROVEN - 1)
            .map(|_| places.admit(ip(2)).unwrap())
            .collect();
        assert_eq!(places.count(Standing::Unproven), MAX_UNPROVEN);
        // The next one displaces the flood's oldest, not the other peer's.
        let (newcomer, _) = places.admit(ip(4)).unwrap();
        let ids: Vec<u64> = places.held.iter().map(|p| p.id).collect();
        assert!(!ids.contains(&flood[0].0));
        assert!(ids.contains(&client) && ids.contains(&other) && ids.contains(&newcomer));
        assert_eq!(places.count(Standing::Unproven), MAX_UNPROVEN);
    }

    #[test]
    fn only_a_full_house_of_proven_connections_refuses_a_newcomer() {
        let mut places = Places::default();
        for _ in 0..MAX_CONNECTIONS {
            let (id, _) = places.admit(ip(1)).unwrap();
            places.prove(id);
        }
        assert!(places.admit(ip(2)).is_none());
        // One leaves: the next one is admitted.
        let first = places.held[0].id;
        places.leave(first);
        assert!(places.admit(ip(2)).is_some());
    }

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
