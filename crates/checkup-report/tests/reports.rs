//! Reports of every real corpus run, in every format, checked the way a reader would:
//! the PDF's text holds the verdict and its evidence, its pages are rendered to PNG (kept in
//! target/report-artifacts for people to look at), and the HTML parses without errors.

use std::path::{Path, PathBuf};
use std::process::Command;

use checkup_engine::{analyze_paths, Options};
use checkup_model::{ChartId, Diagnosis};
use checkup_model::{CompareReason, Figure};
use checkup_report::{BaselineCard, Language, ReportOptions};

fn corpus(run: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/corpus")
        .join(run)
}

fn artifacts() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/report-artifacts");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn runs() -> Vec<String> {
    let labels: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(corpus("labels.json")).unwrap()).unwrap();
    labels.as_object().unwrap().keys().cloned().collect()
}

fn diagnose(run: &str) -> Diagnosis {
    analyze_paths(&[corpus(run)], &Options::default()).unwrap()
}

fn tool(name: &str) -> Command {
    let probe = Command::new(name).arg("-v").output();
    assert!(
        probe.is_ok(),
        "`{name}` is missing: install poppler-utils (scripts/setup.sh does)"
    );
    Command::new(name)
}

fn pdf_text(pdf: &Path) -> String {
    let out = tool("pdftotext")
        .args(["-layout", pdf.to_str().unwrap(), "-"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "pdftotext failed on {}",
        pdf.display()
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn every_corpus_run_prints_a_pdf_whose_first_page_alone_says_what_is_wrong_what_to_do_and_what_it_gains(
) {
    // Each run's report is typeset once per language (typesetting is most of this test's
    // time, so the runs are shared among the cores): the English one is read whole and
    // rendered to PNG, both on their first page.
    let runs = runs();
    let lanes = std::thread::available_parallelism().map_or(2, |n| n.get());
    std::thread::scope(|scope| {
        for lane in 0..lanes {
            let runs = &runs;
            scope.spawn(move || {
                for run in runs.iter().skip(lane).step_by(lanes) {
                    prints_both_languages(run);
                }
            });
        }
    });
}

/// `run`'s report in English and Chinese, each checked.
fn prints_both_languages(run: &str) {
    let dir = artifacts();
    let d = diagnose(run);
    for lang in [Language::En, Language::Zh] {
        let o = ReportOptions {
            language: lang,
            ..ReportOptions::default()
        };
        let pdf = checkup_report::pdf(&d, &o).unwrap_or_else(|e| panic!("{run}: {e}"));
        assert!(pdf.starts_with(b"%PDF-"), "{run}");
        let path = match lang {
            Language::En => dir.join(format!("{run}.pdf")),
            Language::Zh => dir.join(format!("{run}-{}.pdf", lang.code())),
        };
        std::fs::write(&path, &pdf).unwrap();
        if lang == Language::En {
            holds_its_verdict_evidence_and_charts(run, &d, &path);
        }
        first_page_says_what_is_wrong_what_to_do_and_what_it_gains(run, &d, lang, &path);
    }
}

/// The whole English PDF holds the verdict, the leading finding's first evidence value and
/// the utilisation chart's caption; its pages are rendered to PNG for people to look at.
fn holds_its_verdict_evidence_and_charts(run: &str, d: &Diagnosis, path: &Path) {
    let text = pdf_text(path);
    assert!(
        text.contains(&format!("Primary bottleneck: {}", d.primary)),
        "{run}: no primary in\n{text}"
    );
    let first = &d.findings[0].evidence[0];
    assert!(
        text.contains(&checkup_report::format_number(first.value)),
        "{run}: evidence value {} ({}) not in the PDF",
        checkup_report::format_number(first.value),
        checkup_text::evidence::label(&first.key, Language::En)
    );
    assert!(
        text.contains("GPU utilisation, SM activity") || d.charts.gpus.is_empty(),
        "{run}: utilisation chart caption missing"
    );
    let status = tool("pdftoppm")
        .args([
            "-r",
            "50",
            "-png",
            path.to_str().unwrap(),
            path.with_extension("").to_str().unwrap(),
        ])
        .status()
        .unwrap();
    assert!(status.success());
}

/// Catalogue text as a page prints it: its code spans in monospace, without backticks.
fn printed(text: &str) -> String {
    checkup_text::spans(text)
        .into_iter()
        .map(|span| match span {
            checkup_text::Span::Text(t) | checkup_text::Span::Code(t) => t,
        })
        .collect()
}

/// Page 1 alone holds the verdict, the headline figures, and every ranked fix with its gain,
/// as the diagnosis has them, in `lang`.
fn first_page_says_what_is_wrong_what_to_do_and_what_it_gains(
    run: &str,
    d: &Diagnosis,
    lang: Language,
    pdf: &Path,
) {
    let out = tool("pdftotext")
        .args(["-layout", "-f", "1", "-l", "1", pdf.to_str().unwrap(), "-"])
        .output()
        .unwrap();
    let page = squeezed(&String::from_utf8(out.stdout).unwrap());
    let mut want = vec![checkup_text::findings::verdict(d, lang)];
    for (label, value) in checkup_text::headline::rows(&d.headline(), d, lang) {
        want.push(label);
        want.push(value);
    }
    for r in d.fixes_by_gain() {
        let title = checkup_text::fixes::text(r.fix, lang).title;
        // Bold that Markdown did not close shows as asterisks (it did in Chinese).
        assert!(
            !page.contains(&format!("**{}", squeezed(&title))),
            "{run} ({}): emphasis left as text",
            lang.code()
        );
        want.push(title);
        want.push(checkup_text::findings::fix_gain(&r.gain, lang));
    }
    for w in want {
        assert!(
            page.contains(&squeezed(&printed(&w))),
            "{run} ({}): page 1 lacks {w:?}",
            lang.code()
        );
    }
}

#[test]
fn the_chinese_report_is_typeset_with_a_cjk_font() {
    let d = diagnose("dataloader_starved");
    let pdf = checkup_report::pdf(
        &d,
        &ReportOptions {
            language: Language::Zh,
            baseline: None,
        },
    )
    .unwrap();
    let path = artifacts().join("dataloader_starved-zh.pdf");
    std::fs::write(&path, &pdf).unwrap();
    let text = pdf_text(&path);
    assert!(text.contains("GPU 体检报告"), "{text}");
    assert!(text.contains("输入管线"), "{text}");
    let fonts = tool("pdffonts")
        .arg(path.to_str().unwrap())
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&fonts.stdout).contains("WenQuanYi"),
        "CJK font embedded"
    );
    tool("pdftoppm")
        .args([
            "-r",
            "50",
            "-png",
            "-f",
            "1",
            "-l",
            "1",
            path.to_str().unwrap(),
            artifacts().join("dataloader_starved-zh").to_str().unwrap(),
        ])
        .status()
        .unwrap();
}

fn html_errors(html: &str) -> Vec<String> {
    use html5ever::tendril::TendrilSink;
    let opts = html5ever::ParseOpts {
        tree_builder: html5ever::tree_builder::TreeBuilderOpts {
            exact_errors: true,
            ..Default::default()
        },
        ..Default::default()
    };
    let dom = html5ever::parse_document(markup5ever_rcdom::RcDom::default(), opts).one(html);
    let errors: Vec<String> = dom.errors.borrow().iter().map(|e| e.to_string()).collect();
    errors
}

#[test]
fn html_reports_parse_without_errors_and_carry_inline_charts() {
    for run in runs() {
        let html = checkup_report::html(&diagnose(&run), &ReportOptions::default());
        let errors = html_errors(&html);
        assert!(errors.is_empty(), "{run}: {errors:?}");
        assert!(html.contains("<svg"), "{run}: charts inline");
        assert!(html.contains("@page"), "print CSS");
        std::fs::write(artifacts().join(format!("{run}.html")), html).unwrap();
    }
}

#[test]
fn code_the_findings_quote_is_printed_as_code_not_backticks() {
    let d = diagnose("probe_curriculum_lm_dynamic");
    let (md, _) = checkup_report::markdown(&d, &ReportOptions::default());
    assert!(
        md.contains("Dynamo compiled `forward` (curriculum\\_lm.py:44) again once; the first failed guard: `tensor 'tokens' size mismatch at index 1. expected 64, actual 128`."),
        "{md}"
    );
    assert!(!md.contains("\\`"), "a backtick escaped as text");
    // In a table cell too: the training facts name the line that collects most.
    assert!(
        md.contains(
            "| 2 over the run; most at curriculum\\_lm.py:67 `logits = compiled(tokens[:, :-1])` |"
        ),
        "{md}"
    );
    let pdf = checkup_report::pdf(&d, &ReportOptions::default()).unwrap();
    let path = artifacts().join("code-spans.pdf");
    std::fs::write(&path, pdf).unwrap();
    let text = pdf_text(&path);
    assert!(
        text.contains("Dynamo compiled forward (curriculum_lm.py:44)"),
        "{text}"
    );
    assert!(!text.contains('`'), "backticks printed");
}

#[test]
fn strings_from_traces_are_shown_as_text_never_markup() {
    let mut d = diagnose("launch_bound");
    let evil = "<script>alert(1)</script> *bold* #eval(\"1\") `tick`";
    d.ranks[0].kernels.top[0].name = evil.into();
    d.findings[0].evidence[0].source = checkup_model::Source::PartnerThroughput {
        partner: evil.into(),
    };
    d.facts.model = Some(evil.into());
    let html = checkup_report::html(&d, &ReportOptions::default());
    assert!(!html.contains("<script>"), "raw script tag leaked");
    assert!(
        html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
        "escaped text shown"
    );
    assert!(html_errors(&html).is_empty());
    let pdf = checkup_report::pdf(&d, &ReportOptions::default()).unwrap();
    let path = artifacts().join("escaping.pdf");
    std::fs::write(&path, pdf).unwrap();
    let text = pdf_text(&path);
    assert!(
        text.contains("<script>alert(1)</script>"),
        "shown literally in the PDF"
    );
    assert!(text.contains("#eval(\"1\")"), "typst code shown, not run");
}

#[test]
fn links_images_and_shell_in_names_stay_text_in_markdown_and_chart_labels() {
    let mut d = diagnose("launch_bound");
    let evil = "[click](javascript:alert(1)) ![x](https://evil.example/p.png) <svg onload=alert(1)> $(rm -rf ~); `id` | & > /dev/null";
    d.ranks[0].kernels.top[0].name = evil.into();
    d.facts.model = Some(evil.into());
    let (md, charts) = checkup_report::markdown(&d, &ReportOptions::default());
    // Read as a Markdown viewer reads it: no link or image but the report's own charts.
    let links: Vec<String> = pulldown_cmark::Parser::new(&md)
        .filter_map(|e| match e {
            pulldown_cmark::Event::Start(pulldown_cmark::Tag::Link { dest_url, .. })
            | pulldown_cmark::Event::Start(pulldown_cmark::Tag::Image { dest_url, .. }) => {
                Some(dest_url.to_string())
            }
            _ => None,
        })
        .collect();
    assert!(
        links
            .iter()
            .all(|l| !l.contains("javascript:") && !l.contains("evil.example")),
        "{links:?}"
    );
    assert!(md.contains("\\[click\\]"), "brackets escaped");
    for c in &charts {
        assert!(
            !c.svg.contains("<svg onload"),
            "{}: raw markup in a chart label",
            c.name
        );
    }
    let html = checkup_report::html(&d, &ReportOptions::default());
    assert!(!html.contains("<svg onload"), "raw markup in the HTML");
    assert!(
        !html.contains("href=\"javascript:"),
        "a live link in the HTML"
    );
    assert!(html_errors(&html).is_empty());
    // The PDF typesets them as text (no typst, Markdown or shell meaning).
    let pdf = checkup_report::pdf(&d, &ReportOptions::default()).unwrap();
    let path = artifacts().join("escaping-links.pdf");
    std::fs::write(&path, pdf).unwrap();
    let text = pdf_text(&path);
    assert!(text.contains("$(rm -rf ~);"), "{text}");
}

#[test]
fn markdown_export_links_charts_written_beside_it() {
    let (md, charts) =
        checkup_report::markdown(&diagnose("ddp_comm_bound"), &ReportOptions::default());
    assert!(charts.len() >= 6, "{}", charts.len());
    for c in &charts {
        assert!(
            md.contains(&format!("(charts/{}.svg)", c.name)),
            "{}",
            c.name
        );
        assert!(c.svg.contains("<svg"), "{}", c.name);
    }
    assert!(charts.iter().any(|c| c.name == ChartId::GpuTimeline));
}

#[test]
fn a_job_of_several_ranks_gets_a_rank_by_step_heatmap_whose_cells_hold_the_traces_values() {
    let d = diagnose("two_node_slow_rank");
    let (md, charts) = checkup_report::markdown(&d, &ReportOptions::default());
    let heat = charts
        .iter()
        .find(|c| c.name == ChartId::RankSteps)
        .expect("a heatmap of four ranks");
    assert!(md.contains("(charts/rank_steps.svg)"));
    // Rank 3's compute in its second profiled step, as the trace measured it.
    let rank3 = d.ranks.iter().find(|r| r.rank == 3).unwrap();
    let cell = checkup_text::fixed(rank3.steps[1].kernel_us / 1e3, 1);
    assert!(heat.svg.contains(&format!(">\n{cell}\n</text>")), "{cell}");
    // The ranks are named with their node in the tables.
    assert!(md.contains("| 3 on vm#1 |"), "{md}");
    let single = checkup_report::markdown(&diagnose("healthy"), &ReportOptions::default()).1;
    assert!(single.iter().all(|c| c.name != ChartId::RankSteps));
}

#[test]
fn the_verdict_of_a_job_of_several_ranks_names_the_rank_it_follows_and_its_host() {
    // A starved rank's cause (its input pipeline) says nothing of which rank it is: the
    // verdict names it, as a printed report is read from its first page.
    let d = diagnose("two_node_starved_rank");
    let verdict = |l| {
        let md = checkup_report::markdown(
            &d,
            &ReportOptions {
                language: l,
                ..ReportOptions::default()
            },
        )
        .0;
        let glance = md
            .find("## ")
            .and_then(|i| md[i + 3..].find("## ").map(|j| i + 3 + j));
        md[..glance.unwrap()].to_owned()
    };
    assert!(
        // Markdown escapes the '#' of the host's label.
        verdict(Language::En)
            .contains(r"Diagnosed rank: 3 on vm\#1 (the slowest; the others wait for it)"),
        "{}",
        verdict(Language::En)
    );
    assert!(
        verdict(Language::Zh).contains(r"诊断的 rank：3（vm\#1）——最慢的一个，其他 rank 在等它")
    );
    let single = checkup_report::markdown(&diagnose("healthy"), &ReportOptions::default()).0;
    assert!(!single.contains("Diagnosed rank"));
}

/// The card a run's recording gives, written to its file and read back, as a later
/// comparison reads it.
fn card_file(run: &str) -> BaselineCard {
    BaselineCard::parse(&BaselineCard::from_diagnosis(&diagnose(run)).to_text()).unwrap()
}

fn change(cmp: &checkup_model::RunComparison, figure: Figure) -> [String; 3] {
    let c = cmp
        .changes
        .iter()
        .find(|c| c.figure == figure)
        .unwrap_or_else(|| panic!("no {figure:?} row in {:?}", cmp.changes));
    checkup_text::comparison::row(c, Language::En)
}

#[test]
fn a_card_read_back_from_its_file_compares_as_the_same_run() {
    // What the probe saw identifies the workload: the model's class and size, the training
    // loader's batch, autocast.
    let card = BaselineCard::from_diagnosis(&diagnose("probe_healthy_loader"));
    assert_eq!(
        (
            card.model.as_str(),
            card.parameters,
            card.batch_size,
            card.precision.as_str(),
            card.world_size
        ),
        (
            "Sequential",
            Some(2_076_426),
            Some(256),
            "bf16-autocast",
            Some(1)
        )
    );
    let parsed = BaselineCard::parse(&card.to_text()).unwrap();
    assert_eq!(
        (
            &parsed.model,
            parsed.parameters,
            parsed.batch_size,
            &parsed.torch
        ),
        (&card.model, card.parameters, card.batch_size, &card.torch)
    );
    let cmp = checkup_report::compare(&card, &parsed);
    assert_eq!(
        checkup_text::comparison::summary(&cmp, Language::En),
        "time per step unchanged (within 5%); no figure regressed"
    );
    assert!(
        cmp.changes.iter().all(|c| !c.differs()),
        "{:?}",
        cmp.changes
    );
}

#[test]
fn an_input_pipeline_on_the_cpu_compared_with_batches_on_the_gpu_names_the_input_pipeline() {
    // The same ResNet-18 at batch 256: its batches resident on the GPU, then decoded from
    // JPEG by 16 workers on the host's 16 cores.
    let base = card_file("resnet18_healthy");
    let now = BaselineCard::from_diagnosis(&diagnose("dataloader_cpu_saturated"));
    let cmp = checkup_report::compare(&now, &base);
    let summary = checkup_text::comparison::summary(&cmp, Language::En);
    assert!(!cmp.different_workloads(), "{summary}");
    assert!(summary.starts_with("time per step +"), "{summary}");
    assert!(
        summary.contains("the input pipeline regressed"),
        "{summary}"
    );
    assert!(
        !summary.contains("stalls"),
        "long steps waiting for batches are the input pipeline's: {summary}"
    );
    let [before, after, _] = change(&cmp, Figure::DataLoadingShare);
    assert_eq!(before, "0%");
    assert!(
        after.trim_end_matches('%').parse::<f64>().unwrap() > 50.0,
        "{after}"
    );
    assert!(cmp.regression_beyond(0.10).is_some());
}

#[test]
fn compare_with_the_same_run_on_a_shared_host_names_the_busy_cpu() {
    let base = card_file("resnet18_healthy");
    let now = BaselineCard::from_diagnosis(&diagnose("resnet18_shared_host"));
    let cmp = checkup_report::compare(&now, &base);
    let summary = checkup_text::comparison::summary(&cmp, Language::En);
    assert!(
        summary.starts_with("time per step +2")
            && summary.contains("host CPU 7.6 % → 99.9 %: the host's CPU is far busier"),
        "{summary}"
    );
    assert_eq!(change(&cmp, Figure::HostCpu)[2], "+92 points");
    let zh = checkup_text::comparison::summary(&cmp, Language::Zh);
    assert!(
        zh.starts_with("每步时间 +2") && zh.contains("主机 CPU 7.6 % → 99.9 %：主机 CPU 忙得多了"),
        "{zh}"
    );
}

#[test]
fn a_run_losing_a_fifth_of_its_time_to_checkpoints_is_slower_than_its_control_though_its_median_step_is_not(
) {
    // The healthy ResNet-50 and the same run saving a checkpoint every 25 steps.
    let base = card_file("healthy");
    let now = BaselineCard::from_diagnosis(&diagnose("checkpoint_stall"));
    let cmp = checkup_report::compare(&now, &base);
    let summary = checkup_text::comparison::summary(&cmp, Language::En);
    assert!(!cmp.different_workloads(), "{summary}");
    assert_eq!(
        change(&cmp, Figure::MedianStepTime),
        ["42.3 ms", "42.0 ms", "-1%"]
    );
    assert_eq!(
        change(&cmp, Figure::TimePerStep),
        ["42.1 ms", "51.9 ms", "+23%"]
    );
    assert_eq!(
        change(&cmp, Figure::StallShare),
        ["0%", "22%", "+22 points"]
    );
    assert_eq!(
        cmp.reasons
            .iter()
            .map(std::mem::discriminant)
            .collect::<Vec<_>>(),
        vec![std::mem::discriminant(&CompareReason::StallsGrew {
            from: None,
            to: None
        })],
        "the stalls alone explain it; the lower power and util follow from them: {summary}"
    );
    assert!(summary.starts_with("time per step +23%, time lost to stalls 0% → 22% of the run"));
    assert_eq!(
        cmp.regression_beyond(0.10).map(|r| (r * 100.0).round()),
        Some(23.0)
    );
    assert_eq!(cmp.regression_beyond(0.25), None);
    let zh = checkup_text::comparison::summary(&cmp, Language::Zh);
    assert!(
        zh.starts_with("每步时间 +23%，卡顿损失的时间 0% → 22%"),
        "{zh}"
    );
}

#[test]
fn a_card_edited_to_more_power_and_faster_steps_names_the_power_the_run_lacks() {
    // The issue's card: 28 ms steps at 690 W, against the same run's 42 ms at ~584 W.
    let text = BaselineCard::from_diagnosis(&diagnose("healthy"))
        .to_text()
        .lines()
        .map(|l| match l.split_once(" = ") {
            Some(("step_mean_ms", _)) => "step_mean_ms = 28".to_owned(),
            Some(("power_busy_w", _)) => "power_busy_w = 690".to_owned(),
            _ => l.to_owned(),
        })
        .collect::<Vec<_>>()
        .join("\n");
    let base = BaselineCard::parse(&text).unwrap();
    let now = BaselineCard::from_diagnosis(&diagnose("healthy"));
    let cmp = checkup_report::compare(&now, &base);
    assert_eq!(
        checkup_text::comparison::summary(&cmp, Language::En),
        "time per step +50%, power while busy 690 W → 584 W at the same clocks and a 700 W \
         limit: the GPU did less work per second while it had work (no cap or throttling held \
         it: look at the current run's findings for what it waited on)"
    );
    assert!(checkup_text::comparison::summary(&cmp, Language::Zh)
        .contains("忙碌时功率 690 W → 584 W，时钟相同、上限 700 W"));
}

#[test]
fn a_lower_power_limit_is_named_as_a_cap_with_the_clocks_it_cost() {
    let base = card_file("healthy");
    let mut now = base.clone();
    now.step_mean_ms = base.step_mean_ms.map(|ms| ms * 1.3);
    now.power_limit_w = Some(450.0);
    now.power_busy_w = Some(440.0);
    now.sm_clock_busy_mhz = Some(1500.0);
    now.throttled_share = Some(0.95);
    now.throttle_reasons = vec!["software power cap".into()];
    let cmp = checkup_report::compare(&now, &base);
    assert_eq!(
        checkup_text::comparison::summary(&cmp, Language::En),
        "time per step +30%, power limit 700 W → 450 W, power while busy 584 W → 440 W: the \
         card is capped lower than the baseline's (`nvidia-smi -q -d POWER` shows the limit; \
         whoever administers the host sets it); SM clock while busy 1980 MHz → 1500 MHz: the \
         GPU computed at a lower clock; throttled 0% → 95% of the busy time (software power \
         cap): the driver held the clocks down"
    );
    // A card whose baseline drew less power than the run does explains no slowdown.
    let cmp = checkup_report::compare(&base, &now);
    assert_eq!(
        checkup_text::comparison::summary(&cmp, Language::En),
        "time per step -23%; no figure regressed"
    );
}

#[test]
fn two_different_models_are_different_workloads_whatever_their_step_times() {
    let base = card_file("probe_healthy_transformer");
    let now = BaselineCard::from_diagnosis(&diagnose("probe_healthy_loader"));
    let cmp = checkup_report::compare(&now, &base);
    let summary = checkup_text::comparison::summary(&cmp, Language::En);
    assert!(cmp.different_workloads(), "{summary}");
    assert!(
        summary.starts_with("different workloads (model TransformerEncoder → "),
        "{summary}"
    );
    assert!(summary.contains("parameters "), "{summary}");
    assert_eq!(cmp.regression_beyond(0.0), None);
    let zh = checkup_text::comparison::summary(&cmp, Language::Zh);
    assert!(
        zh.starts_with("不同的工作负载（模型 TransformerEncoder → "),
        "{zh}"
    );
    // The lab's own names for its models are compared too.
    let cmp = checkup_report::compare(
        &BaselineCard::from_diagnosis(&diagnose("gpt_healthy")),
        &card_file("healthy"),
    );
    assert!(cmp.different_workloads());
}

#[test]
fn a_card_from_before_whole_run_figures_still_compares_on_its_steady_step() {
    let old = "# GPU Checkup baseline card: compare a run with `checkup compare RUN THIS_FILE`\n\
               gpu = NVIDIA H200\ndriver = 580.159.04\ncuda = 13.0\n\
               mean_step_ms_steady = 42.0\nutil_mean_pct = 90\nutil_shape = steady\n\
               power_mean_w = 560\npower_limit_w = 700\npower_shape = steady\n\
               data_loading_share = 0\nprimary = compute_bound\n";
    let base = BaselineCard::parse(old).unwrap();
    let cmp = checkup_report::compare(&BaselineCard::from_diagnosis(&diagnose("healthy")), &base);
    assert_eq!(cmp.step_figure, Figure::MeanStepTime);
    assert_eq!(
        checkup_text::comparison::summary(&cmp, Language::En),
        "step time unchanged (within 5%); no figure regressed"
    );
}

#[test]
fn a_baseline_card_that_is_not_one_is_refused_with_the_line() {
    let err = BaselineCard::parse("gpu = H200\nmean_step_ms_first_20_steady = fast\n")
        .unwrap_err()
        .to_string();
    assert_eq!(
        err,
        "baseline card: line 2: `mean_step_ms_first_20_steady` is not a number: `fast`"
    );
    let err = BaselineCard::parse("batch_size = 12.5\n")
        .unwrap_err()
        .to_string();
    assert_eq!(
        err,
        "baseline card: line 1: `batch_size` must be a whole number, not `12.5`"
    );
}

#[test]
fn a_driver_upgrade_is_called_an_environment_change() {
    let base = BaselineCard::from_diagnosis(&diagnose("healthy"));
    let mut now = base.clone();
    now.driver = "590.10".into();
    let cmp = checkup_report::compare(&now, &base);
    assert_eq!(
        checkup_text::comparison::summary(&cmp, Language::En),
        "time per step unchanged (within 5%), the environment changed (driver 580.159.04 → 590.10)"
    );
}

/// Runs of English words in `md` outside code (fenced blocks and backticks): what a Chinese
/// reader would find untranslated. Identifiers (`num_workers`, `steps.csv`), units and
/// names of tools or kernels stay as they are and are not words here.
fn english_runs(md: &str) -> Vec<String> {
    let mut prose = String::new();
    let mut fenced = false;
    for line in md.lines() {
        if line.starts_with("```") || line.starts_with("~~~") {
            fenced = !fenced;
            continue;
        }
        if !fenced {
            // Inline code is an identifier.
            let mut inside = false;
            for part in line.split('`') {
                if !inside {
                    prose.push_str(part);
                }
                inside = !inside;
            }
            prose.push('\n');
        }
    }
    let is_word = |w: &str| {
        w.len() >= 2
            && w.chars()
                .all(|c| c.is_ascii_alphabetic() || c == '\'' || c == '-')
            && w.chars().any(|c| c.is_ascii_lowercase())
    };
    let mut runs = Vec::new();
    // A run is unbroken by any Chinese text: technical words inside a Chinese sentence
    // (`epoch`, `worker`, `LayerNorm`) are the sentence's own.
    for line in prose.split(|c: char| c == '\n' || !c.is_ascii()) {
        let mut run: Vec<&str> = Vec::new();
        for token in line.split(|c: char| {
            !(c.is_ascii_alphanumeric() || c == '\'' || c == '-' || c == '_' || c == '.')
        }) {
            // Identifiers with dots or underscores, and numbers, end a run without being words.
            if is_word(token) {
                run.push(token);
            } else if !token.is_empty() || run.len() >= 4 {
                if run.len() >= 4 {
                    runs.push(run.join(" "));
                }
                run.clear();
            }
        }
        if run.len() >= 4 {
            runs.push(run.join(" "));
        }
    }
    runs
}

#[test]
fn the_chinese_report_of_every_corpus_run_has_no_english_sentence() {
    let zh = ReportOptions {
        language: Language::Zh,
        baseline: None,
    };
    let mut found = Vec::new();
    for run in runs() {
        let d = diagnose(&run);
        let (md, _) = checkup_report::markdown(&d, &zh);
        // What the recording itself says (its model's description) is quoted as it is.
        let md = match &d.facts.model {
            Some(model) => md.replace(&checkup_report::escape(model), ""),
            None => md,
        };
        for r in english_runs(&md) {
            found.push(format!("{run}: {r}"));
        }
        // The English one is English (the check itself finds sentences).
        let (en, _) = checkup_report::markdown(&d, &ReportOptions::default());
        assert!(english_runs(&en).len() > 10, "{run}");
    }
    assert!(
        found.is_empty(),
        "English left in Chinese reports:\n{}",
        found.join("\n")
    );
}

#[test]
fn what_to_do_first_is_the_engines_ranking_with_each_gain_in_both_languages() {
    let d = diagnose("probe_loader_short_epoch");
    let plan = d.fixes_by_gain();
    assert!(plan.len() >= 2, "{plan:?}");
    for lang in [Language::En, Language::Zh] {
        let o = ReportOptions {
            language: lang,
            ..ReportOptions::default()
        };
        let (md, _) = checkup_report::markdown(&d, &o);
        let t = checkup_text::report::text(lang);
        let section = md
            .split(&format!("## {}\n", t.fixes_by_gain))
            .nth(1)
            .expect("the section")
            .split("\n## ")
            .next()
            .unwrap();
        // The list sits above the run facts, numbered in the engine's order, each line with
        // its fix and the gain the recording gives it.
        assert!(md.find(t.fixes_by_gain) < md.find(&format!("## {}\n", t.run)));
        let items: Vec<&str> = section
            .lines()
            .filter(|l| l.chars().next().is_some_and(|c| c.is_ascii_digit()))
            .collect();
        assert_eq!(items.len(), plan.len(), "{section}");
        for (k, (item, r)) in items.iter().zip(&plan).enumerate() {
            let title = checkup_text::fixes::text(r.fix, lang).title;
            let gain = checkup_text::findings::fix_gain(&r.gain, lang);
            assert!(item.starts_with(&format!("{}. ", k + 1)), "{item}");
            assert!(item.contains(&checkup_report::escape(&title)), "{item}");
            assert!(item.contains(&checkup_report::escape(&gain)), "{item}");
        }
    }
}

/// Text without its whitespace, so a phrase the PDF wraps over two lines still matches.
fn squeezed(text: &str) -> String {
    text.chars().filter(|c| !c.is_whitespace()).collect()
}

#[test]
fn no_markdown_emphasis_marks_are_left_in_the_printed_text() {
    for run in ["dataloader_cpu_saturated", "probe_loader_short_epoch"] {
        let d = diagnose(run);
        for lang in [Language::En, Language::Zh] {
            let o = ReportOptions {
                language: lang,
                ..ReportOptions::default()
            };
            let pdf = artifacts().join(format!("emphasis-{run}-{}.pdf", lang.code()));
            std::fs::write(&pdf, checkup_report::pdf(&d, &o).unwrap()).unwrap();
            let text = pdf_text(&pdf);
            assert!(!text.contains("**"), "{run} ({}): {text}", lang.code());
        }
    }
}

/// The table rows (`| \`name\` | …`) under `heading`, up to the next heading.
fn rows_under<'a>(md: &'a str, heading: &str) -> Vec<&'a str> {
    md.split(heading)
        .nth(1)
        .unwrap_or_else(|| panic!("no {heading:?}"))
        .split("\n## ")
        .next()
        .unwrap()
        .lines()
        .filter(|line| line.starts_with("| `"))
        .collect()
}

