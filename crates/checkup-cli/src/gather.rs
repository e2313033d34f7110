//! `checkup gather`: a job's run folders copied from its hosts, summaries in place of traces,
//! then the trace of the rank the diagnosis follows, so the one trace worth opening is there.

use std::collections::BTreeSet;
use std::fmt::Write;
use std::path::{Path, PathBuf};

use checkup_connect::gather::{GatheredNode, JobGather, JobSource, TraceChoice};
use checkup_connect::{SshHost, SshTarget};
use checkup_model::Language;
use checkup_text::rank_span as ranks;

use crate::CliError;

/// Where the run folders are: each host's, or one path on every node of a Slurm job.
pub enum Where {
    /// `HOST:PATH`, one per host.
    Hosts(Vec<String>),
    /// A Slurm job, asked of its login host; `path` with `{node}` (`SLURM_NODEID`) and
    /// `{host}` replaced on each node, reached through the login host.
    Slurm {
        job: String,
        login: String,
        path: String,
    },
}

/// Copies every run folder into `output` and says what was copied, what stayed on the hosts
/// and what to run next. Files already copied stay when a later step fails.
pub fn gather(
    from: Where,
    output: &Path,
    traces: &TraceChoice,
    ssh_config: Option<PathBuf>,
    l: Language,
) -> Result<String, CliError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|source| CliError::Write {
            path: "the async runtime".into(),
            source,
        })?;
    runtime.block_on(async {
        let mut said = String::new();
        let sources = match from {
            Where::Hosts(specs) => specs
                .iter()
                .map(|s| {
                    let mut source: JobSource = s.parse()?;
                    source.target.config_file.clone_from(&ssh_config);
                    Ok(source)
                })
                .collect::<Result<Vec<_>, CliError>>()?,
            Where::Slurm { job, login, path } => {
                let mut login: SshTarget = login.parse()?;
                login.config_file.clone_from(&ssh_config);
                let host = SshHost::connect(login.clone()).await?;
                let found = checkup_connect::slurm::job_nodes(&host, &job).await;
                host.close().await;
                let found = found?;
                said.push_str(&slurm_job(&job, &found.state, &found.nodes, l));
                found
                    .nodes
                    .iter()
                    .enumerate()
                    .map(|(i, node)| {
                        let mut target: SshTarget = node.parse()?;
                        target.config_file.clone_from(&ssh_config);
                        target.jump = Some(login.to_string());
                        Ok(JobSource {
                            target,
                            path: path
                                .replace("{node}", &i.to_string())
                                .replace("{host}", node),
                        })
                    })
                    .collect::<Result<Vec<_>, CliError>>()?
            }
        };
        let mut job = JobGather::copy(&sources, output, traces).await?;
        // The rank the diagnosis follows: its trace is the one worth opening.
        let diagnosis = checkup_engine::analyze_paths(&[output.to_path_buf()], &Default::default());
        let followed = diagnosis.as_ref().ok().and_then(|d| d.diagnosed_rank);
        let fetched = match followed {
            Some(rank) => job.copy_traces(&BTreeSet::from([rank])).await?,
            None => Vec::new(),
        };
        said.push_str(&copied(&job.nodes, l));
        job.close().await;
        if let Some(rank) = fetched.first() {
            said.push_str(&diagnosed_trace(*rank, l));
        }
        said.push_str(&next_step(output, l));
        // An analysis that fails is said after what was copied: the files stay.
        if let Err(e) = diagnosis {
            print!("{said}");
            return Err(e.into());
        }
        Ok(said)
    })
}

