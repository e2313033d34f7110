//! The report as Markdown: verdict, environment, findings with evidence and fixes, the
//! measurement window and method, run facts.

use std::fmt::Write;

use checkup_model::{
    ChartId, CheckStatus, Comparison, Diagnosis, Finding, Language, RunComparison,
};
use checkup_text::{checks, comparison, evidence, findings, fixes, notes, report, Span};

use crate::charts::Chart;
use crate::ranks::{rank_columns, ranks_in_table, ranks_shown};

/// Escapes text that came from a trace or a host so Markdown shows it literally: one
/// paragraph (line breaks as spaces, so no name can end it and start markup of its own),
/// hidden characters shown by their code point.
pub fn escape(text: &str) -> String {
    let text = checkup_text::visible(text);
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '|' | '#' | '!' | '&' => {
                out.push('\\');
                out.push(c);
            }
            // `visible` left line breaks and tabs alone; a carriage return it showed.
            '\n' => out.push(' '),
            _ => out.push(c),
        }
    }
    out
}

pub use checkup_text::format_number;

/// Catalogue text (a title, a summary, a fix, a verdict) in Markdown: its code spans (a line
/// of the training's code, a guard, a command) as inline code, the rest escaped as text.
pub fn prose(text: &str) -> String {
    prose_with(text, checkup_text::code)
}

/// The same in a table cell, where a `|` would end the cell.
pub fn prose_cell(text: &str) -> String {
    prose_with(text, code_cell)
}

fn prose_with(text: &str, code: fn(&str) -> String) -> String {
    checkup_text::spans(text)
        .into_iter()
        .map(|span| match span {
            Span::Text(t) => escape(t),
            Span::Code(c) => code(c),
        })
        .collect()
}

/// A name from the recording as inline code in a table cell ([`checkup_text::code`]), where a
/// `|` would end the cell: escaped, as GFM tables read it inside code too.
pub fn code_cell(name: &str) -> String {
    checkup_text::code(name).replace('|', "\\|")
}

/// A fenced code block that no line of `code` can close: the fence is longer than any run
/// of backticks in it.
fn fenced(code: &str, lang: &str) -> String {
    let longest = code.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    format!("{fence}{lang}\n{}\n{fence}\n", checkup_text::visible(code))
}

/// One finding: its title, share and summary, its gain, its evidence and its fixes with
/// their gains and code.
fn finding_section(s: &mut String, l: Language, i: usize, f: &Finding) {
    let t = report::text(l);
    let _ = writeln!(
        s,
        "### {}. {} (`{}`)\n",
        i + 1,
        prose(&findings::title(&f.cause, l)),
        f.id()
    );
    let _ = writeln!(
        s,
        "{} **{}**{comma}{} **{}%** {}{comma}{} {}%{}\n",
        t.severity,
        checkup_text::severity(f.severity, l),
        t.explains,
        checkup_text::pct(f.share),
        t.of_step_time,
        t.confidence,
        checkup_text::pct(f.confidence),
        t.full_stop,
        comma = t.comma
    );
    let _ = writeln!(s, "{}\n", prose(&findings::summary(f, l)));
    if let Some(g) = &f.gains.cause {
        let _ = writeln!(s, "*{}*\n", prose(&findings::gain(g, l)));
    }
    if !f.evidence.is_empty() {
        let h = t.evidence_headers;
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} |\n|---|---|---|---|",
            h[0], h[1], h[2], h[3]
        );
        for e in &f.evidence {
            let threshold = e.threshold.as_ref().map_or(String::new(), |th| {
                let op = if th.comparison == Comparison::AtLeast {
                    "≥"
                } else {
                    "≤"
                };
                let unit = evidence::unit(e.unit, l);
                format!("{op} {} {}", format_number(th.value), escape(unit))
            });
            let _ = writeln!(
                s,
                "| {} | {} {} | {} | {} |",
                prose_cell(&evidence::label(&e.key, l)),
                format_number(e.value),
                escape(evidence::unit(e.unit, l)),
                threshold,
                prose_cell(&evidence::source(&e.source, l))
            );
        }
        let _ = writeln!(s);
    }
    for (k, (fix_id, gain)) in f.fixes_with_gains().enumerate() {
        let fix = fixes::text(fix_id, l);
        let _ = writeln!(
            s,
            "**{} {}{}{}{}** {} *{}{}* {}\n",
            t.fix,
            k + 1,
            t.colon,
            prose(&fix.title),
            t.full_stop,
            prose(&fix.detail),
            t.expected,
            t.colon.trim_end(),
            prose(&fix.effect)
        );
        if let Some(g) = gain {
            let _ = writeln!(s, "*{}*\n", prose(&findings::fix_gain(g, l)));
        }
        if let Some(code) = &fix.snippet {
            let _ = writeln!(s, "{}", fenced(code, "python"));
        }
    }
}

