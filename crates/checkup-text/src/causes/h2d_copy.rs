//! Words for the `h2d_copy` family's findings: each cause's title and summary, what its
//! evidence rows measure, and its fixes.

use checkup_model::{H2dCopy, H2dCopyEvidence, H2dCopyFix, Language};

use crate::fix_words::{pick, t, FixText};
use crate::Language::*;

/// A `h2d_copy` finding's title.
pub fn title(c: &H2dCopy, l: Language) -> String {
    let (en, zh) = match c {
        H2dCopy::Exposed | H2dCopy::Pageable => (
            "Host-to-device copies stall the GPU",
            "主机到设备的拷贝阻塞 GPU",
        ),
    };
    match l {
        En => en.into(),
        Zh => zh.into(),
    }
}

/// A `h2d_copy` finding's summary: what was measured, in a sentence or two.
pub fn summary(c: &H2dCopy, l: Language) -> String {
    match (c, l) {
        (H2dCopy::Pageable, En) => "Batches are copied to the GPU from pageable host memory: each copy is slow, synchronous, and nothing computes meanwhile.".into(),
        (H2dCopy::Pageable, Zh) => "批次从可分页（pageable）主机内存拷贝到 GPU：每次拷贝都很慢、是同步的，期间没有任何计算。".into(),
        (H2dCopy::Exposed, En) => "Host-to-device copies are not overlapped with compute.".into(),
        (H2dCopy::Exposed, Zh) => "主机到设备的拷贝没有与计算重叠。".into(),
    }
}

/// What a `h2d_copy` evidence row measures.
pub fn evidence(k: &H2dCopyEvidence, l: Language) -> String {
    let (en, zh) = match k {
        H2dCopyEvidence::ExposedH2dShare => (
            "host-to-device copies not hidden by compute (share of step)",
            "未被计算隐藏的主机到设备拷贝（占步骤比例）",
        ),
        H2dCopyEvidence::PageableH2dPerStep => (
            "pageable host-to-device copy time per step",
            "每步可分页主机到设备拷贝时间",
        ),
        H2dCopyEvidence::PinnedH2dPerStep => (
            "pinned host-to-device copy time per step",
            "每步锁页主机到设备拷贝时间",
        ),
        H2dCopyEvidence::PageableBandwidth => ("pageable copy bandwidth", "可分页拷贝带宽"),
        H2dCopyEvidence::PageableBytesPerStep => {
            ("pageable bytes copied per step", "每步可分页拷贝字节数")
        }
        H2dCopyEvidence::PageableCopyHostPerStep => (
            "host time per step held in the pageable copies (the call returns when the copy is done)",
            "每步主机在可分页拷贝调用中被占用的时间（拷贝完成后调用才返回）",
        ),
        H2dCopyEvidence::HostWorkBesideCopies => (
            "host's other work per step at unprofiled speed, at most (without the time held in the copies)",
            "未分析速度下每步主机其他工作时间上限（不含拷贝占用的时间）",
        ),
    };
    match l {
        En => en.into(),
        Zh => zh.into(),
    }
}

/// A `h2d_copy` fix in words.
pub fn fix(f: &H2dCopyFix, l: Language) -> FixText {
    match (f, l) {
        (H2dCopyFix::PinnedCopy, _) => t(
            pick(l, "Copy from pinned memory, asynchronously", "从锁页内存异步拷贝"),
            pick(l, "Copies from pageable memory are staged through a driver buffer at a fraction of PCIe bandwidth and block both the host and the stream. Pinned (page-locked) memory is copied by DMA at full speed and can overlap with compute.", "从可分页内存拷贝要经过驱动的中转缓冲，只能达到 PCIe 带宽的一小部分，并且会同时阻塞主机和流。锁页内存通过 DMA 全速拷贝，并可与计算重叠。"),
            Some(&format!(
                "loader = DataLoader(dataset, ..., pin_memory=True)\n# {}\nx = x.pin_memory()\nx = x.to(\"cuda\", non_blocking=True)",
                pick(l, "or for tensors you build yourself:", "或者对自己构造的张量：")
            )),
            pick(l, "Copy time drops several-fold (pageable copies here run far below pinned bandwidth) and the rest hides behind compute.", "拷贝时间成倍下降（这里的可分页拷贝远低于锁页带宽），剩余部分被计算隐藏。"),
        ),
        (H2dCopyFix::OverlapCopy, _) => t(
            pick(l, "Overlap the next batch's copy with this step's compute", "让下一个批次的拷贝与本步计算重叠"),
            pick(l, "Prefetch the next batch to the GPU on a side stream while the current step runs.", "在本步运行时，用单独的流把下一个批次预取到 GPU。"),
            Some(&format!(
                "copy_stream = torch.cuda.Stream()\nwith torch.cuda.stream(copy_stream):\n    next_x = next_x_cpu.to(\"cuda\", non_blocking=True)\n# {}\ntorch.cuda.current_stream().wait_stream(copy_stream)\nx = next_x",
                pick(l, "... run the step on x ...", "……用 x 运行这一步……")
            )),
            pick(l, "The copy disappears from the critical path when it is shorter than a step's compute.", "当拷贝短于一步的计算时，它会从关键路径上消失。"),
        ),
        (H2dCopyFix::FewerCopyBytes, _) => t(
            pick(l, "Send fewer bytes", "少传字节"),
            pick(l, "Copy uint8 images or bf16 tensors and convert on the GPU instead of copying float32.", "拷贝 uint8 图像或 bf16 张量，在 GPU 上再转换，而不是拷贝 float32。"),
            Some(&format!(
                "x = x_uint8.to(\"cuda\", non_blocking=True).float().div_(255)  # {}",
                pick(l, "4x fewer bytes over PCIe", "经 PCIe 传输的字节少 4 倍")
            )),
            pick(l, "Copy time falls with the byte count (4× for uint8 instead of float32).", "拷贝时间随字节数下降（uint8 相比 float32 少 4 倍）。"),
        ),
    }
}
