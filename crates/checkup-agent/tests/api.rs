//! The agent's API through a real `checkup-agent serve` process on loopback.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::Message;

struct Agent {
    child: Child,
    addr: String,
    token: String,
    _dir: tempfile::TempDir,
}

impl Drop for Agent {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start() -> Agent {
    start_with(&[])
}

fn start_with(extra: &[&str]) -> Agent {
    start_in(tempfile::tempdir().unwrap(), extra)
}

/// An agent on `dir`'s token and runs folder: another one again after the first ended.
fn start_in(dir: tempfile::TempDir, extra: &[&str]) -> Agent {
    let token_file = dir.path().join("token");
    let mut child = Command::new(env!("CARGO_BIN_EXE_checkup-agent"))
        .args([
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--token-file",
            token_file.to_str().unwrap(),
            "--runs",
            dir.path().join("runs").to_str().unwrap(),
        ])
        .args(extra)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let hello: serde_json::Value = serde_json::from_str(&line).unwrap();
    let token = std::fs::read_to_string(&token_file).unwrap();
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(
        std::fs::metadata(&token_file).unwrap().permissions().mode() & 0o777,
        0o600,
        "token readable by its user only"
    );
    Agent {
        child,
        addr: hello["listening"].as_str().unwrap().to_owned(),
        token,
        _dir: dir,
    }
}

/// A minimal HTTP/1.1 request: (status, body).
fn http(
    agent: &Agent,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: Option<&str>,
) -> (u16, String) {
    let auth = token
        .map(|t| format!("Authorization: Bearer {t}\r\n"))
        .unwrap_or_default();
    let body = body.unwrap_or("");
    let ctype = if body.is_empty() {
        String::new()
    } else {
        "Content-Type: application/json\r\n".into()
    };
    raw(agent, &format!("{method} {path} HTTP/1.1\r\nHost: {}\r\n{auth}{ctype}Content-Length: {}\r\nConnection: close\r\n\r\n{body}", agent.addr, body.len()))
}

#[test]
fn every_request_needs_the_token() {
    let a = start();
    assert_eq!(http(&a, "GET", "/v1/health", None, None).0, 401);
    let (status, body) = http(&a, "GET", "/v1/health", Some("0000"), None);
    assert_eq!(status, 401);
    assert!(body.contains("bearer token"), "{body}");
    let (status, body) = http(&a, "GET", "/v1/health", Some(&a.token.clone()), None);
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("\"last_seq\""), "{body}");
}

