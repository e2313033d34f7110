//! A job's run folders gathered from its hosts over SSH (`checkup gather`). Each host's
//! agent summarised its ranks' traces where they lie (`trace_summary.json`), so what crosses
//! the network is the small files of each run folder and one summary per rank; a rank's
//! trace is copied only when asked for (the rank a diagnosis follows, or all of them). One
//! master connection per host carries its listing and its archive, a few hosts at a time.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use checkup_recording::layout;

use crate::error::{ConnectError, Result};
use crate::ssh::{SshHost, SshTarget};

/// One host's run folder: `host:path`, as `scp` writes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobSource {
    /// The host.
    pub target: SshTarget,
    /// The run folder there (`~/` is the remote home).
    pub path: String,
}

impl FromStr for JobSource {
    type Err = ConnectError;

    /// `alias:/scratch/run`, `user@host:~/runs/job1` (a port goes in ~/.ssh/config).
    fn from_str(spec: &str) -> Result<Self> {
        let bad = |why: &str| {
            ConnectError::Invalid(format!(
                "`{spec}` is not a host's run folder: {why}. Write it as scp does, HOST:PATH (e.g. gpu-a:/scratch/run)"
            ))
        };
        let (host, path) = spec.split_once(':').ok_or_else(|| bad("there is no ':'"))?;
        if host.is_empty() {
            return Err(bad("the host before ':' is empty"));
        }
        if path.is_empty() {
            return Err(bad("the path after ':' is empty"));
        }
        if path.chars().any(char::is_control) {
            return Err(bad("the path has control characters"));
        }
        let target = SshTarget::from_str(host)
            .map_err(|e| ConnectError::Invalid(format!("`{spec}`: {e}")))?;
        Ok(Self {
            target,
            path: path.to_owned(),
        })
    }
}

impl std::fmt::Display for JobSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.target.destination, self.path)
    }
}

/// Which ranks' traces to copy besides the summaries.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum TraceChoice {
    /// Only these ranks' (and those of ranks without a summary, which have nothing else).
    #[default]
    SummariesOnly,
    /// These ranks' traces too.
    Ranks(BTreeSet<u32>),
    /// Every trace.
    All,
}

impl TraceChoice {
    fn copies(&self, rank: Option<u32>) -> bool {
        match self {
            Self::SummariesOnly => false,
            Self::Ranks(r) => rank.is_some_and(|r0| r.contains(&r0)),
            Self::All => true,
        }
    }
}

/// A rank's trace left on its host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeftTrace {
    /// The rank.
    pub rank: u32,
    /// The trace, relative to the run folder.
    pub file: String,
    /// Its size.
    pub bytes: u64,
}

/// One host's run folder as gathered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GatheredNode {
    /// Where it came from.
    pub source: JobSource,
    /// Where it is now.
    pub folder: PathBuf,
    /// Files copied.
    pub files: usize,
    /// Their size.
    pub bytes: u64,
    /// The traces left on the host (each rank's summary was copied in its place).
    pub traces_left: Vec<LeftTrace>,
    /// Ranks with a trace but no summary (an agent older than summaries, or a run not made
    /// by `checkup-agent run`): their traces were copied.
    pub unsummarised_ranks: Vec<u32>,
}

/// What was gathered from a job's hosts.
pub struct JobGather {
    /// One per source, in the order given.
    pub nodes: Vec<GatheredNode>,
}

/// Hosts copied from at once: under OpenSSH's default `MaxStartups` (10 connections being
/// authenticated), since a cluster's nodes are often all reached through one login host.
const HOSTS_AT_ONCE: usize = 8;

/// A file of a run folder on its host.
#[derive(Debug, Clone, PartialEq, Eq)]
struct RemoteFile {
    path: String,
    bytes: u64,
}

impl JobGather {
    /// Connects to every source's host (at once) and copies each run folder into its own
    /// folder under `dest` (which must not exist or be empty), traces as `traces` says.
    pub async fn copy(sources: &[JobSource], dest: &Path, traces: &TraceChoice) -> Result<Self> {
        use futures_util::StreamExt;
        if sources.is_empty() {
            return Err(ConnectError::Invalid(
                "no run folder to gather: give each host's as HOST:PATH".into(),
            ));
        }
        prepare_destination(dest)?;
        let folders = node_folders(sources, dest);
        let copies: Vec<Result<GatheredNode>> =
            futures_util::stream::iter(sources.iter().zip(&folders))
                .map(|(source, folder)| async move {
                    let host = SshHost::connect(source.target.clone()).await?;
                    let node = copy_node(&host, source, folder, traces).await;
                    host.close().await;
                    node
                })
                .buffered(HOSTS_AT_ONCE)
                .collect()
                .await;
        let nodes = copies.into_iter().collect::<Result<Vec<_>>>()?;
        Ok(Self { nodes })
    }

