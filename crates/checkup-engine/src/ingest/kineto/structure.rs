//! Where a JSON object or array ends, found 64 bytes at a time, as simdjson's first stage
//! finds a document's structure: a block's quotes, backslashes and brackets become bit masks
//! (AVX2 compares where the CPU has them, SSE2 on any x86-64, a byte loop elsewhere),
//! escaped quotes are told apart by the parity of the backslash run before them, strings by
//! a prefix XOR of the quotes (one carry-less multiply where the CPU has it), and only the
//! brackets outside strings are walked one by one. The string quotes found on the way are
//! kept ([`StringQuotes`]), for an event's fields to be read without searching each string
//! for its end. A trace event is a few hundred bytes of mostly strings: this replaces a
//! byte-by-byte walk and a search per string.

/// Odd bit positions: the backslash-run parity trick's mask.
const ODD_BITS: u64 = 0xAAAA_AAAA_AAAA_AAAA;

/// One 64-byte block's bytes of interest, bit i for byte i.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct BlockMasks {
    quotes: u64,
    backslashes: u64,
    /// `{` and `[`.
    opens: u64,
    /// `}` and `]`.
    closes: u64,
}

/// What a block leaves to the next: inside a string or not, the next byte escaped or not,
/// and the bracket depth.
#[derive(Debug, Default, Clone, Copy)]
struct Carry {
    /// All ones when the block ended inside a string.
    in_string: u64,
    /// 1 when the next block's first byte is escaped by a backslash run ending this one.
    escaped: u64,
    depth: u64,
}

/// Where a value's strings open and close, as [`value_end`] found them on its way: bit i of
/// word k for a quote at byte 64k + i that opens or closes a string. The fields are read
/// from it instead of searching each string for its end.
#[derive(Debug, Default)]
pub(super) struct StringQuotes {
    words: Vec<u64>,
    backslash: bool,
}

impl StringQuotes {
    /// The words, where the value holds no backslash: then every string is plain and ends
    /// at its next quote. None otherwise, for the strings to be read the way that finds
    /// escapes.
    pub(super) fn of_plain_strings(&self) -> Option<&[u64]> {
        (!self.backslash).then_some(&self.words)
    }
}

/// The offset of the bracket that closes the object or array opening at `buf[0]`, or None
/// when `buf` ends first (or does not start with a bracket); `quotes` is set to where the
/// value's strings lie.
pub(super) fn value_end(buf: &[u8], quotes: &mut StringQuotes) -> Option<usize> {
    quotes.words.clear();
    quotes.backslash = false;
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2")
        && std::arch::is_x86_feature_detected!("pclmulqdq")
    {
        // SAFETY: the CPU has both features, checked just above.
        return unsafe { value_end_avx2(buf, quotes) };
    }
    value_end_portable(buf, quotes)
}

/// [`value_end`] with the x86-64 baseline (SSE2) or a byte loop elsewhere.
fn value_end_portable(buf: &[u8], quotes: &mut StringQuotes) -> Option<usize> {
    value_end_with(buf, quotes, masks, prefix_xor)
}

/// [`value_end`] with a block's masks from two 32-byte compares instead of four 16-byte
/// ones, and the prefix XOR as one carry-less multiply (by all ones) instead of six shifts:
/// a quarter of the reader's time went to finding where events end.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,pclmulqdq")]
fn value_end_avx2(buf: &[u8], quotes: &mut StringQuotes) -> Option<usize> {
    value_end_with(buf, quotes, |b| masks_avx2(b), |x| prefix_xor_clmul(x))
}

