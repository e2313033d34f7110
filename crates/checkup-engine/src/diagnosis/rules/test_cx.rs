//! A context built from constructed inputs, for the rules' boundary tests.

use checkup_model::{
    HostStats, RankSummary, RunFacts, SampleStats, StepBreakdown, StepSyncs, StepTiming,
};

use crate::analysis::Analysis;
use crate::diagnosis::Ctx;
use crate::thresholds::Thresholds;

/// A rank whose trace window is `window_us` long and holds 5 whole steps.
pub fn rank_with_waits(window_us: f64) -> RankSummary {
    let mut r = RankSummary::default();
    r.gpu.window_us = window_us;
    r.steps = vec![StepBreakdown::default(); 5];
    r
}

/// A rank whose trace holds 7 normal 10 ms steps without syncs and, fourth, one 500 ms
/// stall that waited on the GPU `waits` times with `sync_idle_us` of GPU idle after them;
/// and step timings that found stalls every 12 steps.
pub fn rank_with_profiled_stall(waits: u32, sync_idle_us: f64) -> (RankSummary, StepTiming) {
    let mut r = rank_with_waits(570_000.0);
    r.step_syncs = (0..8)
        .map(|i| StepSyncs {
            step: i,
            waits: if i == 3 { waits } else { 0 },
            sync_idle_us: if i == 3 { sync_idle_us } else { 0.0 },
            period_us: if i == 3 { 500_000.0 } else { 10_000.0 },
        })
        .collect();
    r.host_waits.sync_us = sync_idle_us;
    r.host_waits.sync_calls_per_step = waits as f64 / 8.0;
    let t = StepTiming {
        stall_period_steps: Some(12.0),
        ..StepTiming::default()
    };
    (r, t)
}

/// Owns what a [`Ctx`] borrows.
#[derive(Default)]
pub struct Fixture {
    pub th: Thresholds,
    pub facts: RunFacts,
    pub a: Analysis,
}

impl Fixture {
    pub fn with_rank(r: RankSummary) -> Self {
        let mut fx = Fixture::default();
        fx.a.ranks.push(r);
        fx
    }

    pub fn timing(mut self, t: StepTiming) -> Self {
        self.a.step_timing.push(t);
        self
    }

    pub fn gpu(mut self, g: SampleStats) -> Self {
        self.a.samples.push(g);
        self
    }

    pub fn host(mut self, h: HostStats) -> Self {
        self.a.host = Some(h);
        self
    }

    pub fn cx(&self) -> Ctx<'_> {
        Ctx {
            th: &self.th,
            facts: &self.facts,
            a: &self.a,
            rank: self.a.ranks.first(),
            timing: self.a.step_timing.first(),
            gpu: self.a.samples.first(),
            env: &[],
            scaling: None,
            straggler: None,
            shifting: None,
            training: self.a.training.values().next(),
            markers: self.a.markers.values().next().map_or(&[], Vec::as_slice),
        }
    }
}
