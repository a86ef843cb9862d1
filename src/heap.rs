//! The WASM module's allocator: a small one in place of std's dlmalloc (a
//! tenth of its code). Blocks up to 32 KiB come in powers of two, cut from
//! 64 KiB pages and kept on one free list per size; larger ones are runs of
//! whole pages, kept on a first-fit list and split when reused. Memory taken
//! from the host is reused, never returned (WASM memory cannot shrink).
//!
//! The logic is generic over where pages come from, so native tests can run
//! it on a buffer; only the binding installs it as the global allocator.

use std::alloc::Layout;

pub const PAGE: usize = 65_536;
/// Block sizes 16, 32, ... 32768.
const CLASSES: usize = 12;
const SMALLEST: usize = 16;

/// Where pages come from.
pub trait Pages {
    /// `n` more pages, contiguous; the address of the first, or `None`.
    fn grow(&mut self, n: usize) -> Option<usize>;
}

pub struct Heap<P> {
    pages: P,
    /// Head of each size's free list (0: empty); a free block holds the next one's address.
    free: [usize; CLASSES],
    /// Head of the free page runs (in address order); a free run holds `[next, pages]`.
    runs: usize,
    /// Pages taken from the host so far.
    held: usize,
}

/// The size class of a layout, `None` for a run of pages.
fn class(layout: Layout) -> Option<usize> {
    let size = layout
        .size()
        .max(layout.align())
        .max(SMALLEST)
        .checked_next_power_of_two()?;
    let k = (size.trailing_zeros() - SMALLEST.trailing_zeros()) as usize;
    (k < CLASSES).then_some(k)
}

fn pages_for(size: usize) -> usize {
    size.div_ceil(PAGE).max(1)
}

impl<P: Pages> Heap<P> {
    pub const fn new(pages: P) -> Heap<P> {
        Heap {
            pages,
            free: [0; CLASSES],
            runs: 0,
            held: 0,
        }
    }

    /// # Safety
    /// The caller owns the heap exclusively (one thread) and its pages are memory.
    pub unsafe fn alloc(&mut self, layout: Layout) -> *mut u8 {
        if layout.align() > PAGE {
            return std::ptr::null_mut();
        }
        match class(layout) {
            Some(k) => {
                if self.free.get(k) == Some(&0) && !self.refill(k) {
                    return std::ptr::null_mut();
                }
                let Some(head) = self.free.get_mut(k) else {
                    return std::ptr::null_mut();
                };
                let block = *head;
                // SAFETY: a free block holds the address of the next free block.
                *head = unsafe { (block as *const usize).read() };
                block as *mut u8
            }
            None => self
                .take_run(pages_for(layout.size()))
                .map_or(std::ptr::null_mut(), |a| a as *mut u8),
        }
    }

    /// # Safety
    /// `ptr` was allocated by this heap with `layout` and is not used again.
    pub unsafe fn dealloc(&mut self, ptr: *mut u8, layout: Layout) {
        match class(layout) {
            Some(k) => {
                if let Some(head) = self.free.get_mut(k) {
                    // SAFETY: the block is ours again and at least a word long.
                    unsafe { (ptr as *mut usize).write(*head) };
                    *head = ptr as usize;
                }
            }
            None => unsafe { self.put_run(ptr as usize, pages_for(layout.size())) },
        }
    }

    /// # Safety
    /// As [`Heap::dealloc`]; `new_size` is not zero.
    pub unsafe fn realloc(&mut self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let Ok(new) = Layout::from_size_align(new_size, layout.align()) else {
            return std::ptr::null_mut();
        };
        // The block it has already fits.
        let same = match (class(layout), class(new)) {
            (Some(a), Some(b)) => a == b,
            (None, None) => pages_for(layout.size()) == pages_for(new_size),
            _ => false,
        };
        if same {
            return ptr;
        }
        // SAFETY: as `alloc` and `dealloc`; the two blocks do not overlap.
        unsafe {
            let moved = self.alloc(new);
            if !moved.is_null() {
                std::ptr::copy_nonoverlapping(ptr, moved, layout.size().min(new_size));
                self.dealloc(ptr, layout);
            }
            moved
        }
    }

