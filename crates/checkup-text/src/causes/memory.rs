//! Words for the `memory` family's findings: each cause's title and summary.

use checkup_model::{Language, Memory};

use crate::{fixed, pct, Language::*};

/// A `memory` finding's title.
pub fn title(c: &Memory, l: Language) -> String {
    let (en, zh) = match c {
        Memory::Creep { .. } => ("GPU memory creeps up step after step", "GPU 显存逐步上涨"),
        Memory::NearLimit { .. } => (
            "GPU memory is close to full: the batch size is set by memory",
            "GPU 显存接近用满：批大小受显存限制",
        ),
        Memory::Fragmented { .. } => ("GPU memory is fragmented", "GPU 显存碎片化"),
        Memory::HostCreep { .. } => (
            "The training's host memory keeps growing",
            "训练进程的主机内存持续增长",
        ),
    };
    match l {
        En => en.into(),
        Zh => zh.into(),
    }
}

/// A `memory` finding's summary: what was measured, in a sentence or two.
pub fn summary(c: &Memory, l: Language) -> String {
    match (c, l) {
        (Memory::Creep { from_gib, to_gib, gib_per_min, capacity_gib, full_in_min }, En) => format!(
            "Memory in live tensors grew from {} to {} GiB while the run went on ({} GiB a minute) on a {} GiB card{}. Something keeps tensors from every step alive.",
            fixed(*from_gib, 1),
            fixed(*to_gib, 1),
            fixed(*gib_per_min, 1),
            fixed(*capacity_gib, 0),
            match full_in_min {
                Some(m) if *m < 1.0 => ": at that pace it is full within a minute of the recording's end, and the run stops with an out-of-memory error".into(),
                Some(m) => format!(": at that pace it is full about {} minutes after the recording ends, and the run stops with an out-of-memory error", fixed(*m, 0)),
                None => String::new(),
            }
        ),
        (Memory::Creep { from_gib, to_gib, gib_per_min, capacity_gib, full_in_min }, Zh) => format!(
            "运行过程中活动张量占用的显存从 {} GiB 增长到 {} GiB（每分钟 {} GiB），显卡容量 {} GiB{}。有东西让每一步的张量一直存活。",
            fixed(*from_gib, 1),
            fixed(*to_gib, 1),
            fixed(*gib_per_min, 1),
            fixed(*capacity_gib, 0),
            match full_in_min {
                Some(m) if *m < 1.0 => "：照此速度，记录结束后一分钟内显存就会用满，训练将因显存不足（OOM）而中止".into(),
                Some(m) => format!("：照此速度，记录结束后约 {} 分钟显存就会用满，训练将因显存不足（OOM）而中止", fixed(*m, 0)),
                None => String::new(),
            }
        ),
        (Memory::NearLimit { peak_gib, capacity_gib, others_gib }, En) => format!(
            "At its peak the GPU had {} of its {} GiB in use ({}%){}. There is no room for a larger batch, and a longer sequence or a bigger layer runs out of memory. The fixes below free memory, cheapest first, each with what it would free in this run.",
            fixed(*peak_gib, 1),
            fixed(*capacity_gib, 0),
            pct(peak_gib / capacity_gib),
            if *others_gib >= 1.0 { format!(", {} GiB of it held by other processes", fixed(*others_gib, 1)) } else { String::new() }
        ),
        (Memory::NearLimit { peak_gib, capacity_gib, others_gib }, Zh) => format!(
            "峰值时 GPU 的 {} GiB 显存中已用 {} GiB（{}%）{}。已经没有空间增大批大小，更长的序列或更大的层都会显存不足。下面的修复按代价从低到高释放显存，并给出各自在本次运行中能释放的量。",
            fixed(*capacity_gib, 0),
            fixed(*peak_gib, 1),
            pct(peak_gib / capacity_gib),
            if *others_gib >= 1.0 { format!("，其中 {} GiB 被其他进程占用", fixed(*others_gib, 1)) } else { String::new() }
        ),
        (Memory::HostCreep { from_mib, to_mib, mib_per_min }, En) => format!(
            "The training's processes held {} GiB of host memory at the start of the run and {} GiB at its end, {} GiB more every minute, growing all along. Something keeps a piece of every step on the host (predictions, losses, arrays kept in a list; a cache that never evicts); a longer run ends when the host runs out of memory and its OOM killer stops the training.",
            fixed(from_mib / 1024.0, 1),
            fixed(to_mib / 1024.0, 1),
            fixed(mib_per_min / 1024.0, 1),
        ),
        (Memory::HostCreep { from_mib, to_mib, mib_per_min }, Zh) => format!(
            "训练进程在运行开始时占用 {} GiB 主机内存，结束时 {} GiB，每分钟多 {} GiB，一直在增长。有东西把每一步的一部分留在了主机上（保存在列表里的预测、损失、数组；从不淘汰的缓存）；运行更久时，主机内存会被耗尽，系统的 OOM killer 会终止训练。",
            fixed(from_mib / 1024.0, 1),
            fixed(to_mib / 1024.0, 1),
            fixed(mib_per_min / 1024.0, 1),
        ),
        (Memory::Fragmented { reserved_gib, peak_allocated_gib, retries }, En) => format!(
            "PyTorch's allocator reserved {} GiB, but the tensors never needed more than {} GiB at once: {} GiB sit in cached blocks of the wrong sizes (tensors of changing shapes){}.",
            fixed(*reserved_gib, 1),
            fixed(*peak_allocated_gib, 1),
            fixed(reserved_gib - peak_allocated_gib, 1),
            if *retries > 0 { format!(", and {retries} allocations failed until it emptied its cache, a slow step each") } else { String::new() }
        ),
        (Memory::Fragmented { reserved_gib, peak_allocated_gib, retries }, Zh) => format!(
            "PyTorch 的分配器预留了 {} GiB，但张量同时所需从未超过 {} GiB：有 {} GiB 停留在尺寸不合用的缓存块中（张量形状不断变化）{}。",
            fixed(*reserved_gib, 1),
            fixed(*peak_allocated_gib, 1),
            fixed(reserved_gib - peak_allocated_gib, 1),
            if *retries > 0 { format!("，并有 {retries} 次分配失败后才清空缓存重试，每次都是一个慢步骤") } else { String::new() }
        ),
    }
}
