//! Facts about the run and the machine it ran on.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// What was run, where, with which software. Every field is optional: a bare trace tells
/// little, a recorded run folder tells most.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RunFacts {
    /// The GPU's name.
    pub gpu_name: Option<String>,
    /// GPUs on the host.
    pub gpu_count: Option<u32>,
    /// The NVIDIA driver's version.
    pub driver_version: Option<String>,
    /// Highest CUDA version the driver supports (e.g. "13.0").
    pub cuda_driver_version: Option<String>,
    /// CUDA runtime torch was built with (`torch.version.cuda`).
    pub cuda_runtime_version: Option<String>,
    /// PyTorch's version.
    pub torch_version: Option<String>,
    /// NCCL's version.
    pub nccl_version: Option<String>,
    /// Ranks in the job.
    pub world_size: Option<u32>,
    /// The model: the lab's name or what the recording says.
    pub model: Option<String>,
    /// Samples per batch on each rank.
    pub batch_size: Option<u64>,
    /// Precision (`bf16-autocast`).
    pub precision: Option<String>,
    /// The training DataLoader's settings.
    pub dataloader: Option<DataLoaderSettings>,
    /// The host's CPUs.
    pub host_cpus: Option<u32>,
    /// Epoch seconds.
    pub started: Option<f64>,
    /// Epoch seconds of the recording's end.
    pub ended: Option<f64>,
    /// Total steps the training loop ran.
    pub steps: Option<u64>,
    /// Samples per second the run reported.
    pub samples_per_s: Option<f64>,
    /// Environment variables that change NCCL or CUDA behaviour; `None` = unset.
    pub env: BTreeMap<String, Option<String>>,
    /// Each GPU's static facts.
    pub gpus: Vec<GpuStatic>,
    /// How the GPUs connect.
    pub topology: Option<Topology>,
    /// Anything else the recording said about the run, as `key: value` text.
    pub extra: BTreeMap<String, String>,
    /// The hosts of a job recorded on several, in node order; empty for one host. Their
    /// GPUs are numbered across the job (a host's GPU 0 is the job's GPU `gpus[0]`) and
    /// their readings moved onto the clock of the host of rank 0.
    #[serde(default)]
    pub nodes: Vec<NodeFacts>,
}

/// One host of a job that ran on several: what its agent recorded.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct NodeFacts {
    /// The host's name.
    pub hostname: Option<String>,
    /// Its node index in the job (torchrun's `GROUP_RANK`, Slurm's node id).
    pub node_rank: Option<u32>,
    /// The job's ranks that ran on it.
    pub ranks: Vec<u32>,
    /// Its GPUs, as the job numbers them.
    #[serde(default)]
    pub gpus: Vec<u32>,
    /// Seconds to add to its clock to read rank 0's (measured by its ranks at start).
    pub clock_offset_s: Option<f64>,
    /// The round trip of that measurement, s: the offset is right to within half of it.
    pub clock_rtt_s: Option<f64>,
    /// Its NVIDIA driver's version.
    #[serde(default)]
    pub driver_version: Option<String>,
    /// The run folder it came from.
    #[serde(default)]
    pub source: String,
}

impl NodeFacts {
    /// What to call the node: its host name, or `node N` when the host is unknown or
    /// shared with another node (a job simulated on one machine).
    pub fn label(&self, all: &[NodeFacts]) -> String {
        let index = self.node_rank.map_or(String::from("?"), |n| n.to_string());
        match &self.hostname {
            Some(h)
                if all
                    .iter()
                    .filter(|n| n.hostname.as_ref() == Some(h))
                    .count()
                    == 1 =>
            {
                h.clone()
            }
            Some(h) => format!("{h}#{index}"),
            None => format!("node {index}"),
        }
    }
}

impl RunFacts {
    /// The node a rank ran on, when the job spanned several.
    pub fn node_of_rank(&self, rank: u32) -> Option<&NodeFacts> {
        self.nodes.iter().find(|n| n.ranks.contains(&rank))
    }

    /// The training processes on the host of `rank`: the ranks of every node with its host
    /// name (two "nodes" may share a machine), else of its node; on a run of one host, the
    /// job's world size.
    pub fn ranks_on_host_of(&self, rank: u32) -> u32 {
        let Some(node) = self.node_of_rank(rank) else {
            return self.world_size.unwrap_or(1).max(1);
        };
        let on_host: usize = match &node.hostname {
            Some(h) => self
                .nodes
                .iter()
                .filter(|n| n.hostname.as_ref() == Some(h))
                .map(|n| n.ranks.len())
                .sum(),
            None => node.ranks.len(),
        };
        (on_host as u32).max(1)
    }

    /// A rank's GPU: [`RunFacts::gpu_of_rank`] when its node is known, else GPU `rank`
    /// (one host, torchrun's local rank).
    pub fn gpu_of_rank_or_own(&self, rank: u32) -> u32 {
        self.gpu_of_rank(rank).unwrap_or(rank)
    }

    /// A rank's GPU as the job numbers them, when its node is known: the node's k-th rank
    /// runs on its k-th GPU (torchrun's local rank), or on its only one.
    pub fn gpu_of_rank(&self, rank: u32) -> Option<u32> {
        let node = self.node_of_rank(rank)?;
        let local = node.ranks.iter().position(|r| *r == rank)?;
        match node.gpus.as_slice() {
            [only] => Some(*only),
            gpus => gpus.get(local).copied(),
        }
    }
}