/// The block walk, generic over how a block's masks and a prefix XOR are computed, inlined
/// into each caller to be compiled with its CPU features.
#[inline(always)]
fn value_end_with(
    buf: &[u8],
    quotes: &mut StringQuotes,
    masks: impl Fn(&[u8; 64]) -> BlockMasks,
    prefix_xor: impl Fn(u64) -> u64,
) -> Option<usize> {
    if !matches!(buf.first(), Some(b'{' | b'[')) {
        return None;
    }
    let mut carry = Carry::default();
    let mut blocks = buf.chunks_exact(64);
    let mut base = 0;
    for block in blocks.by_ref() {
        let block: &[u8; 64] = block.try_into().expect("64-byte chunk");
        if let Some(end) = close_in(masks(block), &mut carry, quotes, &prefix_xor) {
            return Some(base + end);
        }
        base += 64;
    }
    // The tail, padded with spaces (nothing structural).
    let tail = blocks.remainder();
    let mut padded = [b' '; 64];
    padded[..tail.len()].copy_from_slice(tail);
    close_in(masks(&padded), &mut carry, quotes, &prefix_xor).map(|end| base + end)
}

/// The offset in the block of the bracket that brings the depth back to 0, if any; the
/// carry updated for the next block otherwise. The block's string quotes are added to
/// `string_quotes`.
#[inline(always)]
fn close_in(
    m: BlockMasks,
    carry: &mut Carry,
    string_quotes: &mut StringQuotes,
    prefix_xor: impl Fn(u64) -> u64,
) -> Option<usize> {
    let escaped = escaped_bytes(m.backslashes, &mut carry.escaped);
    let quotes = m.quotes & !escaped;
    string_quotes.words.push(quotes);
    string_quotes.backslash |= m.backslashes != 0;
    let in_string = prefix_xor(quotes) ^ carry.in_string;
    carry.in_string = ((in_string as i64) >> 63) as u64;
    let opens = m.opens & !in_string & !escaped;
    let closes = m.closes & !in_string & !escaped;
    let mut brackets = opens | closes;
    while brackets != 0 {
        let bit = brackets & brackets.wrapping_neg();
        if opens & bit != 0 {
            carry.depth += 1;
        } else {
            // A stray close at depth 0 ends nothing: the full parse reports it.
            carry.depth = carry.depth.saturating_sub(1);
            if carry.depth == 0 {
                return Some(bit.trailing_zeros() as usize);
            }
        }
        brackets &= brackets - 1;
    }
    None
}

/// The bytes a backslash escapes: the one after each odd-length run of backslashes
/// (simdjson's subtraction trick, which carries runs across blocks in `next_escaped`).
#[inline(always)]
fn escaped_bytes(backslashes: u64, next_escaped: &mut u64) -> u64 {
    if backslashes == 0 {
        return std::mem::take(next_escaped);
    }
    let potential = backslashes & !*next_escaped;
    let maybe_escaped = potential << 1;
    let code = ((maybe_escaped | ODD_BITS).wrapping_sub(potential)) ^ ODD_BITS;
    let escaped = code ^ (backslashes | *next_escaped);
    *next_escaped = (code & backslashes) >> 63;
    escaped
}

/// Bit i set when an odd number of bits at or below i are: inside a string, from its
/// opening quote up to its closing one.
#[inline(always)]
fn prefix_xor(mut x: u64) -> u64 {
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    x
}

/// [`prefix_xor`] as a carry-less product with all ones: bit i of the product is the XOR
/// of bits 0 to i.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "pclmulqdq")]
#[inline]
fn prefix_xor_clmul(x: u64) -> u64 {
    use std::arch::x86_64::{_mm_clmulepi64_si128, _mm_cvtsi128_si64, _mm_set_epi64x};
    let product = _mm_clmulepi64_si128(_mm_set_epi64x(0, x as i64), _mm_set_epi64x(0, -1), 0);
    _mm_cvtsi128_si64(product) as u64
}

