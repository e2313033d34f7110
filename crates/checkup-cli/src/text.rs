//! The terminal view of a diagnosis: ranked findings with evidence and fixes.

use std::fmt::Write;

use checkup_model::{Comparison, Diagnosis};
use checkup_report::format_number;

pub fn render(d: &Diagnosis) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "PRIMARY: {}", d.primary);
    let _ = writeln!(s, "{}\n", d.verdict);
    let _ = writeln!(s, "Window: {}", d.window.method);
    if let Some(r) = d.diagnosed_rank.filter(|_| d.ranks.len() > 1) {
        let _ = writeln!(
            s,
            "Diagnosed rank: {r} (the slowest; the others wait for it)"
        );
    }
    let _ = writeln!(s);
    for (i, f) in d.findings.iter().enumerate() {
        let _ = writeln!(
            s,
            "{}. [{:?}] {} ({})  share {:.0}%  confidence {:.0}%",
            i + 1,
            f.severity,
            f.title,
            f.id,
            f.share * 100.0,
            f.confidence * 100.0
        );
        let _ = writeln!(s, "   {}", f.summary);
        for e in &f.evidence {
            let threshold = e.threshold.as_ref().map(|t| {
                let op = match t.comparison {
                    Comparison::AtLeast => "≥",
                    Comparison::AtMost => "≤",
                };
                format!(" (threshold {op} {})", format_number(t.value))
            });
            let _ = writeln!(
                s,
                "   - {}: {} {}{}  [{}]",
                e.metric,
                format_number(e.value),
                e.unit,
                threshold.unwrap_or_default(),
                e.source
            );
        }
        for (k, fix) in f.fixes.iter().enumerate() {
            let _ = writeln!(
                s,
                "   fix {}: {} — {}",
                k + 1,
                fix.title,
                fix.expected_effect
            );
            if let Some(code) = &fix.snippet {
                for line in code.lines() {
                    let _ = writeln!(s, "       {line}");
                }
            }
        }
        let _ = writeln!(s);
    }
    for n in &d.notes {
        let _ = writeln!(s, "note: {n}");
    }
    s
}
