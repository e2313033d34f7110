//! What one frame of the app's live curves costs while sampling: the last minute's curves
//! drawn ten times a second (`checkup_engine::analysis::charts::live_chart_data` +
//! `checkup_report::live_charts`), and the engine's full analysis of everything so far, done
//! once a second for the steady window it marks. Beside them the way before (every second,
//! the whole run analysed and every curve drawn over all of it), timed the same way in the
//! same process. Samples: a real H200 recording's (`agent_dataloader_starved`, 10 Hz NVML,
//! 1 Hz GPM and host) repeated to 1, 10 and 30 minutes. Medians of 15 runs each.
//! `cargo bench -p checkup-report --bench live_frames`.

use std::path::Path;
use std::time::Instant;

use checkup_model::{Language, SampleSet};

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// `f` run 15 times: the median milliseconds and its last answer.
fn timed<T>(mut f: impl FnMut() -> T) -> (f64, T) {
    let mut ms = Vec::new();
    let mut last = None;
    for _ in 0..15 {
        let t = Instant::now();
        last = Some(f());
        ms.push(t.elapsed().as_secs_f64() * 1e3);
    }
    (median(ms), last.expect("ran"))
}

/// The recording's samples repeated back to back until they span `seconds`.
fn repeated(one: &SampleSet, seconds: f64) -> SampleSet {
    let t0 = one.nvml.iter().map(|s| s.ts).fold(f64::INFINITY, f64::min);
    let t1 = one
        .nvml
        .iter()
        .map(|s| s.ts)
        .fold(f64::NEG_INFINITY, f64::max);
    let span = t1 - t0 + 0.1;
    let mut out = SampleSet::default();
    let mut k = 0.0;
    while k * span < seconds {
        let shift = k * span;
        let keep = |ts: f64| ts - t0 + shift < seconds;
        out.nvml
            .extend(one.nvml.iter().filter(|s| keep(s.ts)).map(|s| {
                let mut s = s.clone();
                s.ts += shift;
                s
            }));
        out.gpm
            .extend(one.gpm.iter().filter(|s| keep(s.ts)).map(|s| {
                let mut s = s.clone();
                s.ts += shift;
                s
            }));
        out.host
            .extend(one.host.iter().filter(|s| keep(s.ts)).map(|s| {
                let mut s = s.clone();
                s.ts += shift;
                s
            }));
        k += 1.0;
    }
    out
}

fn analysed(samples: &SampleSet) -> checkup_model::Diagnosis {
    let rec = checkup_engine::ingest::Recording {
        samples: samples.clone(),
        ..Default::default()
    };
    checkup_engine::diagnose_recording(rec, None, &Default::default())
}

fn main() {
    let run =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus/agent_dataloader_starved");
    let one = checkup_engine::ingest::load(&[run])
        .expect("the corpus run loads")
        .samples;
    let t = checkup_text::report::text(Language::En);
    println!("| sampled so far | samples | frame (last minute, every live chart) | frame bytes | analysis (once a second) | before: whole run analysed and drawn | before bytes | frame vs before |");
    println!("|---|---|---|---|---|---|---|---|");
    for minutes in [1.0, 10.0, 30.0] {
        let samples = repeated(&one, minutes * 60.0);
        let n = samples.nvml.len() + samples.gpm.len() + samples.host.len();
        let (analysis_ms, marks) = timed(|| analysed(&samples));
        let steady = marks
            .charts
            .steady
            .map(|(a, b)| (a + marks.charts.t0, b + marks.charts.t0));
        let (frame_ms, frame) = timed(|| {
            let mut d = marks.clone();
            d.charts = checkup_engine::analysis::charts::live_chart_data(&samples, steady, 60.0);
            checkup_report::live_charts(&d, t, 60.0)
        });
        let (before_ms, before) = timed(|| {
            let d = analysed(&samples);
            checkup_report::charts(&d, t)
        });
        let bytes = |c: &[checkup_report::Chart]| -> usize {
            c.iter()
                .filter(|c| c.hover.is_some())
                .map(|c| c.svg.len())
                .sum()
        };
        println!(
            "| {minutes:.0} min | {n} | {frame_ms:.1} ms | {} KB | {analysis_ms:.1} ms | {before_ms:.1} ms | {} KB | {:.2}× |",
            bytes(&frame) / 1024,
            bytes(&before) / 1024,
            frame_ms / before_ms
        );
    }
}
