//! The bearer token: made at start, written for the agent's user alone, checked in constant
//! time on every request.

use std::path::Path;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{header, StatusCode};
use axum::middleware::Next;
use axum::response::Response;

use super::AgentState;
use crate::reply::error;
use crate::sampler;

/// Compares secrets in time independent of where they differ.
pub fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// 32 random bytes from the kernel, hex encoded.
pub fn new_token() -> std::io::Result<String> {
    use std::io::Read;
    let mut bytes = [0u8; 32];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut bytes)?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// Writes the token readable by its owner only (mode 0600, set at creation).
pub fn write_token(path: &Path, token: &str) -> std::io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        // The state folder the token lives in is the user's alone (0700).
        crate::private::create_dir(dir)?;
    }
    let _ = std::fs::remove_file(path);
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)?;
    f.write_all(token.as_bytes())
}

/// Whether `headers` carry `token` as their bearer token (compared in constant time): the
/// one check of the API's routes and of the accept loop that keeps a place for clients.
pub fn carries_token(headers: &axum::http::HeaderMap, token: &str) -> bool {
    let given = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .unwrap_or("");
    constant_time_eq(given.as_bytes(), token.as_bytes())
}

pub(super) async fn require_token(
    State(state): State<Arc<AgentState>>,
    req: Request,
    next: Next,
) -> Response {
    if !carries_token(req.headers(), &state.token) {
        return error(
            StatusCode::UNAUTHORIZED,
            "missing or wrong bearer token (see the agent's token file)",
        );
    }
    state
        .last_request
        .store(sampler::now_s() as u64, Ordering::Relaxed);
    next.run(req).await
}