/// The share-of-kernel-time column of `rows`, in percent.
fn shares(rows: &[&str]) -> Vec<f64> {
    rows.iter()
        .map(|row| {
            row.split('|')
                .nth(5)
                .unwrap()
                .trim()
                .trim_end_matches('%')
                .parse()
                .unwrap()
        })
        .collect()
}

#[test]
fn the_kernel_and_operator_tables_list_what_the_gpu_spent_its_profiled_steps_on() {
    let d = diagnose("memory_bound");
    let k = &d.ranks[0].kernels;
    let steps = k.kernels as f64 / k.per_step;
    for (l, kernels, operators) in [
        (
            Language::En,
            "## Kernels by GPU time",
            "## Operators by GPU time",
        ),
        (
            Language::Zh,
            "## 按 GPU 时间排列的 kernel",
            "## 按 GPU 时间排列的算子",
        ),
    ] {
        let (md, _) = checkup_report::markdown(
            &d,
            &ReportOptions {
                language: l,
                baseline: None,
            },
        );
        let table = rows_under(&md, kernels);
        assert_eq!(table.len(), k.top.len().min(10), "{table:?}");
        // The first row is the kernel that took most time, named by its function, with its
        // calls per step and its share of all kernel time as the diagnosis measured them.
        let first = &k.top[0];
        let cells: Vec<&str> = table[0].split('|').map(str::trim).collect();
        assert_eq!(
            cells[1].trim_matches('`'),
            checkup_report::short_kernel_name(&first.name)
        );
        assert_eq!(cells[1], "`elementwise_kernel · MulFunctor`");
        assert_eq!(
            cells[2],
            checkup_report::format_number(first.count as f64 / steps)
        );
        let share: f64 = cells[5].trim_end_matches('%').parse().unwrap();
        assert!(
            (share - first.total_us / k.kernel_time_us * 100.0).abs() < 0.05,
            "{share}"
        );
        // Shares fall down the table and add up to no more than all the kernel time.
        let s = shares(&table);
        assert!(s.windows(2).all(|w| w[0] >= w[1]), "{s:?}");
        assert!(s.iter().sum::<f64>() <= 100.05, "{s:?}");

        // The operators: aten::mul launched both multiply kernels above (12 + 6 a step), so
        // it leads with their time together, 18 calls a step.
        let table = rows_under(&md, operators);
        assert_eq!(table.len(), k.top_operators.len(), "{table:?}");
        let cells: Vec<&str> = table[0].split('|').map(str::trim).collect();
        assert_eq!((cells[1], cells[2]), ("`aten::mul`", "18"), "{table:?}");
        let mul = &k.top_operators[0];
        let share: f64 = cells[5].trim_end_matches('%').parse().unwrap();
        assert!(
            (share - mul.total_us / k.kernel_time_us * 100.0).abs() < 0.05,
            "{share}"
        );
        let s = shares(&table);
        assert!(s.windows(2).all(|w| w[0] >= w[1]), "{s:?}");
        assert!(s.iter().sum::<f64>() <= 100.05, "{s:?}");
    }
}

