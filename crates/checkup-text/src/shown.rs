//! A name from a recording (a file, a kernel, a process, a line of code, a setting) shown as
//! the text it is in every view: nothing in it may move the reader's terminal, reorder what
//! is printed around it, or run over a page. Views escape their own markup on top of this.

/// The longest name shown whole; a longer one keeps its start and its end (a file name's
/// most telling parts) around an ellipsis.
pub const MAX_SHOWN_CHARS: usize = 240;

/// `name` as text: line breaks and tabs as spaces, every other control character and every
/// invisible or direction-changing format character (bidirectional overrides and isolates,
/// zero-width characters, the byte-order mark) as its visible code point, `<U+202E>`, and
/// cut to [`MAX_SHOWN_CHARS`].
pub fn shown(name: &str) -> String {
    let mut out = String::with_capacity(name.len().min(4 * MAX_SHOWN_CHARS));
    let chars: Vec<char> = name.chars().collect();
    let cut = chars.len() > MAX_SHOWN_CHARS;
    let head = if cut {
        MAX_SHOWN_CHARS * 2 / 3
    } else {
        chars.len()
    };
    let tail = if cut { MAX_SHOWN_CHARS - head - 1 } else { 0 };
    let mut push = |c: char| match c {
        '\n' | '\r' | '\t' => out.push(' '),
        c if is_hidden(c) => out.push_str(&format!("<U+{:04X}>", c as u32)),
        c => out.push(c),
    };
    chars[..head].iter().copied().for_each(&mut push);
    if cut {
        push('…');
        chars[chars.len() - tail..]
            .iter()
            .copied()
            .for_each(&mut push);
    }
    out
}

/// `text` with every control character but line breaks and tabs, and every invisible or
/// direction-changing format character, as its visible code point: for text of several
/// lines (a terminal's output) whose names were not cut to one line.
pub fn visible(text: &str) -> String {
    if !text.chars().any(|c| c != '\n' && c != '\t' && is_hidden(c)) {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match c {
            '\n' | '\t' => out.push(c),
            c if is_hidden(c) => out.push_str(&format!("<U+{:04X}>", c as u32)),
            c => out.push(c),
        }
    }
    out
}

/// Characters that do something other than show themselves.
fn is_hidden(c: char) -> bool {
    c.is_control()
        || matches!(c,
            '\u{200B}'..='\u{200F}'   // zero-width space, joiners, LTR/RTL marks
            | '\u{202A}'..='\u{202E}' // embeddings and overrides
            | '\u{2060}'..='\u{2069}' // word joiner, invisible operators, isolates
            | '\u{061C}'              // Arabic letter mark
            | '\u{FEFF}'              // byte-order mark
            | '\u{FFF9}'..='\u{FFFB}' // interlinear annotation
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_shows_every_hidden_character_and_no_line_break() {
        assert_eq!(
            shown("evil\n[x]\u{202E}gnp.exe\u{1b}[2J\u{200B}"),
            "evil [x]<U+202E>gnp.exe<U+001B>[2J<U+200B>"
        );
        assert_eq!(shown("résumé 模型.py:14"), "résumé 模型.py:14");
    }

    #[test]
    fn text_of_several_lines_keeps_its_lines_and_shows_the_rest() {
        assert_eq!(
            visible("a\n\tb\u{1b}]0;title\u{7}\r"),
            "a\n\tb<U+001B>]0;title<U+0007><U+000D>"
        );
    }

    #[test]
    fn a_long_name_keeps_its_start_and_its_end() {
        let name = format!("{}{}", "a".repeat(4000), "tail.json");
        let s = shown(&name);
        assert_eq!(s.chars().count(), MAX_SHOWN_CHARS);
        assert_eq!(
            s,
            format!("{}…{}tail.json", "a".repeat(160), "a".repeat(70))
        );
    }
}
