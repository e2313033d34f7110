//! Mutations of an input, byte-level and textual: the readers take CSV, JSON, XML and
//! `key = value` text, so besides flipping bits the mutator swaps numbers for the values
//! that break arithmetic and allocation (0, -1, 2^32, 1e308, NaN), nests brackets deeply,
//! repeats lines and splices two seeds.

/// A small, fast, seedable generator (xorshift64*): runs are reproducible from their seed.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Self(seed.max(1))
    }

    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next_u64() % n as u64) as usize
        }
    }
}

/// Values that have broken parsers and the arithmetic behind them.
const TOKENS: &[&str] = &[
    "0",
    "-1",
    "-0",
    "1e308",
    "-1e308",
    "1e-320",
    "NaN",
    "nan",
    "inf",
    "-inf",
    "4294967295",
    "4294967296",
    "18446744073709551615",
    "18446744073709551616",
    "9223372036854775807",
    "-9223372036854775808",
    "100000000",
    "4000000000",
    "null",
    "true",
    "\"\"",
    "[]",
    "{}",
    "\"\\u0000\"",
    "\"\\ud800\"",
    ",",
    ";",
    "\n",
    "\r\n",
    "\"",
    "'",
    "\t",
    "=",
    "#",
    "<",
    ">",
    "&amp;",
    "<!--",
    "]]>",
    "\u{feff}",
    "é",
    "\u{202e}",
];

/// Largest input the mutator makes: readers are meant to stay within their limits, not to
/// be fed gigabytes by the fuzzer.
pub const MAX_INPUT: usize = 4 << 20;

/// One to four mutations of `input`; `other` is another seed to splice with.
pub fn mutate(rng: &mut Rng, input: &[u8], other: &[u8]) -> Vec<u8> {
    let mut out = input.to_vec();
    for _ in 0..1 + rng.below(4) {
        mutate_once(rng, &mut out, other);
        out.truncate(MAX_INPUT);
    }
    out
}

fn mutate_once(rng: &mut Rng, out: &mut Vec<u8>, other: &[u8]) {
    let len = out.len();
    match rng.below(11) {
        0 if len > 0 => {
            let i = rng.below(len);
            out[i] ^= 1 << rng.below(8);
        }
        1 if len > 0 => {
            let i = rng.below(len);
            out[i] = b"\0\xff\",\n{[-9.e:<"[rng.below(13)];
        }
        2 if len > 0 => {
            let a = rng.below(len);
            let b = (a + 1 + rng.below(64.min(len - a))).min(len);
            out.drain(a..b);
        }
        3 if len > 0 => {
            let a = rng.below(len);
            let b = (a + 1 + rng.below(256.min(len - a))).min(len);
            let chunk = out[a..b].to_vec();
            let at = rng.below(len + 1);
            out.splice(at..at, chunk);
        }
        4 => {
            let at = rng.below(len + 1);
            let t = TOKENS[rng.below(TOKENS.len())].as_bytes().to_vec();
            out.splice(at..at, t);
        }
        5 => replace_number(rng, out),
        6 if len > 0 => out.truncate(rng.below(len)),
        7 if !other.is_empty() => {
            let a = rng.below(len + 1);
            let b = rng.below(other.len());
            out.truncate(a);
            out.extend_from_slice(&other[b..]);
        }
        8 => repeat_line(rng, out),
        9 => {
            // Deep nesting: the readers cap their depth instead of recursing until the
            // stack ends.
            let at = rng.below(len + 1);
            let (open, n) = (b"[{<"[rng.below(3)], 1 + rng.below(5000));
            let deep: Vec<u8> = match open {
                b'<' => b"<a>".repeat(n),
                b'{' => b"{\"a\":".repeat(n),
                _ => vec![b'['; n],
            };
            out.splice(at..at, deep);
        }
        _ => {
            let at = rng.below(len + 1);
            let long = vec![b"a9\"\\"[rng.below(4)]; 1 + rng.below(70_000)];
            out.splice(at..at, long);
        }
    }
}

/// Replaces one run of digits (a number in the text) by one of the breaking values.
fn replace_number(rng: &mut Rng, out: &mut Vec<u8>) {
    let digits: Vec<usize> = (0..out.len())
        .filter(|&i| out[i].is_ascii_digit())
        .collect();
    if digits.is_empty() {
        return;
    }
    let mut a = digits[rng.below(digits.len())];
    while a > 0 && (out[a - 1].is_ascii_digit() || out[a - 1] == b'.' || out[a - 1] == b'-') {
        a -= 1;
    }
    let mut b = a;
    while b < out.len() && (out[b].is_ascii_digit() || out[b] == b'.' || out[b] == b'e') {
        b += 1;
    }
    let t = TOKENS[rng.below(20)].as_bytes().to_vec();
    out.splice(a..b, t);
}

/// Repeats one line up to a thousand times (ranks, steps, rows by the thousand).
fn repeat_line(rng: &mut Rng, out: &mut Vec<u8>) {
    let starts: Vec<usize> = std::iter::once(0)
        .chain((0..out.len()).filter(|&i| out[i] == b'\n').map(|i| i + 1))
        .filter(|&i| i < out.len())
        .collect();
    if starts.is_empty() {
        return;
    }
    let a = starts[rng.below(starts.len())];
    let b = out[a..]
        .iter()
        .position(|&c| c == b'\n')
        .map_or(out.len(), |p| a + p + 1);
    let line = out[a..b].to_vec();
    // Within the input size limit: a long line repeated a thousand times would be gigabytes.
    let room = MAX_INPUT.saturating_sub(out.len()) / line.len().max(1);
    let times = 1 + rng.below(1000.min(room.max(1)));
    let at = b;
    let copies: Vec<u8> = line
        .iter()
        .copied()
        .cycle()
        .take(line.len() * times)
        .collect();
    out.splice(at..at, copies);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mutations_are_reproducible_from_the_seed_and_bounded_in_size() {
        let input = b"step,t_start,data_wait_ms\n0,1.5,2\n1,2.5,3\n".to_vec();
        let a: Vec<Vec<u8>> = {
            let mut r = Rng::new(7);
            (0..200)
                .map(|_| mutate(&mut r, &input, b"{\"x\": 1}"))
                .collect()
        };
        let b: Vec<Vec<u8>> = {
            let mut r = Rng::new(7);
            (0..200)
                .map(|_| mutate(&mut r, &input, b"{\"x\": 1}"))
                .collect()
        };
        assert_eq!(a, b);
        assert!(a.iter().all(|m| m.len() <= MAX_INPUT));
        assert!(
            a.iter().filter(|m| **m != input).count() > 150,
            "most inputs change"
        );
    }
}
