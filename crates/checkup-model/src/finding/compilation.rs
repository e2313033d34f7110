//! Compilation: dynamo compiling the training's functions again and again.

use crate::GuardFailure;

causes! {
    /// Dynamo compiling the training's functions again and again.
    pub enum Compilation {
        /// A compiled function recompiled after the warm-up: each call with something its
        /// guards did not expect (another length, another Python value) compiled it again,
        /// and past the recompile limit it runs uncompiled.
        Recompiles {
            /// The function recompiled most (`forward`).
            function: String,
            /// Where it starts (`classifier.py:41`), when dynamo named it.
            location: Option<String>,
            /// Recompilations over the run.
            recompilations: u64,
            /// Compilations after the warm-up, the time they took, ms.
            compile_ms: f64,
            /// What the first failed guard checked.
            guard: GuardFailure,
            /// The first failed guard as dynamo words it.
            reason: Option<String>,
            /// Whether a `torch.compile` call asked for static shapes (`dynamic=False`).
            asked_static: bool,
            /// The step at which the function hit the recompile limit and, from then on,
            /// ran uncompiled; None when it did not.
            limit_step: Option<u64>,
            /// The limit's value.
            limit: Option<u64>,
            /// The median step between the compilations, before the limit (compiled), ms.
            compiled_step_ms: Option<f64>,
            /// The median step after the limit (uncompiled), ms.
            uncompiled_step_ms: Option<f64>,
            /// Mean steady step, ms.
            #[serde(default)]
            step_ms: Option<f64>,
            /// Per steady step, the compilation that dropping `dynamic=False` keeps, ms:
            /// dynamo then compiles the function for any size where its size first changed,
            /// in place of the run's first recompilation there. None when that one fell in
            /// the warm-up or another fix applies.
            #[serde(default)]
            dynamic_compile_ms_per_step: Option<f64>,
        } => "compilation/recompiles",
    }
}

keyed! {
    tag = "key";
    /// What the `compilation` family's findings measure.
    #[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
    pub enum CompilationEvidence {
        /// Recompilations dynamo logged.
        Recompilations => "recompilations",
        /// Compilations after the warm-up, the time they took.
        CompileTime => "compile_time",
        /// Their share of the run.
        CompileShare => "compile_share",
        /// The step the recompile limit was hit at.
        LimitStep => "limit_step",
        /// The median compiled step before the limit.
        CompiledStep => "compiled_step",
        /// The median step after the limit, uncompiled.
        UncompiledStep => "uncompiled_step",
    }
}

keyed! {
    tag = "fix";
    /// The changes the `compilation` family's findings propose.
    #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
    pub enum CompilationFix {
        /// The lengths change and the call asked for static shapes: drop `dynamic=False`,
        /// so dynamo compiles the length as a symbol at its second value, once.
        DropStaticShapes {
            /// The dimension whose size changed.
            dim: u32,
        } => "drop_static_shapes",
        /// A size changes and dynamo keeps it static: mark that dimension dynamic before
        /// the call (or pad to a few fixed sizes).
        MarkDynamic {
            /// The dimension whose size changed.
            dim: u32,
        } => "mark_dynamic",
        /// A Python value the compiled function reads changes: keep it fixed or pass it as
        /// a tensor.
        StableGuardedValue => "stable_guarded_value",
        /// Another guard fails: log the recompilations' reasons and remove what changes.
        FindRecompileReason => "find_recompile_reason",
    }
}