    /// Cuts a fresh page into free blocks of class `k`.
    fn refill(&mut self, k: usize) -> bool {
        let Some(page) = self.take_run(1) else { return false };
        let Some(head) = self.free.get_mut(k) else { return false };
        let size = SMALLEST << k;
        let mut at = page + PAGE;
        while at > page {
            at -= size;
            // SAFETY: the page is ours and unused; `at` is inside it, word-aligned.
            unsafe { (at as *mut usize).write(*head) };
            *head = at;
        }
        true
    }

    /// `n` pages: the first free run long enough (split), else new ones.
    fn take_run(&mut self, n: usize) -> Option<usize> {
        let mut link: *mut usize = &mut self.runs;
        // SAFETY: every run on the list is free memory holding `[next, pages]`.
        unsafe {
            while *link != 0 {
                let run = *link;
                let header = run as *mut usize;
                let (next, pages) = (header.read(), header.add(1).read());
                if pages >= n {
                    if pages == n {
                        *link = next;
                    } else {
                        let rest = run + n * PAGE;
                        (rest as *mut usize).write(next);
                        (rest as *mut usize).add(1).write(pages - n);
                        *link = rest;
                    }
                    return Some(run);
                }
                link = header;
            }
        }
        // Memory is asked for in steps of at least 1 MiB and an eighth of what
        // is held (asking the host is slow); the surplus is a free run.
        let step = n.max(16).max(self.held / 8);
        let (run, got) = match self.pages.grow(step) {
            Some(run) => (run, step),
            None => (self.pages.grow(n)?, n),
        };
        self.held += got;
        if got > n {
            // SAFETY: the pages past the first `n` are new and unused.
            unsafe { self.put_run(run + n * PAGE, got - n) };
        }
        Some(run)
    }

    /// Frees a run, kept in address order and merged with free neighbours,
    /// so freed pages come back together.
    ///
    /// # Safety
    /// `run` is `n` free pages of this heap.
    unsafe fn put_run(&mut self, run: usize, n: usize) {
        let mut before: *mut usize = &mut self.runs;
        let mut prev = 0usize;
        // SAFETY: every run on the list is free memory holding `[next, pages]`.
        unsafe {
            while *before != 0 && *before < run {
                prev = *before;
                before = prev as *mut usize;
            }
            let next = *before;
            let mut pages = n;
            let mut after = next;
            if after != 0 && run + n * PAGE == after {
                pages += (after as *const usize).add(1).read();
                after = (after as *const usize).read();
            }
            if prev != 0 && prev + (prev as *const usize).add(1).read() * PAGE == run {
                pages += (prev as *const usize).add(1).read();
                (prev as *mut usize).write(after);
                (prev as *mut usize).add(1).write(pages);
                return;
            }
            (run as *mut usize).write(after);
            (run as *mut usize).add(1).write(pages);
            *before = run;
        }
    }
}

/// The global allocator of the WASM module.
#[cfg(target_arch = "wasm32")]
pub mod global {
    use std::alloc::{GlobalAlloc, Layout};
    use std::cell::UnsafeCell;

    use super::{Heap, Pages, PAGE};

    pub struct Memory;

    impl Pages for Memory {
        fn grow(&mut self, n: usize) -> Option<usize> {
            let before = core::arch::wasm32::memory_grow(0, n);
            (before != usize::MAX).then(|| before * PAGE)
        }
    }

    pub struct Allocator(UnsafeCell<Heap<Memory>>);

    // SAFETY: a wasm32 module without threads runs one thread.
    unsafe impl Sync for Allocator {}

