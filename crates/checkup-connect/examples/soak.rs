//! The agent's sample stream under churn: N clients connect, stream for a random while, drop
//! and reconnect from the last sequence number they saw, for M minutes, against a real
//! `checkup-agent serve --replay` on loopback (the H200 recording `tests/corpus/healthy`
//! played back as live samples). Over the cap of sample streams a client is refused (503)
//! and tries again. Prints the agent's memory every 30 s and, at the end, per client, what
//! arrived: every sample must arrive once, in order (lost 0, repeated 0).
//!
//! cargo run --release -p checkup-connect --example soak -- [CLIENTS] [MINUTES]

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use checkup_connect::AgentClient;
use checkup_model::SamplingRequest;

#[derive(Default)]
struct Tally {
    received: AtomicU64,
    lost: AtomicU64,
    repeated: AtomicU64,
    sessions: AtomicU64,
    refused: AtomicU64,
}

fn rss_mib(pid: u32) -> f64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok())
        })
        .map_or(0.0, |kb| kb / 1024.0)
}

/// One client: sessions of random length, each resuming from the last sequence seen,
/// until `until`; then it reads up to `final_seq` (set when sampling stops).
async fn client(
    agent: AgentClient,
    n: u64,
    until: Instant,
    final_seq: Arc<AtomicU64>,
    tally: Arc<Tally>,
) {
    let mut rng = n.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut next = |m: u64| {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng % m.max(1)
    };
    let mut last = 0u64;
    loop {
        let done = final_seq.load(Ordering::Relaxed);
        if done > 0 && last >= done {
            return;
        }
        let mut sub = match agent.samples(last).await {
            Ok(s) => s,
            Err(_) => {
                tally.refused.fetch_add(1, Ordering::Relaxed);
                tokio::time::sleep(Duration::from_millis(100 + next(400))).await;
                continue;
            }
        };
        tally.sessions.fetch_add(1, Ordering::Relaxed);
        let session = Duration::from_millis(200 + next(5000));
        let started = Instant::now();
        while started.elapsed() < session || Instant::now() >= until {
            let done = final_seq.load(Ordering::Relaxed);
            if done > 0 && last >= done {
                return;
            }
            let left = if Instant::now() >= until {
                Duration::from_secs(5)
            } else {
                session.saturating_sub(started.elapsed())
            };
            match tokio::time::timeout(left, sub.next()).await {
                Ok(Ok(Some(e))) => {
                    tally.received.fetch_add(1, Ordering::Relaxed);
                    if e.seq <= last {
                        tally.repeated.fetch_add(1, Ordering::Relaxed);
                    } else {
                        tally.lost.fetch_add(e.seq - last - 1, Ordering::Relaxed);
                        last = e.seq;
                    }
                }
                Ok(_) => break,
                Err(_) => break,
            }
        }
        drop(sub);
        if Instant::now() < until {
            tokio::time::sleep(Duration::from_millis(next(1000))).await;
        }
    }
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let clients: u64 = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(50);
    let minutes: f64 = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(10.0);
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let bin = checkup_testkit::workspace_release_binary("checkup-agent", "checkup-agent");
    let dir = tempfile::tempdir().unwrap();
    let mut agent = Command::new(&bin)
        .args(["serve", "--listen", "127.0.0.1:0", "--replay"])
        .arg(root.join("tests/corpus/healthy"))
        .arg("--token-file")
        .arg(dir.path().join("token"))
        .arg("--runs")
        .arg(dir.path().join("runs"))
        .stdout(Stdio::piped())
        .spawn()
        .expect("the agent starts");
    let mut line = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(agent.stdout.take().unwrap()),
        &mut line,
    )
    .unwrap();
    let info: checkup_model::ServeInfo = serde_json::from_str(&line).unwrap();
    let token = std::fs::read_to_string(dir.path().join("token")).unwrap();
    let api = AgentClient::new(&info.listening, &token).unwrap();
    api.start_sampling(&SamplingRequest {
        hz: 20.0,
        slow_hz: 10.0,
        ..SamplingRequest::default()
    })
    .await
    .expect("sampling starts");
    println!(
        "soak: {clients} clients for {minutes} min against agent pid {} ({}), RSS at start {:.1} MiB",
        info.pid,
        info.listening,
        rss_mib(info.pid)
    );
    let until = Instant::now() + Duration::from_secs_f64(minutes * 60.0);
    let final_seq = Arc::new(AtomicU64::new(0));
    let tally = Arc::new(Tally::default());
    let tasks: Vec<_> = (0..clients)
        .map(|n| {
            let c = AgentClient::new(&info.listening, &token).unwrap();
            tokio::spawn(client(c, n, until, final_seq.clone(), tally.clone()))
        })
        .collect();
    let t0 = Instant::now();
    let mut peak = 0.0f64;
    while Instant::now() < until {
        tokio::time::sleep(Duration::from_secs(30).min(until - Instant::now())).await;
        let rss = rss_mib(info.pid);
        peak = peak.max(rss);
        println!(
            "{:>5.0} s  agent RSS {rss:6.1} MiB  sessions {:>7}  refused {:>6}  received {:>9}  lost {}",
            t0.elapsed().as_secs_f64(),
            tally.sessions.load(Ordering::Relaxed),
            tally.refused.load(Ordering::Relaxed),
            tally.received.load(Ordering::Relaxed),
            tally.lost.load(Ordering::Relaxed)
        );
    }
    api.stop_sampling().await.expect("sampling stops");
    let last = api.health().await.expect("health").last_seq;
    final_seq.store(last.max(1), Ordering::Relaxed);
    let caught_up = tokio::time::timeout(Duration::from_secs(120), async {
        for t in tasks {
            let _ = t.await;
        }
    })
    .await
    .is_ok();
    let lost = tally.lost.load(Ordering::Relaxed);
    let repeated = tally.repeated.load(Ordering::Relaxed);
    println!(
        "soak: {} samples streamed, {} sessions, {} refusals over the cap, each of {clients} clients caught up to seq {last}: {caught_up}; lost {lost}, repeated {repeated}; agent RSS peak {peak:.1} MiB, end {:.1} MiB",
        tally.received.load(Ordering::Relaxed) / clients.max(1),
        tally.sessions.load(Ordering::Relaxed),
        tally.refused.load(Ordering::Relaxed),
        rss_mib(info.pid)
    );
    let _ = agent.kill();
    let _ = agent.wait();
    if lost > 0 || repeated > 0 || !caught_up {
        std::process::exit(1);
    }
}
