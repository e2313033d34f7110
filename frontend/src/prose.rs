//! Catalogue text in the page: its code spans (a line of the training's code, a guard, a
//! command) as `<code>`, the rest as text, as the report prints them.

use checkup_text::Span;
use leptos::prelude::*;

/// `text` (a summary, a verdict, a fix) with its code spans as `<code>`.
pub fn prose(text: &str) -> impl IntoView {
    checkup_text::spans(text)
        .into_iter()
        .map(|span| match span {
            Span::Text(t) => t.to_owned().into_any(),
            Span::Code(c) => view! { <code>{c.to_owned()}</code> }.into_any(),
        })
        .collect_view()
}
