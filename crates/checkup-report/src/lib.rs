//! Views of a [`Diagnosis`]: Markdown (the source of every report), HTML rendered from it
//! with pulldown-cmark, and JSON.

mod markdown;

use checkup_model::Diagnosis;

pub use markdown::markdown;

#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error("cannot serialise the diagnosis to JSON: {0}")]
    Json(#[from] serde_json::Error),
}

/// The diagnosis as one pretty-printed JSON object. Top-level keys `primary` and `findings`
/// (each with `id`, `severity`, `confidence`, `share`, `evidence`, `fixes`) are stable.
pub fn json(d: &Diagnosis) -> Result<String, ReportError> {
    Ok(serde_json::to_string_pretty(d)?)
}

/// A single self-contained HTML page. Raw HTML in the Markdown source is escaped, so
/// strings from traces and hosts (kernel names, commands) always show as text.
pub fn html(d: &Diagnosis) -> String {
    let md = markdown(d);
    let mut opts = pulldown_cmark::Options::empty();
    opts.insert(pulldown_cmark::Options::ENABLE_TABLES);
    let parser = pulldown_cmark::Parser::new_ext(&md, opts).map(|ev| match ev {
        pulldown_cmark::Event::Html(t) | pulldown_cmark::Event::InlineHtml(t) => pulldown_cmark::Event::Text(t),
        other => other,
    });
    let mut body = String::new();
    pulldown_cmark::html::push_html(&mut body, parser);
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>GPU Checkup report</title>\n<style>{CSS}</style>\n</head>\n<body>\n<main>\n{body}</main>\n</body>\n</html>\n"
    )
}

const CSS: &str = "body{font-family:system-ui,sans-serif;line-height:1.45;color:#111;margin:0}main{max-width:60rem;margin:2rem auto;padding:0 1rem}table{border-collapse:collapse;margin:0.5rem 0}td,th{border:1px solid #999;padding:0.2rem 0.5rem;text-align:left;vertical-align:top}pre{background:#f4f4f4;border:1px solid #ccc;padding:0.6rem;overflow-x:auto}code{font-family:ui-monospace,monospace}h2{border-bottom:2px solid #333;margin-top:2rem}@page{size:A4;margin:18mm}@media print{pre,table{break-inside:avoid}h2,h3{break-after:avoid}}";
