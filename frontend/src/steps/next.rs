//! The foot of every step: the steps it leads to, the usual one first, so a finished step
//! always says where to go on.

use checkup_model::WizardStep;
use leptos::prelude::*;

use crate::Ui;

pub fn view(ui: Ui, step: WizardStep) -> impl IntoView {
    let offered = step.next_offered();
    (!offered.is_empty()).then(|| {
        view! {
            <div class="next-step" id="next-step">
                {offered.iter().enumerate().map(|(i, &next)| view! {
                    <button id=format!("next-{}", next.key()) class:primary=i == 0 on:click=move |_| ui.go_by_user(next)>
                        {move || checkup_text::ui::next_step(ui.l(), next)}
                    </button>
                }).collect_view()}
            </div>
        }
    })
}