#[test]
fn a_zoomed_time_chart_spans_its_window_with_the_points_inside_it() {
    let d = diagnose("memory_bound");
    let t = checkup_text::report::text(Language::En);
    let whole = checkup_report::charts(&d, t)
        .into_iter()
        .find(|c| c.name == ChartId::Utilisation)
        .unwrap();
    let h = whole.hover.unwrap();
    assert_eq!(h.t0, 0.0);
    let (from, to) = (h.t1 * 0.25, h.t1 * 0.5);
    let z = checkup_report::time_chart_window(&d, t, ChartId::Utilisation, from, to).unwrap();
    let zh = z.hover.unwrap();
    assert_eq!((zh.t0, zh.t1), (from, to));
    assert_eq!(zh.left, h.left);
    for s in &zh.series {
        // The limit line spans the window; every sampled curve lies inside it.
        assert!(
            s.points.iter().all(|(x, _)| (from..=to).contains(x)),
            "{}",
            s.label
        );
    }
    assert!(zh.series[0].points.len() > 10);
    assert_ne!(z.svg, whole.svg);
    // Not a chart over time, or an empty span: nothing to zoom.
    assert!(checkup_report::time_chart_window(&d, t, ChartId::StepTimes, from, to).is_none());
    assert!(checkup_report::time_chart_window(&d, t, ChartId::Utilisation, to, from).is_none());
}

