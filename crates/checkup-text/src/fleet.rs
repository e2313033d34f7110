//! What differs between the hosts of a fleet ([`HostDifference`]), worded: what the host
//! has against the others, and what it costs.

use checkup_model::{HostDifference, Language};

use crate::fixed;

/// One difference in a line: the host's value against the others', and why it matters.
pub fn difference(d: &HostDifference, l: Language) -> String {
    let zh = l == Language::Zh;
    match d {
        HostDifference::PersistenceOff { host, gpus } => {
            let gpus = gpu_list(gpus);
            if zh {
                format!("{host}：{gpus} 的持久模式关闭，而其他主机开启。每个新进程都要等驱动重新加载，两次运行之间设置可能复位。")
            } else {
                format!("{host}: persistence mode is off on {gpus} while other hosts keep it on. Each new process waits for the driver to load, and settings may reset between runs.")
            }
        }
        HostDifference::OlderDriver {
            host,
            driver,
            newest,
        } => {
            if zh {
                format!("{host}：驱动 {driver}，比其他主机的 {newest} 旧。它运行不同的 CUDA 与 NCCL 代码，可能比其他主机慢，或在其他主机正常时出错。")
            } else {
                format!("{host}: driver {driver}, older than the {newest} other hosts run. It runs other CUDA and NCCL code: this host can be slower, or fail where the others do not.")
            }
        }
        HostDifference::SlowerPcieLink {
            host,
            gpu,
            gen,
            width,
            usual_gen,
            usual_width,
        } => {
            if zh {
                format!("{host}：GPU {gpu} 的 PCIe 链路为 Gen{gen} x{width}，而其他主机的同型号 GPU 为 Gen{usual_gen} x{usual_width}。主机与 GPU 之间的拷贝（输入数据、检查点）会更慢：检查插槽、转接卡或 BIOS 设置。")
            } else {
                format!("{host}: GPU {gpu}'s PCIe link is Gen{gen} x{width} where the same GPUs on other hosts have Gen{usual_gen} x{usual_width}. Copies between host and GPU (input batches, checkpoints) are slower there: check the slot, riser or BIOS setting.")
            }
        }
        HostDifference::LowerPowerLimit {
            host,
            gpu,
            limit_w,
            usual_w,
        } => {
            let (limit, usual) = (fixed(*limit_w, 0), fixed(*usual_w, 0));
            if zh {
                format!("{host}：GPU {gpu} 的功耗上限为 {limit} W，其他主机的同型号 GPU 为 {usual} W。负载重时它的时钟会先降下来，整个作业都要等它。")
            } else {
                format!("{host}: GPU {gpu}'s power limit is {limit} W where the same GPUs on other hosts have {usual} W. Under load its clocks drop first, and the whole job waits for it.")
            }
        }
        HostDifference::OtherGpuModel { host, model, usual } => {
            if zh {
                format!("{host}：GPU 为 {model}，而多数主机为 {usual}。同样的工作在这里用时不同：同步训练中较慢的一方决定每一步。")
            } else {
                format!("{host}: its GPUs are {model} where most hosts have {usual}. The same work takes another time there: in synchronous training the slower one sets every step.")
            }
        }
        HostDifference::OtherTorch { host, torch, usual } => {
            if zh {
                format!("{host}：训练解释器中的 PyTorch 为 {torch}，而多数主机为 {usual}。不同版本选择的内核和 NCCL 不同：在每台主机上安装同一版本。")
            } else {
                format!("{host}: PyTorch {torch} in the training's interpreter where most hosts have {usual}. Other versions pick other kernels and NCCL: install the same one on every host.")
            }
        }
    }
}

/// `GPU 1` or `GPUs 0, 1`.
fn gpu_list(gpus: &[u32]) -> String {
    let list = gpus
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(", ");
    if gpus.len() == 1 {
        format!("GPU {list}")
    } else {
        format!("GPUs {list}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_difference_names_the_host_its_value_and_the_others() {
        let d = HostDifference::SlowerPcieLink {
            host: "node-3".into(),
            gpu: 0,
            gen: 5,
            width: 8,
            usual_gen: 5,
            usual_width: 16,
        };
        let en = difference(&d, Language::En);
        assert!(
            en.starts_with("node-3: GPU 0's PCIe link is Gen5 x8 where the same GPUs on other hosts have Gen5 x16."),
            "{en}"
        );
        let zh = difference(&d, Language::Zh);
        assert!(
            zh.starts_with("node-3：GPU 0 的 PCIe 链路为 Gen5 x8"),
            "{zh}"
        );
        let off = HostDifference::PersistenceOff {
            host: "node-2".into(),
            gpus: vec![0, 1],
        };
        assert!(difference(&off, Language::En)
            .starts_with("node-2: persistence mode is off on GPUs 0, 1 while"));
    }
}
