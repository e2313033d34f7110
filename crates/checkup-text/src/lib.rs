//! GPU Checkup's message catalogue. The engine, the agent and the store keep typed facts
//! (causes, evidence keys, fix ids, check ids, notes); this crate words them in English and
//! Simplified Chinese, for the report, the CLI and the UI alike. Every `match` here is
//! exhaustive, so a new kind, key or fix id does not build until it has words in both
//! languages; the tests check that each is translated.
//!
//! It depends on `checkup-model` alone and builds for wasm32: the UI switches language
//! without asking the backend.

#![warn(missing_docs)]

pub mod causes;
pub mod checks;
pub mod comparison;
pub mod evidence;
pub mod findings;
mod fix_words;
pub mod fixes;
pub mod fleet;
pub mod headline;
pub mod ledger;
pub mod notes;
pub mod readback;
pub mod report;
pub mod setting_cost;
pub mod shown;
pub mod spans;
pub mod training;
pub mod ui;

pub use checks::CheckText;
pub use checkup_model::Language;
pub use fixes::FixText;
pub use shown::{shown, visible};
pub use spans::{code, spans, Span};

use checkup_model::Severity;

/// How every view prints a measured value: 3 significant-ish digits, no trailing noise, and
/// never "-0".
pub fn format_number(v: f64) -> String {
    let s = if v.abs() >= 100.0 || v.fract() == 0.0 {
        format!("{v:.0}")
    } else if v.abs() >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    };
    match s.strip_prefix('-') {
        Some(rest) if rest.chars().all(|c| c == '0' || c == '.') => rest.to_owned(),
        _ => s,
    }
}

/// A share (0..=1) as whole percent, never "-0".
pub fn pct(share: f64) -> String {
    fixed(share * 100.0, 0)
}

/// `v` with `decimals` decimals, never "-0" or "-0.0".
pub fn fixed(v: f64, decimals: usize) -> String {
    let s = format!("{v:.decimals$}");
    match s.strip_prefix('-') {
        Some(rest) if rest.chars().all(|c| c == '0' || c == '.') => rest.to_owned(),
        _ => s,
    }
}

/// Ranks in order: "2–5" when they run without a gap, else "0, 2, 7".
pub fn rank_span(v: &[u32]) -> String {
    let gapless = v.len() > 1 && v.windows(2).all(|w| w[0].checked_add(1) == Some(w[1]));
    match (v.first(), v.last()) {
        (Some(a), Some(b)) if gapless => format!("{a}–{b}"),
        _ => v.iter().map(u32::to_string).collect::<Vec<_>>().join(", "),
    }
}

/// A rank as the views name it: with its node when the job ran on several ("3 on gpu-b").
pub fn rank_label(rank: u32, facts: &checkup_model::RunFacts, l: Language) -> String {
    match facts.node_of_rank(rank) {
        Some(node) => match l {
            Language::En => format!("{rank} on {}", node.label(&facts.nodes)),
            Language::Zh => format!("{rank}（{}）", node.label(&facts.nodes)),
        },
        None => rank.to_string(),
    }
}

/// `v` rounded to a whole number with its sign ("+12", "-3", "+0").
pub fn signed(v: f64) -> String {
    let r = v.round();
    if r == 0.0 {
        "+0".into()
    } else {
        format!("{r:+.0}")
    }
}

/// A finding's severity: "info", "minor", "major", "critical" or their translation.
pub fn severity(s: Severity, l: Language) -> &'static str {
    match (s, l) {
        (Severity::Info, Language::En) => "info",
        (Severity::Info, Language::Zh) => "提示",
        (Severity::Minor, Language::En) => "minor",
        (Severity::Minor, Language::Zh) => "次要",
        (Severity::Major, Language::En) => "major",
        (Severity::Major, Language::Zh) => "主要",
        (Severity::Critical, Language::En) => "critical",
        (Severity::Critical, Language::Zh) => "严重",
    }
}

#[cfg(test)]
mod tests;
