//! The terminal view of a diagnosis: ranked findings with evidence and fixes, of a
//! comparison, and of what `checkup gather` copied, in the chosen language.

use std::fmt::Write;
use std::path::Path;

use checkup_connect::gather::GatheredNode;
use checkup_model::{Comparison, Diagnosis, Language, RunComparison};
use checkup_report::format_number;
use checkup_text::{comparison, evidence, findings, fixes, notes, rank_span, report, severity};

/// Words of this view that are the terminal's own.
struct Words {
    window: &'static str,
    share: &'static str,
    confidence: &'static str,
    threshold: &'static str,
    fix: &'static str,
    note: &'static str,
}

fn words(l: Language) -> Words {
    match l {
        Language::En => Words {
            window: "Window",
            share: "share",
            confidence: "confidence",
            threshold: "threshold",
            fix: "fix",
            note: "note",
        },
        Language::Zh => Words {
            window: "统计窗口",
            share: "占比",
            confidence: "置信度",
            threshold: "阈值",
            fix: "修复",
            note: "说明",
        },
    }
}

pub fn render(d: &Diagnosis, l: Language) -> String {
    let w = words(l);
    let t = report::text(l);
    // Chinese sentences take full-width punctuation.
    let (colon, open, close) = match l {
        Language::En => (": ", " (", ")"),
        Language::Zh => ("：", "（", "）"),
    };
    let mut s = String::new();
    let _ = writeln!(s, "{}{colon}{}", t.primary, d.primary);
    let _ = writeln!(s, "{}\n", findings::verdict(d, l));
    let glance = checkup_text::headline::rows(&d.headline(), d, l);
    if !glance.is_empty() {
        let _ = writeln!(s, "{}{}", t.at_a_glance, colon.trim_end());
        // Finding titles carry colons of their own: a dash between label and value.
        let dash = match l {
            Language::En => " — ",
            Language::Zh => "——",
        };
        for (label, value) in glance {
            let _ = writeln!(s, "  {label}{dash}{value}");
        }
        let _ = writeln!(s);
    }
    if let Some(ledger) = &d.ledger {
        // Where the run's time went: each part of 1 % or more, largest first, with the
        // finding that takes it up.
        let _ = writeln!(s, "{}{}", t.chart_ledger, colon.trim_end());
        let _ = writeln!(s, "  {}", checkup_text::ledger::basis(ledger, l));
        for p in ledger.parts.iter().filter(|p| p.share >= 0.01) {
            let finding = p
                .finding
                .and_then(|i| d.findings.get(i))
                .map(|f| format!(" → {}", f.id()))
                .unwrap_or_default();
            let _ = writeln!(
                s,
                "  {:>5.1}%  {:>7} s  {}{finding}",
                p.share * 100.0,
                checkup_text::format_number(p.seconds),
                checkup_text::ledger::kind(p.kind, l)
            );
        }
        let _ = writeln!(s);
    }
    let ranked = d.fixes_by_gain();
    if !ranked.is_empty() {
        let _ = writeln!(s, "{}{}", t.fixes_by_gain, colon.trim_end());
        for (i, r) in ranked.iter().enumerate() {
            let _ = writeln!(
                s,
                "  {}. {} — {}",
                i + 1,
                fixes::text(r.fix, l).title,
                findings::fix_gain(&r.gain, l)
            );
        }
        let _ = writeln!(s);
    }
    let _ = writeln!(
        s,
        "{}{colon}{}",
        w.window,
        notes::window_method(&d.window.method, l)
    );
    if let Some(line) = report::diagnosed_rank(d, l) {
        let _ = writeln!(s, "{line}");
    }
    let _ = writeln!(s);
    // Informational findings behind the lead come after a heading of their own, as in the
    // report; each keeps its rank's number.
    let (main, also) = d.findings_then_also_noticed();
    let first_also = also.first().map(|(i, _)| *i);
    for (i, f) in main.into_iter().chain(also) {
        if Some(i) == first_also {
            let _ = writeln!(s, "{}{}", t.also_noticed, colon.trim_end());
        }
        let _ = writeln!(
            s,
            "{}. [{}] {}{open}{}{close}  {} {}%  {} {}%",
            i + 1,
            severity(f.severity, l),
            findings::title(&f.cause, l),
            f.id(),
            w.share,
            checkup_text::pct(f.share),
            w.confidence,
            checkup_text::pct(f.confidence)
        );
        let _ = writeln!(s, "   {}", findings::summary(f, l));
        if let Some(g) = &f.gains.cause {
            let _ = writeln!(s, "   {}", findings::gain(g, l));
        }
        for e in &f.evidence {
            let threshold = e.threshold.as_ref().map(|t| {
                let op = match t.comparison {
                    Comparison::AtLeast => "≥",
                    Comparison::AtMost => "≤",
                };
                format!(
                    "{open}{} {op} {}{close}",
                    w.threshold,
                    format_number(t.value)
                )
            });
            let _ = writeln!(
                s,
                "   - {}{colon}{} {}{}  [{}]",
                evidence::label(&e.key, l),
                format_number(e.value),
                evidence::unit(e.unit, l),
                threshold.unwrap_or_default(),
                evidence::source(&e.source, l)
            );
        }
        for (k, (fix_id, gain)) in f.fixes_with_gains().enumerate() {
            let fix = fixes::text(fix_id, l);
            let _ = writeln!(
                s,
                "   {} {}{colon}{} — {}",
                w.fix,
                k + 1,
                fix.title,
                fix.effect
            );
            if let Some(g) = gain {
                let _ = writeln!(s, "       {}", findings::fix_gain(g, l));
            }
            if let Some(code) = &fix.snippet {
                for line in code.lines() {
                    let _ = writeln!(s, "       {line}");
                }
            }
        }
        let _ = writeln!(s);
    }
    for n in &d.notes {
        let _ = writeln!(s, "{}{colon}{}", w.note, notes::note(n, l));
    }
    if let Some(training) = &d.training {
        let _ = writeln!(s, "\n{}{}", t.training, colon.trim_end());
        for (k, v) in checkup_text::training::rows(training, l) {
            let _ = writeln!(s, "  {k}{colon}{v}");
        }
    }
    if !d.settings.is_empty() {
        let _ = writeln!(
            s,
            "\n{}{}",
            checkup_text::setting_cost::title(l),
            colon.trim_end()
        );
        for (k, v) in checkup_text::setting_cost::rows(d, l) {
            let _ = writeln!(s, "  {k}{colon}{v}");
        }
    }
    s
}

