//! The code that replaces a line which synchronises with the GPU, written from that line.
//!
//! A generic example (gradient norms, a running loss) next to a line about something else is
//! advice a reader cannot apply; this writes the reader's own line back, changed as little as
//! the fix needs. Code is the same in every language; its comments are in the reader's.

use checkup_model::{Language, SyncSite};

use crate::Language::*;

/// What a synchronising line does, read from its text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SyncKind {
    /// `.item()`: one value read back.
    Item,
    /// `torch.cuda.synchronize()`.
    Synchronize,
    /// `nonzero`, `masked_select`, boolean indexing: the result's size depends on the data.
    DataDependentShape,
    /// `.cpu()`, `.tolist()`, `.numpy()`, `print(tensor)`, a Python condition on a tensor.
    Other,
}

fn kind_of(code: &str) -> SyncKind {
    if code.contains(".item()") {
        SyncKind::Item
    } else if code.contains("synchronize(") {
        SyncKind::Synchronize
    } else if ["nonzero(", "masked_select(", "argwhere(", "unique("]
        .iter()
        .any(|p| code.contains(p))
    {
        SyncKind::DataDependentShape
    } else {
        SyncKind::Other
    }
}

/// The snippet for `site`, in `l`'s comments.
pub fn snippet(site: &SyncSite, l: Language) -> String {
    let code = site.code.trim();
    let at = site.location();
    match kind_of(code) {
        SyncKind::Item => {
            let kept = code.replace(".item()", ".detach()");
            match l {
                En => format!(
                    "# {at}, without .item(): the value stays on the GPU\n{kept}\n# turn these into numbers only on the steps you log:\nif step % 50 == 0:\n    ...  # float(t), or torch.stack(values).tolist() for many at once"
                ),
                Zh => format!(
                    "# {at}，去掉 .item()：值留在 GPU 上\n{kept}\n# 只在记录日志的步骤里把它们转成数字：\nif step % 50 == 0:\n    ...  # float(t)，或用 torch.stack(values).tolist() 一次读回多个"
                ),
            }
        }
        SyncKind::Synchronize => match l {
            En => format!(
                "# {at}: delete this line; CUDA already runs the work in order.\n# Keep a synchronize only around code you time:\n# {code}"
            ),
            Zh => format!(
                "# {at}：删除这一行；CUDA 本身就按顺序执行这些工作。\n# 只在需要计时的代码前后保留 synchronize：\n# {code}"
            ),
        },
        SyncKind::DataDependentShape => match l {
            En => format!(
                "# {at}: {code}\n# the result's size depends on the data, so the host must wait for it;\n# keep the shape fixed and mask instead:\nx = torch.where(mask, x, torch.zeros_like(x))"
            ),
            Zh => format!(
                "# {at}：{code}\n# 结果的大小取决于数据，主机必须等待它；\n# 改为保持形状不变、用掩码：\nx = torch.where(mask, x, torch.zeros_like(x))"
            ),
        },
        SyncKind::Other => {
            let indented = code.replace('\n', "\n    ");
            match l {
                En => format!(
                    "# {at} synchronises every step; if its result is only logged or inspected:\nif step % 50 == 0:\n    {indented}"
                ),
                Zh => format!(
                    "# {at} 每步都会同步；如果它的结果只用于日志或查看：\nif step % 50 == 0:\n    {indented}"
                ),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn site(code: &str) -> SyncSite {
        SyncSite {
            file: "/home/a/train.py".into(),
            line: 15,
            function: "hook".into(),
            code: code.into(),
            count: 112,
        }
    }

    #[test]
    fn an_item_line_comes_back_with_detach_in_place_of_item() {
        // The line the probe recorded in lab/workloads/layer_stats_items.py.
        let s = snippet(
            &site("activation_rms[name] = output.float().pow(2).mean().sqrt().item()"),
            En,
        );
        assert!(s.starts_with("# train.py:15, without .item()"), "{s}");
        assert!(
            s.contains("\nactivation_rms[name] = output.float().pow(2).mean().sqrt().detach()\n"),
            "{s}"
        );
        assert!(
            !s.contains("grad.norm"),
            "no example about something else: {s}"
        );
    }

    #[test]
    fn a_comprehension_of_items_keeps_its_shape() {
        let s = snippet(
            &site("norms = {name: p.grad.norm().item() for name, p in model.named_parameters()}"),
            Zh,
        );
        assert!(
            s.contains(
                "norms = {name: p.grad.norm().detach() for name, p in model.named_parameters()}"
            ),
            "{s}"
        );
        assert!(s.contains("去掉 .item()"), "{s}");
    }

    #[test]
    fn an_explicit_synchronize_is_deleted_not_guarded() {
        let s = snippet(&site("torch.cuda.synchronize()"), En);
        assert!(s.contains("delete this line"), "{s}");
        assert!(!s.contains("step % 50"), "{s}");
    }

    #[test]
    fn data_dependent_indexing_gets_a_fixed_shape_rewrite_not_compile() {
        let s = snippet(&site("idx = (labels == 3).nonzero()"), En);
        assert!(s.contains("torch.where(mask"), "{s}");
        assert!(!s.contains("compile"), "{s}");
    }

    #[test]
    fn another_readback_is_moved_under_the_logging_steps() {
        let s = snippet(&site("  hist = w.float().cpu().numpy()  "), En);
        assert!(
            s.ends_with("if step % 50 == 0:\n    hist = w.float().cpu().numpy()"),
            "{s}"
        );
    }
}
