//! Curves cut to the pixel columns, tick labels.

use super::style::{tick, WIDTH};
use super::time::decimate;

#[test]
fn a_long_series_is_cut_to_two_points_per_column_and_keeps_its_dip() {
    // 30 minutes at 10 Hz, busy at 98 % but for one 100 ms dip to 3 %.
    let pts: Vec<(f64, f64)> = (0..18_000)
        .map(|i| (i as f64 * 0.1, if i == 12_345 { 3.0 } else { 98.0 }))
        .collect();
    let kept = decimate(pts);
    assert!(kept.len() <= 2 * WIDTH as usize, "{}", kept.len());
    assert!(kept.iter().any(|p| p.1 == 3.0), "the dip survives");
    assert!(kept.windows(2).all(|w| w[0].0 <= w[1].0), "in time order");
    assert_eq!(kept.first().unwrap().0, 0.0);
    assert_eq!(kept.last().unwrap().0, 1799.9);
}

#[test]
fn tick_labels_carry_no_trailing_zeros_and_no_negative_zero() {
    assert_eq!(tick(&2000.0), "2000");
    assert_eq!(tick(&0.5), "0.5");
    assert_eq!(tick(&12.25), "12.25");
    assert_eq!(tick(&-0.001), "0");
    assert_eq!(tick(&0.0), "0");
}

#[test]
fn a_short_series_is_drawn_as_it_is() {
    let pts: Vec<(f64, f64)> = (0..250).map(|i| (i as f64, i as f64)).collect();
    assert_eq!(decimate(pts.clone()), pts);
}