/// Where the job ran, and a word when it still runs.
fn slurm_job(job: &str, state: &str, nodes: &[String], l: Language) -> String {
    let list = nodes.join(", ");
    let mut s = match l {
        Language::En => format!(
            "Slurm job {job} ({state}) ran on {} node{}: {list}\n",
            nodes.len(),
            if nodes.len() == 1 { "" } else { "s" }
        ),
        Language::Zh => format!(
            "Slurm 作业 {job}（{state}）运行在 {} 个节点上：{list}\n",
            nodes.len()
        ),
    };
    if state == "RUNNING" {
        s.push_str(match l {
            Language::En => "It is still running: each node's folder is complete, its traces summarised, once the job ends.\n",
            Language::Zh => "作业仍在运行：作业结束后，各节点的文件夹才完整，trace 才会生成摘要。\n",
        });
    }
    s
}

fn mb(bytes: u64) -> String {
    format!("{:.2} MB", bytes as f64 / 1e6)
}

/// A line per host: where its folder went, how much came, which traces stayed.
fn copied(nodes: &[GatheredNode], l: Language) -> String {
    let mut s = String::new();
    for n in nodes {
        let left: Vec<u32> = n.traces_left.iter().map(|t| t.rank).collect();
        let left_bytes: u64 = n.traces_left.iter().map(|t| t.bytes).sum();
        let _ = match l {
            Language::En => write!(
                s,
                "{} -> {}: {} files, {}",
                n.source,
                n.folder.display(),
                n.files,
                mb(n.bytes)
            ),
            Language::Zh => write!(
                s,
                "{} -> {}：{} 个文件，{}",
                n.source,
                n.folder.display(),
                n.files,
                mb(n.bytes)
            ),
        };
        if !left.is_empty() {
            let _ = match l {
                Language::En if left.len() == 1 => write!(
                    s,
                    "; the trace of rank {} ({}) stays there, its summary came",
                    ranks(&left),
                    mb(left_bytes)
                ),
                Language::En => write!(
                    s,
                    "; the traces of ranks {} ({}) stay there, their summaries came",
                    ranks(&left),
                    mb(left_bytes)
                ),
                Language::Zh => write!(
                    s,
                    "；rank {} 的 trace（{}）留在主机上，只复制了摘要",
                    ranks(&left),
                    mb(left_bytes)
                ),
            };
        }
        if !n.unsummarised_ranks.is_empty() {
            let _ = match l {
                Language::En => write!(
                    s,
                    "; no summary of rank(s) {} (an older agent?), so their traces came",
                    ranks(&n.unsummarised_ranks)
                ),
                Language::Zh => write!(
                    s,
                    "；rank {} 没有摘要（旧版 agent？），复制了它们的 trace",
                    ranks(&n.unsummarised_ranks)
                ),
            };
        }
        s.push('\n');
    }
    let copied: u64 = nodes.iter().map(|n| n.bytes).sum();
    let left: u64 = nodes
        .iter()
        .flat_map(|n| &n.traces_left)
        .map(|t| t.bytes)
        .sum();
    let _ = match l {
        Language::En => writeln!(
            s,
            "{} host{}: {} copied, {} of traces left on the hosts.",
            nodes.len(),
            if nodes.len() == 1 { "" } else { "s" },
            mb(copied),
            mb(left)
        ),
        Language::Zh => writeln!(
            s,
            "{} 台主机：复制了 {}，{} 的 trace 留在主机上。",
            nodes.len(),
            mb(copied),
            mb(left)
        ),
    };
    s
}

fn diagnosed_trace(rank: u32, l: Language) -> String {
    match l {
        Language::En => {
            format!("Copied the trace of rank {rank}, the rank the diagnosis follows.\n")
        }
        Language::Zh => format!("已复制 rank {rank} 的 trace：诊断针对的就是这个 rank。\n"),
    }
}

fn next_step(output: &Path, l: Language) -> String {
    let dir = output.display();
    match l {
        Language::En => format!("Next: checkup analyze {dir}   (or checkup report {dir} -o report.pdf)\n"),
        Language::Zh => format!("下一步：checkup analyze {dir} --lang zh   （或 checkup report {dir} --lang zh -o report.pdf）\n"),
    }
}
