//! The bridge to the Tauri backend: its commands, and the events it sends on its own.

use checkup_model::{CheckupsChanged, Command, Event, LiveProgress, UiError};
use serde::Serialize;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = ["window", "__TAURI__", "core"], catch)]
    async fn invoke(cmd: &str, args: JsValue) -> Result<JsValue, JsValue>;

    #[wasm_bindgen(js_namespace = ["window", "__TAURI__", "event"], catch)]
    async fn listen(event: &str, handler: &Closure<dyn FnMut(JsValue)>)
        -> Result<JsValue, JsValue>;
}

/// The one way the UI calls the shell: `C` is the command's arguments (a
/// `checkup_model::commands` type), its answer comes back typed, errors as the backend's
/// [`UiError`]. The shell's command takes them as its `args` parameter.
pub async fn call<C: Command>(args: C) -> Result<C::Answer, UiError> {
    #[derive(Serialize)]
    struct Wrapped<A> {
        args: A,
    }
    let args = Wrapped { args }
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(|e| UiError::plain(e.to_string()))?;
    let value = invoke(C::NAME, args).await.map_err(|e| {
        serde_wasm_bindgen::from_value::<UiError>(e.clone())
            .unwrap_or_else(|_| UiError::plain(e.as_string().unwrap_or_else(|| format!("{e:?}"))))
    })?;
    serde_wasm_bindgen::from_value(value).map_err(|e| UiError::plain(e.to_string()))
}

/// Calls `f` with every `live-progress` event for the life of the page.
pub fn on_live_progress(f: impl Fn(LiveProgress) + 'static) {
    wasm_bindgen_futures::spawn_local(on_event(f));
}

/// Calls `f` with every `fleet-progress` event (a fleet watch) for the life of the page.
pub fn on_fleet_progress(f: impl Fn(checkup_model::FleetProgress) + 'static) {
    wasm_bindgen_futures::spawn_local(on_event(f));
}

/// Calls `f` whenever the backend changed the list of checkups by itself (the demo import);
/// returns once listening, so a list read afterwards misses no change.
pub async fn on_checkups_changed(f: impl Fn() + 'static) {
    on_event(move |CheckupsChanged| f()).await;
}

/// Calls `f` with the payload of every event `T` for the life of the page, from when the
/// returned future completes.
async fn on_event<T: Event + 'static>(f: impl Fn(T) + 'static) {
    let handler = Closure::<dyn FnMut(JsValue)>::new(move |e: JsValue| {
        let payload = js_sys::Reflect::get(&e, &"payload".into()).unwrap_or(JsValue::NULL);
        if let Ok(p) = serde_wasm_bindgen::from_value::<T>(payload) {
            f(p);
        }
    });
    let _ = listen(T::NAME, &handler).await;
    // The listener lives as long as the page.
    handler.forget();
}