/// A Markdown table's header row and its rule.
fn table_head(s: &mut String, headers: &[&str]) {
    let _ = writeln!(
        s,
        "| {} |\n|{}",
        headers.join(" | "),
        "---|".repeat(headers.len())
    );
}

/// The step time, the GPU's busy share and the time each lost-time finding costs: the
/// figures the rest of the report explains.
fn at_a_glance(s: &mut String, d: &Diagnosis, l: Language) {
    let t = report::text(l);
    let rows = checkup_text::headline::rows(&d.headline(), d, l);
    if rows.is_empty() {
        return;
    }
    let _ = writeln!(s, "## {}\n", t.at_a_glance);
    let _ = writeln!(s, "| {} | {} |\n|---|---|", t.fact, t.value);
    for (label, value) in rows {
        let _ = writeln!(s, "| {} | {} |", prose_cell(&label), prose_cell(&value));
    }
    let _ = writeln!(s);
}

/// The ledger's parts of at least 2 % with their seconds and the finding that takes each
/// up; the smaller ones together in one row, so the first page stays a page.
fn ledger_table(s: &mut String, d: &Diagnosis, ledger: &checkup_model::TimeLedger, l: Language) {
    const LISTED: f64 = 0.02;
    table_head(s, &checkup_text::ledger::columns(l));
    let seconds = |v: f64| checkup_text::format_number(v);
    let percent = |share: f64| format!("{}%", checkup_text::fixed(share * 100.0, 1));
    for p in ledger.parts.iter().filter(|p| p.share >= LISTED) {
        let finding = p
            .finding
            .and_then(|i| d.findings.get(i))
            .map(|f| prose_cell(&findings::title(&f.cause, l)))
            .unwrap_or_default();
        let _ = writeln!(
            s,
            "| {} | {} | {} | {finding} |",
            checkup_text::ledger::kind(p.kind, l),
            percent(p.share),
            seconds(p.seconds),
        );
    }
    let small: Vec<_> = ledger.parts.iter().filter(|p| p.share < LISTED).collect();
    if !small.is_empty() {
        let share: f64 = small.iter().map(|p| p.share).sum();
        let secs: f64 = small.iter().map(|p| p.seconds).sum();
        let _ = writeln!(
            s,
            "| {} | {} | {} | |",
            checkup_text::ledger::smaller_parts(small.len(), l),
            percent(share),
            seconds(secs),
        );
    }
    let _ = writeln!(s);
}

