//! The report as Markdown: verdict, environment, findings with evidence and fixes, the
//! measurement window and method, run facts.

use std::fmt::Write;

use checkup_model::{CheckStatus, Comparison, Diagnosis};

/// Escapes text that came from a trace or a host so Markdown shows it literally.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '|' | '#' | '!' | '&' => {
                out.push('\\');
                out.push(c);
            }
            '\n' | '\r' => out.push(' '),
            _ => out.push(c),
        }
    }
    out
}

fn num(v: f64) -> String {
    if v.abs() >= 100.0 || v.fract() == 0.0 {
        format!("{v:.0}")
    } else if v.abs() >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

pub fn markdown(d: &Diagnosis) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "# GPU Checkup report\n");
    let _ = writeln!(s, "## Verdict\n");
    let _ = writeln!(s, "**Primary bottleneck: `{}`**\n", d.primary);
    let _ = writeln!(s, "{}\n", escape(&d.verdict));

    let f = &d.facts;
    let _ = writeln!(s, "## Run\n");
    let _ = writeln!(s, "| fact | value |\n|---|---|");
    let rows: [(&str, Option<String>); 10] = [
        ("GPU", f.gpu_name.clone().map(|g| format!("{g}{}", f.world_size.filter(|w| *w > 1).map(|w| format!(" × {w} ranks")).unwrap_or_default()))),
        ("driver", f.driver_version.clone()),
        ("CUDA (driver)", f.cuda_driver_version.clone()),
        ("CUDA (torch)", f.cuda_runtime_version.clone()),
        ("torch", f.torch_version.clone()),
        ("NCCL", f.nccl_version.clone()),
        ("model", f.model.clone()),
        ("batch size", f.batch_size.map(|b| b.to_string())),
        ("precision", f.precision.clone()),
        ("host CPUs", f.host_cpus.map(|c| c.to_string())),
    ];
    for (k, v) in rows {
        if let Some(v) = v {
            let _ = writeln!(s, "| {k} | {} |", escape(&v));
        }
    }
    let _ = writeln!(s);

    if !d.environment.is_empty() {
        let _ = writeln!(s, "## Environment\n");
        let _ = writeln!(s, "| check | status | value | fix |\n|---|---|---|---|");
        for c in &d.environment {
            let status = match c.status {
                CheckStatus::Pass => "pass",
                CheckStatus::Warn => "WARN",
                CheckStatus::Fail => "FAIL",
                CheckStatus::Unknown => "unknown",
            };
            let _ = writeln!(s, "| {} | {status} | {} | {} |", escape(&c.title), escape(&c.value), escape(c.fix.as_deref().unwrap_or("")));
        }
        let _ = writeln!(s);
    }

    let _ = writeln!(s, "## Findings\n");
    for (i, f) in d.findings.iter().enumerate() {
        let _ = writeln!(s, "### {}. {} (`{}`)\n", i + 1, escape(&f.title), f.id);
        let _ = writeln!(s, "Severity **{:?}**, explains **{:.0}%** of step time, confidence {:.0}%.\n", f.severity, f.share * 100.0, f.confidence * 100.0);
        let _ = writeln!(s, "{}\n", escape(&f.summary));
        if !f.evidence.is_empty() {
            let _ = writeln!(s, "| evidence | value | threshold | source |\n|---|---|---|---|");
            for e in &f.evidence {
                let threshold = e.threshold.as_ref().map_or(String::new(), |t| {
                    let op = if t.comparison == Comparison::AtLeast { "≥" } else { "≤" };
                    format!("{op} {} {}", num(t.value), escape(&e.unit))
                });
                let _ = writeln!(s, "| {} | {} {} | {} | {} |", escape(&e.metric), num(e.value), escape(&e.unit), threshold, escape(&e.source));
            }
            let _ = writeln!(s);
        }
        for (k, fix) in f.fixes.iter().enumerate() {
            let _ = writeln!(s, "**Fix {}: {}.** {} *Expected:* {}\n", k + 1, escape(&fix.title), escape(&fix.detail), escape(&fix.expected_effect));
            if let Some(code) = &fix.snippet {
                let fence = if code.contains("```") { "~~~~" } else { "```" };
                let _ = writeln!(s, "{fence}python\n{code}\n{fence}\n");
            }
        }
    }

    if !d.ranks.is_empty() {
        let _ = writeln!(s, "## GPU time per rank\n");
        let _ = writeln!(s, "| rank | window | compute | exposed comm | exposed copies | idle | idle: host wait | idle: kernel wait | kernels/step | median kernel |\n|---|---|---|---|---|---|---|---|---|---|");
        for r in &d.ranks {
            let g = &r.gpu;
            let p = |us: f64| format!("{:.1}%", g.share(us) * 100.0);
            let _ = writeln!(
                s,
                "| {} | {:.1} ms | {} | {} | {} | {} | {} | {} | {:.0} | {:.1} µs |",
                r.rank,
                g.window_us / 1e3,
                p(g.compute_us),
                p(g.exposed_comm_us),
                p(g.exposed_memory_us),
                p(g.idle_us),
                p(g.idle.host_wait_us),
                p(g.idle.kernel_wait_us),
                r.kernels.per_step,
                r.kernels.median_us
            );
        }
        let _ = writeln!(s);
    }
    if !d.step_timing.is_empty() {
        let _ = writeln!(s, "## Step timing (unprofiled steps)\n");
        let _ = writeln!(s, "| rank | steps | warm-up | mean step | median | p90 | data wait | stalls |\n|---|---|---|---|---|---|---|---|");
        for t in &d.step_timing {
            let _ = writeln!(
                s,
                "| {} | {} | {} | {:.1} ms | {:.1} ms | {:.1} ms | {:.1}% | {}{} |",
                t.rank,
                t.total_steps,
                t.warmup_steps,
                t.mean_step_ms,
                t.median_step_ms,
                t.p90_step_ms,
                t.data_wait_share * 100.0,
                t.stalls.len(),
                t.stall_period_steps.map(|p| format!(" (every {p:.0} steps)")).unwrap_or_default()
            );
        }
        let _ = writeln!(s);
    }
    let _ = writeln!(s, "## Method\n");
    let _ = writeln!(s, "Steady-state window: {}.\n", escape(&d.window.method));
    let _ = writeln!(s, "GPU time is split exclusively: compute kernels, then communication not hidden by compute, then copies not hidden by either, then idle. Idle gaps follow Holistic Trace Analysis: *host wait* when the next work had not been launched when the GPU went idle, *kernel wait* for shorter gaps with work queued. Shares are of step time on the diagnosed rank; launch-bound claims are checked against unprofiled step times, since the profiler slows the host.\n");
    for n in &d.notes {
        let _ = writeln!(s, "- {}", escape(n));
    }
    if !d.notes.is_empty() {
        let _ = writeln!(s);
    }
    let _ = writeln!(s, "Sources: {}", d.sources.iter().map(|x| format!("`{}`", x.replace('`', "'"))).collect::<Vec<_>>().join(", "));
    s
}
