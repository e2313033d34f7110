//! Views of a [`Diagnosis`]: the report as Markdown (the single source of its content),
//! HTML with inline SVG charts, PDF typeset natively, and JSON; plus the baseline card.
//! Used by the CLI and the desktop app alike.

#![warn(missing_docs)]

pub mod baseline;
pub mod charts;
mod glance;
mod markdown;
mod pdf;
mod ranks;

use checkup_model::{Diagnosis, RunComparison};
use checkup_text::report::text;
use markdown::Part;

pub use baseline::{compare, BaselineCard};
pub use charts::{charts, live_charts, time_chart_window, Chart};
pub use checkup_model::Language;
pub use glance::gpu_glance;
pub use markdown::{escape, format_number, short_kernel_name};

/// Why a report or a baseline card could not be made or read.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// The diagnosis did not serialise (a bug: every model type serialises).
    #[error("cannot serialise the diagnosis to JSON: {0}")]
    Json(#[from] serde_json::Error),
    /// Typst could not lay out the report.
    #[error("PDF typesetting failed: {0}")]
    Pdf(String),
    /// A baseline card that does not parse: what and where.
    #[error("baseline card: {0}")]
    Baseline(String),
}

/// What a report contains besides the diagnosis.
#[derive(Debug, Clone, Default)]
pub struct ReportOptions {
    /// The report's language.
    pub language: Language,
    /// A baseline to compare against; its comparison opens the report.
    pub baseline: Option<BaselineCard>,
}

fn comparison(d: &Diagnosis, o: &ReportOptions) -> Option<RunComparison> {
    o.baseline
        .as_ref()
        .map(|b| compare(&BaselineCard::from_diagnosis(d), b))
}

/// Markdown with charts as files beside it: returns the text (charts linked as
/// `charts/NAME.svg`) and the charts to write there.
pub fn markdown(d: &Diagnosis, o: &ReportOptions) -> (String, Vec<Chart>) {
    let t = text(o.language);
    let charts = charts::charts(d, t);
    let cmp = comparison(d, o);
    let md = markdown::render(d, o.language, &charts, cmp.as_ref())
        .into_iter()
        .map(|part| match part {
            Part::Markdown(md) => md,
            Part::Chart(c) => format!("![{}](charts/{}.svg)\n\n", escape(&c.title), c.name),
        })
        .collect();
    (md, charts)
}

/// The diagnosis as one pretty-printed JSON object. Top-level keys `primary` and `findings`
/// (each with `id`, `severity`, `confidence`, `share`, `evidence`, `fixes`) are stable.
pub fn json(d: &Diagnosis) -> Result<String, ReportError> {
    Ok(serde_json::to_string_pretty(d)?)
}

/// A single self-contained HTML file: charts inline as SVG, print CSS (A4 or Letter, page
/// numbers, no chart split across pages). Raw HTML in the Markdown source is escaped, so
/// strings from traces and hosts (kernel names, commands) always show as text.
pub fn html(d: &Diagnosis, o: &ReportOptions) -> String {
    let t = text(o.language);
    let body = html_body(d, o);
    format!(
        "<!DOCTYPE html>\n<html lang=\"{lang}\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>{title}</title>\n<style>{CSS}</style>\n</head>\n<body>\n<main>\n{body}</main>\n<footer>{footer}</footer>\n</body>\n</html>\n",
        lang = if o.language == Language::Zh { "zh-CN" } else { "en" },
        title = html_escape(t.title),
        footer = html_escape(t.generated_by),
    )
}

/// The report's content as an HTML fragment (no document, no style): what [`html`] wraps,
/// and what the app shows as the report's preview.
pub fn html_body(d: &Diagnosis, o: &ReportOptions) -> String {
    let t = text(o.language);
    let charts = charts::charts(d, t);
    let cmp = comparison(d, o);
    let mut body = String::new();
    for part in markdown::render(d, o.language, &charts, cmp.as_ref()) {
        match part {
            Part::Markdown(md) => markdown_as_html(&md, &mut body),
            Part::Chart(c) => {
                let svg = c.svg.trim_start_matches(|ch| ch != '<');
                let svg = svg
                    .strip_prefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>")
                    .unwrap_or(svg)
                    .trim_start();
                body.push_str(&format!(
                    "<figure class=\"chart\">{svg}<figcaption>{}</figcaption></figure>\n",
                    html_escape(&c.title)
                ));
            }
        }
    }
    body
}

/// Markdown as HTML, raw HTML in it escaped and no link or image: strings from traces and
/// hosts always show as text.
fn markdown_as_html(md: &str, out: &mut String) {
    let mut opts = pulldown_cmark::Options::empty();
    opts.insert(pulldown_cmark::Options::ENABLE_TABLES);
    use pulldown_cmark::{Event, Tag, TagEnd};
    // The report places its charts itself and links nowhere: a link or image here came from
    // a name, and shows as its text only.
    let parser = pulldown_cmark::Parser::new_ext(md, opts).filter_map(|ev| match ev {
        Event::Html(t) | Event::InlineHtml(t) => Some(Event::Text(t)),
        Event::Start(Tag::Link { .. } | Tag::Image { .. })
        | Event::End(TagEnd::Link | TagEnd::Image) => None,
        other => Some(other),
    });
    pulldown_cmark::html::push_html(out, parser);
}

/// The report as PDF, typeset in-process (no browser, no display).
pub fn pdf(d: &Diagnosis, o: &ReportOptions) -> Result<Vec<u8>, ReportError> {
    let (md, charts) = markdown(d, o);
    pdf::markdown_to_pdf(&md, &charts, text(o.language).lang_tag)
}

fn html_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

const CSS: &str = "body{font-family:system-ui,'Noto Sans CJK SC','WenQuanYi Micro Hei',sans-serif;line-height:1.45;color:#111;margin:0}\
main{max-width:62rem;margin:2rem auto;padding:0 1rem}\
table{border-collapse:collapse;margin:0.5rem 0;font-size:0.9rem}td,th{border:1px solid #999;padding:0.2rem 0.5rem;text-align:left;vertical-align:top}\
pre{background:#f4f4f4;border:1px solid #ccc;padding:0.6rem;overflow-x:auto}code{font-family:ui-monospace,monospace}\
h2{border-bottom:2px solid #333;margin-top:2rem}figure.chart{margin:1rem 0}figure.chart svg{width:100%;height:auto}\
figcaption{font-size:0.85rem;color:#444}footer{text-align:center;color:#666;font-size:0.8rem;margin:2rem 0}\
@page{margin:16mm;@bottom-center{content:counter(page) ' / ' counter(pages);font-size:9pt;color:#555}}\
@media print{main{max-width:none;margin:0}figure,pre,table,tr{break-inside:avoid}h2,h3{break-after:avoid}footer{display:none}}";
