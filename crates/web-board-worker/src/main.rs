//! The Leaderboard page's worker module (`knoblab-board-worker_bg.wasm`): its
//! library's entries ([`knoblab_board_worker`]) with the page's allocator.

// The library's `#[wasm_bindgen]` entries are this binary's exports.
#[cfg(target_arch = "wasm32")]
use knoblab_board_worker as _;

/// Nothing runs at start: the worker's script calls the entries.
fn main() {}

/// The module's allocator, the page's ([`knoblab_web_heap`]): blocks of up
/// to a kilobyte by size class in front of talc, for the many small values
/// of a leaderboard's runs (docs/performance.md).
#[cfg(target_arch = "wasm32")]
#[global_allocator]
static ALLOCATOR: knoblab_web_heap::SizeClasses<talc::wasm::WasmDynamicTalc> =
    knoblab_web_heap::SizeClasses::new(talc::wasm::new_wasm_dynamic_allocator());
