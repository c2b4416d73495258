//! # knoblab-web-heap
//!
//! The heap of the page's module (which its workers run too): small
//! blocks by size class in front of a general allocator. A crate of its
//! own, tested natively, so that it depends on nothing of the page.
//!
//! A Score worker makes millions of small values (masks' runs, parsed
//! replies, strings) and frees most of them soon after. Talc, the page's
//! general allocator, spent 82-98 ms of each worker's half of the
//! synthetic EPIC-Bench set in allocating and freeing (a sampling profile
//! in Chromium, docs/performance.md, "EPIC-Bench in the page"). Here a block of up to
//! [`SMALL_MAX`] bytes comes from a free list of its size class (sizes
//! rounded up to 16 bytes), and a freed one goes back on it: a push and a
//! pop. The lists are filled from chunks of [`CHUNK`] bytes taken from the
//! general allocator, which serves everything larger, or aligned to more
//! than 16 bytes, itself.
//!
//! A small block is never given back to the general allocator: a class
//! keeps what it held at its peak, for the next values of its size. In a
//! worker that scores a job and is then dropped, that is what is wanted;
//! in the page's main thread the classes stay as large as the largest
//! moment of each.
//!
//! Not thread-safe: [`SizeClasses`] is `Sync` only on wasm32 without
//! atomics, where a module's memory is never shared between threads (the
//! page's workers each have their own instance). Its tests drive it
//! natively from one thread over the system allocator.

use std::alloc::{GlobalAlloc, Layout};
use std::cell::UnsafeCell;
use std::ptr;

/// The largest block served from a size class, in bytes.
pub const SMALL_MAX: usize = 1024;

/// The step between size classes, and the alignment every small block has.
const STEP: usize = 16;

/// How many size classes there are: 16, 32, ... [`SMALL_MAX`] bytes.
const CLASSES: usize = SMALL_MAX / STEP;

/// The bytes taken from the general allocator at a time to carve small
/// blocks from.
pub const CHUNK: usize = 64 * 1024;

/// A general allocator with size classes in front of it.
pub struct SizeClasses<A> {
    inner: A,
    state: UnsafeCell<State>,
}

/// The free lists and the chunk being carved.
struct State {
    /// Per class, the first free block; each free block's first word is the
    /// next one's address (null at the end).
    free: [*mut u8; CLASSES],
    /// Where the next fresh block of the current chunk starts.
    next: *mut u8,
    /// The current chunk's end.
    end: *mut u8,
}

// SAFETY: a wasm32 module without atomics runs on one thread; its memory
// is never shared, so no two calls ever run at once.
#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
unsafe impl<A: Sync> Sync for SizeClasses<A> {}

impl<A> SizeClasses<A> {
    /// Size classes in front of `inner`.
    pub const fn new(inner: A) -> Self {
        SizeClasses {
            inner,
            state: UnsafeCell::new(State {
                free: [ptr::null_mut(); CLASSES],
                next: ptr::null_mut(),
                end: ptr::null_mut(),
            }),
        }
    }
}

/// The class of a layout, `None` for one the general allocator serves.
#[inline]
fn class_of(layout: Layout) -> Option<usize> {
    (layout.size() <= SMALL_MAX && layout.align() <= STEP)
        .then(|| layout.size().max(1).div_ceil(STEP) - 1)
}

impl<A: GlobalAlloc> SizeClasses<A> {
    /// A block of class `class`: the first free one, or a fresh one from the
    /// current chunk (a new chunk when it has no room left; null when the
    /// general allocator has none).
    ///
    /// # Safety
    /// No other call on `self` may be running (one thread).
    #[inline]
    unsafe fn take(&self, class: usize) -> *mut u8 {
        // SAFETY: one thread, and this function does not re-enter itself
        // or `give` while the reference lives (the general allocator does
        // not call back into this one).
        let state = unsafe { &mut *self.state.get() };
        let head = state.free[class];
        if !head.is_null() {
            // SAFETY: a free block holds the next one's address in its
            // first word, written by `give`; blocks are 16-aligned.
            state.free[class] = unsafe { head.cast::<*mut u8>().read() };
            return head;
        }
        let size = (class + 1) * STEP;
        if (state.end as usize) - (state.next as usize) < size {
            // SAFETY: CHUNK is non-zero and its alignment a power of two.
            let chunk = unsafe {
                self.inner
                    .alloc(Layout::from_size_align_unchecked(CHUNK, STEP))
            };
            if chunk.is_null() {
                return ptr::null_mut();
            }
            // The rest of the old chunk, less than one block, is left.
            state.next = chunk;
            // SAFETY: the chunk is CHUNK bytes long.
            state.end = unsafe { chunk.add(CHUNK) };
        }
        let block = state.next;
        // SAFETY: at least `size` bytes are left before `end`.
        state.next = unsafe { block.add(size) };
        block
    }

