//! The parts every fix's words are made of, below the family modules that word each fix:
//! the shape of a fix in words and the few helpers that build one.

use checkup_model::Language;

use crate::Language::*;

/// A fix in words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FixText {
    /// What to change, in a line.
    pub title: String,
    /// Why, and how, with the run's own settings.
    pub detail: String,
    /// Code or a command to paste, where there is one.
    pub snippet: Option<String>,
    /// What the change should do to the step time.
    pub effect: String,
}

pub(crate) fn t(title: &str, detail: &str, snippet: Option<&str>, effect: &str) -> FixText {
    FixText {
        title: title.into(),
        detail: detail.into(),
        snippet: snippet.map(str::to_owned),
        effect: effect.into(),
    }
}

/// One text in the reader's language.
pub(crate) fn pick<'a>(l: Language, en: &'a str, zh: &'a str) -> &'a str {
    match l {
        En => en,
        Zh => zh,
    }
}

/// A memory-saving fix: its effect is the memory it frees in this run, when the recording
/// says how much.
pub(crate) fn memory_fix(
    l: Language,
    title: &str,
    detail: &str,
    snippet: &str,
    frees_gib: Option<f64>,
) -> FixText {
    let effect = match (frees_gib, l) {
        (Some(g), En) => format!("Frees about {} GiB in this run.", crate::fixed(g, 1)),
        (Some(g), Zh) => format!("在本次运行中约释放 {} GiB。", crate::fixed(g, 1)),
        (None, En) => "Frees memory; how much, this recording cannot say.".into(),
        (None, Zh) => "可释放显存；释放多少，这份记录无法给出。".into(),
    };
    FixText {
        title: title.into(),
        detail: detail.into(),
        snippet: Some(snippet.into()),
        effect,
    }
}