/// A block's masks from two 32-byte lanes.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
fn masks_avx2(block: &[u8; 64]) -> BlockMasks {
    use std::arch::x86_64::{
        __m256i, _mm256_cmpeq_epi8, _mm256_loadu_si256, _mm256_movemask_epi8, _mm256_or_si256,
        _mm256_set1_epi8,
    };
    let (low, high) = block.split_at(32);
    // SAFETY: each half is 32 bytes, read unaligned.
    let lanes = unsafe {
        [
            _mm256_loadu_si256(low.as_ptr().cast::<__m256i>()),
            _mm256_loadu_si256(high.as_ptr().cast::<__m256i>()),
        ]
    };
    let eq = |v, c: u8| {
        u64::from(_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, _mm256_set1_epi8(c as i8))) as u32)
    };
    let both = |f: &dyn Fn(__m256i) -> u64| f(lanes[0]) | f(lanes[1]) << 32;
    // `[` and `{`, `]` and `}` differ only in bit 0x20.
    let folded = |v| _mm256_or_si256(v, _mm256_set1_epi8(0x20));
    BlockMasks {
        quotes: both(&|v| eq(v, b'"')),
        backslashes: both(&|v| eq(v, b'\\')),
        opens: both(&|v| eq(folded(v), b'{')),
        closes: both(&|v| eq(folded(v), b'}')),
    }
}

#[inline(always)]
fn masks(block: &[u8; 64]) -> BlockMasks {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: SSE2 is part of the x86-64 baseline; every x86-64 CPU has it.
        unsafe { masks_sse2(block) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        masks_bytes(block)
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse2")]
fn masks_sse2(block: &[u8; 64]) -> BlockMasks {
    use std::arch::x86_64::{
        _mm_cmpeq_epi8, _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8, _mm_set_epi64x,
    };
    let mut m = BlockMasks {
        quotes: 0,
        backslashes: 0,
        opens: 0,
        closes: 0,
    };
    for (i, lane) in block.chunks_exact(16).enumerate() {
        let bytes = u128::from_le_bytes(lane.try_into().expect("16-byte lane"));
        let v = _mm_set_epi64x((bytes >> 64) as i64, bytes as i64);
        let eq = |x, c: u8| _mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_set1_epi8(c as i8))) as u16;
        // `[` and `{`, `]` and `}` differ only in bit 0x20.
        let folded = _mm_or_si128(v, _mm_set1_epi8(0x20));
        let shift = 16 * i;
        m.quotes |= u64::from(eq(v, b'"')) << shift;
        m.backslashes |= u64::from(eq(v, b'\\')) << shift;
        m.opens |= u64::from(eq(folded, b'{')) << shift;
        m.closes |= u64::from(eq(folded, b'}')) << shift;
    }
    m
}

