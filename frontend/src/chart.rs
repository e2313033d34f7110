//! One chart as the backend drew it (the report's SVG), with what a pointer does on a time
//! chart: hovering shows a cursor line and, beside it, the time and each curve's value there
//! (from the chart's own data, `ChartHover`); dragging across a stored checkup's chart draws
//! it again for the seconds dragged over, and *Whole run* goes back.

use checkup_model::commands as cmd;
use checkup_model::{ChartId, ChartSvg, UiWord};
use checkup_text::format_number;
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::i18n::tr;
use crate::ipc::call;
use crate::Ui;

/// A drag shorter than this (CSS pixels) is a click, not a zoom.
const MIN_DRAG_PX: f64 = 6.0;

/// A stored checkup's chart (`checkup`: the checkup it belongs to, which makes it zoomable)
/// or a recording's.
pub fn view(ui: Ui, chart: ChartSvg, checkup: Option<i64>) -> impl IntoView {
    drawn(ui, RwSignal::new(chart), checkup)
}

/// The live chart `name` of the sampling in progress, redrawn with every frame the backend
/// sends (ten a second) in place: the pointer's cursor and values stay and follow the curves.
/// Not zoomable: it scrolls.
pub fn live(ui: Ui, name: ChartId) -> impl IntoView {
    let latest = move || {
        ui.live
            .with(|p| p.as_ref()?.charts.iter().find(|c| c.name == name).cloned())
    };
    // Untracked here: a tracked read would make the chart anew with every frame.
    let shown = RwSignal::new(untrack(latest).unwrap_or_else(|| ChartSvg {
        name,
        title: String::new(),
        svg: String::new(),
        hover: None,
    }));
    Effect::new(move |_| {
        if let Some(c) = latest() {
            shown.set(c);
        }
    });
    drawn(ui, shown, None)
}

/// The chart `shown` now, with the pointer's cursor and values and, for a stored checkup's
/// chart, drag to zoom.
fn drawn(ui: Ui, shown: RwSignal<ChartSvg>, checkup: Option<i64>) -> impl IntoView {
    let (chart, title, readable, whole) =
        shown.with_untracked(|c| (c.name, c.title.clone(), c.hover.is_some(), c.clone()));
    let zoomed = RwSignal::new(false);
    // The pointer's x in CSS pixels from the chart's left edge and the overlay's width.
    let pointer: RwSignal<Option<(f64, f64)>> = RwSignal::new(None);
    // Where a drag began, and where it is now (CSS pixels).
    let drag: RwSignal<Option<(f64, f64)>> = RwSignal::new(None);
    let overlay = NodeRef::<leptos::html::Div>::new();
    let tip_id = format!("chart-tip-{chart}");
    let reset_id = format!("zoom-reset-{chart}");
    // The overlay's width in CSS pixels, as drawn now.
    let overlay_width = move || overlay.get_untracked().map(|d| f64::from(d.client_width()));
    // Seconds at `x` CSS pixels from the left of a chart `width` pixels wide, if inside the plot.
    let time_at = move |x: f64, width: f64| -> Option<f64> {
        shown.with_untracked(|c| {
            let h = c.hover.as_ref()?;
            (width > 0.0)
                .then(|| h.time_at(x / width * h.width))
                .flatten()
        })
    };
    let on_move = move |ev: leptos::ev::MouseEvent| {
        let x = f64::from(ev.offset_x());
        if let Some((from, _)) = drag.get_untracked() {
            drag.set(Some((from, x)));
        }
        pointer.set(overlay_width().map(|width| (x, width)));
    };
    // The time and each curve's value under the pointer, in the chart as shown now (a live
    // chart moves under a still pointer); none outside the plot.
    let lines_at = move |x: f64, width: f64| -> Option<Vec<String>> {
        shown.track();
        let t = time_at(x, width)?;
        let l = ui.l();
        shown.with_untracked(|c| {
            let h = c.hover.as_ref()?;
            let mut lines = vec![checkup_text::ui::hover_time(l, &format_number(t))];
            lines.extend(h.values_at(t).into_iter().map(|(label, _, v)| {
                checkup_text::ui::hover_value(l, label, &format_number(v), &h.unit)
            }));
            Some(lines)
        })
    };
    let on_down = move |ev: leptos::ev::MouseEvent| {
        if checkup.is_some() {
            let x = f64::from(ev.offset_x());
            drag.set(Some((x, x)));
        }
    };
    let on_up = move |_: leptos::ev::MouseEvent| {
        let Some((a, b)) = drag.get_untracked() else {
            return;
        };
        drag.set(None);
        let (Some(id), true) = (checkup, (a - b).abs() >= MIN_DRAG_PX) else {
            return;
        };
        let Some(width) = overlay_width() else { return };
        let (Some(ta), Some(tb)) = (time_at(a.min(b), width), time_at(a.max(b), width)) else {
            return;
        };
        let lang = ui.lang.get_untracked();
        spawn_local(async move {
            match call(cmd::ZoomChart {
                id,
                name: chart,
                from: ta,
                to: tb,
                lang,
            })
            .await
            {
                Ok(Some(c)) => {
                    pointer.set(None);
                    shown.set(c);
                    zoomed.set(true);
                }
                Ok(None) => {}
                Err(e) => ui.fail(e),
            }
        });
    };
    let reset = move |_| {
        shown.set(whole.clone());
        zoomed.set(false);
        pointer.set(None);
    };
    view! {
        // The chart draws its own title; a caption would repeat it.
        <figure class="chart" data-chart=chart.file_stem() aria-label=title>
            <div class="chart-body">
                <div inner_html=move || shown.with(|c| c.svg.clone())></div>
                {readable.then(|| view! {
                    <div class="chart-overlay" class:zoomable=checkup.is_some() node_ref=overlay
                        on:mousemove=on_move on:mousedown=on_down on:mouseup=on_up
                        on:mouseleave=move |_| { pointer.set(None); drag.set(None); }></div>
                })}
                {move || drag.get().filter(|(a, b)| (a - b).abs() >= MIN_DRAG_PX).map(|(a, b)| view! {
                    <div class="chart-drag" style=format!("left:{:.0}px;width:{:.0}px", a.min(b), (a - b).abs())></div>
                })}
                // The cursor and its box are made when the pointer moves (inside the plot);
                // the lines in the box follow the chart as it is drawn again.
                {move || pointer.get().filter(|(x, width)| time_at(*x, *width).is_some()).map(|(x, width)| {
                    // The values sit on the side of the cursor with more room.
                    let side = if x > width / 2.0 {
                        format!("right:{:.0}px", width - x + 10.0)
                    } else {
                        format!("left:{:.0}px", x + 10.0)
                    };
                    view! {
                        <div class="chart-cursor" style=format!("left:{x:.0}px")></div>
                        <div class="chart-tip" id=tip_id.clone() style=side>
                            {move || lines_at(x, width).unwrap_or_default().into_iter().map(|line| view! { <div>{line}</div> }).collect_view()}
                        </div>
                    }
                })}
            </div>
            <Show when=move || zoomed.get()>
                <button class="zoom-reset" id=reset_id.clone() on:click=reset.clone()>{move || tr(ui.l(), UiWord::ZoomReset)}</button>
            </Show>
            {(readable && checkup.is_some()).then(|| view! { <p class="meta chart-help">{move || tr(ui.l(), UiWord::ZoomHelp)}</p> })}
        </figure>
    }
}