/// Checks that warned or failed, with their fixes, on the first page: a host problem comes
/// before any change to the training. The full table is in the appendix.
fn environment_problems(s: &mut String, d: &Diagnosis, l: Language) {
    let t = report::text(l);
    let problems: Vec<_> = d
        .environment
        .iter()
        .filter(|c| matches!(c.status, CheckStatus::Warn | CheckStatus::Fail))
        .collect();
    if problems.is_empty() {
        return;
    }
    let _ = writeln!(s, "## {}\n", t.environment_problems);
    for c in problems {
        let words = checks::text(c, l);
        let status = if c.status == CheckStatus::Fail {
            t.status[2]
        } else {
            t.status[1]
        };
        let fix = words
            .fix
            .as_deref()
            .map(|f| format!("{}{}", t.sentence_gap, prose(f)))
            .unwrap_or_default();
        let _ = writeln!(
            s,
            "- **{status}** {}{}{}{}{fix}",
            prose(&words.title),
            t.colon,
            prose(&words.value),
            t.full_stop
        );
    }
    let _ = writeln!(s);
}

/// Each finding's best fix with the gain the recording puts on it, most time saved first:
/// what a review meeting decides on. The findings below hold the evidence and the other fixes.
fn fixes_by_gain(s: &mut String, d: &Diagnosis, l: Language) {
    let t = report::text(l);
    let ranked = d.fixes_by_gain();
    if ranked.is_empty() {
        return;
    }
    let _ = writeln!(s, "## {}\n", t.fixes_by_gain);
    for (i, r) in ranked.iter().enumerate() {
        let f = &d.findings[r.finding];
        let words = fixes::text(r.fix, l);
        let _ = writeln!(
            s,
            // The stop outside the bold: CommonMark does not close `**` between "。" and a
            // Chinese character.
            "{}. **{}**{}{gap}{}{gap}{}{}{}{}",
            i + 1,
            prose(&words.title),
            t.full_stop,
            prose(&findings::fix_gain(&r.gain, l)),
            t.for_finding,
            t.colon,
            prose(&findings::title(&f.cause, l)),
            t.full_stop,
            gap = t.sentence_gap
        );
    }
    let _ = writeln!(s, "\n*{}*\n", escape(t.fixes_by_gain_note));
}

/// The kernels that took most GPU time in the diagnosed rank's profiled steps (the rank the
/// findings' kernel evidence comes from), then the operators that launched them: what the
/// GPU spends its time on, per step, for a reader to check a finding against and to find in
/// the model's code.
fn top_kernels(s: &mut String, d: &Diagnosis, l: Language) {
    let t = report::text(l);
    let Some(r) = d.diagnosed_rank_summary() else {
        return;
    };
    let k = &r.kernels;
    if k.top.is_empty() || k.per_step <= 0.0 {
        return;
    }
    let steps = k.kernels as f64 / k.per_step;
    let _ = writeln!(s, "## {}\n", t.top_kernels);
    let _ = writeln!(
        s,
        "{}\n",
        escape(
            &t.top_kernels_note
                .replace("{rank}", &r.rank.to_string())
                .replace("{steps}", &format!("{steps:.0}"))
        )
    );
    table_head(s, &t.kernel_headers);
    let share = |us: f64| {
        if k.kernel_time_us > 0.0 {
            format!("{}%", checkup_text::fixed(us / k.kernel_time_us * 100.0, 1))
        } else {
            String::new()
        }
    };
    for kt in &k.top {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} |",
            code_cell(&short_kernel_name(&kt.name)),
            format_number(kt.count as f64 / steps),
            duration(kt.total_us / kt.count.max(1) as f64),
            duration(kt.total_us / steps),
            share(kt.total_us)
        );
    }
    let _ = writeln!(s);
    if k.top_operators.is_empty() {
        return;
    }
    let _ = writeln!(s, "## {}\n", t.top_operators);
    let _ = writeln!(
        s,
        "{}\n",
        escape(
            &t.top_operators_note
                .replace("{rank}", &r.rank.to_string())
                .replace("{steps}", &format!("{steps:.0}"))
        )
    );
    table_head(s, &t.operator_headers);
    for op in &k.top_operators {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} |",
            code_cell(&op.name),
            format_number(op.calls as f64 / steps),
            duration(op.total_us / op.calls.max(1) as f64),
            duration(op.total_us / steps),
            share(op.total_us)
        );
    }
    let _ = writeln!(s);
}

