//! PDF export without a browser or display: the report's Markdown is translated to Typst
//! markup and typeset by the typst library with fonts compiled into the binary (typst's own
//! fonts plus WenQuanYi Micro Hei for Chinese), charts embedded as SVG.

use std::collections::HashMap;
use std::sync::LazyLock;

use pulldown_cmark::{CodeBlockKind, Event, HeadingLevel, Options, Parser, Tag, TagEnd};
use typst::diag::{FileError, FileResult};
use typst::foundations::{Bytes, Datetime, Duration};
use typst::syntax::{FileId, RootedPath, Source, VirtualPath, VirtualRoot};
use typst::text::{Font, FontBook};
use typst::utils::LazyHash;
use typst::{Library, LibraryExt, World};
use typst_layout::PagedDocument;

use crate::charts::{Chart, FONT_BYTES};
use crate::ReportError;

struct Fonts {
    book: LazyHash<FontBook>,
    fonts: Vec<Font>,
}

/// Fonts are parsed once per process: typst's bundled faces and the CJK face.
static FONTS: LazyLock<Fonts> = LazyLock::new(|| {
    let fonts: Vec<Font> = typst_assets::fonts()
        .chain(std::iter::once(FONT_BYTES))
        .flat_map(|data| Font::iter(Bytes::new(data)))
        .collect();
    Fonts {
        book: LazyHash::new(FontBook::from_fonts(&fonts)),
        fonts,
    }
});

static LIBRARY: LazyLock<LazyHash<Library>> = LazyLock::new(|| LazyHash::new(Library::default()));

struct ReportWorld {
    main: Source,
    files: HashMap<FileId, Bytes>,
}

fn file_id(path: &str) -> Result<FileId, ReportError> {
    let vpath = VirtualPath::new(path)
        .map_err(|e| ReportError::Pdf(format!("bad virtual path {path}: {e:?}")))?;
    Ok(RootedPath::new(VirtualRoot::Project, vpath).intern())
}

impl World for ReportWorld {
    fn library(&self) -> &LazyHash<Library> {
        &LIBRARY
    }
    fn book(&self) -> &LazyHash<FontBook> {
        &FONTS.book
    }
    fn main(&self) -> FileId {
        self.main.id()
    }
    fn source(&self, id: FileId) -> FileResult<Source> {
        if id == self.main.id() {
            Ok(self.main.clone())
        } else {
            Err(FileError::NotSource)
        }
    }
    fn file(&self, id: FileId) -> FileResult<Bytes> {
        self.files
            .get(&id)
            .cloned()
            .ok_or_else(|| FileError::NotFound(std::path::PathBuf::from(format!("{id:?}"))))
    }
    fn font(&self, index: usize) -> Option<Font> {
        FONTS.fonts.get(index).cloned()
    }
    fn today(&self, _offset: Option<Duration>) -> Option<Datetime> {
        None
    }
}

/// Typesets Markdown (as written by [`crate::markdown::render`] with charts referenced as
/// `charts/NAME.svg`) to PDF.
pub fn markdown_to_pdf(
    markdown: &str,
    charts: &[Chart],
    lang: &str,
) -> Result<Vec<u8>, ReportError> {
    let body = to_typst(markdown);
    let text = format!("{PREAMBLE}\n#set text(lang: \"{lang}\")\n{body}");
    let main = Source::new(file_id("/report.typ")?, text);
    let mut files = HashMap::new();
    for c in charts {
        files.insert(
            file_id(&format!("/charts/{}.svg", c.name))?,
            Bytes::new(c.svg.clone().into_bytes()),
        );
    }
    let world = ReportWorld { main, files };
    let document = typst::compile::<PagedDocument>(&world)
        .output
        .map_err(|errors| typst_error(&errors))?;
    typst_pdf::pdf(&document, &typst_pdf::PdfOptions::default()).map_err(|e| typst_error(&e))
}

/// Typst's diagnostics as one error line.
fn typst_error(errors: &[typst::diag::SourceDiagnostic]) -> ReportError {
    ReportError::Pdf(
        errors
            .iter()
            .map(|e| e.message.to_string())
            .collect::<Vec<_>>()
            .join("; "),
    )
}

const PREAMBLE: &str = r##"#set page(paper: "a4", margin: (x: 16mm, y: 18mm), numbering: "1 / 1")
#set text(font: ("WenQuanYi Micro Hei",), size: 9.5pt)
#show raw: set text(font: ("DejaVu Sans Mono", "WenQuanYi Micro Hei"), size: 8pt)
#show raw.where(block: true): it => block(fill: luma(244), stroke: 0.5pt + luma(190), inset: 6pt, width: 100%, breakable: false, it)
#set table(stroke: 0.5pt + luma(150), inset: 4pt)
#show table: set text(size: 8pt)
#show table: set par(justify: false)
#show heading.where(level: 1): set text(size: 18pt)
#show heading.where(level: 2): it => block(above: 14pt, below: 8pt, width: 100%, stroke: (bottom: 1pt + luma(60)), inset: (bottom: 3pt), it)
#show figure: set block(breakable: false)
#set par(justify: false)
"##;