/// The samples of `run` up to `seconds` after its first, as a sampling in progress has them.
fn samples_until(run: &str, seconds: f64) -> checkup_model::SampleSet {
    let rec = checkup_engine::ingest::load(&[corpus(run)]).unwrap();
    let s = rec.samples;
    let t0 = s.nvml.iter().map(|x| x.ts).fold(f64::INFINITY, f64::min);
    let end = t0 + seconds;
    checkup_model::SampleSet {
        nvml: s.nvml.into_iter().filter(|x| x.ts <= end).collect(),
        gpm: s.gpm.into_iter().filter(|x| x.ts <= end).collect(),
        host: s.host.into_iter().filter(|x| x.ts <= end).collect(),
    }
}

/// A live frame as the app draws one: the curves of the last minute, marks from a full analysis.
fn live_frame(samples: &checkup_model::SampleSet) -> (Vec<checkup_report::Chart>, usize) {
    let rec = checkup_engine::ingest::Recording {
        samples: samples.clone(),
        ..Default::default()
    };
    let mut d = checkup_engine::diagnose_recording(rec, None, &Default::default());
    let steady = d
        .charts
        .steady
        .map(|(a, b)| (a + d.charts.t0, b + d.charts.t0));
    d.charts = checkup_engine::analysis::charts::live_chart_data(samples, steady, 60.0);
    let kept = d.charts.gpus[0].t.len();
    (
        checkup_report::live_charts(&d, checkup_text::report::text(Language::En), 60.0),
        kept,
    )
}

