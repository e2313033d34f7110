//! What to do with a raw event, decided from a few byte searches before any parsing: most
//! events are skipped or read off their bytes, only the few the analysis needs are parsed.

use super::classify::{COMPILED_REGION, HOST_COLLECTIVES};
use super::fields::{self, Head, Started};

/// The raw bytes of a top-level string field's value, unescaped only as far as ASCII
/// prefix matching needs (Kineto names never escape their first characters).
pub(super) fn raw_string_field<'a>(
    raw: &'a [u8],
    key: &memchr::memmem::Finder<'static>,
) -> Option<&'a [u8]> {
    let at = key.find(raw)?;
    let rest = &raw[at + key.needle().len()..];
    let open = rest.iter().position(|b| *b == b'"')?;
    let value = &rest[open + 1..];
    let close = memchr::memchr(b'"', value)?;
    Some(&value[..close])
}

/// What to do with a raw event, decided from a few byte searches before any parsing.
#[derive(Debug, PartialEq)]
pub(super) enum Triage<'a> {
    /// Not a complete event, or a CPU-side one the analysis does not read.
    Skip,
    /// Read it in full, picking up after its first keys where [`fields::head`] read them.
    Parse(Option<Started<'a>>),
    /// A CPU operator: only its name and `External id` are kept (operators are most of a
    /// trace's events), for the kernels it launched to be counted under it.
    Operator(&'a str, u32),
}

/// CPU-side events are parsed in full only for the few names the analysis reads; of the
/// rest, operators keep their name and id, read off the raw bytes. The event's first keys
/// are walked once where a profiler wrote them (`quotes` as for [`fields::read_event`]);
/// byte searches decide the rest.
pub(super) fn triage<'a>(raw: &'a [u8], quotes: Option<&'a [u64]>) -> Triage<'a> {
    match fields::head(raw, quotes) {
        Some(Head::NotComplete) => Triage::Skip,
        // The id is searched for past the name (a vector search over the rest outruns a
        // walk over the numbers before it), and before it where `args` came first.
        Some(Head::Complete {
            cat,
            name,
            after,
            first,
        }) => match decide(cat, name, || {
            external_by_search(&raw[after..]).or_else(|| external_by_search(raw))
        }) {
            Triage::Parse(_) if first => Triage::Parse(Some(Started { cat, name, after })),
            decided => decided,
        },
        None => triage_by_search(raw),
    }
}

/// [`triage`] by a byte search per key, for events whose keys a walk does not read.
fn triage_by_search(raw: &[u8]) -> Triage<'_> {
    if !is_complete_event(raw) {
        return Triage::Skip;
    }
    use std::sync::LazyLock;
    static CAT: LazyLock<memchr::memmem::Finder<'static>> =
        LazyLock::new(|| memchr::memmem::Finder::new(b"\"cat\""));
    static NAME: LazyLock<memchr::memmem::Finder<'static>> =
        LazyLock::new(|| memchr::memmem::Finder::new(b"\"name\""));
    let Some(cat) = raw_string_field(raw, &CAT) else {
        return Triage::Parse(None);
    };
    if !is_cpu_category(cat) {
        return Triage::Parse(None);
    }
    let Some(name) = raw_string_field(raw, &NAME) else {
        return Triage::Parse(None);
    };
    decide(cat, name, || external_by_search(raw))
}

fn is_cpu_category(cat: &[u8]) -> bool {
    matches!(
        cat,
        b"cpu_op" | b"user_annotation" | b"python_function" | b"Operator"
    )
}

/// The CPU ranges the analysis reads, by how their names start (and, below, checkpoint
/// saves by "save" anywhere in the name).
const READ_PREFIXES: [&str; 9] = [
    "ProfilerStep#",
    "Optimizer.step#",
    COMPILED_REGION,
    "enumerate(DataLoader)",
    "aten::item",
    "aten::_local_scalar_dense",
    HOST_COLLECTIVES[0],
    HOST_COLLECTIVES[1],
    HOST_COLLECTIVES[2],
];

/// Whether the analysis reads a CPU range of this name. Most operators' names start with a
/// byte no prefix starts with, which one table lookup rules out before any comparison.
fn analysis_reads(name: &[u8]) -> bool {
    static FIRST_BYTES: std::sync::LazyLock<[bool; 256]> = std::sync::LazyLock::new(|| {
        let mut first = [false; 256];
        for prefix in READ_PREFIXES {
            first[usize::from(prefix.as_bytes()[0])] = true;
        }
        first
    });
    static SAVE: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
        std::sync::LazyLock::new(|| memchr::memmem::Finder::new(b"save"));
    let by_prefix = name.first().is_some_and(|b| FIRST_BYTES[usize::from(*b)])
        && READ_PREFIXES.iter().any(|p| name.starts_with(p.as_bytes()));
    by_prefix || SAVE.find(name).is_some()
}