    /// Copies the traces of `ranks` that were left on their hosts into their rank folders,
    /// connecting again to the hosts that hold them; answers the ranks copied (a rank no host
    /// left a trace of is not in it).
    pub async fn copy_traces(&mut self, ranks: &BTreeSet<u32>) -> Result<Vec<u32>> {
        let mut copied = Vec::new();
        for node in &mut self.nodes {
            let (wanted, kept): (Vec<LeftTrace>, Vec<LeftTrace>) = node
                .traces_left
                .drain(..)
                .partition(|t| ranks.contains(&t.rank));
            node.traces_left = kept;
            if wanted.is_empty() {
                continue;
            }
            let files: Vec<RemoteFile> = wanted
                .iter()
                .map(|t| RemoteFile {
                    path: t.file.clone(),
                    bytes: t.bytes,
                })
                .collect();
            let host = SshHost::connect(node.source.target.clone()).await?;
            let fetched = fetch(&host, &node.source, &files, &node.folder).await;
            host.close().await;
            fetched?;
            node.files += files.len();
            node.bytes += files.iter().map(|f| f.bytes).sum::<u64>();
            copied.extend(wanted.iter().map(|t| t.rank));
        }
        copied.sort_unstable();
        Ok(copied)
    }
}

/// The destination holds nothing yet: gathering never mixes with or overwrites other files.
fn prepare_destination(dest: &Path) -> Result<()> {
    if dest.exists() {
        let mut entries = std::fs::read_dir(dest).map_err(|e| ConnectError::io(dest, e))?;
        if entries.next().is_some() {
            return Err(ConnectError::Invalid(format!(
                "{} is not empty: gather into a new folder (nothing in it is overwritten)",
                dest.display()
            )));
        }
    }
    std::fs::create_dir_all(dest).map_err(|e| ConnectError::io(dest, e))
}

/// Each source's folder under `dest`: its host's name, numbered when a host gives several.
fn node_folders(sources: &[JobSource], dest: &Path) -> Vec<PathBuf> {
    let mut taken: Vec<String> = Vec::new();
    sources
        .iter()
        .map(|s| {
            let host = crate::ssh::folder_name(
                s.target.destination.rsplit('@').next().unwrap_or_default(),
            );
            let mut name = host.clone();
            let mut n = 1;
            while taken.contains(&name) {
                n += 1;
                name = format!("{host}-{n}");
            }
            taken.push(name.clone());
            dest.join(name)
        })
        .collect()
}

async fn copy_node(
    host: &SshHost,
    source: &JobSource,
    folder: &Path,
    traces: &TraceChoice,
) -> Result<GatheredNode> {
    let files = list(host, source).await?;
    let plan = plan(&files, traces);
    std::fs::create_dir_all(folder).map_err(|e| ConnectError::io(folder, e))?;
    fetch(host, source, &plan.copy, folder).await?;
    Ok(GatheredNode {
        source: source.clone(),
        folder: folder.to_path_buf(),
        files: plan.copy.len(),
        bytes: plan.copy.iter().map(|f| f.bytes).sum(),
        traces_left: plan.left,
        unsummarised_ranks: plan.unsummarised,
    })
}

