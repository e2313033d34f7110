//! Multi-GPU scaling efficiency against a 1-GPU partner run.

use checkup_model::{RunFacts, Scaling};

use crate::analysis::Analysis;

/// Scaling efficiency against a 1-GPU partner: throughput per GPU, from `samples_per_s` when
/// both runs recorded it, else from batch size and steady step time.
pub fn scaling(
    facts: &RunFacts,
    a: &Analysis,
    pf: &RunFacts,
    pa: &Analysis,
    partner: String,
) -> Option<Scaling> {
    let gpus = facts.world_size.unwrap_or(a.ranks.len().max(1) as u32);
    let partner_gpus = pf.world_size.unwrap_or(1).max(1);
    let throughput = |f: &RunFacts, an: &Analysis, n: u32| -> Option<f64> {
        f.samples_per_s.or_else(|| {
            let t = an.step_timing.first()?;
            let bs = f.batch_size? as f64;
            (t.mean_step_ms > 0.0).then(|| bs * n as f64 * 1e3 / t.mean_step_ms)
        })
    };
    let multi = throughput(facts, a, gpus)?;
    let single = throughput(pf, pa, partner_gpus)? / partner_gpus as f64;
    if gpus <= 1 || single <= 0.0 {
        return None;
    }
    let speedup = multi / single;
    Some(Scaling {
        gpus,
        single_gpu_samples_per_s: single,
        multi_gpu_samples_per_s: multi,
        speedup,
        efficiency: speedup / gpus as f64,
        partner,
    })
}