    /// Puts a block of class `class` back on its free list.
    ///
    /// # Safety
    /// `block` came from `take(class)` and is no longer used; one thread.
    #[inline]
    unsafe fn give(&self, block: *mut u8, class: usize) {
        // SAFETY: as in `take`.
        let state = unsafe { &mut *self.state.get() };
        // SAFETY: a block is at least 16 bytes and 16-aligned, room for a
        // pointer.
        unsafe { block.cast::<*mut u8>().write(state.free[class]) };
        state.free[class] = block;
    }
}

// SAFETY: every block handed out is at least `layout.size()` bytes, aligned
// to `layout.align()` (small blocks are 16-aligned, from 16-aligned chunks,
// and only layouts aligned to at most 16 bytes get them), and owned by the
// caller until it is given back; a block goes back to where it came from,
// which `class_of` tells from the layout the caller must pass again.
unsafe impl<A: GlobalAlloc> GlobalAlloc for SizeClasses<A> {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        match class_of(layout) {
            // SAFETY: one thread (see `Sync`).
            Some(class) => unsafe { self.take(class) },
            // SAFETY: the caller's contract, passed on.
            None => unsafe { self.inner.alloc(layout) },
        }
    }

    #[inline]
    unsafe fn dealloc(&self, block: *mut u8, layout: Layout) {
        match class_of(layout) {
            // SAFETY: the caller allocated `block` with this layout, so from
            // this class.
            Some(class) => unsafe { self.give(block, class) },
            // SAFETY: the caller's contract, passed on.
            None => unsafe { self.inner.dealloc(block, layout) },
        }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        match class_of(layout) {
            Some(class) => {
                // SAFETY: one thread; a block of this class has room for
                // `layout.size()` bytes.
                unsafe {
                    let block = self.take(class);
                    if !block.is_null() {
                        ptr::write_bytes(block, 0, layout.size());
                    }
                    block
                }
            }
            // SAFETY: the caller's contract, passed on.
            None => unsafe { self.inner.alloc_zeroed(layout) },
        }
    }

    unsafe fn realloc(&self, block: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller guarantees the new size, with the old
        // alignment, makes a valid layout.
        let new_layout = unsafe { Layout::from_size_align_unchecked(new_size, layout.align()) };
        match (class_of(layout), class_of(new_layout)) {
            // The block already has room for the new size.
            (Some(old), Some(new)) if old == new => block,
            // SAFETY: the caller's contract, passed on; the general
            // allocator keeps its own blocks, growing them in place where
            // it can.
            (None, None) => unsafe { self.inner.realloc(block, layout, new_size) },
            _ => {
                // SAFETY: a fresh block for the new layout, the old bytes
                // that fit copied over (the two blocks are distinct), the old
                // block given back as the caller allocated it.
                unsafe {
                    let moved = self.alloc(new_layout);
                    if !moved.is_null() {
                        ptr::copy_nonoverlapping(block, moved, layout.size().min(new_size));
                        self.dealloc(block, layout);
                    }
                    moved
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::alloc::System;

    /// A small deterministic generator (xorshift), so a failure repeats.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
    }

    /// A live block: where, its layout, and the byte it was filled with.
    struct Live {
        at: *mut u8,
        layout: Layout,
        fill: u8,
    }

    fn check(b: &Live) {
        // SAFETY: `at` is a live block of `layout.size()` bytes.
        let bytes = unsafe { std::slice::from_raw_parts(b.at, b.layout.size()) };
        assert!(
            bytes.iter().all(|&x| x == b.fill),
            "a block of {} bytes lost its contents",
            b.layout.size()
        );
    }

    fn fill(b: &Live) {
        // SAFETY: as in `check`.
        unsafe { ptr::write_bytes(b.at, b.fill, b.layout.size()) };
    }

    #[test]
    fn classes_round_up_to_sixteen_bytes() {
        let l = |size, align| Layout::from_size_align(size, align).unwrap();
        assert_eq!(class_of(l(0, 1)), Some(0));
        assert_eq!(class_of(l(1, 1)), Some(0));
        assert_eq!(class_of(l(16, 8)), Some(0));
        assert_eq!(class_of(l(17, 8)), Some(1));
        assert_eq!(class_of(l(SMALL_MAX, 16)), Some(CLASSES - 1));
        assert_eq!(class_of(l(SMALL_MAX + 1, 1)), None);
        assert_eq!(
            class_of(l(8, 32)),
            None,
            "an alignment over 16 goes to the general allocator"
        );
    }

    /// Random allocations, frees, zeroed allocations and reallocations of
    /// sizes around the small limit and aligned up to 64 bytes: every block
    /// is aligned as asked, keeps its contents until it is freed, and
    /// overlaps no other live block (each is filled with its own byte and
    /// checked after every step); a zeroed block reads zero; a reallocated
    /// block keeps the bytes that fit.
    #[test]
    fn blocks_keep_their_bytes_their_alignment_and_their_own_room() {
        let heap = SizeClasses::new(System);
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        let mut live: Vec<Live> = Vec::new();
        let mut fills = 0u8;
        for step in 0..20_000 {
            let op = rng.below(10);
            if op < 5 || live.is_empty() {
                let size = match rng.below(4) {
                    0 => rng.below(33) as usize,
                    1 => rng.below(SMALL_MAX as u64 + 1) as usize,
                    2 => SMALL_MAX - 8 + rng.below(17) as usize,
                    _ => rng.below(8 * SMALL_MAX as u64) as usize,
                };
                let align = 1 << rng.below(7);
                let layout = Layout::from_size_align(size.max(1), align).unwrap();
                let zeroed = rng.below(3) == 0;
                // SAFETY: a non-zero size.
                let at = unsafe {
                    if zeroed {
                        heap.alloc_zeroed(layout)
                    } else {
                        heap.alloc(layout)
                    }
                };
                assert!(!at.is_null(), "step {step}: out of memory");
                assert_eq!(at as usize % align, 0, "step {step}: {layout:?} misaligned");
                if zeroed {
                    // SAFETY: a fresh block of `size` bytes.
                    let bytes = unsafe { std::slice::from_raw_parts(at, layout.size()) };
                    assert!(
                        bytes.iter().all(|&x| x == 0),
                        "step {step}: a zeroed block is not"
                    );
                }
                fills = fills.wrapping_add(1);
                let b = Live {
                    at,
                    layout,
                    fill: fills,
                };
                fill(&b);
                live.push(b);
            } else if op < 8 {
                let b = live.swap_remove(rng.below(live.len() as u64) as usize);
                check(&b);
                // SAFETY: a live block with its layout.
                unsafe { heap.dealloc(b.at, b.layout) };
            } else {
                let i = rng.below(live.len() as u64) as usize;
                let new_size = (rng.below(3 * SMALL_MAX as u64) as usize).max(1);
                let b = &mut live[i];
                check(b);
                // SAFETY: a live block with its layout; the new size with
                // its alignment is a valid layout.
                let at = unsafe { heap.realloc(b.at, b.layout, new_size) };
                assert!(!at.is_null(), "step {step}: out of memory");
                assert_eq!(at as usize % b.layout.align(), 0, "step {step}: misaligned");
                let kept = b.layout.size().min(new_size);
                // SAFETY: the block has `new_size` bytes, `kept` of them the old.
                let bytes = unsafe { std::slice::from_raw_parts(at, kept) };
                assert!(
                    bytes.iter().all(|&x| x == b.fill),
                    "step {step}: realloc lost bytes"
                );
                b.at = at;
                b.layout = Layout::from_size_align(new_size, b.layout.align()).unwrap();
                fill(b);
            }
            if step % 97 == 0 {
                live.iter().for_each(check);
            }
        }
        live.iter().for_each(check);
        // Live blocks never overlap.
        let mut spans: Vec<(usize, usize)> = live
            .iter()
            .map(|b| (b.at as usize, b.at as usize + b.layout.size()))
            .collect();
        spans.sort_unstable();
        assert!(
            spans.windows(2).all(|w| w[0].1 <= w[1].0),
            "two live blocks overlap"
        );
        for b in live {
            // SAFETY: a live block with its layout.
            unsafe { heap.dealloc(b.at, b.layout) };
        }
    }

    /// A freed small block is the next one its class hands out, and a
    /// block of another class is not taken from it.
    #[test]
    fn a_freed_block_is_reused_by_its_class_only() {
        let heap = SizeClasses::new(System);
        let l24 = Layout::from_size_align(24, 8).unwrap();
        let l40 = Layout::from_size_align(40, 8).unwrap();
        // SAFETY: non-zero layouts; each block freed with its own.
        unsafe {
            let a = heap.alloc(l24);
            heap.dealloc(a, l24);
            let b = heap.alloc(l40);
            assert_ne!(a, b, "a 40-byte block came from the 32-byte class");
            let c = heap.alloc(Layout::from_size_align(30, 2).unwrap());
            assert_eq!(a, c, "the freed 32-byte block was not reused");
            heap.dealloc(b, l40);
            heap.dealloc(c, Layout::from_size_align(30, 2).unwrap());
        }
    }
}