#[test]
fn live_curves_fill_the_first_minute_then_scroll_with_the_last_one() {
    let (early, _) = live_frame(&samples_until("agent_dataloader_starved", 30.0));
    let names: Vec<ChartId> = early.iter().map(|c| c.name).collect();
    assert_eq!(
        names,
        [
            ChartId::Utilisation,
            ChartId::Power,
            ChartId::SmClock,
            ChartId::GpuMemory,
            ChartId::Temperature,
            ChartId::Links,
            ChartId::HostCpu,
        ]
    );
    let h = early[0].hover.as_ref().unwrap();
    assert_eq!((h.t0, h.t1), (0.0, 60.0));
    let last = h.series[0].points.last().unwrap().0;
    assert!((29.0..=30.0).contains(&last), "{last}");

    let (later, kept) = live_frame(&samples_until("agent_dataloader_starved", 75.0));
    let h = later[0].hover.as_ref().unwrap();
    assert!(
        (h.t1 - h.t0 - 60.0).abs() < 1e-9 && (74.0..=75.0).contains(&h.t1),
        "{h:?}"
    );
    assert!(h.series[0]
        .points
        .iter()
        .all(|(x, _)| (h.t0..=h.t1).contains(x)));
    // The minute shown keeps every one of its 10 Hz samples, not a share of the whole run's.
    assert!((595..=601).contains(&kept), "{kept}");
}