/// A complete event of category `cat` named `name`: parsed in full when the analysis reads
/// it, an operator's name and id (`external` finds it) when it is one, skipped otherwise.
fn decide<'a>(cat: &[u8], name: &'a [u8], external: impl FnOnce() -> Option<u32>) -> Triage<'a> {
    if !is_cpu_category(cat) || analysis_reads(name) {
        return Triage::Parse(None);
    }
    if cat != b"cpu_op" || name.contains(&b'\\') {
        return Triage::Skip;
    }
    // Operator names are ASCII: checked in one pass before UTF-8's state machine.
    let text = fields::printable_ascii(name).or_else(|| std::str::from_utf8(name).ok());
    match (text, external()) {
        (Some(name), Some(id)) => Triage::Operator(name, id),
        _ => Triage::Skip,
    }
}

/// The `External id` found by a byte search for its key.
fn external_by_search(raw: &[u8]) -> Option<u32> {
    static EXTERNAL: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
        std::sync::LazyLock::new(|| memchr::memmem::Finder::new(b"\"External id\""));
    let at = EXTERNAL.find(raw)? + EXTERNAL.needle().len();
    plain_id(&raw[at..])
}

/// An id that is a plain number (quoted or not) at the start of `rest` (after its key's
/// closing quote, spaces and colon allowed before it).
fn plain_id(rest: &[u8]) -> Option<u32> {
    let start = rest.iter().position(|b| b.is_ascii_digit())?;
    if rest[..start]
        .iter()
        .any(|b| !matches!(b, b' ' | b':' | b'\t' | b'\n' | b'\r' | b'"'))
    {
        return None;
    }
    let len = rest[start..]
        .iter()
        .take_while(|b| b.is_ascii_digit())
        .count();
    std::str::from_utf8(&rest[start..start + len])
        .ok()?
        .parse()
        .ok()
}

/// Whether a raw event's `ph` is `"X"` (a cheap byte search; a full parse decides the rest).
pub(super) fn is_complete_event(raw: &[u8]) -> bool {
    static PH: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
        std::sync::LazyLock::new(|| memchr::memmem::Finder::new(b"\"ph\""));
    let Some(at) = PH.find(raw) else { return false };
    raw[at + 4..]
        .iter()
        .copied()
        .find(|b| !matches!(b, b' ' | b':' | b'\t' | b'\n' | b'\r'))
        .is_some_and(|b| b == b'"')
        && raw[at + 4..]
            .iter()
            .copied()
            .filter(|b| !matches!(b, b' ' | b':' | b'\t' | b'\n' | b'\r'))
            .nth(1)
            == Some(b'X')
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What was decided, leaving out where a full read may pick up.
    fn decision(triage: Triage<'_>) -> Triage<'_> {
        match triage {
            Triage::Parse(_) => Triage::Parse(None),
            decided => decided,
        }
    }

    /// The walk over an event's first keys decides as the searches do on every event of
    /// the corpus, and on events whose keys come in another order or escape.
    #[test]
    fn the_walk_decides_as_the_searches_do() {
        let (mut walked, mut events) = (0, 0);
        super::super::tests::each_corpus_event(|path, raw, quotes| {
            assert_eq!(
                decision(triage(raw, quotes)),
                triage_by_search(raw),
                "{}: {}",
                path.display(),
                String::from_utf8_lossy(raw)
            );
            assert_eq!(triage(raw, quotes), triage(raw, None));
            walked += usize::from(fields::head(raw, quotes).is_some());
            events += 1;
        });
        assert!(walked * 100 >= events * 99, "{walked} of {events}");
        for raw in [
            r#"{"ph":"X","cat":"cpu_op","name":"aten::mm","ts":1,"dur":2,"args":{"External id":7}}"#,
            r#"{"name":"aten::mm","ts":1,"args":{"Sequence number":3,"External id":"7"},"cat":"cpu_op","ph":"X"}"#,
            r#"{"ph":"X","cat":"cpu_op","name":"aten::\u006dm","args":{"External id":7}}"#,
            r#"{"ph":"X","cat":"cpu_op","name":"ProfilerStep#3","args":{"External id":7}}"#,
            r#"{"ph":"X","cat":"kernel","name":"k","args":{"correlation":7}}"#,
            r#"{"ph":"f","cat":"ac2g","name":"ac2g"}"#,
            r#"{"ph":"X","cat":"cpu_op","name":"aten::mm","args":{"External id":-7}}"#,
            r#"{"ph":"X","cat":"user_annotation","name":"span"}"#,
        ] {
            assert_eq!(
                decision(triage(raw.as_bytes(), None)),
                triage_by_search(raw.as_bytes()),
                "{raw}"
            );
        }
    }
}