/// A DataLoader's settings that decide its throughput.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DataLoaderSettings {
    /// Worker processes.
    pub num_workers: Option<u32>,
    /// Whether batches come in pinned memory.
    pub pin_memory: Option<bool>,
    /// Whether workers stay alive between epochs.
    pub persistent_workers: Option<bool>,
    /// Batches each worker prepares ahead.
    pub prefetch_factor: Option<u32>,
}

/// Static facts of one GPU, from `nvidia-smi -q -x` or NVML.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct GpuStatic {
    /// The GPU's index.
    pub index: u32,
    /// Its name.
    pub name: Option<String>,
    /// Whether persistence mode is on.
    pub persistence_mode: Option<bool>,
    /// Whether MIG is on.
    pub mig_enabled: Option<bool>,
    /// Whether ECC is on.
    pub ecc_enabled: Option<bool>,
    /// Uncorrected ECC errors since the driver loaded.
    pub ecc_uncorrected_volatile: Option<u64>,
    /// Retired pages waiting for a reset.
    pub retired_pages_pending: Option<bool>,
    /// Row remapping waiting for a reset.
    pub remapping_pending: Option<bool>,
    /// PCIe generation now.
    pub pcie_gen_current: Option<u32>,
    /// The link's best generation.
    pub pcie_gen_max: Option<u32>,
    /// PCIe lanes now.
    pub pcie_width_current: Option<u32>,
    /// The link's most lanes.
    pub pcie_width_max: Option<u32>,
    /// The enforced power limit, W.
    pub power_limit_w: Option<f64>,
    /// The card's default power limit, W.
    pub default_power_limit_w: Option<f64>,
    /// The SM clock's maximum, MHz.
    pub sm_clock_max_mhz: Option<f64>,
    /// Clock-event reasons active when the snapshot was taken.
    pub clock_event_reasons_active: Vec<String>,
    /// Compute processes on the GPU that are not the training's.
    pub other_processes: u32,
    /// The temperature at which the GPU starts to slow itself down (°C).
    #[serde(default)]
    pub temp_slowdown_c: Option<f64>,
}

impl GpuStatic {
    /// The PCIe link's peak throughput each way (GB/s): its lanes times the generation's
    /// rate per lane after encoding. The device's highest generation, since an idle link
    /// drops to a lower one to save power; the lanes it trained at, which do not change.
    pub fn pcie_peak_gbs(&self) -> Option<f64> {
        let per_lane = match self.pcie_gen_max.or(self.pcie_gen_current)? {
            1 => 0.25,
            2 => 0.5,
            3 => 0.985,
            4 => 1.969,
            5 => 3.938,
            6 => 7.563,
            _ => return None,
        };
        let lanes = self.pcie_width_current.or(self.pcie_width_max)?;
        Some(per_lane * f64::from(lanes))
    }
}

/// How the GPUs connect (`nvidia-smi topo -m`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Topology {
    /// Each pair of GPUs and how they connect.
    pub links: Vec<GpuLink>,
}

impl Topology {
    /// Whether any two GPUs connect by NVLink.
    pub fn has_nvlink(&self) -> bool {
        self.links
            .iter()
            .any(|l| matches!(l.kind, LinkKind::NvLink { .. }))
    }
}

/// How two GPUs connect.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GpuLink {
    /// One GPU.
    pub from: u32,
    /// The other.
    pub to: u32,
    /// How.
    pub kind: LinkKind,
}

/// A connection between GPUs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum LinkKind {
    /// NVLink.
    NvLink {
        /// Bonded NVLinks.
        links: u32,
    },
    /// PIX, PXB, PHB, NODE or SYS: traffic crosses PCIe (and maybe the CPU interconnect).
    Pcie {
        /// The `nvidia-smi topo -m` code.
        path: String,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(hosts: [&str; 2], ranks_per_node: u32) -> RunFacts {
        RunFacts {
            world_size: Some(2 * ranks_per_node),
            nodes: hosts
                .iter()
                .enumerate()
                .map(|(n, h)| NodeFacts {
                    hostname: Some((*h).into()),
                    node_rank: Some(n as u32),
                    ranks: (0..ranks_per_node)
                        .map(|r| n as u32 * ranks_per_node + r)
                        .collect(),
                    ..NodeFacts::default()
                })
                .collect(),
            ..RunFacts::default()
        }
    }

    #[test]
    fn the_ranks_on_a_host_are_its_nodes_ranks_or_the_whole_job_on_one_host() {
        assert_eq!(job(["gpu-a", "gpu-b"], 8).ranks_on_host_of(9), 8);
        // Two "nodes" launched on one machine share its cores.
        assert_eq!(job(["vm", "vm"], 2).ranks_on_host_of(3), 4);
        let one_host = RunFacts {
            world_size: Some(4),
            ..RunFacts::default()
        };
        assert_eq!(one_host.ranks_on_host_of(2), 4);
        assert_eq!(RunFacts::default().ranks_on_host_of(0), 1);
    }
}