/// The run folder's files, from one `find` on the host.
async fn list(host: &SshHost, source: &JobSource) -> Result<Vec<RemoteFile>> {
    let place = source.to_string();
    let script = format!(
        "cd -- {} || exit 3; test -f {} || exit 4; find . -type f ! -path './.checkup-probe/*' -printf '%s\\t%P\\n'",
        remote_path(&source.path),
        layout::META_JSON
    );
    let out = host.exec(&script).await?;
    let remote_folder = |detail: String| ConnectError::RemoteFolder {
        place: place.clone(),
        detail,
    };
    match out.status.code() {
        Some(0) => {}
        Some(3) => {
            return Err(remote_folder(format!(
                "no such folder on the host ({})",
                String::from_utf8_lossy(&out.stderr).trim()
            )))
        }
        Some(4) => {
            return Err(remote_folder(
                "not a run folder of checkup-agent (no meta.json): give the folder `checkup-agent run -o` wrote on that host".into(),
            ))
        }
        _ => {
            return Err(remote_folder(format!(
                "listing its files failed: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            )))
        }
    }
    Ok(String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|line| {
            let (bytes, path) = line.split_once('\t')?;
            // Only the names a run folder has: nothing a shell or the archive could misread.
            let plain = path.split('/').all(|part| {
                !part.is_empty()
                    && part != ".."
                    && part
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || "._-#".contains(c))
            });
            plain.then(|| RemoteFile {
                path: path.to_owned(),
                bytes: bytes.parse().unwrap_or(0),
            })
        })
        .collect())
}

/// What to copy of a run folder, and which traces stay.
#[derive(Debug, Default, PartialEq, Eq)]
struct Plan {
    copy: Vec<RemoteFile>,
    left: Vec<LeftTrace>,
    unsummarised: Vec<u32>,
}

/// Every file but the traces of ranks that have a summary (unless `traces` asks for them)
/// and files half written.
fn plan(files: &[RemoteFile], traces: &TraceChoice) -> Plan {
    // A rank's folder: `rankN/`, or the run folder itself for a run of one process.
    let unit_of = |path: &str| match path.rsplit_once('/') {
        Some((dir, _)) => dir.to_owned(),
        None => String::new(),
    };
    let rank_of = |unit: &str| match unit {
        "" => Some(0),
        u => layout::rank_of_dir(u),
    };
    let summarised: BTreeSet<String> = files
        .iter()
        .filter(|f| f.path.rsplit('/').next() == Some(layout::TRACE_SUMMARY))
        .map(|f| unit_of(&f.path))
        .collect();
    let mut plan = Plan::default();
    let mut unsummarised = BTreeSet::new();
    for f in files {
        let name = f.path.rsplit('/').next().unwrap_or_default();
        if name.ends_with(".partial") {
            continue;
        }
        let unit = unit_of(&f.path);
        let is_trace = name == layout::TRACE
            || name == "trace.json"
            || name.ends_with(".pt.trace.json")
            || name.ends_with(".pt.trace.json.gz");
        let rank = rank_of(&unit);
        if is_trace && rank.is_some() {
            if !summarised.contains(&unit) {
                unsummarised.extend(rank);
            } else if !traces.copies(rank) {
                plan.left.push(LeftTrace {
                    rank: rank.unwrap_or_default(),
                    file: f.path.clone(),
                    bytes: f.bytes,
                });
                continue;
            }
        }
        plan.copy.push(f.clone());
    }
    plan.unsummarised = unsummarised.into_iter().collect();
    plan.left.sort_by_key(|t| t.rank);
    plan
}

/// Copies `files` of the run folder into `folder` through one `tar` stream.
async fn fetch(
    host: &SshHost,
    source: &JobSource,
    files: &[RemoteFile],
    folder: &Path,
) -> Result<()> {
    if files.is_empty() {
        return Ok(());
    }
    let mut script = format!("cd -- {} && tar -cf - --", remote_path(&source.path));
    for f in files {
        script.push(' ');
        script.push_str(&quote(&f.path));
    }
    let archive = folder.with_extension("tar.partial");
    let (status, stderr) = host.exec_into(&script, &archive).await?;
    let failed = |detail: String| ConnectError::RemoteFolder {
        place: source.to_string(),
        detail,
    };
    if !status.success() {
        let _ = std::fs::remove_file(&archive);
        return Err(failed(format!(
            "copying its files failed (is `tar` installed there?): {}",
            stderr.trim()
        )));
    }
    let unpacked = {
        let (archive, folder) = (archive.clone(), folder.to_path_buf());
        tokio::task::spawn_blocking(move || -> std::io::Result<()> {
            let mut a = tar::Archive::new(std::fs::File::open(&archive)?);
            a.set_preserve_permissions(false);
            a.set_overwrite(true);
            for entry in a.entries()? {
                let mut entry = entry?;
                // Regular files only, each inside the folder (unpack_in refuses `..`).
                if entry.header().entry_type().is_file() {
                    entry.unpack_in(&folder)?;
                }
            }
            Ok(())
        })
        .await
    };
    let _ = std::fs::remove_file(&archive);
    match unpacked {
        Ok(Ok(())) => Ok(()),
        Ok(Err(e)) => Err(failed(format!("its archive could not be unpacked: {e}"))),
        Err(e) => Err(failed(format!("its archive could not be unpacked: {e}"))),
    }
}

/// A path for the remote shell: `~/` stays for it to expand, the rest is one quoted word.
fn remote_path(path: &str) -> String {
    match path.strip_prefix("~/") {
        Some(rest) => format!("~/{}", quote(rest)),
        None if path == "~" => "~".into(),
        None => quote(path),
    }
}

/// One single-quoted shell word.
fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(path: &str, bytes: u64) -> RemoteFile {
        RemoteFile {
            path: path.into(),
            bytes,
        }
    }

    fn node_of_two_ranks() -> Vec<RemoteFile> {
        vec![
            file("meta.json", 1247),
            file("samples_nvml.csv", 10_377),
            file("static/facts.json", 1045),
            file("rank2/steps.csv", 6593),
            file("rank2/trace.json.gz", 114_929),
            file("rank2/trace_summary.json", 8_800),
            file("rank3/steps.csv", 6593),
            file("rank3/trace.json.gz", 117_665),
            file("rank3/trace_summary.json", 9_800),
            file("rank3/trace_summary.json.partial", 100),
        ]
    }

    fn copied(p: &Plan) -> Vec<&str> {
        p.copy.iter().map(|f| f.path.as_str()).collect()
    }

    #[test]
    fn summarised_ranks_leave_their_traces_on_the_host() {
        let p = plan(&node_of_two_ranks(), &TraceChoice::SummariesOnly);
        assert_eq!(
            copied(&p),
            [
                "meta.json",
                "samples_nvml.csv",
                "static/facts.json",
                "rank2/steps.csv",
                "rank2/trace_summary.json",
                "rank3/steps.csv",
                "rank3/trace_summary.json"
            ]
        );
        assert_eq!(
            p.left,
            [
                LeftTrace {
                    rank: 2,
                    file: "rank2/trace.json.gz".into(),
                    bytes: 114_929
                },
                LeftTrace {
                    rank: 3,
                    file: "rank3/trace.json.gz".into(),
                    bytes: 117_665
                }
            ]
        );
        assert!(p.unsummarised.is_empty());
    }

    #[test]
    fn asked_for_ranks_and_ranks_without_a_summary_bring_their_traces() {
        let p = plan(
            &node_of_two_ranks(),
            &TraceChoice::Ranks(BTreeSet::from([3])),
        );
        assert!(copied(&p).contains(&"rank3/trace.json.gz"));
        assert_eq!(p.left.iter().map(|t| t.rank).collect::<Vec<_>>(), [2]);

        let mut older_agent = node_of_two_ranks();
        older_agent.retain(|f| f.path != "rank2/trace_summary.json");
        let p = plan(&older_agent, &TraceChoice::SummariesOnly);
        assert!(copied(&p).contains(&"rank2/trace.json.gz"));
        assert_eq!(p.unsummarised, [2]);
        assert_eq!(p.left.iter().map(|t| t.rank).collect::<Vec<_>>(), [3]);

        assert!(plan(&node_of_two_ranks(), &TraceChoice::All)
            .left
            .is_empty());
    }

    #[test]
    fn sources_are_read_as_scp_writes_them() {
        let s: JobSource = "gpu-a:/scratch/job 1".parse().unwrap();
        assert_eq!(
            (s.target.destination.as_str(), s.path.as_str()),
            ("gpu-a", "/scratch/job 1")
        );
        let s: JobSource = "me@gpu-b:~/runs/x".parse().unwrap();
        assert_eq!(s.to_string(), "me@gpu-b:~/runs/x");
        assert_eq!(remote_path(&s.path), "~/'runs/x'");
        assert_eq!(remote_path("/it's"), "'/it'\\''s'");
        for (bad, why) in [
            ("gpu-a", "there is no ':'"),
            ("gpu-a:", "the path after ':' is empty"),
            (":/x", "the host before ':' is empty"),
        ] {
            let e = bad.parse::<JobSource>().unwrap_err().to_string();
            assert!(e.contains(why), "{bad}: {e}");
        }
    }

    #[test]
    fn each_source_gets_its_own_folder_named_by_its_host() {
        let sources: Vec<JobSource> = ["gpu-a:/r/node0", "me@gpu-a:/r/node1", "gpu-b:/r"]
            .iter()
            .map(|s| s.parse().unwrap())
            .collect();
        let dest = Path::new("/job");
        assert_eq!(
            node_folders(&sources, dest),
            [dest.join("gpu-a"), dest.join("gpu-a-2"), dest.join("gpu-b")]
        );
    }
}
