//! The `knoblab` binary: its allocator and [`knoblab_cli::main`].

/// The CLI's allocator: scoring and batch work make many small values, which
/// mimalloc serves in a fraction of the system allocator's time
/// (docs/performance.md). The library crates leave the choice to whoever links them.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    knoblab_cli::main()
}
