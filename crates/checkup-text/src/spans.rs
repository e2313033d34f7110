//! Code inside the catalogue's sentences. A sentence quotes a line of the training's code, a
//! guard, a function or a command between backticks, as Markdown writes inline code; each
//! view shows those spans as code (the report in monospace, the app as `<code>`, a terminal
//! with the backticks) and escapes the rest as text. Names from the recording go in through
//! [`code`], which keeps backticks out of them, so every pair of backticks in a sentence is
//! one span.

use crate::shown;

/// One piece of a catalogue sentence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Span<'a> {
    /// Words, shown as text.
    Text(&'a str),
    /// Code, a name or a command, shown as code.
    Code(&'a str),
}

/// `name` (a line of code, a function, a guard from the recording) as a code span of a
/// sentence: shown as text ([`shown()`]: one line, hidden characters by their code point, cut
/// to length), its own backticks as `'` so that none can end the span early.
pub fn code(name: &str) -> String {
    format!("`{}`", shown(name).replace('`', "'"))
}

/// `sentence` split into its text and its code spans, in order. A backtick with no partner
/// stays in the text: a view shows it as it is rather than turn the rest of the sentence
/// into code.
pub fn spans(sentence: &str) -> Vec<Span<'_>> {
    let mut out = Vec::new();
    let mut rest = sentence;
    while let Some(open) = rest.find('`') {
        let Some(len) = rest[open + 1..].find('`') else {
            break;
        };
        if open > 0 {
            out.push(Span::Text(&rest[..open]));
        }
        let inner = &rest[open + 1..open + 1 + len];
        if !inner.is_empty() {
            out.push(Span::Code(inner));
        }
        rest = &rest[open + len + 2..];
    }
    if !rest.is_empty() {
        out.push(Span::Text(rest));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use Span::{Code, Text};

    #[test]
    fn a_sentence_splits_into_its_words_and_its_code() {
        assert_eq!(
            spans("Dynamo compiled `forward` (lm.py:44) again once; the first failed guard: `tensor 'tokens' size mismatch`."),
            vec![
                Text("Dynamo compiled "),
                Code("forward"),
                Text(" (lm.py:44) again once; the first failed guard: "),
                Code("tensor 'tokens' size mismatch"),
                Text("."),
            ]
        );
        assert_eq!(spans("没有代码。"), vec![Text("没有代码。")]);
        assert_eq!(spans("`nvidia-smi`"), vec![Code("nvidia-smi")]);
        assert_eq!(spans(""), vec![]);
    }

    #[test]
    fn a_backtick_without_a_partner_stays_text() {
        assert_eq!(
            spans("run `ls` then ` alone"),
            vec![Text("run "), Code("ls"), Text(" then ` alone")]
        );
    }

    #[test]
    fn a_name_with_backticks_stays_one_span() {
        let line = "x = f(y)  # see `foo` and\nbar";
        let sentence = format!("at t.py:3: {}.", code(line));
        assert_eq!(
            spans(&sentence),
            vec![
                Text("at t.py:3: "),
                Code("x = f(y)  # see 'foo' and bar"),
                Text(".")
            ]
        );
    }
}
