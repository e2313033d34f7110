//! The terminal view of a diagnosis: ranked findings with evidence and fixes, and of a
//! comparison, in the chosen language.

use std::fmt::Write;

use checkup_model::{Comparison, Diagnosis, Language, RunComparison};
use checkup_report::format_number;
use checkup_text::{comparison, evidence, findings, fixes, notes, report, severity};

/// Words of this view that are the terminal's own.
struct Words {
    window: &'static str,
    diagnosed_rank: &'static str,
    diagnosed_rank_shifting: &'static str,
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
            diagnosed_rank: "Diagnosed rank: {} (the slowest; the others wait for it)",
            diagnosed_rank_shifting: "Diagnosed rank: {} (the one that waited least over the profiled steps; the slowest changes from step to step)",
            share: "share",
            confidence: "confidence",
            threshold: "threshold",
            fix: "fix",
            note: "note",
        },
        Language::Zh => Words {
            window: "统计窗口",
            diagnosed_rank: "诊断的 rank：{}——最慢的一个，其他 rank 在等它",
            diagnosed_rank_shifting: "诊断的 rank：{}——在分析的步骤中等待最少的一个；最慢的 rank 每一步都在变",
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
    if let Some(r) = d.diagnosed_rank.filter(|_| d.ranks.len() > 1) {
        let shifting = d.finding("communication/shifting_straggler").is_some();
        let line = if shifting {
            w.diagnosed_rank_shifting
        } else {
            w.diagnosed_rank
        };
        let _ = writeln!(
            s,
            "{}",
            line.replace("{}", &checkup_text::rank_label(r, &d.facts, l))
        );
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
        if let Some(g) = d.expected_gain(f) {
            let _ = writeln!(s, "   {}", findings::gain(&g, l));
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
        for (k, fix_id) in f.fixes.iter().enumerate() {
            let fix = fixes::text(fix_id, l);
            let _ = writeln!(
                s,
                "   {} {}{colon}{} — {}",
                w.fix,
                k + 1,
                fix.title,
                fix.effect
            );
            if let Some(g) = d.fix_gain(f, fix_id) {
                let _ = writeln!(s, "       {}", findings::fix_gain(&g, l));
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