/// Names someone else's machine may hand over: each is placed where recordings put names
/// (a file read, a kernel, an operator, the model, a setting) and must stay text.
const HOSTILE_NAMES: &[&str] = &[
    // A blank line ends the paragraph a code span or text is in; what follows would be
    // Markdown of its own.
    "evil\n\n[click me](javascript:alert(1)) ![x](https:example.invalid)\n\n",
    "<img src=x onerror=alert(1)> <b>bold</b> <script>alert(2)</script>",
    "#set page(width: 1cm) #eval(\"panic()\") $x^2$ @ref <label> \\ ] [",
    "\u{202E}gnp.exe.json \u{2066}isolated\u{2069} \u{200B}zero\u{FEFF}",
    "`` ` `` | cell | ``` fence ~~~ ",
    "\u{1b}[31mred\u{1b}[0m \u{7} \u{1b}]0;title\u{7}",
];

fn with_hostile_names(d: &mut Diagnosis, name: &str) {
    d.sources = vec![format!("run/{name}.json.gz"), "run/steps.csv".into()];
    d.ranks[0].kernels.top[0].name = name.into();
    if let Some(op) = d.ranks[0].kernels.top_operators.first_mut() {
        op.name = name.into();
    }
    d.facts.model = Some(name.into());
    d.facts.env.insert("HOSTILE".into(), Some(name.into()));
}