/// A time in µs as people read it: µs below a millisecond, else ms.
fn duration(us: f64) -> String {
    if us < 1000.0 {
        format!("{} µs", checkup_text::fixed(us, 1))
    } else {
        format!("{} ms", checkup_text::fixed(us / 1e3, 2))
    }
}

/// A kernel named for a reader: its function without namespaces, template arguments or
/// parameters, and for PyTorch's generic elementwise launchers the operation they run
/// (`void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, …>`
/// → `vectorized_elementwise_kernel · CUDAFunctor_add`); at most 80 characters.
pub fn short_kernel_name(name: &str) -> String {
    let name = name.trim();
    let body = name.strip_prefix("void ").unwrap_or(name);
    let unnamed = body.replace("(anonymous namespace)::", "");
    let head = &unnamed[..unnamed.find(['<', '(']).unwrap_or(unnamed.len())];
    let function = head.rsplit("::").next().unwrap_or(head).trim();
    let short = match (function.is_empty(), elementwise_op(function, body)) {
        (true, _) => body.to_owned(),
        (false, Some(op)) => format!("{function} · {op}"),
        (false, None) => function.to_owned(),
    };
    if short.chars().count() > 80 {
        let cut: String = short.chars().take(79).collect();
        format!("{cut}…")
    } else {
        short
    }
}

/// The operation one of PyTorch's TensorIterator kernels runs: the function whose lambda it
/// is (`addcdiv_cuda_kernel(at::TensorIteratorBase&)::{lambda…}`), else its functor
/// (`MulFunctor<float>`, `CUDAFunctor_add<float>`).
fn elementwise_op<'a>(function: &str, body: &'a str) -> Option<&'a str> {
    if !function.contains("elementwise_kernel") {
        return None;
    }
    let is_ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    if let Some(at) = body.find("(at::TensorIteratorBase") {
        // Step back over the function's own template arguments, if any.
        let mut end = at;
        if body[..end].ends_with('>') {
            let mut depth = 0i32;
            for (i, c) in body[..end].char_indices().rev() {
                match c {
                    '>' => depth += 1,
                    '<' => depth -= 1,
                    _ => {}
                }
                if depth == 0 {
                    end = i;
                    break;
                }
            }
        }
        let start = body[..end]
            .char_indices()
            .rev()
            .find(|(_, c)| !is_ident(*c))
            .map_or(0, |(i, c)| i + c.len_utf8());
        let owner = &body[start..end];
        if !owner.is_empty() && owner != "gpu_kernel_impl_nocast" && owner != "gpu_kernel_impl" {
            return Some(owner);
        }
    }
    body.split(|c: char| !is_ident(c)).find(|t| {
        (t.ends_with("Functor") && *t != "BinaryFunctor") || t.starts_with("CUDAFunctor_")
    })
}

/// A piece of the report, in order: Markdown, or one chart between its paragraphs, which
/// each export shows its own way (an image beside the Markdown, inline SVG in the HTML).
#[derive(Debug)]
pub enum Part<'a> {
    /// Markdown text, whole blocks.
    Markdown(String),
    /// A chart.
    Chart(&'a Chart),
}

