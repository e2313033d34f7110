//! What to do with a raw event, decided from a few byte searches before any parsing: most
//! events are skipped or read off their bytes, only the few the analysis needs are parsed.

use super::classify::{COMPILED_REGION, HOST_COLLECTIVES};

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
pub(super) enum Triage<'a> {
    /// Not a complete event, or a CPU-side one the analysis does not read.
    Skip,
    /// Parse it in full.
    Parse,
    /// A CPU operator: only its name and `External id` are kept (operators are most of a
    /// trace's events), for the kernels it launched to be counted under it.
    Operator(&'a str, u32),
}

/// CPU-side events are parsed in full only for the few names the analysis reads; of the
/// rest, operators keep their name and id, read off the raw bytes.
pub(super) fn triage(raw: &[u8]) -> Triage<'_> {
    if !is_complete_event(raw) {
        return Triage::Skip;
    }
    use std::sync::LazyLock;
    static CAT: LazyLock<memchr::memmem::Finder<'static>> =
        LazyLock::new(|| memchr::memmem::Finder::new(b"\"cat\""));
    static NAME: LazyLock<memchr::memmem::Finder<'static>> =
        LazyLock::new(|| memchr::memmem::Finder::new(b"\"name\""));
    static SAVE: LazyLock<memchr::memmem::Finder<'static>> =
        LazyLock::new(|| memchr::memmem::Finder::new(b"save"));
    match raw_string_field(raw, &CAT) {
        Some(cat @ (b"cpu_op" | b"user_annotation" | b"python_function" | b"Operator")) => {
            let Some(name) = raw_string_field(raw, &NAME) else {
                return Triage::Parse;
            };
            if name.starts_with(b"ProfilerStep#")
                || name.starts_with(b"Optimizer.step#")
                || name.starts_with(COMPILED_REGION.as_bytes())
                || name.starts_with(b"enumerate(DataLoader)")
                || name.starts_with(b"aten::item")
                || name.starts_with(b"aten::_local_scalar_dense")
                || SAVE.find(name).is_some()
                || HOST_COLLECTIVES
                    .iter()
                    .any(|p| name.starts_with(p.as_bytes()))
            {
                return Triage::Parse;
            }
            match (cat == b"cpu_op")
                .then(|| operator_ref(raw, name))
                .flatten()
            {
                Some((name, id)) => Triage::Operator(name, id),
                None => Triage::Skip,
            }
        }
        _ => Triage::Parse,
    }
}

/// An operator's name (already cut out of `raw`) and its `External id`. A name with escapes
/// in it is left out, as is an id that is not a plain number.
pub(super) fn operator_ref<'a>(raw: &[u8], name: &'a [u8]) -> Option<(&'a str, u32)> {
    static EXTERNAL: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
        std::sync::LazyLock::new(|| memchr::memmem::Finder::new(b"\"External id\""));
    if name.contains(&b'\\') {
        return None;
    }
    let at = EXTERNAL.find(raw)? + EXTERNAL.needle().len();
    let rest = &raw[at..];
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
    let external = std::str::from_utf8(&rest[start..start + len])
        .ok()?
        .parse()
        .ok()?;
    Some((std::str::from_utf8(name).ok()?, external))
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