/// A Typst string literal: everything from a trace or host goes through this, so no text
/// can be read as markup or code.
fn lit(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 4);
    out.push('"');
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\r' => {}
            '\t' => out.push_str("\\t"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Inline code: raw text never breaks, so a long name without spaces (a kernel's
/// `sm90_xmma_dgrad_implicit_gemm_…`) may break after each underscore, the name's own word
/// boundaries, instead of running over the next table cell.
fn inline_code(text: &str) -> String {
    if text.chars().count() <= 24 || text.contains(' ') {
        return format!("#raw({})", lit(text));
    }
    text.split_inclusive('_')
        .map(|part| format!("#raw({})", lit(part)))
        .collect::<Vec<_>>()
        .join("#sym.zws")
}

/// `charts/NAME.svg` with a chart's own kind of name: the only images the report has.
fn is_chart_path(src: &str) -> bool {
    src.strip_prefix("charts/")
        .and_then(|n| n.strip_suffix(".svg"))
        .is_some_and(|n| {
            !n.is_empty()
                && n.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        })
}

fn to_typst(markdown: &str) -> String {
    let mut opts = Options::empty();
    opts.insert(Options::ENABLE_TABLES);
    let mut out = String::new();
    let mut code: Option<(String, String)> = None;
    let mut image: Option<(String, String)> = None;
    // For each open list, whether it is numbered.
    let mut ordered: Vec<bool> = Vec::new();
    for event in Parser::new_ext(markdown, opts) {
        if let Some((_, buf)) = code.as_mut() {
            match event {
                Event::Text(t) => {
                    buf.push_str(&t);
                    continue;
                }
                Event::End(TagEnd::CodeBlock) => {
                    let (lang, buf) = code.take().unwrap_or_default();
                    out.push_str(&format!(
                        "#raw(block: true, lang: {}, {})\n\n",
                        lit(&lang),
                        lit(buf.trim_end())
                    ));
                    continue;
                }
                _ => continue,
            }
        }
        if let Some((_, alt)) = image.as_mut() {
            match event {
                Event::Text(t) => {
                    alt.push_str(&t);
                    continue;
                }
                Event::End(TagEnd::Image) => {
                    let (src, alt) = image.take().unwrap_or_default();
                    if !is_chart_path(&src) {
                        // Not one of the report's charts: an image a name asked for is shown
                        // as its text, never fetched.
                        out.push_str(&format!("#{}", lit(&alt)));
                        continue;
                    }
                    // The chart draws its own title: a caption would print it twice. The
                    // title stays as the image's alternative text.
                    out.push_str(&format!(
                        "#figure(image({}, width: 100%, alt: {}))\n\n",
                        lit(&format!("/{src}")),
                        lit(&alt)
                    ));
                    continue;
                }
                _ => continue,
            }
        }
        match event {
            Event::Start(Tag::Heading { level, .. }) => {
                let n = match level {
                    HeadingLevel::H1 => 1,
                    HeadingLevel::H2 => 2,
                    _ => 3,
                };
                out.push_str(&format!("\n{} ", "=".repeat(n)));
            }
            Event::End(TagEnd::Heading(_)) => out.push('\n'),
            Event::Start(Tag::Paragraph) => {}
            Event::End(TagEnd::Paragraph) => out.push_str("\n\n"),
            Event::Start(Tag::Strong) => out.push_str("#strong["),
            Event::Start(Tag::Emphasis) => out.push_str("#emph["),
            Event::End(TagEnd::Strong | TagEnd::Emphasis) => out.push(']'),
            Event::Text(t) => out.push_str(&format!("#{}", lit(&t))),
            Event::Code(t) => out.push_str(&inline_code(&t)),
            Event::SoftBreak => out.push_str("#\" \""),
            Event::HardBreak => out.push_str("\\\n"),
            Event::Start(Tag::CodeBlock(kind)) => {
                let lang = match kind {
                    CodeBlockKind::Fenced(l) => l.to_string(),
                    CodeBlockKind::Indented => String::new(),
                };
                code = Some((lang, String::new()));
            }
            Event::Start(Tag::Image { dest_url, .. }) => {
                image = Some((dest_url.to_string(), String::new()))
            }
            Event::Start(Tag::Table(aligns)) => {
                out.push_str(&format!("#table(columns: {},\n", aligns.len()));
            }
            Event::End(TagEnd::Table) => out.push_str(")\n\n"),
            Event::Start(Tag::TableHead) => out.push_str("table.header("),
            Event::End(TagEnd::TableHead) => out.push_str("),\n"),
            Event::Start(Tag::TableRow) | Event::End(TagEnd::TableRow) => {}
            Event::Start(Tag::TableCell) => out.push('['),
            Event::End(TagEnd::TableCell) => out.push_str("], "),
            Event::Start(Tag::List(first)) => {
                // Numbered lists (what to do first) keep their numbers: typst's `+` items.
                ordered.push(first.is_some());
                out.push('\n')
            }
            Event::End(TagEnd::List(_)) => {
                ordered.pop();
                out.push('\n')
            }
            Event::Start(Tag::Item) => out.push_str(if ordered.last() == Some(&true) {
                "+ "
            } else {
                "- "
            }),
            Event::End(TagEnd::Item) => out.push('\n'),
            // Raw HTML in the source is shown as text, never interpreted.
            Event::Html(t) | Event::InlineHtml(t) => out.push_str(&format!("#{}", lit(&t))),
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_from_traces_becomes_string_literals_that_cannot_run_code() {
        let t = to_typst("kernel `#panic()` named #eval(\"x\") and \"quotes\" \\\\ done");
        assert!(t.contains(r##"#"kernel ""##), "{t}");
        assert!(t.contains(r##"#raw("#panic()")"##), "{t}");
        assert_eq!(
            inline_code("sm90_xmma_dgrad_implicit_gemm"),
            r##"#raw("sm90_")#sym.zws#raw("xmma_")#sym.zws#raw("dgrad_")#sym.zws#raw("implicit_")#sym.zws#raw("gemm")"##
        );
        assert!(
            t.contains(r##"#" named #eval(\"x\") and \"quotes\" ""##),
            "{t}"
        );
    }
}
