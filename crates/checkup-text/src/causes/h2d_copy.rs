//! Words for the `h2d_copy` family's findings: each cause's title and summary.

use checkup_model::{H2dCopy, Language};

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