#[test]
fn hostile_names_and_4kb_names_stay_text_in_markdown_html_and_pdf() {
    let long = format!("{}.trace.json", "a".repeat(4096));
    let names: Vec<&str> = HOSTILE_NAMES
        .iter()
        .copied()
        .chain([long.as_str()])
        .collect();
    for (i, name) in names.iter().enumerate() {
        let mut d = diagnose("launch_bound");
        with_hostile_names(&mut d, name);
        let (md, charts) = checkup_report::markdown(&d, &ReportOptions::default());
        // Read as a Markdown viewer reads it: the report's charts are its only images and it
        // links nowhere.
        for e in pulldown_cmark::Parser::new_ext(&md, pulldown_cmark::Options::ENABLE_TABLES) {
            match e {
                pulldown_cmark::Event::Start(pulldown_cmark::Tag::Image { dest_url, .. }) => {
                    assert!(
                        charts
                            .iter()
                            .any(|c| *dest_url == format!("charts/{}.svg", c.name)),
                        "name {i}: image {dest_url}"
                    )
                }
                pulldown_cmark::Event::Start(pulldown_cmark::Tag::Link { dest_url, .. }) => {
                    panic!("name {i}: link {dest_url}")
                }
                pulldown_cmark::Event::Html(h) | pulldown_cmark::Event::InlineHtml(h) => {
                    // Raw HTML is escaped in the HTML export, but the Markdown itself should
                    // hold none from a name.
                    panic!("name {i}: raw HTML {h}")
                }
                _ => {}
            }
        }
        for hidden in [
            '\u{202E}', '\u{2066}', '\u{200B}', '\u{FEFF}', '\u{1b}', '\u{7}',
        ] {
            assert!(!md.contains(hidden), "name {i}: {hidden:?} in the Markdown");
        }
        let html = checkup_report::html(&d, &ReportOptions::default());
        for live in ["href=", "<img", "<b>", "<script", "onerror=alert"] {
            assert!(
                !html.contains(live) || live == "onerror=alert" && !html.contains("<img"),
                "name {i}: {live} in the HTML"
            );
        }
        assert!(!html.contains('\u{202E}'), "name {i}");
        assert!(html_errors(&html).is_empty(), "name {i}");
        // The PDF typesets every one (an image a name asked for used to stop it).
        let pdf = checkup_report::pdf(&d, &ReportOptions::default())
            .unwrap_or_else(|e| panic!("name {i}: {e}"));
        let path = artifacts().join(format!("hostile-name-{i}.pdf"));
        std::fs::write(&path, pdf).unwrap();
        let text = pdf_text(&path);
        assert!(!text.contains('\u{202E}'), "name {i}");
        if i == 3 {
            assert!(text.contains("<U+202E>gnp.exe.json"), "{text}");
        }
        if i == 0 {
            assert!(text.contains("[click me](javascript:alert(1))"), "{text}");
        }
    }
}
