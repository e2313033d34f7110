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

/// The line of `site`, a copy to the GPU, made to copy without waiting: `non_blocking=True`
/// added to its `.cuda(…)` and `.to(…)` calls; from pinned memory, which the comment asks for.
pub fn async_copy_snippet(site: &SyncSite, l: Language) -> String {
    let code = site.code.trim();
    let at = site.location();
    let copied = without_waiting(code);
    match l {
        En => format!(
            "# {at}: pin the source so the copy need not wait:\n# DataLoader(..., pin_memory=True), or x = x.pin_memory() where it is made\n{copied}"
        ),
        Zh => format!(
            "# {at}：把源数据放在锁页内存里，拷贝就不必等待：\n# DataLoader(..., pin_memory=True)，或在创建处 x = x.pin_memory()\n{copied}"
        ),
    }
}

/// The line of `site`, which reads values back to order them on the host, made to order them
/// on the GPU: NumPy's and Python's sorts become torch's, the read-backs go, and what the
/// line hands on stays a GPU tensor.
pub fn sort_on_gpu_snippet(site: &SyncSite, l: Language) -> String {
    let code = site.code.trim();
    let at = site.location();
    let on_gpu = sorted_on_gpu(code);
    match l {
        En => format!(
            "# {at}, sorted on the GPU: the order never leaves it\n{on_gpu}\n# use the result as it is: a torch.from_numpy(...).cuda() of it is no longer needed"
        ),
        Zh => format!(
            "# {at}，改在 GPU 上排序：顺序不再离开 GPU\n{on_gpu}\n# 直接使用结果：不再需要对它做 torch.from_numpy(...).cuda()"
        ),
    }
}

/// `code` with each host sort turned into torch's and its read-backs removed.
fn sorted_on_gpu(code: &str) -> String {
    let mut out = code.to_string();
    for readback in checkup_model::TENSOR_READ_BACKS {
        out = out.replace(readback, "");
    }
    for (host, values) in [
        ("numpy.argsort(", false),
        ("np.argsort(", false),
        ("numpy.argpartition(", false),
        ("np.argpartition(", false),
        ("numpy.sort(", true),
        ("np.sort(", true),
        ("sorted(", true),
    ] {
        while let Some(at) = out.find(host) {
            let start = at + host.len();
            let end = checkup_model::call_end(&out, start);
            // The first argument only: a full sort also satisfies argpartition's `kth`.
            let first = top_level_comma(&out[start..end]).map_or(end, |c| start + c);
            let call = if values {
                "torch.sort("
            } else {
                "torch.argsort("
            };
            let tail = if values { ").values" } else { ")" };
            out = format!(
                "{}{call}{}{tail}{}",
                &out[..at],
                &out[start..first],
                &out[(end + 1).min(out.len())..]
            );
        }
    }
    out
}

/// The first comma of `args` outside any brackets.
fn top_level_comma(args: &str) -> Option<usize> {
    let mut depth = 0usize;
    for (i, c) in args.char_indices() {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => return Some(i),
            _ => {}
        }
    }
    None
}

/// `code` with `non_blocking=True` in each `.cuda(…)` and device `.to(…)` call that lacks it.
fn without_waiting(code: &str) -> String {
    let mut out = String::with_capacity(code.len() + 40);
    let mut done = 0;
    for args in checkup_model::gpu_copy_calls(code) {
        out.push_str(&code[done..args.end]);
        let written = &code[args.clone()];
        if !written.contains("non_blocking") {
            out.push_str(if written.trim().is_empty() {
                "non_blocking=True"
            } else {
                ", non_blocking=True"
            });
        }
        done = args.end;
    }
    out.push_str(&code[done..]);
    out
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
            kinds: Default::default(),
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

    #[test]
    fn a_host_sort_of_per_sample_losses_comes_back_sorted_on_the_gpu() {
        // The line lab/workloads/hard_example_mining.py picks its hardest samples with.
        let s = sort_on_gpu_snippet(
            &site("hardest = np.argsort(-per_sample.detach().float().cpu().numpy())[:keep]"),
            En,
        );
        assert!(
            s.contains("\nhardest = torch.argsort(-per_sample.detach().float())[:keep]\n"),
            "{s}"
        );
        assert!(
            !s.contains("step % 50"),
            "the order is needed every step: {s}"
        );
    }

    #[test]
    fn sorts_and_partitions_become_torchs_with_their_values_or_indices() {
        assert_eq!(
            sorted_on_gpu("top = sorted(scores.tolist())[-k:]"),
            "top = torch.sort(scores).values[-k:]"
        );
        assert_eq!(
            sorted_on_gpu("idx = np.argpartition(loss.cpu().numpy(), k)[:k]"),
            "idx = torch.argsort(loss)[:k]"
        );
        assert_eq!(
            sorted_on_gpu("v = np.sort(f(x[0], y).cpu().numpy())"),
            "v = torch.sort(f(x[0], y)).values"
        );
    }

    #[test]
    fn a_copy_to_the_gpu_comes_back_copying_without_waiting_every_step() {
        let copy = site("x, y = x.cuda(), y.to(device)");
        assert!(copy.copies_to_gpu());
        let en = async_copy_snippet(&copy, En);
        assert!(
            en.ends_with("x, y = x.cuda(non_blocking=True), y.to(device, non_blocking=True)"),
            "{en}"
        );
        assert!(en.contains("pin_memory=True"), "{en}");
        // Never the read-back advice that would copy only every 50 steps.
        assert!(!en.contains("step % 50"), "{en}");
        let zh = async_copy_snippet(&copy, Zh);
        assert!(zh.contains("锁页内存"), "{zh}");
        // Already non-blocking, or a dtype change, is left as it is.
        assert_eq!(
            without_waiting("x = x.to(device, non_blocking=True).to(torch.float16)"),
            "x = x.to(device, non_blocking=True).to(torch.float16)"
        );
        // The call's own parenthesis, not one its arguments hold.
        assert_eq!(
            without_waiting("x = x.to(torch.device(\"cuda\"))"),
            "x = x.to(torch.device(\"cuda\"), non_blocking=True)"
        );
        assert!(!site("loss = loss.to(torch.float32)").copies_to_gpu());
        assert!(!site("print(loss.item())").copies_to_gpu());
        assert!(site("t = torch.tensor(ids, device=\"cuda\")").copies_to_gpu());
    }
}
