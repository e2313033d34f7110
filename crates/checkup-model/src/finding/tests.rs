//! The finding model's JSON and ids, as scripts and stored diagnoses read them.

use super::*;
use super::{CommunicationEvidence, ComputeBoundFix, DataLoadingFix, HostSyncFix, SharedFix};

#[test]
fn a_finding_id_is_its_causes_kind_and_its_family_the_variant_that_holds_it() {
    assert_eq!(Cause::HostSync(HostSync::Readbacks).id(), "host_sync");
    assert_eq!(
        Cause::Communication(Communication::P2pDisabled).id(),
        "communication/p2p_disabled"
    );
    let c = Cause::DataLoading(DataLoading::CpuContention {
        host_cpu_pct: 99.0,
        training_cores: 0.7,
    });
    assert_eq!(c.id(), "data_loading/cpu_contention");
    assert_eq!(c.family(), Family::DataLoading);
    assert_eq!(
        Family::of_kind("data_loading/cpu_contention"),
        Some(Family::DataLoading)
    );
    assert_eq!(Family::of_kind("data_loadin"), None);
}

#[test]
fn an_environment_findings_id_adds_the_checks_id_to_its_kind() {
    use crate::{CheckId, CheckStatus, CheckValue, EnvCheck};
    let check = EnvCheck::new(
        CheckId::PowerLimit,
        CheckStatus::Warn,
        CheckValue::PowerLimit {
            limit_w: 600.0,
            default_w: 700.0,
        },
    );
    let c = Cause::Environment(Environment::Check { check });
    assert_eq!(c.kind(), "environment");
    assert_eq!(
        c.id(),
        format!("environment/{}", CheckId::PowerLimit.as_str())
    );
    let json = serde_json::to_value(&c).unwrap();
    assert_eq!(json["kind"], "environment");
    assert_eq!(serde_json::from_value::<Cause>(json).unwrap(), c);
}

#[test]
fn a_cause_reads_back_from_the_json_it_always_had() {
    // The form diagnoses were stored in before causes were grouped by family.
    let json = serde_json::json!({"kind": "memory/near_limit", "peak_gib": 131.0,
        "capacity_gib": 139.8, "others_gib": 0.0});
    let c: Cause = serde_json::from_value(json.clone()).unwrap();
    assert_eq!(
        c,
        Cause::Memory(Memory::NearLimit {
            peak_gib: 131.0,
            capacity_gib: 139.8,
            others_gib: 0.0
        })
    );
    assert_eq!(serde_json::to_value(&c).unwrap(), json);
    let unit = serde_json::json!({"kind": "h2d_copy/pageable"});
    assert_eq!(
        serde_json::from_value::<Cause>(unit).unwrap(),
        Cause::H2dCopy(H2dCopy::Pageable)
    );
}

#[test]
fn a_cause_of_an_unknown_kind_or_with_a_wrong_field_is_refused_by_name() {
    let err = serde_json::from_value::<Cause>(serde_json::json!({"kind": "gpu_on_fire"}))
        .unwrap_err()
        .to_string();
    assert!(err.contains("unknown finding kind `gpu_on_fire`"), "{err}");
    let err = serde_json::from_value::<Cause>(serde_json::json!({"kind": "host_sync/nope"}))
        .unwrap_err()
        .to_string();
    assert!(err.contains("finding `host_sync/nope`"), "{err}");
    let err = serde_json::from_value::<Cause>(
        serde_json::json!({"kind": "kernel_launch", "kernels_per_step": "many"}),
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("finding `kernel_launch`"), "{err}");
    let err = serde_json::from_value::<Cause>(serde_json::json!({"peak_gib": 1.0}))
        .unwrap_err()
        .to_string();
    assert!(err.contains("missing field `kind`"), "{err}");
}

#[test]
fn evidence_keys_and_fixes_keep_their_flat_json_ids_from_the_family_that_holds_them() {
    let fix = Fix::HostSync(HostSyncFix::KeepAllocatorCache {
        site: None,
        calls_per_step: Some(2.0),
        caching_off: false,
    });
    let json = serde_json::to_value(&fix).unwrap();
    assert_eq!(json["fix"], "keep_allocator_cache");
    assert_eq!(serde_json::from_value::<Fix>(json).unwrap(), fix);
    let stored =
        serde_json::json!({"fix": "leave_cores_to_loop", "workers": 8, "cores": 8, "suggested": 6});
    assert_eq!(
        serde_json::from_value::<Fix>(stored).unwrap(),
        DataLoadingFix::LeaveCoresToLoop {
            workers: 8,
            cores: 8,
            suggested: 6,
            ranks: 1
        }
    );
    let key = EvidenceKey::from(CommunicationEvidence::SlowestRankSteps { rank: 3 });
    let json = serde_json::to_value(&key).unwrap();
    assert_eq!(
        json,
        serde_json::json!({"key": "slowest_rank_steps", "rank": 3})
    );
    assert_eq!(serde_json::from_value::<EvidenceKey>(json).unwrap(), key);
}

#[test]
fn no_id_is_held_by_two_families() {
    for ids in [Fix::ids().collect::<Vec<_>>(), EvidenceKey::ids().collect()] {
        let mut sorted = ids.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), ids.len(), "{ids:?}");
    }
    assert!(Fix::ids().any(|id| id == "keep_allocator_cache"));
    assert!(EvidenceKey::ids().any(|id| id == "slowest_rank_steps"));
}

