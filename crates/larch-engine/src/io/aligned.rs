//! [`AlignedBuf`]: a zeroed heap buffer aligned for `O_DIRECT` I/O.

use std::alloc::{alloc_zeroed, dealloc, Layout};
use std::ptr::NonNull;

/// Alignment used for every buffer that may meet `O_DIRECT` (covers 4 KiB sectors).
pub const IO_ALIGN: usize = 4096;

/// Buffers at least this large are mapped from the kernel (anonymous `mmap`):
/// their pages are zero and cost no memory until first touched, so a 1 GiB
/// buffer pool is not resident before it is used.
const MMAP_THRESHOLD: usize = 2 << 20;

/// A fixed-size, zero-initialised byte buffer aligned to [`IO_ALIGN`].
pub struct AlignedBuf {
    ptr: NonNull<u8>,
    len: usize,
    mapped: bool,
}

// SAFETY: `AlignedBuf` owns its allocation exclusively, like a `Box<[u8]>`.
unsafe impl Send for AlignedBuf {}
// SAFETY: shared access only hands out `&[u8]`; mutation needs `&mut self`.
unsafe impl Sync for AlignedBuf {}

impl AlignedBuf {
    /// Allocates `len` zeroed bytes (`len` may be 0). Aborts on allocation failure
    /// like every other Rust allocation.
    pub fn zeroed(len: usize) -> Self {
        let layout = Self::layout(len);
        if layout.size() == 0 {
            return Self {
                ptr: NonNull::dangling(),
                len: 0,
                mapped: false,
            };
        }
        if len >= MMAP_THRESHOLD {
            // SAFETY: anonymous private mapping of `len` bytes; no file, no
            // existing memory is touched. The result is checked for MAP_FAILED.
            let raw = unsafe {
                libc::mmap(
                    std::ptr::null_mut(),
                    len,
                    libc::PROT_READ | libc::PROT_WRITE,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                    -1,
                    0,
                )
            };
            if raw != libc::MAP_FAILED {
                if let Some(ptr) = NonNull::new(raw.cast::<u8>()) {
                    // Mappings are page-aligned, which covers IO_ALIGN.
                    return Self {
                        ptr,
                        len,
                        mapped: true,
                    };
                }
            }
        }
        // SAFETY: the layout has a non-zero size, checked above.
        let raw = unsafe { alloc_zeroed(layout) };
        let Some(ptr) = NonNull::new(raw) else {
            std::alloc::handle_alloc_error(layout)
        };
        Self {
            ptr,
            len,
            mapped: false,
        }
    }

    fn layout(len: usize) -> Layout {
        match Layout::from_size_align(len, IO_ALIGN) {
            Ok(layout) => layout,
            // Only reachable for lengths near isize::MAX, which no caller asks for.
            Err(_) => std::alloc::handle_alloc_error(Layout::new::<u8>()),
        }
    }

    /// Raw pointer to the first byte (for frame arenas that hand out sub-slices).
    pub fn as_ptr(&self) -> *mut u8 {
        self.ptr.as_ptr()
    }

    /// Length in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when the buffer has no bytes.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl std::ops::Deref for AlignedBuf {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        // SAFETY: `ptr` points to `len` initialised bytes owned by `self` (or is a
        // dangling, well-aligned pointer with `len == 0`).
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl std::ops::DerefMut for AlignedBuf {
    fn deref_mut(&mut self) -> &mut [u8] {
        // SAFETY: as in `deref`, and `&mut self` guarantees exclusive access.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

impl Drop for AlignedBuf {
    fn drop(&mut self) {
        if self.mapped {
            // SAFETY: mapped in `zeroed` with exactly this length; no reference
            // into the buffer outlives `self`.
            unsafe { libc::munmap(self.ptr.as_ptr().cast(), self.len) };
        } else if self.len != 0 {
            // SAFETY: allocated in `zeroed` with exactly this layout.
            unsafe { dealloc(self.ptr.as_ptr(), Self::layout(self.len)) };
        }
    }
}

impl std::fmt::Debug for AlignedBuf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "AlignedBuf({} bytes)", self.len)
    }
}

/// True when `buf` and `offset` meet the alignment `O_DIRECT` requires.
pub fn is_aligned(buf: &[u8], offset: u64) -> bool {
    (buf.as_ptr() as usize) % IO_ALIGN == 0
        && buf.len() % IO_ALIGN == 0
        && offset % IO_ALIGN as u64 == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aligned_and_zeroed() {
        let mut b = AlignedBuf::zeroed(3 * IO_ALIGN);
        assert_eq!(b.as_ptr() as usize % IO_ALIGN, 0);
        assert!(b.iter().all(|&x| x == 0));
        b[5] = 7;
        assert_eq!(b[5], 7);
        assert!(is_aligned(&b, 0));
        assert!(!is_aligned(&b[1..], 0));
        assert!(AlignedBuf::zeroed(0).is_empty());
        // A large buffer is mapped lazily but reads as zeros and is writable.
        let mut big = AlignedBuf::zeroed(8 << 20);
        assert_eq!(big.as_ptr() as usize % IO_ALIGN, 0);
        assert!(big[..4096].iter().all(|&x| x == 0) && big[(8 << 20) - 1] == 0);
        big[(8 << 20) - 1] = 3;
        assert_eq!(big[(8 << 20) - 1], 3);
    }
}
