//! A context built from constructed inputs, for the rules' boundary tests.

use checkup_model::{HostStats, RankSummary, RunFacts, SampleStats, StepBreakdown, StepTiming};

use crate::analysis::Analysis;
use crate::diagnosis::thresholds::Thresholds;
use crate::diagnosis::Ctx;

/// A rank whose trace window is `window_us` long and holds 5 whole steps.
pub fn rank_with_waits(window_us: f64) -> RankSummary {
    let mut r = RankSummary::default();
    r.gpu.window_us = window_us;
    r.steps = vec![StepBreakdown::default(); 5];
    r
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
            training: self.a.training.values().next(),
            markers: self.a.markers.values().next().map_or(&[], Vec::as_slice),
        }
    }
}