/// The report as Markdown with its charts between.
pub fn render<'a>(
    d: &Diagnosis,
    l: Language,
    charts: &'a [Chart],
    baseline: Option<&RunComparison>,
) -> Vec<Part<'a>> {
    let mut parts = Vec::new();
    let t = report::text(l);
    let mut s = String::new();
    let _ = writeln!(s, "# {}\n", t.title);
    let _ = writeln!(s, "## {}\n", t.verdict);
    let _ = writeln!(s, "**{}{}`{}`**\n", t.primary, t.colon, d.primary);
    let _ = writeln!(s, "{}\n", prose(&findings::verdict(d, l)));
    if let Some(line) = report::diagnosed_rank(d, l) {
        let _ = writeln!(s, "{}\n", prose(&line));
    }
    at_a_glance(&mut s, d, l);
    // The ledger's bar goes on the first page, beside the figures it accounts for; the
    // other charts follow the findings.
    let (ledger_chart, charts): (Vec<&Chart>, Vec<&Chart>) =
        charts.iter().partition(|c| c.name == ChartId::Ledger);
    if let Some(ledger) = &d.ledger {
        let _ = writeln!(
            s,
            "## {}
",
            t.chart_ledger
        );
        let _ = writeln!(
            s,
            "{}
",
            prose(&checkup_text::ledger::basis(ledger, l))
        );
        if let Some(chart) = ledger_chart.first() {
            parts.push(Part::Markdown(std::mem::take(&mut s)));
            parts.push(Part::Chart(chart));
        }
        ledger_table(&mut s, d, ledger, l);
    }
    fixes_by_gain(&mut s, d, l);
    environment_problems(&mut s, d, l);
    if let Some(b) = baseline {
        let _ = writeln!(s, "## {}\n", t.baseline);
        let _ = writeln!(s, "**{}**\n", prose(&comparison::summary(b, l)));
        let h = t.baseline_headers;
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} |\n|---|---|---|---|",
            h[0], h[1], h[2], h[3]
        );
        for c in &b.changes {
            let [before, after, change] = comparison::row(c, l);
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} |",
                comparison::figure(c.figure, l),
                prose_cell(&before),
                prose_cell(&after),
                prose_cell(&change)
            );
        }
        let _ = writeln!(s);
    }

    let _ = writeln!(s, "## {}\n", t.findings);
    // Informational findings that explain little follow under their own heading.
    let (main, also) = d.findings_then_also_noticed();
    for (i, f) in main {
        finding_section(&mut s, l, i, f);
    }
    if !also.is_empty() {
        let _ = writeln!(s, "## {}\n", t.also_noticed);
        for (i, f) in also {
            finding_section(&mut s, l, i, f);
        }
    }

    if !charts.is_empty() {
        let _ = writeln!(s, "## {}\n", t.charts);
        parts.push(Part::Markdown(std::mem::take(&mut s)));
        parts.extend(charts.into_iter().map(Part::Chart));
    }

    if !d.ranks.is_empty() {
        let _ = writeln!(s, "## {}\n", t.per_rank);
        table_head(&mut s, &t.rank_headers);
        let row = |s: &mut String, first: &str, c: [f64; 9]| {
            // fixed(): a rounding below zero prints 0.0, never -0.0.
            let p = |v: f64| format!("{}%", checkup_text::fixed(v, 1));
            let _ = writeln!(
                s,
                "| {first} | {:.1} ms | {} | {} | {} | {} | {} | {} | {:.0} | {:.1} µs |",
                c[0],
                p(c[1]),
                p(c[2]),
                p(c[3]),
                p(c[4]),
                p(c[5]),
                p(c[6]),
                c[7],
                c[8]
            );
        };
        let values: Vec<(u32, [f64; 9])> =
            d.ranks.iter().map(|r| (r.rank, rank_columns(r))).collect();
        let shown = ranks_in_table(d);
        for (rank, c) in values.iter().filter(|(r, _)| shown.contains(r)) {
            row(&mut s, &checkup_text::rank_label(*rank, &d.facts, l), *c);
        }
        if shown.len() < values.len() {
            let n = values.len().to_string();
            let medians: [f64; 9] =
                std::array::from_fn(|i| median(values.iter().map(|(_, c)| c[i]).collect()));
            row(&mut s, &t.median_of_ranks.replace("{n}", &n), medians);
            let _ = writeln!(s, "\n{}", t.ranks_shown_note.replace("{n}", &n));
        }
        let _ = writeln!(s);
    }
    if !d.step_timing.is_empty() {
        let _ = writeln!(s, "## {}\n", t.step_timing);
        table_head(&mut s, &t.step_headers);
        let values: Vec<(u32, [f64; 4])> = d
            .step_timing
            .iter()
            .map(|st| {
                (
                    st.rank,
                    [
                        st.mean_step_ms,
                        st.median_step_ms,
                        st.p90_step_ms,
                        st.data_wait_share,
                    ],
                )
            })
            .collect();
        let shown = ranks_shown(&values, d.diagnosed_rank);
        for st in d.step_timing.iter().filter(|st| shown.contains(&st.rank)) {
            let _ = writeln!(
                s,
                "| {} | {} | {} | {:.1} ms | {:.1} ms | {:.1} ms | {}% | {}{} |",
                checkup_text::rank_label(st.rank, &d.facts, l),
                st.total_steps,
                st.warmup_steps,
                st.mean_step_ms,
                st.median_step_ms,
                st.p90_step_ms,
                checkup_text::fixed(st.data_wait_share * 100.0, 1),
                st.stalls.len(),
                st.stall_period_steps
                    .map(|p| format!(" ({})", t.every_n_steps.replace("{}", &format!("{p:.0}"))))
                    .unwrap_or_default()
            );
        }
        if shown.len() < values.len() {
            let _ = writeln!(
                s,
                "\n{}",
                t.ranks_shown_note.replace("{n}", &values.len().to_string())
            );
        }
        let _ = writeln!(s);
    }
    top_kernels(&mut s, d, l);
    let f = &d.facts;
    let _ = writeln!(s, "## {}\n", t.run);
    let _ = writeln!(s, "| {} | {} |\n|---|---|", t.fact, t.value);
    let values: [Option<String>; 10] = [
        f.gpu_name.clone().map(|g| {
            format!(
                "{g}{}",
                f.world_size
                    .filter(|w| *w > 1)
                    .map(|w| format!(" × {w} ranks"))
                    .unwrap_or_default()
            )
        }),
        f.driver_version.clone(),
        f.cuda_driver_version.clone(),
        f.cuda_runtime_version.clone(),
        f.torch_version.clone(),
        f.nccl_version.clone(),
        f.model.clone(),
        f.batch_size.map(|b| b.to_string()),
        f.precision.clone(),
        f.host_cpus.map(|c| c.to_string()),
    ];
    for (k, v) in t.facts.iter().zip(values) {
        if let Some(v) = v {
            let _ = writeln!(s, "| {k} | {} |", escape(&v));
        }
    }
    let _ = writeln!(s);

    if let Some(training) = &d.training {
        let _ = writeln!(s, "## {}\n", t.training);
        let _ = writeln!(s, "{}\n", escape(t.training_note));
        let _ = writeln!(s, "| {} | {} |\n|---|---|", t.fact, t.value);
        for (k, v) in checkup_text::training::rows(training, l) {
            let _ = writeln!(s, "| {} | {} |", prose_cell(&k), prose_cell(&v));
        }
        let _ = writeln!(s);
    }

    if !d.settings.is_empty() {
        let _ = writeln!(s, "### {}\n", checkup_text::setting_cost::title(l));
        table_head(&mut s, &checkup_text::setting_cost::columns(l));
        for (k, v) in checkup_text::setting_cost::rows(d, l) {
            let _ = writeln!(s, "| {} | {} |", prose_cell(&k), prose_cell(&v));
        }
        let _ = writeln!(s);
    }

    if !d.environment.is_empty() {
        let _ = writeln!(s, "## {}\n", t.environment);
        let h = t.env_headers;
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} |\n|---|---|---|---|",
            h[0], h[1], h[2], h[3]
        );
        for c in &d.environment {
            let status = match c.status {
                CheckStatus::Pass => t.status[0],
                CheckStatus::Warn => t.status[1],
                CheckStatus::Fail => t.status[2],
                CheckStatus::Unknown => t.status[3],
            };
            let words = checks::text(c, l);
            let _ = writeln!(
                s,
                "| {} | {status} | {} | {} |",
                prose_cell(&words.title),
                prose_cell(&words.value),
                prose_cell(words.fix.as_deref().unwrap_or(""))
            );
        }
        let _ = writeln!(s);
    }

    let _ = writeln!(s, "## {}\n", t.method);
    let _ = writeln!(
        s,
        "{}{}{}{}\n",
        t.steady_window,
        t.colon,
        prose(&notes::window_method(&d.window.method, l)),
        t.full_stop
    );
    let _ = writeln!(s, "{}\n", t.method_text);
    for n in &d.notes {
        let _ = writeln!(s, "- {}", prose(&notes::note(n, l)));
    }
    if !d.notes.is_empty() {
        let _ = writeln!(s);
    }
    let _ = writeln!(s, "{}{}{}", t.sources, t.colon, listed_sources(&d.sources));
    parts.push(Part::Markdown(s));
    parts
}

