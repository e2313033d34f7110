//! The time ledger on real recordings: the parts a portrait is known by are where they
//! belong. (That every corpus run's ledger adds up is checked with its primary finding, in
//! `corpus.rs`.)

use checkup_engine::{analyze_paths, Options};
use checkup_model::{Diagnosis, KernelClass, LedgerBasis, LedgerKind, MarkerKind};
use checkup_testkit::corpus;

fn diagnose(run: &str) -> Diagnosis {
    analyze_paths(&[corpus(run)], &Options::default()).unwrap_or_else(|e| panic!("{run}: {e}"))
}

fn share(d: &Diagnosis, kind: LedgerKind) -> f64 {
    let l = d.ledger.as_ref().expect("a ledger");
    l.part(kind).map_or(0.0, |p| p.share)
}

#[test]
fn each_portrait_spends_its_time_where_its_cause_says() {
    // A starved loader waits for data most of the run.
    let d = diagnose("dataloader_starved");
    assert!(share(&d, LedgerKind::DataWait) > 0.6, "{:?}", d.ledger);
    // A launch-bound MLP leaves the GPU idle while the host launches.
    let d = diagnose("launch_bound");
    assert!(share(&d, LedgerKind::HostLate) > 0.8, "{:?}", d.ledger);
    // A loop that encodes its batch in Python leaves the GPU idle while the host launches
    // nothing: that part is its own, tied to the launch finding.
    let d = diagnose("probe_text_encoded_in_loop");
    assert!(
        share(&d, LedgerKind::HostLaunchless) > 0.55,
        "{:?}",
        d.ledger
    );
    assert!(share(&d, LedgerKind::HostLate) < 0.05, "{:?}", d.ledger);
    let l = d.ledger.as_ref().unwrap();
    let part = l.part(LedgerKind::HostLaunchless).unwrap();
    assert_eq!(
        part.finding.map(|f| d.findings[f].id()),
        Some("kernel_launch".to_owned())
    );
    // Memory-bound blocks spend it in elementwise kernels, tied to their finding.
    let d = diagnose("memory_bound");
    assert!(share(&d, LedgerKind::GpuCompute(KernelClass::Elementwise)) > 0.75);
    let part = d.ledger.as_ref().unwrap().parts[0].clone();
    assert_eq!(
        part.finding.map(|f| d.findings[f].id()),
        Some("memory_bandwidth".to_owned())
    );
    // Pageable copies are a third of the run.
    let d = diagnose("h2d_pageable");
    assert!(share(&d, LedgerKind::Copies) > 0.3, "{:?}", d.ledger);
    // The probe's checkpoints and evaluation passes are their own parts.
    let d = diagnose("probe_checkpoint_every_n");
    assert!(share(&d, LedgerKind::Periodic(MarkerKind::Checkpoint)) > 0.4);
    let d = diagnose("probe_launch_bound_eval");
    assert!(share(&d, LedgerKind::Periodic(MarkerKind::Eval)) > 0.2);
    // The healthy ResNet's 13 s of cuDNN autotune are half its 25 s recording.
    let d = diagnose("healthy");
    assert!((share(&d, LedgerKind::WarmUp) - 0.52).abs() < 0.02);
    // A 1-GPU MLP whose host waits for the GPU every tenth step has no slow steps.
    let d = diagnose("wide_mlp_1gpu");
    assert_eq!(share(&d, LedgerKind::SlowSteps), 0.0, "{:?}", d.ledger);
    // Samples alone: the GPU's busy time and the rest, not explained.
    let d = diagnose("samples_only_loader_attached");
    let l = d.ledger.as_ref().unwrap();
    assert_eq!(l.basis, LedgerBasis::SampledSeconds);
    assert!(share(&d, LedgerKind::NotExplained) > 0.8);
}
