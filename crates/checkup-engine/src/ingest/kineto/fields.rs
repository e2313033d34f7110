//! The fields of one event the analysis keeps, read straight off its bytes: the object's
//! keys are walked once, the kept values read where they lie, the rest skipped. It reads
//! what a profiler writes (plain keys, strings without escapes, JSON numbers); anything
//! else — an escape, a duplicate key, a value of an unexpected type, bad syntax — is left to
//! serde (`None`), which parses it in full and words the error.

use std::borrow::Cow;

use super::events::{RawArgs, RawEvent};
#[cfg(doc)]
use super::structure::StringQuotes;

/// The event `raw` (one whole object) holds, or None to leave it to serde. `quotes`: where
/// its strings lie, when they are all plain ([`StringQuotes`]); `started`: its first three
/// keys as [`head`] read them, to pick up after instead of reading them again.
pub(super) fn read_event<'a>(
    raw: &'a [u8],
    quotes: Option<&'a [u64]>,
    started: Option<&Started<'a>>,
) -> Option<RawEvent<'a>> {
    let mut r = Bytes::new(raw, quotes);
    let mut e = RawEvent {
        ph: None,
        cat: None,
        name: None,
        ts: None,
        dur: None,
        args: None,
    };
    let mut seen = [false; 6];
    if let Some(started) = started {
        e.ph = Some(Cow::Borrowed("X"));
        e.cat = Some(Cow::Borrowed(kept_text(started.cat)?));
        e.name = Some(Cow::Borrowed(kept_text(started.name)?));
        seen[..3].fill(true);
        r.at = started.after;
    }
    let mut field = |r: &mut Bytes<'a>, key: &[u8]| {
        let field = match key {
            b"ph" => 0,
            b"cat" => 1,
            b"name" => 2,
            b"ts" => 3,
            b"dur" => 4,
            b"args" => 5,
            _ => return r.skip_value(),
        };
        first_time(&mut seen[field])?;
        match field {
            0 => e.ph = r.optional_str()?,
            1 => e.cat = r.optional_str()?,
            2 => e.name = r.optional_str()?,
            3 => e.ts = r.optional_number()?,
            4 => e.dur = r.optional_number()?,
            _ => e.args = r.args()?,
        }
        Some(())
    };
    if started.is_none() {
        r.object(&mut field)?;
    } else if r.more_members()? {
        r.members(&mut field)?;
    }
    r.ws();
    (r.at == raw.len()).then_some(e)
}

/// None for a field seen before: serde refuses a field given twice.
fn first_time(seen: &mut bool) -> Option<()> {
    (!std::mem::replace(seen, true)).then_some(())
}

/// An event's `ph`, `cat` and `name`, each a plain string's bytes, as far as they go.
pub(super) enum Head<'a> {
    /// `ph` is not `"X"`: not a complete event.
    NotComplete,
    /// A complete event's category and name; `after` is where the walk stopped; `first`
    /// when they were the event's first three keys (as a profiler writes them), for a full
    /// read to pick up there.
    Complete {
        cat: &'a [u8],
        name: &'a [u8],
        after: usize,
        first: bool,
    },
}

/// A complete event whose first three keys were `ph` (`"X"`), `cat` and `name`, as [`head`]
/// read them: their values' bytes and the byte after the third.
#[derive(Debug, PartialEq)]
pub(super) struct Started<'a> {
    pub(super) cat: &'a [u8],
    pub(super) name: &'a [u8],
    pub(super) after: usize,
}

/// The keys a profiler writes first (`ph`, `cat`, `name`), walked in order and no further
/// than they go: one pass over the event's start instead of a search per key. None where
/// the walk meets what a profiler does not write (an escape, a key missing, a value not a
/// string), for the byte searches to decide. `quotes` as for [`read_event`].
pub(super) fn head<'a>(raw: &'a [u8], quotes: Option<&'a [u64]>) -> Option<Head<'a>> {
    let mut r = Bytes::new(raw, quotes);
    r.eat(b'{')?;
    let (mut ph, mut cat, mut name) = (None, None, None);
    let mut keys = 0;
    loop {
        keys += 1;
        match r.key()? {
            b"ph" => {
                let value = r.plain_str()?;
                if value != b"X" {
                    return Some(Head::NotComplete);
                }
                ph = Some(value);
            }
            b"cat" => cat = Some(r.plain_str()?),
            b"name" => name = Some(r.plain_str()?),
            _ => r.skip_value()?,
        }
        if let (Some(_), Some(cat), Some(name)) = (ph, cat, name) {
            return Some(Head::Complete {
                cat,
                name,
                after: r.at,
                first: keys == 3,
            });
        }
        r.ws();
        if r.peek()? != b',' {
            return None;
        }
        r.at += 1;
    }
}