#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
fn masks_bytes(block: &[u8; 64]) -> BlockMasks {
    let mut m = BlockMasks {
        quotes: 0,
        backslashes: 0,
        opens: 0,
        closes: 0,
    };
    for (i, b) in block.iter().enumerate() {
        let bit = 1u64 << i;
        match b {
            b'"' => m.quotes |= bit,
            b'\\' => m.backslashes |= bit,
            b'{' | b'[' => m.opens |= bit,
            b'}' | b']' => m.closes |= bit,
            _ => {}
        }
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The plain walk the block scanner replaces: the reference it must agree with. A
    /// backslash escapes the next byte wherever it is (JSON has none outside strings; the
    /// full parse rejects a document that does).
    fn value_end_bytewise(buf: &[u8]) -> Option<usize> {
        if !matches!(buf.first(), Some(b'{' | b'[')) {
            return None;
        }
        let (mut depth, mut in_string, mut escaped) = (0u64, false, false);
        for (i, b) in buf.iter().enumerate() {
            if escaped {
                escaped = false;
                continue;
            }
            if *b == b'\\' {
                escaped = true;
                continue;
            }
            if in_string {
                if *b == b'"' {
                    in_string = false;
                }
                continue;
            }
            match b {
                b'"' => in_string = true,
                b'{' | b'[' => depth += 1,
                b'}' | b']' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return Some(i);
                    }
                }
                _ => {}
            }
        }
        None
    }

    #[test]
    fn an_event_ends_at_its_own_brace_whatever_its_strings_hold() {
        let event =
            br#"{"ph":"X","name":"x \"quoted\" [} \\","args":{"a":[1,{"b":"}"}]}}, {"next":1}"#;
        let end = value_end(event, &mut StringQuotes::default()).unwrap();
        assert_eq!(&event[end - 1..=end], b"}}");
        assert_eq!(Some(end), value_end_bytewise(event));
        // Cut before its end: no end.
        assert_eq!(value_end(&event[..end], &mut StringQuotes::default()), None);
        assert_eq!(
            value_end(b"\"not an object\"", &mut StringQuotes::default()),
            None
        );
    }

    #[test]
    fn backslash_runs_across_block_edges_escape_by_their_parity() {
        // A string whose backslash runs of every length end at every offset around the
        // 64-byte edges, followed by the object's close.
        for run in 1..6 {
            for pad in 0..140 {
                let mut s = b"{\"k\":\"".to_vec();
                s.extend(std::iter::repeat_n(b'a', pad));
                s.extend(std::iter::repeat_n(b'\\', run));
                // An odd run escapes the quote: the string goes on to the second one.
                s.extend_from_slice(b"\"}x\"}");
                assert_eq!(
                    value_end(&s, &mut StringQuotes::default()),
                    value_end_bytewise(&s),
                    "run {run}, pad {pad}"
                );
            }
        }
    }

    #[test]
    fn agrees_with_the_byte_walk_on_ten_thousand_random_documents() {
        // A small xorshift: documents of brackets, quotes, backslashes and letters, so every
        // mix of strings, escapes and nesting comes up, at every length around the blocks.
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let alphabet = b"{}[]\"\\ab,: ";
        for _ in 0..10_000 {
            let len = (next() % 300) as usize;
            let mut doc = vec![if next() % 2 == 0 { b'{' } else { b'[' }];
            doc.extend((0..len).map(|_| alphabet[(next() % alphabet.len() as u64) as usize]));
            // Both the path this CPU takes and the baseline one.
            let want = value_end_bytewise(&doc);
            let doc_text = String::from_utf8_lossy(&doc);
            let mut quotes = StringQuotes::default();
            assert_eq!(value_end(&doc, &mut quotes), want, "{doc_text}");
            assert_eq!(
                value_end_portable(&doc, &mut StringQuotes::default()),
                want,
                "{doc_text}"
            );
            // Where no backslash is, the quotes found are every quote up to the end.
            if let (Some(end), Some(words)) = (want, quotes.of_plain_strings()) {
                for (i, b) in doc[..=end].iter().enumerate() {
                    let bit = words[i / 64] >> (i % 64) & 1;
                    assert_eq!(bit == 1, *b == b'"', "byte {i} of {doc_text}");
                }
            }
        }
    }

    #[test]
    fn the_byte_masks_match_the_simd_ones() {
        // Each structural byte at every offset of the block, both halves of each lane.
        for shift in 0..8 {
            let block: [u8; 64] = std::array::from_fn(|i| b"{}[]\"\\ab"[(i + shift) % 8]);
            assert_eq!(masks(&block), masks_bytes(&block));
            #[cfg(target_arch = "x86_64")]
            if std::arch::is_x86_feature_detected!("avx2") {
                // SAFETY: the CPU has AVX2, checked just above.
                assert_eq!(unsafe { masks_avx2(&block) }, masks_bytes(&block));
            }
        }
    }

    #[test]
    fn the_carry_less_prefix_xor_is_the_shifted_one() {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("pclmulqdq") {
            let mut x = 0x9E37_79B9_7F4A_7C15u64;
            for _ in 0..1000 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                for v in [x, 0, u64::MAX, 1 << 63, 1] {
                    // SAFETY: the CPU has PCLMULQDQ, checked above.
                    assert_eq!(unsafe { prefix_xor_clmul(v) }, prefix_xor(v), "{v:#x}");
                }
            }
        }
    }
}