#[test]
fn malformed_requests_get_4xx_with_a_message_and_the_agent_lives_on() {
    let a = start();
    let t = a.token.clone();
    let (status, _) = http(&a, "POST", "/v1/sampling", Some(&t), Some("{not json"));
    assert_eq!(status, 400);
    let (status, body) = http(
        &a,
        "POST",
        "/v1/sampling",
        Some(&t),
        Some(r#"{"hz": 10, "colour": "red"}"#),
    );
    assert_eq!(status, 422, "{body}");
    assert!(body.contains("colour"), "{body}");
    let (status, body) = http(&a, "POST", "/v1/sampling", Some(&t), Some(r#"{"hz": 1e9}"#));
    assert_eq!(status, 422);
    assert!(body.contains("hz must be between 0.1 and 100"), "{body}");
    let (status, body) = http(&a, "POST", "/v1/runs", Some(&t), Some(r#"{"command": []}"#));
    assert_eq!(status, 422);
    assert!(body.contains("command is empty"), "{body}");
    // Settings that used to overflow in the run's thread, or spin a core, are refused
    // before a run starts, and the run slot stays free.
    for (req, says) in [
        (
            r#"{"command": ["true"], "skip_steps": 4294967295}"#,
            "skip_steps must be at most 10000000",
        ),
        (
            r#"{"command": ["true"], "profile_steps": 5000}"#,
            "profile_steps must be at most 1000",
        ),
        (
            r#"{"command": ["true"], "hz": 1e9}"#,
            "hz must be between 0.1 and 100",
        ),
    ] {
        let (status, body) = http(&a, "POST", "/v1/runs", Some(&t), Some(req));
        assert_eq!(status, 422, "{req}: {body}");
        assert!(body.contains(says), "{req}: {body}");
    }
    let (_, runs) = http(&a, "GET", "/v1/runs", Some(&t), None);
    assert_eq!(runs.trim(), "[]", "nothing started");
    assert_eq!(
        http(&a, "GET", "/v1/runs/nope/files/meta.json", Some(&t), None).0,
        404
    );
    assert_eq!(http(&a, "DELETE", "/v1/sampling", Some(&t), None).0, 409);
    assert_eq!(http(&a, "GET", "/v1/health", Some(&t), None).0, 200);
}

#[test]
fn a_profiled_run_started_through_the_api_leaves_its_files_for_download() {
    let a = start();
    let t = a.token.clone();
    let (status, body) = http(
        &a,
        "POST",
        "/v1/runs",
        Some(&t),
        Some(r#"{"command": ["python3", "-c", "import time; time.sleep(2.2); print('ok')"]}"#),
    );
    assert_eq!(status, 202, "{body}");
    let id = serde_json::from_str::<serde_json::Value>(&body).unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let run = wait_until_ended(&a, &id, Duration::from_secs(20));
    assert_eq!(run["state"], "finished", "{run}");
    assert_eq!(run["exit_code"], 0);
    let (status, files) = http(&a, "GET", &format!("/v1/runs/{id}/files"), Some(&t), None);
    assert_eq!(status, 200);
    assert!(
        files.contains("meta.json")
            && files.contains("samples_host.csv")
            && files.contains("train.log"),
        "{files}"
    );
    let (_, log) = http(
        &a,
        "GET",
        &format!("/v1/runs/{id}/files/train.log"),
        Some(&t),
        None,
    );
    assert_eq!(log.trim(), "ok", "the command's output is kept in the run");
    let (status, meta) = http(
        &a,
        "GET",
        &format!("/v1/runs/{id}/files/meta.json"),
        Some(&t),
        None,
    );
    assert_eq!(status, 200);
    assert!(meta.contains("\"command\""), "{meta}");
    let (status, _) = http(
        &a,
        "GET",
        &format!("/v1/runs/{id}/files/../../token"),
        Some(&t),
        None,
    );
    assert!(
        status == 400 || status == 404,
        "no way out of the run folder: {status}"
    );
}

/// A WebSocket request for `url` carrying `token`, as the app's client sends it.
fn with_token(
    url: &str,
    token: &str,
) -> tokio_tungstenite::tungstenite::handshake::client::Request {
    let mut req = url.into_client_request().unwrap();
    req.headers_mut()
        .insert("Authorization", format!("Bearer {token}").parse().unwrap());
    req
}

/// Sample events from the stream at `url` until `enough` says so.
async fn read_until(
    url: &str,
    token: &str,
    enough: impl Fn(&[serde_json::Value]) -> bool,
) -> Vec<serde_json::Value> {
    let (mut ws, _) = tokio_tungstenite::connect_async(with_token(url, token))
        .await
        .unwrap();
    let mut events = Vec::new();
    use futures_util::StreamExt;
    while !enough(&events) {
        let msg = tokio::time::timeout(Duration::from_secs(10), ws.next())
            .await
            .expect("samples keep coming")
            .unwrap()
            .unwrap();
        if let Message::Text(t) = msg {
            let v: serde_json::Value = serde_json::from_str(&t).unwrap();
            assert!(
                v["kind"].is_string() && v["sample"]["ts"].is_number(),
                "{v}"
            );
            events.push(v);
        }
    }
    events
}

/// The sequence numbers of the next `n` events.
async fn read_events(url: &str, token: &str, n: usize) -> Vec<u64> {
    read_until(url, token, |events| events.len() >= n)
        .await
        .iter()
        .map(|v| v["seq"].as_u64().unwrap())
        .collect()
}

#[test]
fn a_websocket_client_that_reconnects_with_its_last_sequence_loses_no_sample() {
    let a = start();
    let t = a.token.clone();
    let (status, body) = http(
        &a,
        "POST",
        "/v1/sampling",
        Some(&t),
        Some(r#"{"hz": 20, "slow_hz": 10}"#),
    );
    assert_eq!(status, 201, "{body}");
    let rt = tokio::runtime::Runtime::new().unwrap();
    let url = format!("ws://{}/v1/samples?since=0", a.addr);
    let first = rt.block_on(read_events(&url, &t, 3));
    assert_eq!(first, vec![1, 2, 3]);
    // Disconnected while sampling goes on.
    std::thread::sleep(Duration::from_millis(1500));
    let url = format!("ws://{}/v1/samples?since={}", a.addr, first[2]);
    let second = rt.block_on(read_events(&url, &t, 4));
    assert_eq!(
        second,
        vec![4, 5, 6, 7],
        "resumes right after the last sample seen"
    );
    let (status, body) = http(&a, "DELETE", "/v1/sampling", Some(&t), None);
    assert_eq!(status, 200, "{body}");
    // Without a token the stream is refused.
    let err = rt.block_on(tokio_tungstenite::connect_async(format!(
        "ws://{}/v1/samples",
        a.addr
    )));
    assert!(err.is_err());
}

#[test]
fn an_agent_started_with_exit_with_parent_ends_when_its_parent_does() {
    let dir = tempfile::tempdir().unwrap();
    // A shell starts the agent, says its pid and exits after two seconds, as a killed app would.
    let mut shell = Command::new("sh")
        .arg("-c")
        .arg(r#""$0" serve --exit-with-parent --token-file "$1/token" --runs "$1/runs" >/dev/null & echo $!; sleep 2"#)
        .arg(env!("CARGO_BIN_EXE_checkup-agent"))
        .arg(dir.path())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(shell.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let pid: u32 = line.trim().parse().unwrap();
    let running = |pid: u32| {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        // A zombie nobody reaps (containers without an init) has ended too.
        !stat.is_empty()
            && !stat
                .rsplit(')')
                .next()
                .is_some_and(|r| r.trim_start().starts_with('Z'))
    };
    std::thread::sleep(Duration::from_millis(1000));
    assert!(running(pid), "the agent runs while its parent does");
    shell.wait().unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    while running(pid) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
    }
    let gone = !running(pid);
    if !gone {
        let _ = Command::new("kill").arg(pid.to_string()).status();
    }
    assert!(
        gone,
        "the orphaned agent {pid} still runs 10 s after its parent ended"
    );
}

fn corpus_run(name: &str) -> String {
    format!("{}/../../tests/corpus/{name}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn a_recorded_h200_run_replayed_streams_its_gpu_samples_as_live_ones() {
    let a = start_with(&["--replay", &corpus_run("memory_bound")]);
    let t = a.token.clone();
    let (status, body) = http(&a, "POST", "/v1/sampling", Some(&t), Some("{}"));
    assert_eq!(status, 201, "{body}");
    let rt = tokio::runtime::Runtime::new().unwrap();
    let url = format!("ws://{}/v1/samples?since=0", a.addr);
    // Three seconds of the recording: 30 NVML rows at 10 Hz, GPM and host rows.
    let events = rt.block_on(read_until(&url, &t, |events| {
        events.iter().filter(|e| e["kind"] == "nvml").count() >= 30
    }));
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs_f64();
    let nvml: Vec<_> = events.iter().filter(|e| e["kind"] == "nvml").collect();
    // Stamped now, not when the H200 recorded them.
    let ts = nvml[29]["sample"]["ts"].as_f64().unwrap();
    assert!((now - ts).abs() < 5.0, "{ts} vs {now}");
    // The H200's own readings: after the job's first second, the GPU at 100 %, its power
    // well above idle.
    let busy = nvml
        .iter()
        .filter(|e| e["sample"]["util_gpu"].as_f64().is_some_and(|u| u >= 99.0))
        .count();
    assert!(busy >= 15, "{busy} of 30 rows at 100 %");
    assert!(nvml
        .iter()
        .any(|e| e["sample"]["power_w"].as_f64().is_some_and(|p| p > 300.0)));
    assert!(
        events.iter().any(|e| e["kind"] == "gpm"
            && e["sample"]["dram_bw_util"]
                .as_f64()
                .is_some_and(|d| d > 50.0)),
        "GPM DRAM bandwidth as recorded"
    );
    let (status, body) = http(&a, "DELETE", "/v1/sampling", Some(&t), None);
    assert_eq!(status, 200, "{body}");
    let stopped: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(stopped["report"]["gpus"], 1);
    assert!(
        stopped["report"]["notes"][0]
            .as_str()
            .unwrap()
            .contains("replaying the recording"),
        "{body}"
    );
}

#[test]
fn an_agent_told_to_replay_a_folder_without_gpu_samples_refuses_to_start() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_checkup-agent"))
        .args(["serve", "--replay"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no samples_nvml.csv"), "{err}");
    assert!(err.contains(&dir.path().display().to_string()), "{err}");
}

#[test]
fn a_run_folder_with_link_loops_lists_and_serves_its_own_files_only() {
    let a = start();
    let t = a.token.clone();
    let run = a._dir.path().join("runs/sampling-42");
    std::fs::create_dir_all(run.join("static")).unwrap();
    std::fs::write(run.join("meta.json"), br#"{"run":"links"}"#).unwrap();
    std::fs::write(run.join("static/facts.json"), b"{}").unwrap();
    let secret = a._dir.path().join("secret.txt");
    std::fs::write(&secret, b"not the run's").unwrap();
    // A loop back into the folder and a link out of it.
    std::os::unix::fs::symlink(&run, run.join("loop")).unwrap();
    std::os::unix::fs::symlink(&run, run.join("static/again")).unwrap();
    std::os::unix::fs::symlink(&secret, run.join("secret.txt")).unwrap();

    let t0 = Instant::now();
    let (status, body) = http(&a, "GET", "/v1/runs/sampling-42/files", Some(&t), None);
    assert_eq!(status, 200, "{body}");
    let files: Vec<String> = serde_json::from_str(&body).unwrap();
    assert_eq!(files, ["meta.json", "static/facts.json"]);
    assert!(
        t0.elapsed() < Duration::from_secs(5),
        "listing returned at once"
    );

    let (status, body) = http(
        &a,
        "GET",
        "/v1/runs/sampling-42/files/secret.txt",
        Some(&t),
        None,
    );
    assert_eq!(status, 403, "{body}");
    assert!(body.contains("links are not served"), "{body}");
    let (status, _) = http(
        &a,
        "GET",
        "/v1/runs/sampling-42/files/loop/meta.json",
        Some(&t),
        None,
    );
    assert_eq!(status, 403);
    let (status, body) = http(
        &a,
        "GET",
        "/v1/runs/sampling-42/files/meta.json",
        Some(&t),
        None,
    );
    assert_eq!((status, body.as_str()), (200, r#"{"run":"links"}"#));
    assert_eq!(http(&a, "GET", "/v1/health", Some(&t), None).0, 200);
}

#[test]
fn an_address_other_hosts_reach_is_refused_unless_asked_for_by_name() {
    let dir = tempfile::tempdir().unwrap();
    for addr in ["0.0.0.0:0", "[::]:0"] {
        let out = Command::new(env!("CARGO_BIN_EXE_checkup-agent"))
            .args(["serve", "--listen", addr, "--token-file"])
            .arg(dir.path().join("token"))
            .arg("--runs")
            .arg(dir.path().join("runs"))
            .output()
            .unwrap();
        assert!(!out.status.success(), "{addr}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(&format!("refusing to listen on {addr}")),
            "{err}"
        );
        assert!(err.contains("--allow-remote"), "{err}");
    }
}

#[test]
fn the_runs_folder_and_the_stream_file_are_the_users_alone() {
    use std::os::unix::fs::PermissionsExt;
    let a = start();
    let runs = a._dir.path().join("runs");
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&runs), 0o700);
    assert_eq!(mode(&runs.join(".stream.jsonl")), 0o600);
}

#[test]
fn sampling_stops_at_its_time_limit_and_lets_the_agent_idle_out() {
    let mut a = start_with(&["--replay", &corpus_run("memory_bound"), "--idle-exit", "2"]);
    let t = a.token.clone();
    let (status, body) = http(
        &a,
        "POST",
        "/v1/sampling",
        Some(&t),
        Some(r#"{"max_s": 0}"#),
    );
    assert_eq!(status, 422, "{body}");
    assert!(body.contains("max_s must be between 1 and"), "{body}");
    let (status, body) = http(
        &a,
        "POST",
        "/v1/sampling",
        Some(&t),
        Some(r#"{"max_s": 1}"#),
    );
    assert_eq!(status, 201, "{body}");
    // Nobody stops it: it ends after a second, then the agent is idle and exits.
    let t0 = Instant::now();
    loop {
        if let Some(status) = a.child.try_wait().unwrap() {
            assert!(status.success(), "{status}");
            break;
        }
        assert!(
            t0.elapsed() < Duration::from_secs(20),
            "the agent kept running"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// A request's status line and body, sent as given on a fresh connection.
fn raw(agent: &Agent, request: &str) -> (u16, String) {
    let mut s = TcpStream::connect(&agent.addr).unwrap();
    s.write_all(request.as_bytes()).unwrap();
    let mut out = Vec::new();
    s.read_to_end(&mut out).unwrap();
    let text = String::from_utf8_lossy(&out).into_owned();
    let status = text
        .split_whitespace()
        .nth(1)
        .unwrap_or("0")
        .parse()
        .unwrap_or(0);
    let body = text
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_owned())
        .unwrap_or_default();
    (status, body)
}

#[test]
fn half_sent_requests_do_not_hold_up_real_clients_and_are_closed_after_the_header_timeout() {
    let a = start();
    // Any local user can open connections and never finish a request.
    let mut stalled: Vec<TcpStream> = (0..80)
        .map(|_| {
            let mut s = TcpStream::connect(&a.addr).unwrap();
            s.write_all(b"GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n")
                .unwrap();
            s
        })
        .collect();
    let t0 = Instant::now();
    let (status, body) = http(&a, "GET", "/v1/health", Some(&a.token), None);
    assert_eq!(status, 200, "{body}");
    assert!(t0.elapsed() < Duration::from_secs(2), "{:?}", t0.elapsed());
    // Past the header timeout (10 s) the agent has closed every one of them.
    std::thread::sleep(Duration::from_secs(11));
    for s in &mut stalled {
        s.set_read_timeout(Some(Duration::from_secs(2))).unwrap();
        let mut rest = Vec::new();
        let n = s
            .read_to_end(&mut rest)
            .expect("closed by the agent, not timed out");
        // hyper answers 408 or just closes: either way the connection is gone.
        assert!(
            n == 0 || String::from_utf8_lossy(&rest).starts_with("HTTP/1.1 408"),
            "{n}"
        );
    }
}

/// A keep-alive connection that has made one authenticated request and stays open: a client
/// the agent knows holds the token.
fn proven_connection(a: &Agent) -> TcpStream {
    let mut s = TcpStream::connect(&a.addr).unwrap();
    let request = format!(
        "GET /v1/health HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {}\r\n\r\n",
        a.addr, a.token
    );
    s.write_all(request.as_bytes()).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        s.read_exact(&mut byte).unwrap();
        head.push(byte[0]);
    }
    let head = String::from_utf8_lossy(&head).into_owned();
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    let length: usize = head
        .lines()
        .find_map(|l| {
            l.to_ascii_lowercase()
                .strip_prefix("content-length: ")
                .map(|v| v.trim().parse().unwrap())
        })
        .unwrap();
    let mut body = vec![0u8; length];
    s.read_exact(&mut body).unwrap();
    s
}

#[test]
fn connections_over_the_cap_that_all_showed_the_token_get_503_json_until_one_closes() {
    let a = start();
    let cap = checkup_agent::listen::MAX_CONNECTIONS;
    let held: Vec<TcpStream> = (0..cap).map(|_| proven_connection(&a)).collect();
    let (status, body) = http(&a, "GET", "/v1/health", Some(&a.token), None);
    assert_eq!(status, 503, "{body}");
    let error: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert!(
        error["error"]
            .as_str()
            .unwrap()
            .contains(&format!("at most {cap} connections")),
        "{body}"
    );
    drop(held);
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let (status, body) = http(&a, "GET", "/v1/health", Some(&a.token), None);
        if status == 200 {
            break;
        }
        assert!(Instant::now() < deadline, "still refused: {status} {body}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn a_flood_of_idle_and_slow_connections_never_locks_out_a_client_with_the_token() {
    let a = start();
    let cap = checkup_agent::listen::MAX_CONNECTIONS;
    // Another user of the host, without the token: it holds as many idle connections as the
    // agent allows and opens new ones as the agent closes them, and as many more that send
    // a request one byte a second (slowloris).
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
    let stop = std::sync::Arc::new(AtomicBool::new(false));
    let opened = std::sync::Arc::new(AtomicU64::new(0));
    let flood = |slow: bool| {
        let (addr, stop, count) = (a.addr.clone(), stop.clone(), opened.clone());
        std::thread::spawn(move || {
            let mut held: std::collections::VecDeque<TcpStream> = Default::default();
            let mut opened = 0u64;
            while !stop.load(Ordering::Relaxed) {
                if let Ok(mut s) = TcpStream::connect(&addr) {
                    opened += 1;
                    count.fetch_add(1, Ordering::Relaxed);
                    if slow {
                        let _ = s.write_all(b"G");
                    }
                    held.push_back(s);
                }
                if held.len() > cap {
                    held.pop_front();
                }
                if slow && opened.is_multiple_of(64) {
                    for s in &mut held {
                        let _ = s.write_all(b"E");
                    }
                }
            }
        })
    };
    let floods = [flood(false), flood(true)];
    // Every place taken, and many times over, before the client comes.
    let deadline = Instant::now() + Duration::from_secs(30);
    while opened.load(Ordering::Relaxed) < 4 * cap as u64 {
        assert!(
            Instant::now() < deadline,
            "the flood opened only {opened:?}"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    let mut waits = Vec::new();
    for _ in 0..200 {
        let t0 = Instant::now();
        let (status, body) = http(&a, "GET", "/v1/health", Some(&a.token), None);
        waits.push(t0.elapsed());
        assert_eq!(status, 200, "{body}");
    }
    stop.store(true, Ordering::Relaxed);
    for f in floods {
        f.join().unwrap();
    }
    let opened = opened.load(Ordering::Relaxed);
    waits.sort();
    // Figures for docs/performance.md; the test holds only that every request was served.
    eprintln!(
        "under a flood of {opened} connections: 200 health requests, median {:?}, p99 {:?}, max {:?}",
        waits[100], waits[197], waits[199]
    );
}

#[test]
fn a_web_page_or_a_rebound_host_name_cannot_reach_the_agent_even_with_the_token() {
    let a = start();
    let t = &a.token;
    let (status, body) = raw(&a, &format!("GET /v1/health HTTP/1.1\r\nHost: {}\r\nOrigin: https://evil.example\r\nAuthorization: Bearer {t}\r\nConnection: close\r\n\r\n", a.addr));
    assert_eq!(status, 403, "{body}");
    assert!(body.contains("web pages"), "{body}");
    let (status, body) = raw(&a, &format!("GET /v1/health HTTP/1.1\r\nHost: evil.example:{}\r\nAuthorization: Bearer {t}\r\nConnection: close\r\n\r\n", a.addr.rsplit(':').next().unwrap()));
    assert_eq!(status, 421, "{body}");
    assert!(body.contains("evil.example"), "{body}");
    for host in ["localhost", "127.0.0.1"] {
        let (status, body) = raw(&a, &format!("GET /v1/health HTTP/1.1\r\nHost: {host}:1\r\nAuthorization: Bearer {t}\r\nConnection: close\r\n\r\n"));
        assert_eq!(status, 200, "{host}: {body}");
    }
}

#[test]
fn sample_streams_over_the_cap_are_refused_politely_and_a_closed_one_frees_its_place() {
    let a = start();
    let cap = checkup_agent::api::MAX_STREAM_CLIENTS;
    let rt = tokio::runtime::Runtime::new().unwrap();
    let url = format!("ws://{}/v1/samples?since=0", a.addr);
    let connect =
        |url: &str| rt.block_on(tokio_tungstenite::connect_async(with_token(url, &a.token)));
    let mut open: Vec<_> = (0..cap)
        .map(|_| connect(&url).expect("within the cap").0)
        .collect();
    match connect(&url) {
        Err(tokio_tungstenite::tungstenite::Error::Http(r)) => {
            assert_eq!(r.status(), 503);
            let body =
                String::from_utf8_lossy(r.body().as_deref().unwrap_or_default()).into_owned();
            assert!(body.contains(&format!("at most {cap} clients")), "{body}");
        }
        other => panic!("the stream over the cap was not refused with 503: {other:?}"),
    }
    let mut closed = open.pop().unwrap();
    rt.block_on(closed.close(None)).unwrap();
    drop(closed);
    let deadline = Instant::now() + Duration::from_secs(5);
    while connect(&url).is_err() {
        assert!(
            Instant::now() < deadline,
            "the freed place was not given again"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The NVML samples `a`'s live stream sends from its start for `wait`.
fn nvml_samples_seen(a: &Agent, wait: Duration) -> Vec<serde_json::Value> {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let url = format!("ws://{}/v1/samples?since=0", a.addr);
    let until = Instant::now() + wait;
    rt.block_on(async {
        let (mut ws, _) = tokio_tungstenite::connect_async(with_token(&url, &a.token))
            .await
            .unwrap();
        let mut seen = Vec::new();
        use futures_util::StreamExt;
        while let Ok(Some(Ok(msg))) =
            tokio::time::timeout(until.saturating_duration_since(Instant::now()), ws.next()).await
        {
            if let Message::Text(t) = msg {
                let v: serde_json::Value = serde_json::from_str(&t).unwrap();
                if v["kind"] == "nvml" {
                    seen.push(v);
                }
            }
        }
        seen
    })
}

/// What a killed agent was recording.
#[derive(Clone, Copy)]
enum Recording<'a> {
    /// Sampling alone (`POST /v1/sampling`).
    Sampling,
    /// A profiled run of a Python training that sleeps, `marker` among its arguments so
    /// that every process of it can be found.
    Run { marker: &'a str },
}

/// Starts `what` on a replaying agent, reads its live stream for `wait`, then kills the
/// agent with SIGKILL: (the agent's folder, kept; the recording's folder; the NVML samples
/// the client saw).
fn killed_while_recording(
    what: Recording<'_>,
    wait: Duration,
) -> (
    tempfile::TempDir,
    std::path::PathBuf,
    Vec<serde_json::Value>,
) {
    let mut a = start_with(&["--replay", &corpus_run("memory_bound")]);
    let t = a.token.clone();
    let (status, body) = match what {
        Recording::Sampling => http(&a, "POST", "/v1/sampling", Some(&t), Some("{}")),
        Recording::Run { marker } => {
            let command = ["python3", "-c", "import time; time.sleep(600)", marker];
            let body = serde_json::json!({ "command": command }).to_string();
            http(&a, "POST", "/v1/runs", Some(&t), Some(&body))
        }
    };
    assert!(status == 201 || status == 202, "{status} {body}");
    let id = serde_json::from_str::<serde_json::Value>(&body).unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let seen = nvml_samples_seen(&a, wait);
    a.child.kill().unwrap(); // SIGKILL: no flush, no clean-up
    a.child.wait().unwrap();
    let folder = a._dir.path().join("runs").join(&id);
    let dir = std::mem::replace(&mut a._dir, tempfile::tempdir().unwrap());
    (dir, folder, seen)
}

/// Kill points, reproducible: a fixed sequence of `n` waits under `below_ms`.
fn kill_points(n: usize, below_ms: u64) -> Vec<Duration> {
    let mut state: u64 = 0x5eed_c0de;
    (0..n)
        .map(|_| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            Duration::from_millis((state >> 33) % below_ms)
        })
        .collect()
}

/// Every sample the client saw is in the folder's `samples_nvml.csv`, and the folder reads
/// as a recording (true) or as one with nothing recorded yet (false, only when nothing was
/// seen).
fn kept_and_readable(
    round: usize,
    wait: Duration,
    folder: &std::path::Path,
    seen: &[serde_json::Value],
) -> bool {
    let on_disk = match checkup_recording::samples::read_nvml_csv(&folder.join("samples_nvml.csv"))
    {
        Ok(rows) => rows,
        // Killed before the first tick: nothing written and nothing seen.
        Err(_) if seen.is_empty() => Vec::new(),
        Err(e) => panic!("round {round} ({wait:?}): {e}"),
    };
    for s in seen {
        let (ts, gpu) = (
            s["sample"]["ts"].as_f64().unwrap(),
            s["sample"]["gpu"].as_u64().unwrap(),
        );
        assert!(
            on_disk.iter().any(|r| r.gpu as u64 == gpu && (r.ts - ts).abs() < 0.0015),
            "round {round} (killed after {wait:?}): seen {ts} on GPU {gpu}, not on disk ({} rows, {} seen)",
            on_disk.len(),
            seen.len()
        );
    }
    match checkup_engine::analyze_paths(&[folder.to_path_buf()], &Default::default()) {
        Ok(d) => {
            assert!(!d.findings.is_empty(), "round {round}");
            true
        }
        // Killed before its first sample: the folder is there, with nothing in it yet.
        Err(
            checkup_engine::EngineError::NothingRecordedYet { .. }
            | checkup_engine::EngineError::NothingToAnalyse { .. },
        ) if seen.is_empty() => false,
        Err(e) => panic!("round {round} ({wait:?}): {e}"),
    }
}

#[test]
fn an_agent_killed_at_100_random_points_keeps_every_sample_a_client_saw() {
    let (seen_total, analysed) = in_lanes(&kill_points(100, 1200), |round, wait| {
        let (_dir, folder, seen) = killed_while_recording(Recording::Sampling, wait);
        (seen.len(), kept_and_readable(round, wait, &folder, &seen))
    });
    eprintln!("100 kills: {seen_total} samples seen, all on disk; {analysed} folders diagnosed");
    assert!(
        seen_total > 100,
        "the kills came too early to test anything"
    );
}

/// Each kill point's round run by one of eight agents at a time, each with its own folder
/// (a round mostly waits for its kill): the samples seen and the folders diagnosed, summed.
fn in_lanes(
    points: &[Duration],
    round: impl Fn(usize, Duration) -> (usize, bool) + Sync,
) -> (usize, usize) {
    const LANES: usize = 8;
    let totals = std::sync::Mutex::new((0usize, 0usize));
    std::thread::scope(|scope| {
        for lane in 0..LANES {
            let (round, totals) = (&round, &totals);
            scope.spawn(move || {
                for k in (lane..points.len()).step_by(LANES) {
                    let (seen, analysed) = round(k, points[k]);
                    let mut t = totals.lock().unwrap();
                    t.0 += seen;
                    t.1 += analysed as usize;
                }
            });
        }
    });
    totals.into_inner().unwrap()
}

/// Processes whose command line holds `marker`.
fn processes_with(marker: &str) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .is_ok_and(|c| c.windows(marker.len()).any(|w| w == marker.as_bytes()))
        })
        .collect()
}

#[test]
fn an_agent_killed_at_100_random_points_of_a_profiled_run_loses_no_sample_and_no_training_outlives_it(
) {
    let (seen_total, analysed) = in_lanes(&kill_points(100, 2500), |round, wait| {
        let marker = format!("checkup-kill-test-{}-{round}", std::process::id());
        let (_dir, folder, seen) = killed_while_recording(Recording::Run { marker: &marker }, wait);
        // The guard ends the training with its agent: nothing of it runs on.
        let deadline = Instant::now() + Duration::from_secs(15);
        while !processes_with(&marker).is_empty() {
            assert!(
                Instant::now() < deadline,
                "round {round} (killed after {wait:?}): {:?} outlived the agent",
                processes_with(&marker)
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        (seen.len(), kept_and_readable(round, wait, &folder, &seen))
    });
    eprintln!(
        "100 kills during a run: {seen_total} samples seen, all on disk; {analysed} folders diagnosed; no training left"
    );
    assert!(
        seen_total > 100,
        "the kills came too early to test anything"
    );
}

/// The state of run `id` in `GET /v1/runs`, polled until it is no longer running.
fn wait_until_ended(a: &Agent, id: &str, timeout: Duration) -> serde_json::Value {
    let deadline = Instant::now() + timeout;
    loop {
        let (_, runs) = http(a, "GET", "/v1/runs", Some(&a.token), None);
        let runs: serde_json::Value = serde_json::from_str(&runs).unwrap();
        let run = runs
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["id"] == id)
            .unwrap()
            .clone();
        if run["state"] != "running" {
            return run;
        }
        assert!(Instant::now() < deadline, "still running: {run}");
        std::thread::sleep(Duration::from_millis(200));
    }
}

#[test]
fn a_hung_run_is_cancelled_with_its_whole_process_tree_and_frees_the_run_slot() {
    let a = start();
    let t = a.token.clone();
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("child.pid");
    // A training that never ends, with a child of its own (a DataLoader worker, a rank).
    let body = serde_json::json!({"command": ["python3", "-c", format!(
        "import subprocess; p = subprocess.Popen(['sleep', '600']); open({:?}, 'w').write(str(p.pid)); p.wait()",
        pid_file.display().to_string()
    )]})
    .to_string();
    let (status, answer) = http(&a, "POST", "/v1/runs", Some(&t), Some(&body));
    assert_eq!(status, 202, "{answer}");
    let id = serde_json::from_str::<serde_json::Value>(&answer).unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let deadline = Instant::now() + Duration::from_secs(20);
    while !pid_file.exists() {
        assert!(
            Instant::now() < deadline,
            "the command did not start its child"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    std::thread::sleep(Duration::from_millis(200));
    let child: u32 = std::fs::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    // While it runs, the slot is taken.
    let (status, _) = http(
        &a,
        "POST",
        "/v1/runs",
        Some(&t),
        Some(r#"{"command": ["true"]}"#),
    );
    assert_eq!(status, 409);

    let (status, answer) = http(&a, "DELETE", &format!("/v1/runs/{id}"), Some(&t), None);
    assert_eq!(status, 202, "{answer}");
    let run = wait_until_ended(&a, &id, Duration::from_secs(20));
    assert_eq!(run["state"], "cancelled", "{run}");
    assert!(
        checkup_testkit::wait_until_gone(child, Duration::from_secs(5)),
        "the command's own child ({child}) was stopped with it"
    );
    // Cancelling again says it has ended; an unknown run is not found.
    let (status, _) = http(&a, "DELETE", &format!("/v1/runs/{id}"), Some(&t), None);
    assert_eq!(status, 409);
    let (status, _) = http(&a, "DELETE", "/v1/runs/run-1", Some(&t), None);
    assert_eq!(status, 404);
    // The slot is free again.
    let (status, answer) = http(
        &a,
        "POST",
        "/v1/runs",
        Some(&t),
        Some(r#"{"command": ["true"]}"#),
    );
    assert_eq!(status, 202, "{answer}");
}

#[test]
fn a_training_ends_with_its_agent_even_when_the_agent_is_killed_outright() {
    // Both signals at once: each waits out the agent's 10 s grace for what ignores SIGTERM.
    std::thread::scope(|scope| {
        for signal in ["KILL", "TERM"] {
            scope.spawn(move || training_ends_with_its_agent(signal));
        }
    });
}

/// An agent sent SIG`signal` while its training runs leaves none of the training's
/// processes behind.
fn training_ends_with_its_agent(signal: &str) {
    let a = start();
    let dir = tempfile::tempdir().unwrap();
    let pids = dir.path().join("pids");
    // A shell with two background jobs and one that ignores SIGTERM: what the kernel's
    // parent-death signal alone would leave running under PID 1.
    let script = format!(
        "sleep 600 & echo $! >> {p}; (trap '' TERM; sleep 600) & echo $! >> {p}; echo $$ >> {p}; wait",
        p = pids.display()
    );
    let body = serde_json::json!({ "command": ["bash", "-c", script] }).to_string();
    let (status, answer) = http(&a, "POST", "/v1/runs", Some(&a.token), Some(&body));
    assert_eq!(status, 202, "{answer}");
    let deadline = Instant::now() + Duration::from_secs(20);
    let started = loop {
        let text = std::fs::read_to_string(&pids).unwrap_or_default();
        let pids: Vec<u32> = text.lines().filter_map(|l| l.trim().parse().ok()).collect();
        if pids.len() == 3 {
            break pids;
        }
        assert!(
            Instant::now() < deadline,
            "the training did not start: {text}"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    let agent = a.child.id();
    let _ = Command::new("kill")
        .args([format!("-{signal}"), agent.to_string()])
        .status();
    // SIGTERM to the group at once, SIGKILL 10 s later for what ignores it.
    for pid in &started {
        assert!(
            checkup_testkit::wait_until_gone(*pid, Duration::from_secs(15)),
            "SIG{signal}: process {pid} of the training outlived its agent"
        );
    }
    drop(a);
}

#[test]
fn a_replaying_agent_checks_the_recorded_gpus_and_driver_in_place_of_this_host_s() {
    let run = corpus_run("agent_ddp");
    let a = start_with(&["--replay", &run]);
    let (status, body) = http(&a, "GET", "/v1/check", Some(&a.token.clone()), None);
    assert_eq!(status, 200, "{body}");
    let report: checkup_model::CheckReport = serde_json::from_str(&body).unwrap();
    // The two H200s of the recording, with its driver, not this machine's (none on CI).
    assert_eq!(report.facts.driver_version.as_deref(), Some("580.159.04"));
    assert_eq!(report.facts.gpus.len(), 2);
    assert_eq!(report.gpus_recorded_in.as_deref(), Some(run.as_str()));
    let driver = report
        .checks
        .iter()
        .find(|c| c.id == checkup_model::CheckId::NvidiaDriver)
        .unwrap();
    assert_eq!(driver.status, checkup_model::CheckStatus::Pass);
    // The recorded GPUs are judged by the same rules: persistence on both, full PCIe links.
    let persistence: Vec<_> = report
        .checks
        .iter()
        .filter(|c| c.id == checkup_model::CheckId::PersistenceMode)
        .map(|c| (c.gpu, c.status))
        .collect();
    assert_eq!(
        persistence,
        [
            (Some(0), checkup_model::CheckStatus::Pass),
            (Some(1), checkup_model::CheckStatus::Pass)
        ]
    );
    // A recording without static facts leaves the GPUs to this host.
    let b = start_with(&["--replay", &corpus_run("memory_bound")]);
    let (_, body) = http(&b, "GET", "/v1/check", Some(&b.token.clone()), None);
    let report: checkup_model::CheckReport = serde_json::from_str(&body).unwrap();
    assert_eq!(report.gpus_recorded_in, None);
}

#[test]
fn a_replaying_agent_counts_the_recorded_gpus_in_its_health() {
    let a = start_with(&["--replay", &corpus_run("agent_ddp")]);
    let (status, body) = http(&a, "GET", "/v1/health", Some(&a.token.clone()), None);
    assert_eq!(status, 200, "{body}");
    let health: checkup_model::AgentHealth = serde_json::from_str(&body).unwrap();
    // Two H200s recorded; this host's own driver (none on CI) is not what it reads.
    assert_eq!((health.gpus, health.gpu_problem), (2, None));
    assert!(health.replaying.is_some_and(|r| r.ends_with("agent_ddp")));
}

/// `checkup-agent serve` with `args` and `env`, expected to refuse to start: its stderr.
fn refused(args: &[&std::ffi::OsStr], env: &[(&str, &std::ffi::OsStr)]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_checkup-agent"))
        .arg("serve")
        .args(args)
        .envs(env.iter().copied())
        .stdout(Stdio::null())
        .output()
        .unwrap();
    assert!(!out.status.success(), "it started");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn a_second_agent_on_the_same_runs_folder_is_refused_and_names_the_first() {
    let a = start();
    let runs = a._dir.path().join("runs");
    let token = a._dir.path().join("token2");
    let err = refused(
        &[
            "--listen".as_ref(),
            "127.0.0.1:0".as_ref(),
            "--token-file".as_ref(),
            token.as_os_str(),
            "--runs".as_ref(),
            runs.as_os_str(),
        ],
        &[],
    );
    assert!(
        err.contains(&format!("another agent (pid {}) uses it", a.child.id())),
        "{err}"
    );
    // The first agent's token was not taken over.
    assert!(!token.exists());
    let (status, _) = http(&a, "GET", "/v1/health", Some(&a.token), None);
    assert_eq!(status, 200);
}

#[test]
fn a_runs_folder_anyone_can_write_or_a_planted_stream_link_is_refused() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let runs = dir.path().join("runs");
    std::fs::create_dir(&runs).unwrap();
    std::fs::set_permissions(&runs, std::fs::Permissions::from_mode(0o777)).unwrap();
    let token = dir.path().join("token");
    let args = [
        "--token-file".as_ref(),
        token.as_os_str(),
        "--runs".as_ref(),
        runs.as_os_str(),
    ];
    let err = refused(&args, &[]);
    assert!(err.contains("anyone can write to it (mode 777)"), "{err}");
    // Closed again, but someone left a link where the stream file goes.
    std::fs::set_permissions(&runs, std::fs::Permissions::from_mode(0o700)).unwrap();
    let target = dir.path().join("precious");
    std::fs::write(&target, "keep me").unwrap();
    std::os::unix::fs::symlink(&target, runs.join(".stream.jsonl")).unwrap();
    let err = refused(&args, &[]);
    assert!(err.contains("symbolic link"), "{err}");
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep me");
}

#[test]
fn a_run_folder_that_is_a_link_is_never_served() {
    let a = start();
    let elsewhere = a._dir.path().join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    std::fs::write(elsewhere.join("shadow"), b"secret").unwrap();
    std::os::unix::fs::symlink(&elsewhere, a._dir.path().join("runs/sampling-999")).unwrap();
    let (status, body) = http(
        &a,
        "GET",
        "/v1/runs/sampling-999/files",
        Some(&a.token),
        None,
    );
    assert_eq!(status, 404, "{body}");
    let (status, _) = http(
        &a,
        "GET",
        "/v1/runs/sampling-999/files/shadow",
        Some(&a.token),
        None,
    );
    assert_eq!(status, 404);
}

#[test]
fn the_state_folder_is_private_and_an_empty_state_path_is_not_the_working_folder() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state");
    let mut child = Command::new(env!("CARGO_BIN_EXE_checkup-agent"))
        .args(["serve", "--listen", "127.0.0.1:0"])
        .env("XDG_STATE_HOME", &state)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let _ = child.kill();
    let _ = child.wait();
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&state.join("checkup-agent")), 0o700);
    assert_eq!(mode(&state.join("checkup-agent/token")), 0o600);
    // An empty XDG_STATE_HOME and no HOME: refused, nothing written where it was started.
    let cwd = dir.path().join("cwd");
    std::fs::create_dir(&cwd).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_checkup-agent"))
        .args(["serve", "--listen", "127.0.0.1:0"])
        .current_dir(&cwd)
        .env("XDG_STATE_HOME", "")
        .env_remove("HOME")
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("set HOME or XDG_STATE_HOME to an absolute path"),
        "{err}"
    );
    assert_eq!(std::fs::read_dir(&cwd).unwrap().count(), 0);
}

#[test]
fn a_body_axum_refuses_gets_the_apis_error_json_too() {
    let a = start();
    let t = a.token.clone();
    let error_of = |body: &str| -> String {
        let v: serde_json::Value =
            serde_json::from_str(body.trim()).unwrap_or_else(|e| panic!("not JSON ({e}): {body}"));
        v["error"].as_str().unwrap_or_default().to_owned()
    };
    // Malformed JSON: 400.
    let (status, body) = http(&a, "POST", "/v1/sampling", Some(&t), Some("{not json"));
    assert_eq!(status, 400);
    assert!(!error_of(&body).is_empty(), "{body}");
    // The wrong shape: 422, naming the field.
    let (status, body) = http(&a, "POST", "/v1/runs", Some(&t), Some(r#"{"command": 7}"#));
    assert_eq!(status, 422);
    assert!(error_of(&body).contains("command"), "{body}");
    // No JSON content type: 415.
    let request = format!(
        "POST /v1/sampling HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {t}\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{{}}"
    );
    let (status, body) = raw(&a, &request);
    assert_eq!(status, 415);
    assert!(error_of(&body).contains("Content-Type"), "{body}");
}

#[test]
fn a_run_folder_an_earlier_agent_left_on_disk_is_served_by_its_id() {
    let a = start();
    let t = a.token.clone();
    let run = a._dir.path().join("runs/run-1700000000000");
    std::fs::create_dir_all(&run).unwrap();
    std::fs::write(run.join("meta.json"), br#"{"run":"before the restart"}"#).unwrap();
    let (status, body) = http(
        &a,
        "GET",
        "/v1/runs/run-1700000000000/files/meta.json",
        Some(&t),
        None,
    );
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("before the restart"), "{body}");
    // Every name listed can be fetched, and what is not listed is not served: a name that
    // is not UTF-8 (no URL can ask for it) and the probe's hidden folders.
    use std::os::unix::ffi::OsStrExt;
    std::fs::write(run.join(std::ffi::OsStr::from_bytes(b"caf\xe9.csv")), b"x").unwrap();
    std::fs::create_dir_all(run.join(".checkup-probe")).unwrap();
    std::fs::write(run.join(".checkup-probe/sitecustomize.py"), b"# probe").unwrap();
    let (status, listing) = http(
        &a,
        "GET",
        "/v1/runs/run-1700000000000/files",
        Some(&t),
        None,
    );
    assert_eq!(status, 200);
    let listed: Vec<String> = serde_json::from_str(&listing).unwrap();
    assert_eq!(listed, ["meta.json"], "{listing}");
    for name in &listed {
        let path = format!("/v1/runs/run-1700000000000/files/{name}");
        assert_eq!(http(&a, "GET", &path, Some(&t), None).0, 200, "{name}");
    }
    assert_eq!(
        http(
            &a,
            "GET",
            "/v1/runs/run-1700000000000/files/.checkup-probe/sitecustomize.py",
            Some(&t),
            None
        )
        .0,
        404
    );
    // A name the agent does not give its folders is not a run.
    std::fs::create_dir_all(a._dir.path().join("runs/other")).unwrap();
    assert_eq!(
        http(&a, "GET", "/v1/runs/other/files", Some(&t), None).0,
        404
    );
}

#[test]
fn a_restarted_agent_lists_the_runs_on_disk_as_they_ended_or_were_interrupted() {
    let mut a = start();
    let t = a.token.clone();
    // One run that ends, then one that is still training when its agent is killed.
    let body = serde_json::json!({ "command": ["true"] }).to_string();
    let (status, answer) = http(&a, "POST", "/v1/runs", Some(&t), Some(&body));
    assert_eq!(status, 202, "{answer}");
    let done = serde_json::from_str::<serde_json::Value>(&answer).unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(
        wait_until_ended(&a, &done, Duration::from_secs(20))["state"],
        "finished"
    );
    let body =
        serde_json::json!({ "command": ["bash", "-c", "echo training; sleep 600"] }).to_string();
    let (status, answer) = http(&a, "POST", "/v1/runs", Some(&t), Some(&body));
    assert_eq!(status, 202, "{answer}");
    let cut = serde_json::from_str::<serde_json::Value>(&answer).unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let folder = a._dir.path().join("runs").join(&cut);
    let deadline = Instant::now() + Duration::from_secs(20);
    while !std::fs::read_to_string(folder.join("train.log")).is_ok_and(|l| l.contains("training")) {
        assert!(Instant::now() < deadline, "the run did not start");
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(folder.join(".checkup-probe").is_dir());
    a.child.kill().unwrap();
    a.child.wait().unwrap();
    let dir = std::mem::replace(&mut a._dir, tempfile::tempdir().unwrap());
    let b = start_in(dir, &[]);
    let (status, runs) = http(&b, "GET", "/v1/runs", Some(&b.token), None);
    assert_eq!(status, 200, "{runs}");
    let runs: serde_json::Value = serde_json::from_str(&runs).unwrap();
    let state = |id: &str| {
        runs.as_array()
            .unwrap()
            .iter()
            .find(|r| r["id"] == id)
            .unwrap_or_else(|| panic!("{id} not listed: {runs}"))
            .clone()
    };
    assert_eq!(state(&done)["state"], "finished");
    assert_eq!(state(&done)["command"], serde_json::json!(["true"]));
    let interrupted = state(&cut);
    assert_eq!(interrupted["state"], "interrupted", "{interrupted}");
    assert!(interrupted["output_tail"][0] == "training", "{interrupted}");
    // The probe's files left behind are gone; what was recorded stays and is served.
    let folder = b._dir.path().join("runs").join(&cut);
    assert!(!folder.join(".checkup-probe").exists());
    let (status, _) = http(
        &b,
        "GET",
        &format!("/v1/runs/{cut}/files/train.log"),
        Some(&b.token),
        None,
    );
    assert_eq!(status, 200);
    // And the run slot is free: nothing of the interrupted run still trains.
    let (status, answer) = http(
        &b,
        "POST",
        "/v1/runs",
        Some(&b.token),
        Some(r#"{"command": ["true"]}"#),
    );
    assert_eq!(status, 202, "{answer}");
}

#[test]
fn a_client_resuming_past_the_stream_of_a_restarted_agent_is_told_at_once() {
    let a = start();
    let rt = tokio::runtime::Runtime::new().unwrap();
    let req = with_token(&format!("ws://{}/v1/samples?since=5000", a.addr), &a.token);
    let t0 = Instant::now();
    match rt.block_on(tokio_tungstenite::connect_async(req)) {
        Err(tokio_tungstenite::tungstenite::Error::Http(resp)) => {
            assert_eq!(resp.status(), 409);
            let body = String::from_utf8(resp.body().clone().unwrap_or_default()).unwrap();
            let error: serde_json::Value = serde_json::from_str(&body).unwrap();
            assert!(
                error["error"].as_str().unwrap().contains("since=0"),
                "{body}"
            );
        }
        other => panic!("a stream past its end was opened: {:?}", other.map(|_| ())),
    }
    assert!(t0.elapsed() < Duration::from_secs(2));
    // From the stream's own numbers it opens as before.
    let url = format!("ws://{}/v1/samples?since=0", a.addr);
    assert!(rt
        .block_on(tokio_tungstenite::connect_async(with_token(&url, &a.token)))
        .is_ok());
}
