//! A vector made of fixed-capacity chunks.

/// Events per chunk: 4096 kernel records are ~300 KiB, small enough to allocate on the delivery
/// thread without a noticeable pause, large enough that chunk bookkeeping is negligible.
pub const CHUNK: usize = 4096;

#[derive(Debug, Clone)]
pub struct ChunkedVec<T> {
    chunks: Vec<Vec<T>>,
    len: usize,
}

impl<T> Default for ChunkedVec<T> {
    fn default() -> Self {
        ChunkedVec {
            chunks: Vec::new(),
            len: 0,
        }
    }
}

impl<T> ChunkedVec<T> {
    pub fn new() -> Self {
        Self::default()
    }

    #[inline]
    pub fn push(&mut self, value: T) {
        match self.chunks.last_mut() {
            Some(c) if c.len() < CHUNK => c.push(value),
            _ => {
                let mut c = Vec::with_capacity(CHUNK);
                c.push(value);
                self.chunks.push(c);
            }
        }
        self.len += 1;
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The most recently pushed value.
    pub fn last_mut(&mut self) -> Option<&mut T> {
        self.chunks.last_mut().and_then(|c| c.last_mut())
    }

    pub fn iter(&self) -> impl Iterator<Item = &T> {
        self.chunks.iter().flat_map(|c| c.iter())
    }

    /// Moves every event out, leaving the store empty (used once, at finalize).
    pub fn drain_into(&mut self, out: &mut Vec<T>) {
        out.reserve(self.len);
        for c in self.chunks.drain(..) {
            out.extend(c);
        }
        self.len = 0;
    }

    /// Moves the chunks out as they are (no copy), leaving the store empty.
    pub fn take_chunks(&mut self) -> Vec<Vec<T>> {
        self.len = 0;
        std::mem::take(&mut self.chunks)
    }

    /// Bytes held by chunk storage (for diagnostics).
    pub fn capacity_bytes(&self) -> usize {
        self.chunks
            .iter()
            .map(|c| c.capacity() * std::mem::size_of::<T>())
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn push_across_chunks_keeps_order() {
        let mut v = ChunkedVec::new();
        for i in 0..(CHUNK * 2 + 10) {
            v.push(i);
        }
        assert_eq!(v.len(), CHUNK * 2 + 10);
        assert!(v.iter().copied().eq(0..CHUNK * 2 + 10));
        assert_eq!(v.capacity_bytes(), 3 * CHUNK * std::mem::size_of::<usize>());
        let mut out = Vec::new();
        v.drain_into(&mut out);
        assert_eq!(out.len(), CHUNK * 2 + 10);
        assert!(v.is_empty());
        assert_eq!(out[CHUNK], CHUNK);
    }
}