/// The inputs read, each in code; a job's hundreds of rank traces as the first few, how many
/// more, and the last, so the method section stays a paragraph.
fn listed_sources(sources: &[String]) -> String {
    const LISTED: usize = 4;
    let code = |x: &String| checkup_text::code(x);
    if sources.len() <= LISTED + 2 {
        return sources.iter().map(code).collect::<Vec<_>>().join(", ");
    }
    let first: Vec<String> = sources[..LISTED].iter().map(code).collect();
    format!(
        "{}, … ({} more), {}",
        first.join(", "),
        sources.len() - LISTED - 1,
        code(&sources[sources.len() - 1])
    )
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => 0.0,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_median_of_an_even_count_is_the_mean_of_the_middle_two() {
        assert_eq!(median(vec![3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(vec![4.0, 1.0, 3.0, 2.0]), 2.5);
        assert_eq!(median(vec![]), 0.0);
    }

    #[test]
    fn a_kernel_is_named_by_its_function_and_an_elementwise_one_by_its_operation() {
        let names = [
            ("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<float>, std::array<char*, 3ul>)", "vectorized_elementwise_kernel · CUDAFunctor_add"),
            ("void at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_impl_nocast<at::native::BinaryFunctor<float, float, float, at::native::binary_internal::MulFunctor<float> > >(at::TensorIteratorBase&, at::native::BinaryFunctor<float, float, float, at::native:", "elementwise_kernel · MulFunctor"),
            ("void at::native::vectorized_elementwise_kernel<4, at::native::GeluBackwardCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)::{lambda()#2}::operator()() const", "vectorized_elementwise_kernel · GeluBackwardCUDAKernelImpl"),
            ("void at::native::vectorized_elementwise_kernel<8, at::native::BinaryFunctor<c10::BFloat16, c10::BFloat16, c10::BFloat16, at::native::(anonymous namespace)::threshold_kernel_impl<c10::BFloat16>(at::TensorIteratorBase&, c10::BFloat16, c10::BFloat16)::{lambda(c10", "vectorized_elementwise_kernel · threshold_kernel_impl"),
            ("void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float, false>(int, float, float const*)", "vectorized_layer_norm_kernel"),
            ("nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT", "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT"),
            ("void cutlass::Kernel2<cutlass_80_simt_sgemm_64x64_8x5_tn_align1>(cutlass_80_simt_sgemm_64x64_8x5_tn_align1::Params)", "Kernel2"),
            ("<lambda>", "<lambda>"),
        ];
        for (full, short) in names {
            assert_eq!(short_kernel_name(full), short, "{full}");
        }
        let long = "k".repeat(200);
        assert_eq!(short_kernel_name(&long).chars().count(), 80);
    }

    #[test]
    fn kernel_durations_read_in_microseconds_below_a_millisecond() {
        assert_eq!(duration(3.12), "3.1 µs");
        assert_eq!(duration(999.9), "999.9 µs");
        assert_eq!(duration(1234.0), "1.23 ms");
    }
}