/// `bytes` as text when every byte is printable ASCII (0x20 to 0x7e), the check one
/// branch-free pass the compiler vectorises.
pub(super) fn printable_ascii(bytes: &[u8]) -> Option<&str> {
    let outside = bytes
        .iter()
        .fold(0u8, |acc, &b| acc | u8::from(!(0x20..0x7f).contains(&b)));
    if outside != 0 {
        return None;
    }
    // SAFETY: every byte is below 0x80, checked just above: ASCII is valid UTF-8.
    Some(unsafe { std::str::from_utf8_unchecked(bytes) })
}

/// A plain string's bytes as a kept string: UTF-8 and free of control characters, as JSON
/// has it. What profilers write, printable ASCII, is checked in one pass without UTF-8's
/// state machine; anything else the slow way.
fn kept_text(bytes: &[u8]) -> Option<&str> {
    if let Some(text) = printable_ascii(bytes) {
        return Some(text);
    }
    if bytes.iter().any(|b| *b < 0x20) {
        return None;
    }
    std::str::from_utf8(bytes).ok()
}

/// Where the first `"` or `\\` of `bytes` is. Keys and most values are short: their first
/// 32 bytes are looked at eight at a time in a register (SWAR), before a vector search would
/// have set up; longer strings (kernel names) get that search for the rest.
fn quote_or_backslash(bytes: &[u8]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let zero_bytes = |v: u64| v.wrapping_sub(ONES) & !v & HIGHS;
    let mut at = 0;
    while at < 32 {
        let Some(word) = bytes.get(at..at + 8) else {
            break;
        };
        let Ok(word) = <[u8; 8]>::try_from(word).map(u64::from_le_bytes) else {
            break;
        };
        // A byte equal to `"` or `\\` is a zero byte of the word xor either, and the lowest
        // flagged byte is the first (a flag above a true zero may be false; none below).
        let hits = zero_bytes(word ^ (ONES * u64::from(b'"')))
            | zero_bytes(word ^ (ONES * u64::from(b'\\')));
        if hits != 0 {
            return Some(at + (hits.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    memchr::memchr2(b'"', b'\\', &bytes[at..]).map(|p| at + p)
}

/// A number's sign, its digits as one integer (the point left out) and how many of them
/// follow the point.
#[derive(Debug, Clone, Copy)]
struct ShortNumber {
    negative: bool,
    digits: u64,
    fraction_digits: usize,
}

impl ShortNumber {
    fn value(self) -> f64 {
        const POWERS: [f64; 20] = [
            1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
            1e16, 1e17, 1e18, 1e19,
        ];
        let magnitude = self.digits as f64 / POWERS[self.fraction_digits];
        if self.negative {
            -magnitude
        } else {
            magnitude
        }
    }
}

/// A cursor over one event's bytes.
struct Bytes<'a> {
    raw: &'a [u8],
    at: usize,
    /// Where the strings open and close, when all are plain ([`StringQuotes`]).
    quotes: Option<&'a [u64]>,
}

impl<'a> Bytes<'a> {
    fn new(raw: &'a [u8], quotes: Option<&'a [u64]>) -> Self {
        Self { raw, at: 0, quotes }
    }

    /// The next string quote at or after byte `from`, from the quotes' bit words.
    #[inline(always)]
    fn next_quote(words: &[u64], from: usize) -> Option<usize> {
        let mut word = from / 64;
        let mut bits = words.get(word)? & (u64::MAX << (from % 64));
        while bits == 0 {
            word += 1;
            bits = *words.get(word)?;
        }
        Some(word * 64 + bits.trailing_zeros() as usize)
    }

    #[inline(always)]
    fn peek(&self) -> Option<u8> {
        self.raw.get(self.at).copied()
    }

    #[inline(always)]
    fn ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
    }

    #[inline(always)]
    fn eat(&mut self, b: u8) -> Option<()> {
        self.ws();
        (self.peek()? == b).then(|| self.at += 1)
    }

    /// `{ "key": value, ... }`, each value read by `field` given its key.
    fn object(&mut self, field: impl FnMut(&mut Self, &'a [u8]) -> Option<()>) -> Option<()> {
        self.eat(b'{')?;
        self.ws();
        if self.peek()? == b'}' {
            self.at += 1;
            return Some(());
        }
        self.members(field)
    }

    /// An object's members from the cursor at a key through its closing brace.
    fn members(&mut self, mut field: impl FnMut(&mut Self, &'a [u8]) -> Option<()>) -> Option<()> {
        loop {
            let key = self.key()?;
            field(self, key)?;
            if !self.more_members()? {
                return Some(());
            }
        }
    }

    /// After a member: past a comma (another member follows) or the closing brace.
    #[inline(always)]
    fn more_members(&mut self) -> Option<bool> {
        self.ws();
        let more = match self.peek()? {
            b',' => true,
            b'}' => false,
            _ => return None,
        };
        self.at += 1;
        Some(more)
    }

    /// An object's key and the colon after it: the key's bytes, the cursor at its value.
    #[inline(always)]
    fn key(&mut self) -> Option<&'a [u8]> {
        self.ws();
        let key = self.plain_str()?;
        self.eat(b':')?;
        self.ws();
        Some(key)
    }

    /// A string without escapes, its bytes between the quotes: up to the next string quote
    /// where all strings are plain, else up to the first quote or backslash.
    #[inline(always)]
    fn plain_str(&mut self) -> Option<&'a [u8]> {
        if self.peek()? != b'"' {
            return None;
        }
        let start = self.at + 1;
        let end = match self.quotes {
            Some(words) => Self::next_quote(words, start).filter(|end| *end < self.raw.len())?,
            None => {
                let end = start + quote_or_backslash(&self.raw[start..])?;
                if self.raw[end] != b'"' {
                    return None;
                }
                end
            }
        };
        self.at = end + 1;
        Some(&self.raw[start..end])
    }

    /// A kept string: plain, UTF-8 and free of control characters, as JSON has it. (Keys
    /// and skipped values are not checked, as the events triage skips are not parsed.)
    fn kept_str(&mut self) -> Option<&'a str> {
        kept_text(self.plain_str()?)
    }

    fn null(&mut self) -> bool {
        let is = self.raw[self.at..].starts_with(b"null");
        if is {
            self.at += 4;
        }
        is
    }

    fn optional_str(&mut self) -> Option<Option<Cow<'a, str>>> {
        if self.null() {
            return Some(None);
        }
        Some(Some(Cow::Borrowed(self.kept_str()?)))
    }

    /// Past a run of digits; whether there was one.
    fn digits(&mut self) -> bool {
        let from = self.at;
        let run = self.raw[from..]
            .iter()
            .position(|b| !b.is_ascii_digit())
            .unwrap_or(self.raw.len() - from);
        self.at += run;
        run > 0
    }

    /// A JSON number's bytes: `-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?`, checked as
    /// JSON has it (Rust's parser takes more: `+1`, `.5`, `inf`), and whether it is an
    /// integer.
    fn number_bytes(&mut self) -> Option<(&'a [u8], bool)> {
        let start = self.at;
        if self.peek() == Some(b'-') {
            self.at += 1;
        }
        let int_start = self.at;
        if !self.digits() || (self.raw[int_start] == b'0' && self.at - int_start > 1) {
            return None;
        }
        let mut integer = true;
        if self.peek() == Some(b'.') {
            self.at += 1;
            integer = false;
            if !self.digits() {
                return None;
            }
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.at += 1;
            integer = false;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.at += 1;
            }
            if !self.digits() {
                return None;
            }
        }
        Some((&self.raw[start..self.at], integer))
    }

    /// A number's text, to parse: printable ASCII by its grammar.
    fn number_text(&mut self) -> Option<(&'a str, bool)> {
        let (bytes, integer) = self.number_bytes()?;
        Some((printable_ascii(bytes)?, integer))
    }

    fn optional_number(&mut self) -> Option<Option<f64>> {
        if self.null() {
            return Some(None);
        }
        if let Some(value) = self.short_decimal() {
            return Some(Some(value));
        }
        let (text, _) = self.number_text()?;
        text.parse().ok().map(Some)
    }

    /// A number as profilers write times and ids, `-?(0|[1-9][0-9]*)(\.[0-9]+)?` with at most
    /// 19 digits whose value without the point is at most 2^53, read in the one pass that
    /// checks it. None, the cursor unmoved, for anything else (an exponent, more digits),
    /// which Rust's parsers read.
    fn short_number(&mut self) -> Option<ShortNumber> {
        let rest = &self.raw[self.at..];
        let negative = rest.first() == Some(&b'-');
        let mut i = usize::from(negative);
        let (mut digits, mut fraction_digits, mut value) = (0usize, 0usize, 0u64);
        let int_start = i;
        while let Some(d) = rest.get(i).filter(|b| b.is_ascii_digit()) {
            // A 20th digit could overflow the integer: such a number is the parser's.
            if digits == 19 {
                return None;
            }
            value = value * 10 + u64::from(d - b'0');
            digits += 1;
            i += 1;
        }
        // JSON: digits before any point, and no leading zero before more digits.
        if digits == 0 || (rest[int_start] == b'0' && digits > 1) {
            return None;
        }
        if rest.get(i) == Some(&b'.') {
            i += 1;
            while let Some(d) = rest.get(i).filter(|b| b.is_ascii_digit()) {
                if digits == 19 {
                    return None;
                }
                value = value * 10 + u64::from(d - b'0');
                digits += 1;
                fraction_digits += 1;
                i += 1;
            }
            if fraction_digits == 0 {
                return None;
            }
        }
        if matches!(rest.get(i), Some(b'e' | b'E')) || value > 1 << 53 {
            return None;
        }
        self.at += i;
        Some(ShortNumber {
            negative,
            digits: value,
            fraction_digits,
        })
    }

    /// [`Self::short_number`] as a float: the digits over 10^k (k ≤ 19) are one division of
    /// two exact doubles, which IEEE rounds as the decimal itself is rounded (Clinger's fast
    /// path), so the value is the one Rust's parser gives.
    fn short_decimal(&mut self) -> Option<f64> {
        self.short_number().map(ShortNumber::value)
    }

    /// An id as `lenient_i64` reads it: a number (a float truncated, an integer past i64
    /// none), a string holding one, or null.
    fn lenient_i64(&mut self) -> Option<Option<i64>> {
        if self.null() {
            return Some(None);
        }
        if self.peek()? == b'"' {
            return Some(self.kept_str()?.trim().parse().ok());
        }
        // As below: an integer as it is, a fraction truncated.
        if let Some(n) = self.short_number() {
            return Some(Some(if n.fraction_digits == 0 {
                let magnitude = n.digits as i64;
                if n.negative {
                    -magnitude
                } else {
                    magnitude
                }
            } else {
                n.value() as i64
            }));
        }
        let (text, integer) = self.number_text()?;
        if !integer {
            return Some(Some(text.parse::<f64>().ok()? as i64));
        }
        match text.parse::<i64>() {
            Ok(v) => Some(Some(v)),
            // serde reads a non-negative integer past i64 as u64, which the id does not fit;
            // a negative one past i64 as a float.
            Err(_) if !text.starts_with('-') => {
                text.parse::<u64>().ok()?;
                Some(None)
            }
            Err(_) => Some(Some(text.parse::<f64>().ok()? as i64)),
        }
    }

    fn args(&mut self) -> Option<Option<RawArgs>> {
        if self.null() {
            return Some(None);
        }
        let mut args = RawArgs::default();
        let mut seen = [false; 3];
        self.object(|r, key| {
            let field = match key {
                b"correlation" => 0,
                b"bytes" => 1,
                b"External id" => 2,
                _ => return r.skip_value(),
            };
            first_time(&mut seen[field])?;
            let v = r.lenient_i64()?;
            match field {
                0 => args.correlation = v,
                1 => args.bytes = v,
                _ => args.external = v,
            }
            Some(())
        })?;
        Some(Some(args))
    }

    /// Past one value of any kind: a plain string, a number, a literal, or an object or
    /// array whose nested values are skipped the same way.
    fn skip_value(&mut self) -> Option<()> {
        match self.peek()? {
            b'"' => self.plain_str().map(drop),
            b'{' => self.object(|r, _| r.skip_value()),
            b'[' => {
                self.at += 1;
                self.ws();
                if self.peek()? == b']' {
                    self.at += 1;
                    return Some(());
                }
                loop {
                    self.ws();
                    self.skip_value()?;
                    self.ws();
                    match self.peek()? {
                        b',' => self.at += 1,
                        b']' => {
                            self.at += 1;
                            return Some(());
                        }
                        _ => return None,
                    }
                }
            }
            b't' | b'f' | b'n' => {
                let rest = &self.raw[self.at..];
                let len = [&b"true"[..], b"false", b"null"]
                    .into_iter()
                    .find(|lit| rest.starts_with(lit))?
                    .len();
                self.at += len;
                Some(())
            }
            _ => self.number_bytes().map(drop),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::structure::StringQuotes;
    use super::*;

    fn by_serde(raw: &str) -> Option<String> {
        serde_json::from_str::<RawEvent<'_>>(raw)
            .ok()
            .map(|e| describe(&e))
    }

    fn describe(e: &RawEvent<'_>) -> String {
        let a = e.args.as_ref();
        format!(
            "{:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?}",
            e.ph,
            e.cat,
            e.name,
            e.ts,
            e.dur,
            a.map(|a| a.correlation),
            a.map(|a| a.bytes),
            a.map(|a| a.external)
        )
    }

    /// The read that picks up where [`head`] stopped, for an event whose first keys are
    /// `ph` (`"X"`), `cat` and `name`: Some(what it read), None for any other event.
    fn resumed(raw: &[u8]) -> Option<Option<String>> {
        let quotes = quotes_of(raw);
        let quotes = quotes.of_plain_strings();
        match head(raw, quotes)? {
            Head::Complete {
                cat,
                name,
                after,
                first: true,
            } => Some(
                read_event(raw, quotes, Some(&Started { cat, name, after })).map(|e| describe(&e)),
            ),
            _ => None,
        }
    }

    /// Where the strings of `raw` lie, as the reader finds them.
    fn quotes_of(raw: &[u8]) -> StringQuotes {
        let mut quotes = StringQuotes::default();
        super::super::structure::value_end(raw, &mut quotes);
        quotes
    }

    /// The event read off its bytes, searching each string for its end and by the quotes
    /// found beforehand, which must agree.
    fn read_both_ways(raw: &[u8]) -> Option<String> {
        let searched = read_event(raw, None, None).map(|e| describe(&e));
        let quotes = quotes_of(raw);
        let by_quotes = read_event(raw, quotes.of_plain_strings(), None).map(|e| describe(&e));
        assert_eq!(searched, by_quotes, "{}", String::from_utf8_lossy(raw));
        searched
    }

    #[test]
    fn reads_what_serde_reads_or_leaves_it_to_serde() {
        for raw in [
            r#"{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":120.5,"dur":10,"args":{"correlation":9,"grid":[1,2,3],"registers per thread":32}}"#,
            r#"{ "ph" : "X" , "cat":"gpu_memcpy","name":"Memcpy HtoD","ts":1e3,"dur":4E-1,"args":{"bytes":"4096","External id":7.9}}"#,
            r#"{"ph":"X","cat":"cpu_op","name":"aten::mm","ts":-3,"args":null,"flag":true,"none":null,"nested":{"a":[{}, []]}}"#,
            r#"{"ph":"s","id":9,"pid":1,"tid":1,"ts":110,"cat":"ac2g","name":"ac2g"}"#,
            r#"{"args":{"correlation":18446744073709551615,"bytes":-9223372036854775809}}"#,
            r#"{}"#,
        ] {
            let fast = read_both_ways(raw.as_bytes());
            assert_eq!(fast, by_serde(raw), "{raw}");
            if let Some(read) = resumed(raw.as_bytes()) {
                assert_eq!(read, by_serde(raw), "{raw}");
            }
        }
    }

    #[test]
    fn short_decimals_are_the_values_the_parser_gives() {
        // Times as profilers write them, the edges of the fast path, and what it leaves to
        // the parser (exponents, too many digits, values past 2^53, bad JSON).
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut texts: Vec<String> = [
            "0",
            "-0",
            "0.5",
            "5150419292173.124",
            "9007199254740992",
            "9007199254740993",
            "900719925474099.3",
            "1.0000000000000000001",
            "12345678901234567890",
            // Twenty digits past u64: left to the parser, never multiplied out.
            "99999999999999999999",
            "9999999999999999999.9",
            "1e3",
            "01",
            "1.",
            "-",
            "-.5",
            "4.9406564584124654",
            "123.456e2",
            "0.1",
            "0.3",
        ]
        .map(String::from)
        .to_vec();
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let int = x % 10_000_000_000_000;
            let frac_digits = (x >> 50) as usize % 5;
            let frac = (x >> 20) % 10u64.pow(frac_digits as u32);
            texts.push(if frac_digits == 0 {
                int.to_string()
            } else {
                format!("{int}.{frac:0frac_digits$}")
            });
        }
        for text in texts {
            let raw = format!("{text},");
            let mut r = Bytes::new(raw.as_bytes(), None);
            let fast = r.short_decimal();
            let parsed = serde_json::from_str::<f64>(&text).ok();
            if let Some(fast) = fast {
                assert_eq!(Some(fast.to_bits()), parsed.map(f64::to_bits), "{text}");
                assert_eq!(r.at, text.len(), "{text}");
            } else {
                assert_eq!(r.at, 0, "{text}");
            }
        }
    }

    #[test]
    fn the_first_quote_or_backslash_is_found_wherever_it_is() {
        // Before, inside and after the eight-byte words, beside bytes above 0x7f (whose
        // borrow the word trick must not mistake for a hit), or nowhere.
        for len in 0..48 {
            for hit in 0..=len {
                for (mark, filler) in [(b'"', b'a'), (b'\\', 0xa2), (b'"', 0x21)] {
                    let mut bytes = vec![filler; len];
                    if hit < len {
                        bytes[hit] = mark;
                        bytes[len - 1] = b'"';
                    }
                    assert_eq!(
                        quote_or_backslash(&bytes),
                        memchr::memchr2(b'"', b'\\', &bytes),
                        "{bytes:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn escapes_duplicates_and_bad_syntax_go_to_serde() {
        for raw in [
            r#"{"ph":"X","name":"x \"quoted\""}"#,
            r#"{"ph":"X","ph":"B"}"#,
            r#"{"ph":"X","ts":"12"}"#,
            r#"{"ph":"X","ts":01}"#,
            r#"{"ph":"X","ts":+1}"#,
            r#"{"ph":"X","ts":.5}"#,
            r#"{"ph":"X","args":{"a":[1,,2]}}"#,
            r#"{"ph":"X",}"#,
            r#"{"ph":"X"} x"#,
            r#"{"ph":"X","args":{"correlation":true}}"#,
            "{\"ph\":\"X\",\"name\":\"tab\there\"}",
        ] {
            assert!(read_both_ways(raw.as_bytes()).is_none(), "{raw}");
            assert!(resumed(raw.as_bytes()).is_none_or(|r| r.is_none()), "{raw}");
        }
    }

    /// The events of the first 256 KiB of every corpus and public trace, as the reader cuts
    /// them (kernels, copies, runtime calls, operators, flows, metadata): the fast read
    /// agrees with serde wherever it reads one.
    #[test]
    fn agrees_with_serde_on_every_event_of_the_corpus() {
        let (mut read_fast, mut picked_up, mut events) = (0, 0, 0);
        super::super::tests::each_corpus_event(|path, raw, _| {
            let raw = std::str::from_utf8(raw).unwrap();
            if let Some(fast) = read_both_ways(raw.as_bytes()) {
                assert_eq!(Some(fast), by_serde(raw), "{}: {raw}", path.display());
                read_fast += 1;
            }
            if let Some(read) = resumed(raw.as_bytes()) {
                assert_eq!(read, by_serde(raw), "{}: {raw}", path.display());
                picked_up += 1;
            }
            events += 1;
        });
        // Nearly every event a profiler writes takes the fast read, and the complete ones
        // that most of them are pick up after their first keys.
        assert!(read_fast * 100 >= events * 99, "{read_fast} of {events}");
        assert!(picked_up * 2 >= events, "{picked_up} of {events}");
    }
}