/// A comparison with a baseline card: the summary, then one line per figure.
pub fn comparison(c: &RunComparison, l: Language) -> String {
    let mut out = format!("{}\n\n", comparison::summary(c, l));
    for ch in &c.changes {
        let [before, after, change] = comparison::row(ch, l);
        let _ = writeln!(
            out,
            "{:<22} {:>14} → {:<14} {}",
            comparison::figure(ch.figure, l),
            before,
            after,
            change
        );
    }
    out
}

// `checkup gather`: what was copied, what stayed on the hosts, what to run next.

/// Where the job ran, and a word when it still runs.
pub fn gather_slurm_job(job: &str, state: &str, nodes: &[String], l: Language) -> String {
    let list = nodes.join(", ");
    let mut s = match l {
        Language::En => format!(
            "Slurm job {job} ({state}) ran on {} node{}: {list}\n",
            nodes.len(),
            if nodes.len() == 1 { "" } else { "s" }
        ),
        Language::Zh => format!(
            "Slurm 作业 {job}（{state}）运行在 {} 个节点上：{list}\n",
            nodes.len()
        ),
    };
    if state == "RUNNING" {
        s.push_str(match l {
            Language::En => "It is still running: each node's folder is complete, its traces summarised, once the job ends.\n",
            Language::Zh => "作业仍在运行：作业结束后，各节点的文件夹才完整，trace 才会生成摘要。\n",
        });
    }
    s
}

fn mb(bytes: u64) -> String {
    format!("{:.2} MB", bytes as f64 / 1e6)
}

/// A line per host: where its folder went, how much came, which traces stayed.
pub fn gather_copied(nodes: &[GatheredNode], l: Language) -> String {
    let mut s = String::new();
    for n in nodes {
        let left: Vec<u32> = n.traces_left.iter().map(|t| t.rank).collect();
        let left_bytes: u64 = n.traces_left.iter().map(|t| t.bytes).sum();
        let _ = match l {
            Language::En => write!(
                s,
                "{} -> {}: {} files, {}",
                n.source,
                n.folder.display(),
                n.files,
                mb(n.bytes)
            ),
            Language::Zh => write!(
                s,
                "{} -> {}：{} 个文件，{}",
                n.source,
                n.folder.display(),
                n.files,
                mb(n.bytes)
            ),
        };
        if !left.is_empty() {
            let _ = match l {
                Language::En if left.len() == 1 => write!(
                    s,
                    "; the trace of rank {} ({}) stays there, its summary came",
                    rank_span(&left),
                    mb(left_bytes)
                ),
                Language::En => write!(
                    s,
                    "; the traces of ranks {} ({}) stay there, their summaries came",
                    rank_span(&left),
                    mb(left_bytes)
                ),
                Language::Zh => write!(
                    s,
                    "；rank {} 的 trace（{}）留在主机上，只复制了摘要",
                    rank_span(&left),
                    mb(left_bytes)
                ),
            };
        }
        if !n.unsummarised_ranks.is_empty() {
            let _ = match l {
                Language::En => write!(
                    s,
                    "; no summary of rank(s) {} (an older agent?), so their traces came",
                    rank_span(&n.unsummarised_ranks)
                ),
                Language::Zh => write!(
                    s,
                    "；rank {} 没有摘要（旧版 agent？），复制了它们的 trace",
                    rank_span(&n.unsummarised_ranks)
                ),
            };
        }
        s.push('\n');
    }
    let copied: u64 = nodes.iter().map(|n| n.bytes).sum();
    let left: u64 = nodes
        .iter()
        .flat_map(|n| &n.traces_left)
        .map(|t| t.bytes)
        .sum();
    let _ = match l {
        Language::En => writeln!(
            s,
            "{} host{}: {} copied, {} of traces left on the hosts.",
            nodes.len(),
            if nodes.len() == 1 { "" } else { "s" },
            mb(copied),
            mb(left)
        ),
        Language::Zh => writeln!(
            s,
            "{} 台主机：复制了 {}，{} 的 trace 留在主机上。",
            nodes.len(),
            mb(copied),
            mb(left)
        ),
    };
    s
}

pub fn gather_diagnosed_trace(rank: u32, l: Language) -> String {
    match l {
        Language::En => {
            format!("Copied the trace of rank {rank}, the rank the diagnosis follows.\n")
        }
        Language::Zh => format!("已复制 rank {rank} 的 trace：诊断针对的就是这个 rank。\n"),
    }
}

pub fn gather_next_step(output: &Path, l: Language) -> String {
    let dir = output.display();
    match l {
        Language::En => format!("Next: checkup analyze {dir}   (or checkup report {dir} -o report.pdf)\n"),
        Language::Zh => format!("下一步：checkup analyze {dir} --lang zh   （或 checkup report {dir} --lang zh -o report.pdf）\n"),
    }
}
