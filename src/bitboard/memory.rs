//! Large fresh allocations backed by transparent huge pages where Linux allows it on request (`madvise` mode,
//! the usual default): the hash tables of the fast backend (`crate::fast::hash`), the frontier's merged
//! levels and a split's results (`crate::deep`). A table of 64 MiB written from scratch then takes 32 page
//! faults, not 16,384; at about 4 µs a fault on a virtual machine that was some 70 ms of a `perft --depth 7`
//! (docs/cpu-backend.md). Advice only: where it is refused, or elsewhere than Linux, nothing changes but the
//! speed.

/// Bytes of one huge page (x86-64 and most 64-bit ARM kernels).
const HUGE: usize = 2 << 20;

/// Advise huge pages for the 2 MiB-aligned part of the `len` bytes at `ptr`, which must lie inside one live
/// allocation of the caller (ideally not yet written: pages already faulted in stay small until the kernel
/// merges them). Ranges under 2 MiB are left alone.
fn advise_huge_pages(ptr: *mut u8, len: usize) {
    let start = (ptr as usize).next_multiple_of(HUGE);
    let end = (ptr as usize).saturating_add(len) / HUGE * HUGE;
    if end <= start {
        return;
    }
    #[cfg(target_os = "linux")]
    // Safety: the range lies inside the caller's allocation; MADV_HUGEPAGE changes no contents and no
    // mapping rights, only how later faults are served.
    #[allow(unsafe_code)]
    unsafe {
        libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
    }
}

/// [`advise_huge_pages`] for the spare capacity of `v` (the room beyond its length, not yet written).
pub fn advise_spare<T>(v: &mut Vec<T>) {
    let spare = v.spare_capacity_mut();
    let len = std::mem::size_of_val(spare);
    advise_huge_pages(spare.as_mut_ptr().cast(), len);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn advice_leaves_the_contents_and_small_ranges_alone() {
        // 6 MiB: at least one aligned 2 MiB page inside whatever the allocator returns. Advice on memory
        // already written keeps it (an advice that dropped pages, like MADV_DONTNEED, would read zeros).
        let mut v: Vec<u64> = Vec::with_capacity(6 << 17);
        advise_spare(&mut v);
        v.extend((0..6u64 << 17).map(|i| i ^ 0x5a5a));
        advise_huge_pages(v.as_mut_ptr().cast(), v.len() * 8);
        assert!(v.iter().enumerate().all(|(i, &x)| x == i as u64 ^ 0x5a5a));
        let mut small = vec![1u8; 100];
        advise_huge_pages(small.as_mut_ptr(), small.len());
        assert_eq!(small, vec![1u8; 100]);
    }
}
