//! The entry point: the `knoblab` CLI natively, the page on wasm32.

#[cfg(target_arch = "wasm32")]
fn main() {
    knoblab::ui::start();
}

/// The page's allocator (the page and its workers run this binary's
/// module): talc, in place of the Rust standard library's dlmalloc port,
/// which took about a tenth of a Score worker's half of the synthetic EPIC
/// set in many small allocations (README, "Scoring in the page").
#[cfg(target_arch = "wasm32")]
#[global_allocator]
static ALLOCATOR: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

/// The CLI's allocator: scoring and batch work make many small values, which
/// mimalloc serves in a fraction of the system allocator's time (README,
/// "EPIC-Bench"). The library leaves the choice to whoever links it.
#[cfg(all(not(target_arch = "wasm32"), feature = "cli"))]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[cfg(all(not(target_arch = "wasm32"), feature = "cli"))]
fn main() -> std::process::ExitCode {
    knoblab::cli::main()
}
