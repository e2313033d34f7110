//! A job of many ranks built from a real 2-GPU H200 recording (`ddp_resnet50`, whose rank 1
//! is slow and whose rank 0 waits for it in NCCL): rank 1's trace once, as a rank in the
//! middle, rank 0's for all the others, each trace's `distributedInfo` rewritten to its rank
//! and the world size (as `bench/many_ranks.py` builds them for the benchmark).

use checkup_model::Communication;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use checkup_engine::{analyze_paths, Options};
use checkup_model::Cause;

fn trace_text(rank: u32) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/corpus/ddp_resnet50")
        .join(format!("rank{rank}/trace.json.gz"));
    let mut text = String::new();
    flate2::read::GzDecoder::new(std::fs::File::open(path).unwrap())
        .read_to_string(&mut text)
        .unwrap();
    text
}

fn job(dir: &Path, ranks: u32, slow: u32) -> PathBuf {
    let (waiting, slow_text) = (trace_text(0), trace_text(1));
    let recorded = |r| {
        format!("\"distributedInfo\": {{\"backend\": \"nccl\", \"rank\": {r}, \"world_size\": 2")
    };
    for k in 0..ranks {
        let (text, was) = if k == slow {
            (&slow_text, recorded(1))
        } else {
            (&waiting, recorded(0))
        };
        assert_eq!(text.matches(&was).count(), 1);
        let now = format!(
            "\"distributedInfo\": {{\"backend\": \"nccl\", \"rank\": {k}, \"world_size\": {ranks}"
        );
        let folder = dir.join(format!("rank{k}"));
        std::fs::create_dir_all(&folder).unwrap();
        let mut gz = flate2::write::GzEncoder::new(
            std::fs::File::create(folder.join("trace.json.gz")).unwrap(),
            flate2::Compression::fast(),
        );
        gz.write_all(text.replace(&was, &now).as_bytes()).unwrap();
        gz.finish().unwrap();
    }
    dir.to_path_buf()
}

#[test]
fn eight_ranks_are_all_read_and_the_one_the_others_wait_for_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let run = job(dir.path(), 8, 5);
    let d = analyze_paths(&[run], &Options::default()).unwrap();
    assert_eq!(d.ranks.len(), 8);
    assert_eq!(
        d.ranks.iter().map(|r| r.rank).collect::<Vec<_>>(),
        (0..8).collect::<Vec<_>>()
    );
    assert_eq!(d.facts.world_size, Some(8));
    assert_eq!(d.diagnosed_rank, Some(5), "the slow rank is diagnosed");
    let straggler = d
        .findings
        .iter()
        .find_map(|f| match f.cause {
            Cause::Communication(Communication::Straggler {
                slow_rank,
                waiting_rank,
                ..
            }) => Some((slow_rank, waiting_rank)),
            _ => None,
        })
        .expect("a straggler finding");
    assert_eq!(straggler.0, 5);
    assert_ne!(straggler.1, 5);
}

#[test]
fn a_missing_rank_of_many_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let run = job(dir.path(), 4, 1);
    std::fs::remove_dir_all(run.join("rank2")).unwrap();
    let e = analyze_paths(&[run], &Options::default()).unwrap_err();
    assert!(
        e.to_string()
            .contains("the run has 4 ranks but no trace for rank2"),
        "{e}"
    );
}
