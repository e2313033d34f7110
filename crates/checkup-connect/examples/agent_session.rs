//! What the app does with a host, from a terminal: start the agent on this computer, check,
//! sample live, profile a command through the API with progress, and download the run.
//! Used to verify the API on a GPU host (lab/verify_api.sh).
//!
//! usage: agent_session AGENT_BINARY OUT_DIR [-- command ...]

use std::path::PathBuf;
use std::time::{Duration, Instant};

use checkup_connect::LocalAgent;
use checkup_model::{LiveSample, RunRequest, RunState, SamplingRequest};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (bin, out) = match (args.first(), args.get(1)) {
        (Some(b), Some(o)) => (PathBuf::from(b), PathBuf::from(o)),
        _ => return Err("usage: agent_session AGENT_BINARY OUT_DIR [-- command ...]".into()),
    };
    let command: Vec<String> = args
        .iter()
        .skip_while(|a| *a != "--")
        .skip(1)
        .cloned()
        .collect();
    let t = Instant::now();
    let agent = LocalAgent::start(&bin, &out.join("agent-state")).await?;
    println!(
        "agent up in {:.0} ms at {}",
        t.elapsed().as_secs_f64() * 1e3,
        agent.info.listening
    );
    let c = &agent.client;
    println!("health: {:?}", c.health().await?);
    let t = Instant::now();
    let check = c.check(&Default::default()).await?;
    println!("check in {:.1} s:", t.elapsed().as_secs_f64());
    for x in &check.checks {
        let words = checkup_text::checks::text(x, checkup_model::Language::En);
        println!("  [{:?}] {}: {}", x.status, words.title, words.value);
    }
    let id = c.start_sampling(&SamplingRequest::default()).await?;
    let mut sub = c.samples(0).await?;
    let (mut nvml, mut gpm, mut host) = (0, 0, 0);
    let end = Instant::now() + Duration::from_secs(5);
    while let Ok(Ok(Some(e))) =
        tokio::time::timeout(end.saturating_duration_since(Instant::now()), sub.next()).await
    {
        match &e.sample {
            LiveSample::Nvml(s) => {
                nvml += 1;
                if nvml <= 2 {
                    println!(
                        "  nvml seq {}: gpu {} util {:?} power {:?} W sm {:?}/{:?} MHz",
                        e.seq, s.gpu, s.util_gpu, s.power_w, s.sm_clock_mhz, s.sm_clock_max_mhz
                    );
                }
            }
            LiveSample::Gpm(s) => {
                gpm += 1;
                if gpm <= 1 {
                    println!(
                        "  gpm seq {}: sm {:?} tensor {:?} dram {:?}",
                        e.seq, s.sm_util, s.any_tensor_util, s.dram_bw_util
                    );
                }
            }
            LiveSample::Host(_) => host += 1,
        }
    }
    c.stop_sampling().await?;
    println!(
        "streamed 5 s: {nvml} nvml, {gpm} gpm, {host} host events (last seq {})",
        sub.last_seq()
    );
    c.download_run(&id, &out.join(&id)).await?;
    if !command.is_empty() {
        let mut req = RunRequest::new(command);
        req.cwd = std::env::current_dir()
            .ok()
            .map(|d| d.display().to_string());
        let run_id = c.start_run(&req).await?;
        let mut last_steps = u64::MAX;
        let run = loop {
            let r = c.run(&run_id).await?;
            if r.steps_done != last_steps {
                println!("  run {run_id}: {:?}, {} steps", r.state, r.steps_done);
                last_steps = r.steps_done;
            }
            if r.state != RunState::Running {
                break r;
            }
            tokio::time::sleep(Duration::from_millis(500)).await;
        };
        println!(
            "run ended: {:?} exit {:?} error {:?}",
            run.state, run.exit_code, run.error
        );
        let dir = c.download_run(&run_id, &out.join(&run_id)).await?;
        println!(
            "downloaded {} files to {}",
            c.run_files(&run_id).await?.len(),
            dir.display()
        );
    }
    agent.stop().await;
    Ok(())
}
