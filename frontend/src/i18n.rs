//! The UI's language: the system's by default, switchable in the app. Words come from
//! `checkup-text`, the one catalogue the report and the CLI use too, by `UiWord`: a word the
//! UI uses without both languages does not build.

use checkup_model::Language;

/// A word in `l`, owned for the views and signals that keep it.
pub fn tr(l: Language, w: checkup_model::UiWord) -> String {
    checkup_text::ui::tr(l, w).to_owned()
}

/// The browser's language, when the catalogue has it; English otherwise.
pub fn system_language() -> Language {
    let nav = js_sys::Reflect::get(&js_sys::global(), &"navigator".into())
        .ok()
        .and_then(|n| js_sys::Reflect::get(&n, &"language".into()).ok())
        .and_then(|l| l.as_string())
        .unwrap_or_default();
    if nav.to_ascii_lowercase().starts_with("zh") {
        Language::Zh
    } else {
        Language::En
    }
}

/// An error from the backend in `l`: words, and details apart.
pub fn error_words(l: Language, e: &checkup_model::UiError) -> checkup_text::ui::ErrorWords {
    checkup_text::ui::error_words(l, e)
}
