//! The device worker's module (`knoblab-device-worker_bg.wasm`): its
//! library's entries ([`knoblab_device_worker`]) with the page's allocator.

// The library's `#[wasm_bindgen]` entries are this binary's exports.
#[cfg(target_arch = "wasm32")]
use knoblab_device_worker as _;

/// Nothing runs at start: the worker's script calls the entries.
fn main() {}

/// The module's allocator, the page's ([`knoblab_web_heap`]).
#[cfg(target_arch = "wasm32")]
#[global_allocator]
static ALLOCATOR: knoblab_web_heap::SizeClasses<talc::wasm::WasmDynamicTalc> =
    knoblab_web_heap::SizeClasses::new(talc::wasm::new_wasm_dynamic_allocator());
