//! Small robust statistics over f64 slices (NaN-free inputs).

/// The median; 0 for an empty slice.
pub fn median(v: &[f64]) -> f64 {
    percentile(v, 0.5)
}

/// Linear-interpolated percentile, `q` in 0..=1; 0 for an empty slice.
pub fn percentile(v: &[f64], q: f64) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let pos = q.clamp(0.0, 1.0) * (s.len() - 1) as f64;
    let (i, frac) = (pos.floor() as usize, pos.fract());
    match s.get(i + 1) {
        Some(next) => s[i] + (next - s[i]) * frac,
        None => s[i],
    }
}

/// The mean; None for an empty slice.
pub fn mean(v: &[f64]) -> Option<f64> {
    (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
}

/// Kendall's tau of `v` against its order: 1 when every later value is larger, -1 when
/// every one is smaller.
pub fn kendall_tau(v: &[f64]) -> f64 {
    let pairs = v.len() * v.len().saturating_sub(1) / 2;
    if pairs == 0 {
        return 0.0;
    }
    let mut score = 0i64;
    for (i, a) in v.iter().enumerate() {
        for b in &v[i + 1..] {
            score += match b.total_cmp(a) {
                std::cmp::Ordering::Greater => 1,
                std::cmp::Ordering::Less => -1,
                std::cmp::Ordering::Equal => 0,
            };
        }
    }
    score as f64 / pairs as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_interpolate_between_ranks() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[1.0, 2.0, 3.0, 4.0]), 2.5);
        assert_eq!(percentile(&[0.0, 10.0], 0.9), 9.0);
        assert_eq!(median(&[]), 0.0);
    }
}
