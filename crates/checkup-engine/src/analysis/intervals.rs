//! Interval arithmetic on sorted, disjoint `[start, end)` lists (microseconds).

/// A `[start, end)` span in microseconds.
pub type Interval = (f64, f64);

/// Sorted, disjoint union of possibly overlapping intervals.
pub fn merge(mut v: Vec<Interval>) -> Vec<Interval> {
    v.retain(|(a, b)| b > a);
    v.sort_by(|x, y| x.0.total_cmp(&y.0));
    let mut out: Vec<Interval> = Vec::with_capacity(v.len());
    for (a, b) in v {
        match out.last_mut() {
            Some(last) if a <= last.1 => last.1 = last.1.max(b),
            _ => out.push((a, b)),
        }
    }
    out
}

/// The summed length of disjoint intervals.
pub fn total(v: &[Interval]) -> f64 {
    v.iter().map(|(a, b)| b - a).sum()
}

/// Length of the intersection of two merged lists.
pub fn overlap(x: &[Interval], y: &[Interval]) -> f64 {
    let (mut i, mut j, mut sum) = (0, 0, 0.0);
    while i < x.len() && j < y.len() {
        let lo = x[i].0.max(y[j].0);
        let hi = x[i].1.min(y[j].1);
        if hi > lo {
            sum += hi - lo;
        }
        if x[i].1 < y[j].1 {
            i += 1;
        } else {
            j += 1;
        }
    }
    sum
}

/// Merged list clipped to `[lo, hi)`. Binary search finds the first interval, so clipping
/// many short windows out of one long list stays cheap.
pub fn clip(v: &[Interval], lo: f64, hi: f64) -> Vec<Interval> {
    // Merged lists are disjoint and sorted, so their ends are sorted too.
    let first = v.partition_point(|&(_, b)| b <= lo);
    v[first..]
        .iter()
        .take_while(|&&(a, _)| a < hi)
        .filter_map(|&(a, b)| {
            let (a, b) = (a.max(lo), b.min(hi));
            (b > a).then_some((a, b))
        })
        .collect()
}

/// Gaps of a merged list inside `[lo, hi)`.
pub fn gaps(v: &[Interval], lo: f64, hi: f64) -> Vec<Interval> {
    let mut out = Vec::new();
    let mut cursor = lo;
    for &(a, b) in v {
        if a > cursor {
            out.push((cursor, a.min(hi)));
        }
        cursor = cursor.max(b);
        if cursor >= hi {
            break;
        }
    }
    if cursor < hi {
        out.push((cursor, hi));
    }
    out.retain(|(a, b)| b > a);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merge_joins_overlaps_and_touching_ranges() {
        assert_eq!(
            merge(vec![(5.0, 7.0), (0.0, 2.0), (1.0, 3.0), (3.0, 4.0)]),
            vec![(0.0, 4.0), (5.0, 7.0)]
        );
    }

    #[test]
    fn overlap_and_gaps_partition_a_window() {
        let busy = merge(vec![(1.0, 3.0), (6.0, 8.0)]);
        let idle = gaps(&busy, 0.0, 10.0);
        assert_eq!(idle, vec![(0.0, 1.0), (3.0, 6.0), (8.0, 10.0)]);
        assert_eq!(total(&idle) + total(&busy), 10.0);
        assert_eq!(overlap(&busy, &[(2.0, 7.0)]), 2.0);
    }
}
