//! The entry point: the `knoblab` CLI natively, the page on wasm32.

#[cfg(target_arch = "wasm32")]
fn main() {
    knoblab::ui::start();
}

/// The page's allocator (the page and its workers run this binary's
/// module): blocks of up to a kilobyte by size class (`knoblab::heap`) in
/// front of talc, which serves the rest and replaced the Rust standard
/// library's dlmalloc port; both for the many small values of a Score
/// worker's half of an EPIC-Bench set (README, "Scoring in the page").
#[cfg(target_arch = "wasm32")]
#[global_allocator]
static ALLOCATOR: knoblab::heap::SizeClasses<talc::wasm::WasmDynamicTalc> =
    knoblab::heap::SizeClasses::new(talc::wasm::new_wasm_dynamic_allocator());

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