    #[global_allocator]
    static ALLOCATOR: Allocator = Allocator(UnsafeCell::new(Heap::new(Memory)));

    // SAFETY: one thread, and no allocator call re-enters another.
    unsafe impl GlobalAlloc for Allocator {
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            unsafe { (*self.0.get()).alloc(layout) }
        }
        unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
            unsafe { (*self.0.get()).dealloc(ptr, layout) }
        }
        unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
            unsafe { (*self.0.get()).realloc(ptr, layout, new_size) }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pages from a buffer, as WASM memory would give them.
    struct Buffer {
        memory: Vec<u8>,
        used: usize,
    }

    impl Pages for Buffer {
        fn grow(&mut self, n: usize) -> Option<usize> {
            let base = (self.memory.as_ptr() as usize).next_multiple_of(PAGE);
            let start = base + self.used * PAGE;
            if (start + n * PAGE) > self.memory.as_ptr() as usize + self.memory.len() {
                return None;
            }
            self.used += n;
            Some(start)
        }
    }

    #[test]
    fn blocks_are_distinct_aligned_reused_and_keep_their_bytes() {
        let mut heap = Heap::new(Buffer {
            memory: vec![0; 512 * PAGE],
            used: 0,
        });
        let mut live: Vec<(*mut u8, Layout, u8)> = Vec::new();
        let mut seed = 7u64;
        let (mut held, mut peak) = (0usize, 0usize);
        let rounded = |l: Layout| match class(l) {
            Some(k) => SMALLEST << k,
            None => pages_for(l.size()) * PAGE,
        };
        for step in 0..20_000u32 {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let r = (seed >> 33) as usize;
            if live.len() < 100 || (r % 2 == 0 && live.len() < 400) {
                let size = match r % 7 {
                    0 => 1 + r % 8,
                    1..=4 => 1 + r % 500,
                    5 => 1 + r % 40_000,
                    _ => 1 + r % 200_000,
                };
                let align = 1 << (r % 5);
                let layout = Layout::from_size_align(size, align).unwrap();
                let p = unsafe { heap.alloc(layout) };
                assert!(!p.is_null(), "step {step}");
                assert_eq!(p as usize % align, 0);
                let fill = step as u8;
                unsafe { std::ptr::write_bytes(p, fill, size) };
                held += rounded(layout);
                peak = peak.max(held);
                live.push((p, layout, fill));
            } else {
                let (p, layout, fill) = live.swap_remove(r % live.len());
                held -= rounded(layout);
                let bytes = unsafe { std::slice::from_raw_parts(p, layout.size()) };
                assert!(bytes.iter().all(|b| *b == fill), "a block was overwritten");
                if r % 2 == 0 {
                    let new_size = 1 + (r >> 3) % 70_000;
                    let q = unsafe { heap.realloc(p, layout, new_size) };
                    let kept = layout.size().min(new_size);
                    let bytes = unsafe { std::slice::from_raw_parts(q, kept) };
                    assert!(bytes.iter().all(|b| *b == fill), "realloc kept the bytes");
                    let layout = Layout::from_size_align(new_size, layout.align()).unwrap();
                    unsafe { std::ptr::write_bytes(q, fill, new_size) };
                    held += rounded(layout);
                    peak = peak.max(held);
                    live.push((q, layout, fill));
                } else {
                    unsafe { heap.dealloc(p, layout) };
                }
            }
        }
        // Freed pages are reused: the pages taken stay within twice the most
        // ever live (blocks rounded to their class), plus a page per class.
        assert!(
            heap.pages.used <= 2 * peak.div_ceil(PAGE) + CLASSES + 16,
            "{} pages for {peak} bytes",
            heap.pages.used
        );
        // Every live block is intact at the end.
        for (p, layout, fill) in live {
            let bytes = unsafe { std::slice::from_raw_parts(p, layout.size()) };
            assert!(bytes.iter().all(|b| *b == fill));
        }
    }
}
