//! Words for the `compilation` family's findings: each cause's title and summary, what its
//! evidence rows measure, and its fixes.

use checkup_model::{Compilation, CompilationEvidence, CompilationFix, Language};

use crate::fix_words::{pick, t, FixText};
use crate::{fixed, Language::*};

/// A `compilation` finding's title.
pub fn title(c: &Compilation, l: Language) -> String {
    let (en, zh) = match c {
        Compilation::Recompiles {
            limit_step: Some(_),
            ..
        } => (
            "The compiled model recompiles, then runs uncompiled",
            "编译后的模型反复重新编译，随后以未编译方式运行",
        ),
        // Once is not "again and again": a size that changed once, after the warm-up.
        Compilation::Recompiles {
            recompilations: 1, ..
        } => (
            "The compiled model recompiles after its warm-up",
            "编译后的模型在预热之后重新编译",
        ),
        Compilation::Recompiles { .. } => (
            "The compiled model recompiles again and again",
            "编译后的模型一再重新编译",
        ),
    };
    match l {
        En => en.into(),
        Zh => zh.into(),
    }
}

/// A `compilation` finding's summary: what was measured, in a sentence or two.
pub fn summary(c: &Compilation, l: Language) -> String {
    let Compilation::Recompiles {
        function,
        location,
        recompilations,
        compile_ms,
        reason,
        limit_step,
        limit,
        compiled_step_ms,
        uncompiled_step_ms,
        ..
    } = c;
    let function = crate::code(function);
    let at = location
        .as_deref()
        .map(|w| format!(" ({w})"))
        .unwrap_or_default();
    let seconds = fixed(compile_ms / 1e3, 1);
    let times = match recompilations {
        1 => "once".to_owned(),
        n => format!("{n} times"),
    };
    let reason = reason.as_deref().map(crate::code);
    let mut out = match (l, reason) {
        (En, Some(r)) => {
            format!("Dynamo compiled {function}{at} again {times}; the first failed guard: {r}.")
        }
        (En, None) => format!("Dynamo compiled {function}{at} again {times}."),
        (Zh, Some(r)) => format!(
            "Dynamo 将 {function}{at} 重新编译了 {recompilations} 次；第一个失败的守卫：{r}。"
        ),
        (Zh, None) => format!("Dynamo 将 {function}{at} 重新编译了 {recompilations} 次。"),
    };
    // Under a twentieth of a second is none: every compilation fell in the warm-up.
    out.push_str(&match (l, *compile_ms >= 50.0) {
        (En, true) => format!(" The compilations after the warm-up took {seconds} s."),
        (En, false) => " All of them fell in the warm-up steps.".to_owned(),
        (Zh, true) => format!("预热之后的编译共耗时 {seconds} 秒。"),
        (Zh, false) => "它们全部发生在预热步骤中。".to_owned(),
    });
    if let Some(step) = limit_step {
        let limit = limit.map(|n| n.to_string()).unwrap_or_else(|| "?".into());
        out.push_str(&match l {
            En => format!(" At step {step} it hit the recompile limit ({limit}): from then on it ran uncompiled."),
            Zh => format!("在第 {step} 步它达到了重新编译上限（{limit}）：此后以未编译方式运行。"),
        });
        if compiled_step_ms.is_none() {
            out.push_str(match l {
                En => " No step ran compiled between the compilations to compare with: compiled, an uncompiled step's kernels fuse and the wait for their launches goes, which the gain counts.",
                Zh => "编译之间没有以编译状态运行的步骤可供比较：编译后，未编译步骤的内核会被融合，等待其发射的时间随之消失，收益按此计算。",
            });
        }
        if let (Some(c), Some(u)) = (compiled_step_ms, uncompiled_step_ms) {
            out.push_str(&match l {
                En => format!(
                    " A step took {} ms at the median after it, against {} ms compiled before it.",
                    fixed(*u, 1),
                    fixed(*c, 1)
                ),
                Zh => format!(
                    "此后步骤中位耗时 {} 毫秒，此前编译状态下为 {} 毫秒。",
                    fixed(*u, 1),
                    fixed(*c, 1)
                ),
            });
        }
    }
    out
}