#[test]
fn an_unknown_fix_or_evidence_key_or_a_wrong_field_is_refused_by_name() {
    let err = serde_json::from_value::<Fix>(serde_json::json!({"fix": "buy_more_gpus"}))
        .unwrap_err()
        .to_string();
    assert!(err.contains("unknown fix `buy_more_gpus`"), "{err}");
    let err = serde_json::from_value::<Fix>(
        serde_json::json!({"fix": "more_workers", "suggested": "lots"}),
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("fix `more_workers`"), "{err}");
    let err = serde_json::from_value::<EvidenceKey>(serde_json::json!({"key": "vibes"}))
        .unwrap_err()
        .to_string();
    assert!(err.contains("unknown evidence key `vibes`"), "{err}");
    let err = serde_json::from_value::<Evidence>(serde_json::json!({"value": 1.0, "unit": "ms", "threshold": null, "source": {"from": "steps_csv"}}))
        .unwrap_err()
        .to_string();
    assert!(err.contains("missing field `key`"), "{err}");
}

fn checkpoint_stall() -> Finding {
    let gain = ExpectedGain {
        before_ms: 41.0,
        after_ms: 18.2,
        gpu_busy_ms: Some(17.5),
        bounded_by_gpu_busy: false,
        basis: StepBasis::UnprofiledSteps,
    };
    Finding {
        cause: Cause::PeriodicStall(PeriodicStall::Stalls {
            period_steps: 25.0,
            excess_ms: 410.0,
            work: Some(PeriodicWork::Checkpoint),
            gpu_busy: None,
        }),
        severity: Severity::Major,
        confidence: 0.85,
        share: 0.2,
        evidence: vec![Evidence {
            key: EvidenceKey::Communication(CommunicationEvidence::ExposedCommRank { rank: 1 }),
            value: 3.0,
            unit: Unit::Percent,
            threshold: None,
            source: Source::Trace { rank: Some(1) },
        }],
        fixes: vec![
            Fix::DataLoading(DataLoadingFix::MoreWorkers {
                suggested: 14,
                current: Some(2),
                host_cpus: Some(16),
            }),
            Fix::DataLoading(DataLoadingFix::PinMemory),
        ],
        gains: Gains {
            cause: Some(gain),
            fixes: vec![
                Some(FixGain {
                    expected: gain,
                    reach: FixReach::OutsideEpochStarts(0.5),
                    after_at_most_ms: None,
                }),
                None,
            ],
        },
    }
}

#[test]
fn a_finding_reads_back_from_its_json_with_the_id_and_gains_scripts_use() {
    let f = checkpoint_stall();
    let json = serde_json::to_value(&f).unwrap();
    assert_eq!(json["id"], "periodic_stall");
    assert_eq!(json["cause"]["kind"], "periodic_stall");
    assert_eq!(json["gain"]["before_ms"], 41.0);
    assert_eq!(json["gain"]["after_ms"], 18.2);
    assert_eq!(json["gain"]["basis"], "unprofiled_steps");
    assert_eq!(json["fixes"][0]["fix"], "more_workers");
    assert_eq!(json["fixes"][0]["suggested"], 14);
    assert_eq!(json["fixes"][0]["gain"]["after_ms"], 18.2);
    assert_eq!(
        json["fixes"][0]["gain"]["reach"]["outside_epoch_starts"],
        0.5
    );
    assert_eq!(json["fixes"][1]["fix"], "pin_memory");
    assert!(json["fixes"][1].get("gain").is_none());
    assert_eq!(serde_json::from_value::<Finding>(json).unwrap(), f);
}

#[test]
fn a_finding_stored_without_gains_reads_back_with_none() {
    let json = serde_json::json!({
        "id": "host_sync", "cause": {"kind": "host_sync"}, "severity": "major",
        "confidence": 0.9, "share": 0.4, "evidence": [],
        "fixes": [{"fix": "find_hidden_syncs"}]
    });
    let f: Finding = serde_json::from_value(json).unwrap();
    assert_eq!(f.fixes, vec![Fix::HostSync(HostSyncFix::FindHiddenSyncs)]);
    assert_eq!(f.gains.cause, None);
    assert_eq!(
        f.fixes_with_gains().collect::<Vec<_>>(),
        [(&Fix::HostSync(HostSyncFix::FindHiddenSyncs), None)]
    );
}

#[test]
fn the_plan_looks_up_its_findings_and_fixes_and_skips_dangling_entries() {
    let f = checkpoint_stall();
    let gain = f.gains.fixes[0].unwrap();
    let d = Diagnosis {
        primary: f.id(),
        findings: vec![f],
        plan: vec![
            PlannedFix {
                finding: 0,
                fix: 0,
                gain,
            },
            PlannedFix {
                finding: 0,
                fix: 7,
                gain,
            },
            PlannedFix {
                finding: 3,
                fix: 0,
                gain,
            },
        ],
        ..Default::default()
    };
    let plan = d.fixes_by_gain();
    assert_eq!(plan.len(), 1);
    assert_eq!(plan[0].fix, &d.findings[0].fixes[0]);
    assert_eq!(plan[0].gain, gain);
}

#[test]
fn profiling_and_sync_warnings_measure_more_and_change_nothing_to_compare() {
    assert!(Fix::Shared(SharedFix::ProfileSteps).is_investigation());
    assert!(Fix::HostSync(HostSyncFix::FindHiddenSyncs).is_investigation());
    let changes = [
        Fix::DataLoading(DataLoadingFix::MoreWorkers {
            suggested: 14,
            current: Some(2),
            host_cpus: None,
        }),
        Fix::DataLoading(DataLoadingFix::PinMemory),
        Fix::HostSync(HostSyncFix::GpuMetrics),
        Fix::ComputeBound(ComputeBoundFix::Compile),
    ];
    assert!(changes.iter().all(|f| !f.is_investigation()));
}
