//! Which ranks a report shows of a job's many: the per-rank table and the GPU timeline show
//! the same ones, all of them up to a table's worth, else the diagnosed rank and each
//! column's extremes.

use checkup_model::Diagnosis;

/// A rank's row of the per-rank table as numbers: window (ms), compute, exposed
/// communication and copies, idle and its two kinds (percent of the window), kernels per step
/// and the median kernel (µs). Its cells and the medians row come from these.
pub(crate) fn rank_columns(r: &checkup_model::RankSummary) -> [f64; 9] {
    let g = &r.gpu;
    let share = |us: f64| g.share(us) * 100.0;
    [
        g.window_us / 1e3,
        share(g.compute_us),
        share(g.exposed_comm_us),
        share(g.exposed_memory_us),
        share(g.idle_us),
        share(g.idle.host_wait_us),
        share(g.idle.kernel_wait_us),
        r.kernels.per_step,
        r.kernels.median_us,
    ]
}

/// The ranks the per-rank table shows (see [`ranks_shown`]); the GPU timeline draws the same.
pub(crate) fn ranks_in_table(d: &Diagnosis) -> std::collections::BTreeSet<u32> {
    let values: Vec<(u32, [f64; 9])> = d.ranks.iter().map(|r| (r.rank, rank_columns(r))).collect();
    ranks_shown(&values, d.diagnosed_rank)
}

/// A table of at most this many ranks shows them all.
const RANKS_LISTED: usize = 16;

/// The ranks a per-rank table shows: all of them up to [`RANKS_LISTED`]; beyond, the
/// diagnosed rank and, for each column, the ranks with its highest and lowest value, so a
/// job of 256 ranks gets a table a meeting can read that still holds every outlier.
pub(crate) fn ranks_shown<const N: usize>(
    values: &[(u32, [f64; N])],
    diagnosed: Option<u32>,
) -> std::collections::BTreeSet<u32> {
    if values.len() <= RANKS_LISTED {
        return values.iter().map(|(r, _)| *r).collect();
    }
    let mut shown: std::collections::BTreeSet<u32> = diagnosed.into_iter().collect();
    for i in 0..N {
        let by = |a: &&(u32, [f64; N]), b: &&(u32, [f64; N])| a.1[i].total_cmp(&b.1[i]);
        shown.extend(values.iter().max_by(by).map(|(r, _)| *r));
        shown.extend(values.iter().min_by(by).map(|(r, _)| *r));
    }
    shown
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn up_to_sixteen_ranks_are_all_listed_and_beyond_the_diagnosed_one_and_each_columns_extremes() {
        let ranks = |n: u32| -> Vec<(u32, [f64; 2])> {
            (0..n)
                .map(|r| (r, [10.0 + f64::from(r % 5), 50.0]))
                .collect()
        };
        assert_eq!(ranks_shown(&ranks(16), Some(3)).len(), 16);
        let mut many = ranks(256);
        many[170].1 = [14.0, 80.0]; // the slow rank: the most of the second column
        many[9].1[1] = 20.0; // the least of it
        let shown: Vec<u32> = ranks_shown(&many, Some(170)).into_iter().collect();
        // Column 0: its highest is the last rank with 14 (254), its lowest the first with 10.
        assert_eq!(shown, [0, 9, 170, 254]);
    }
}
