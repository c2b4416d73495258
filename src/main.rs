//! The page's entry point (wasm32): the allocator, then [`knoblab_page::start`].

#[cfg(target_arch = "wasm32")]
fn main() {
    knoblab_page::start();
}

/// Nothing to run natively: the page is a wasm32 build (Trunk).
#[cfg(not(target_arch = "wasm32"))]
fn main() {}

/// The page's allocator (its workers run the same module): blocks of up
/// to a kilobyte by size class ([`knoblab_web_heap`]) in front of talc,
/// which serves the rest and replaced the Rust standard library's dlmalloc
/// port (docs/performance.md).
#[cfg(target_arch = "wasm32")]
#[global_allocator]
static ALLOCATOR: knoblab_web_heap::SizeClasses<talc::wasm::WasmDynamicTalc> =
    knoblab_web_heap::SizeClasses::new(talc::wasm::new_wasm_dynamic_allocator());