/// What a `compilation` evidence row measures.
pub fn evidence(k: &CompilationEvidence, l: Language) -> String {
    let (en, zh) = match k {
        CompilationEvidence::Recompilations => ("recompilations", "重新编译次数"),
        CompilationEvidence::CompileTime => (
            "compilations after the warm-up, their time",
            "预热之后编译的耗时",
        ),
        CompilationEvidence::CompileShare => (
            "compilations after the warm-up, share of run",
            "预热之后编译占运行时间比例",
        ),
        CompilationEvidence::LimitStep => (
            "step at which the recompile limit was hit",
            "达到重新编译上限的步骤",
        ),
        CompilationEvidence::CompiledStep => (
            "median step before the limit (compiled)",
            "达到上限之前的步骤中位耗时（已编译）",
        ),
        CompilationEvidence::UncompiledStep => (
            "median step after the limit (uncompiled)",
            "达到上限之后的步骤中位耗时（未编译）",
        ),
    };
    match l {
        En => en.into(),
        Zh => zh.into(),
    }
}

/// A `compilation` fix in words.
pub fn fix(f: &CompilationFix, l: Language) -> FixText {
    match (f, l) {
        (CompilationFix::DropStaticShapes { dim }, _) => t(
            pick(l, "Drop dynamic=False from torch.compile", "去掉 torch.compile 的 dynamic=False"),
            &match l {
                En => format!("The size of dimension {dim} changes from call to call (a sequence length, a last batch), and dynamic=False makes dynamo compile a new graph for every size until its recompile limit, then run the function uncompiled. Without it, dynamo compiles that size as a symbol when it first changes: one more compilation, then none. Padding to a few fixed sizes works too, one compilation each."),
                Zh => format!("第 {dim} 维的大小每次调用都在变（序列长度、最后一个批次），而 dynamic=False 让 dynamo 为每个大小编译一个新图，直到达到重新编译上限，之后函数以未编译方式运行。去掉它，dynamo 会在大小第一次变化时把它编译为符号：再编译一次，之后不再编译。填充到少数几个固定大小也可以，每个大小编译一次。"),
            },
            Some(&format!(
                "model = torch.compile(model)  # {}",
                pick(l, "no dynamic=False: sizes that change become symbols", "不加 dynamic=False：变化的大小成为符号")
            )),
            pick(l, "One more compilation, then every step compiled.", "再编译一次，之后每一步都是编译后的。"),
        ),
        (CompilationFix::MarkDynamic { dim }, _) => t(
            pick(l, "Mark the changing dimension dynamic", "把变化的维度标记为动态"),
            &match l {
                En => format!("The size of dimension {dim} changes from call to call and dynamo compiles each new size as a constant. Mark that dimension dynamic on the input before the compiled call, so one graph serves every size; or pad the input to a few fixed sizes, one compilation each."),
                Zh => format!("第 {dim} 维的大小每次调用都在变，dynamo 把每个新大小当作常量重新编译。在调用编译后的函数之前把输入的这一维标记为动态，一个图就能适用于所有大小；或者把输入填充到少数几个固定大小，每个大小编译一次。"),
            },
            Some(&format!(
                "torch._dynamo.mark_dynamic(x, {dim})  # {}\nout = model(x)",
                pick(l, "x: the input whose size changes", "x：大小会变化的输入")
            )),
            pick(l, "No compilation after the first ones; every step compiled.", "最初几次之后不再编译；每一步都是编译后的。"),
        ),
        (CompilationFix::StableGuardedValue, _) => t(
            pick(l, "Keep the value the compiled function checks fixed", "让编译后的函数所检查的值保持不变"),
            pick(l, "The compiled function reads a Python value that changes (the failed guard above names it): dynamo guards on its value and compiles again for each new one. Pass it as a tensor, whose value is not guarded, or read it outside the compiled function.", "编译后的函数读取了一个会变化的 Python 值（上面失败的守卫指出了它）：dynamo 对它的值设了守卫，每遇到一个新值就重新编译。把它作为张量传入（张量的值不受守卫），或在编译后的函数之外读取它。"),
            Some(&format!(
                "scale = torch.tensor(scale, device=\"cuda\")  # {}\nout = model(x, scale)",
                pick(l, "a tensor: a new value does not recompile", "张量：新值不会触发重新编译")
            )),
            pick(l, "No compilation after the first ones.", "最初几次之后不再编译。"),
        ),
        (CompilationFix::FindRecompileReason, _) => t(
            pick(l, "Log why it recompiles", "记录重新编译的原因"),
            pick(l, "Run once with dynamo's recompilation log on: each recompilation prints the guard that failed, which names what changes between calls (a size, a dtype, another object). Keep that the same between calls.", "开启 dynamo 的重新编译日志运行一次：每次重新编译都会打印失败的守卫，指出调用之间变化的东西（大小、dtype、另一个对象）。让它在调用之间保持不变。"),
            Some("TORCH_LOGS=\"recompiles\" python train.py"),
            pick(l, "The reason for each recompilation, to remove.", "每次重新编译的原因，以便消除。"),
        ),
    }
}
